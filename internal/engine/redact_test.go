package engine_test

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/internal/secrets/secretstest"
)

// TestCodeSpanMasksSecrets reads ranges of a file that cut a private-key
// block and a token at every line, from the indexed bytes and from the
// current file: no body line of the key and no part of the token is
// shown, other lines are shown as they are, and CTX_INCLUDE_SECRETS shows
// everything.
func TestCodeSpanMasksSecrets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	key := secretstest.Value("rsa-key", 3)
	tok := secretstest.Value("github-token", 3)
	src := "package deploy\n\n// Key is the deploy key.\nconst Key = `" + key + "`\n\nconst token = \"" + tok + "\"\n\nfunc Deploy() {}\n"
	writeFile(t, root, "deploy.go", src)
	planted := []secretstest.Planted{{Path: "deploy.go", Kind: "rsa-key", Value: key}, {Path: "deploy.go", Kind: "github-token", Value: tok}}

	cfg := testConfig(t)
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})
	if st := status(t, e); st.Redacted.Secrets != 2 || st.Redacted.Files != 1 || len(st.Redacted.List) != 1 ||
		st.Redacted.List[0].Path != "deploy.go" || strings.Join(st.Redacted.List[0].Rules, ",") != "github-token,private-key" {
		t.Errorf("status redacted = %+v", st.Redacted)
	}
	rawCfg := cfg
	rawCfg.IncludeSecrets = true
	raw := open(t, rawCfg, root, nil)

	lines := strings.SplitAfter(src, "\n")
	off := make([]int, len(lines)+1)
	for i, l := range lines {
		off[i+1] = off[i] + len(l)
	}
	// The current file's lines show what masking the whole file shows.
	masked := []byte(src)
	secrets.Redact("deploy.go", masked)
	maskedLines := strings.SplitAfter(string(masked), "\n")
	var all strings.Builder
	for a := 1; a <= len(lines); a++ {
		for b := a; b <= len(lines) && b < a+4; b++ {
			for _, stale := range []bool{false, true} {
				// Byte ranges that also start and end inside lines.
				for _, cut := range []int{0, 7} {
					start, end := min(off[a-1]+cut, off[b]), off[b]
					got := e.CodeSpan("deploy.go", start, end, a, b, stale)
					all.WriteString(got)
					if leaks := secretstest.Leaks([]byte(got), planted); len(leaks) > 0 {
						t.Errorf("CodeSpan(lines %d-%d, bytes %d-%d, stale %v) shows the %s:\n%s", a, b, start, end, stale, leaks[0].Kind, got)
					}
					if want := strings.Join(maskedLines[a-1:b], ""); stale && got != want {
						t.Errorf("CodeSpan(lines %d-%d, stale) = %q, want the lines of the masked file %q", a, b, got, want)
					}
					if len(got) != end-start && !stale && start < end {
						t.Errorf("CodeSpan(bytes %d-%d) has %d bytes", start, end, len(got))
					}
				}
			}
		}
	}
	for _, want := range []string{"func Deploy() {}", "-----BEGIN RSA", "[REDACTED:private-key]", "[REDACTED:github-token]"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no range shows %q", want)
		}
	}
	if got := raw.CodeSpan("deploy.go", 0, len(src), 1, len(lines), false); got != src {
		t.Errorf("with IncludeSecrets CodeSpan = %q, want the file as it is", got)
	}
}
