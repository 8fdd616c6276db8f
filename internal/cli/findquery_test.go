package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/cli"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

// run runs ctx in-process with args and stdin, returning stdout, stderr and
// the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), args, cli.IO{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return out.String(), errOut.String(), code
}

// TestFindLongQueryFromStdin: ctx find - reads the query from standard
// input; a query over the limit is searched by its first bytes, with a
// warning on stderr and query_truncated in the JSON stats, and the JSON
// echoes no more than a short prefix of it.
func TestFindLongQueryFromStdin(t *testing.T) {
	t.Setenv("CTX_EMBED_PROVIDER", "none")
	t.Setenv("CTX_MAX_QUERY_BYTES", "1024")
	root := t.TempDir()
	src := "package main\n\n// Zanzibar frobnicates the widget.\nfunc Zanzibar() int {\n\treturn 42\n}\n"
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--repo", root, "--cache-dir", t.TempDir()}
	query := "Zanzibar frobnicates " + strings.Repeat("x", 4000)
	stdout, stderr, code := run(t, query, append([]string{"find", "--json", "-"}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx find -: exit %d: %s", code, stderr)
	}
	var resp struct {
		Query   string `json:"query"`
		Results []struct {
			Path string `json:"path"`
		} `json:"results"`
		Stats struct {
			QueryTruncated     bool `json:"query_truncated"`
			QueryBytes         int  `json:"query_bytes"`
			QuerySearchedBytes int  `json:"query_searched_bytes"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if !resp.Stats.QueryTruncated || resp.Stats.QueryBytes != len(query) || resp.Stats.QuerySearchedBytes != 1024 {
		t.Errorf("stats = %+v, want truncated from %d to 1024 bytes", resp.Stats, len(query))
	}
	if len(resp.Query) > 210 || !strings.HasPrefix(resp.Query, "Zanzibar frobnicates") || !strings.HasSuffix(resp.Query, "…") {
		t.Errorf("query echoed as %d bytes %q, want a short prefix and …", len(resp.Query), resp.Query)
	}
	if len(resp.Results) == 0 {
		t.Error("no results for a query whose head names Zanzibar")
	}
	if !strings.Contains(stderr, "warning: the query is 4021 bytes; only its first 1024 were searched") {
		t.Errorf("stderr = %q, want a warning that the query was cut", stderr)
	}

	// Text output warns too; a query that fits does not.
	_, stderr, _ = run(t, query, append([]string{"find", "-"}, flags...)...)
	if !strings.Contains(stderr, "CTX_MAX_QUERY_BYTES") {
		t.Errorf("text output: stderr = %q, want the warning", stderr)
	}
	_, stderr, _ = run(t, "Zanzibar", append([]string{"find", "-"}, flags...)...)
	if strings.Contains(stderr, "warning") {
		t.Errorf("a short query: stderr = %q, want no warning", stderr)
	}
}

// TestProviderDownCLI: with the OpenAI-compatible embedding service that
// built the index refusing connections, ctx find answers from the lexical
// channels with a warning on stderr and stats.degraded, and ctx def, refs,
// callees, hierarchy and status answer without contacting it; a service
// that answers 500 gets no request from them either.
func TestProviderDownCLI(t *testing.T) {
	svc := embedtest.NewServer(t, "openai", 8)
	t.Setenv("CTX_EMBED_PROVIDER", "openai")
	t.Setenv("CTX_EMBED_MODEL", "test-embed")
	t.Setenv("CTX_EMBED_URL", svc.BaseURL())
	t.Setenv("CTX_EMBED_QUERY_TIMEOUT", "1s")
	root := t.TempDir()
	src := "package main\n\n// Zanzibar frobnicates the widget.\nfunc Zanzibar() int {\n\treturn 42\n}\n\nfunc main() { Zanzibar() }\n"
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--repo", root, "--cache-dir", t.TempDir()}
	if _, stderr, code := run(t, "", append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("ctx index: exit %d: %s", code, stderr)
	}

	for _, tc := range []struct{ name, cause string }{
		{"500", "HTTP 500 Internal Server Error: overloaded"},
		{"refused", "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc.SetReply(embedtest.Reply{Status: 500, RetryAfter: "30", Message: "overloaded"})
			if tc.name == "refused" {
				t.Setenv("CTX_EMBED_URL", embedtest.ClosedURL(t)+"/v1")
			}
			svc.ResetRequests()
			for _, args := range [][]string{{"def", "Zanzibar"}, {"refs", "Zanzibar"}, {"callees", "main"}, {"hierarchy", "Zanzibar"}, {"status", "--json"}, {"symbols", "--json"}} {
				if _, stderr, code := run(t, "", append(args, flags...)...); code != 0 {
					t.Errorf("ctx %s with the provider down: exit %d: %s", strings.Join(args, " "), code, stderr)
				}
			}
			if n := svc.Requests(); n != 0 {
				t.Errorf("def, refs, callees, hierarchy, status and symbols made %d requests, want none", n)
			}
			stdout, stderr, code := run(t, "", append([]string{"find", "--json", "Zanzibar frobnicates"}, flags...)...)
			if code != 0 {
				t.Fatalf("ctx find: exit %d: %s", code, stderr)
			}
			var resp struct {
				Results []struct{ Path string } `json:"results"`
				Stats   struct {
					Degraded string `json:"degraded"`
				} `json:"stats"`
			}
			if err := json.Unmarshal([]byte(stdout), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) == 0 || !strings.Contains(resp.Stats.Degraded, tc.cause) {
				t.Errorf("find: %d results, degraded %q; want lexical results and the cause %q", len(resp.Results), resp.Stats.Degraded, tc.cause)
			}
			if !strings.Contains(stderr, "warning: dense channel unavailable") || !strings.Contains(stderr, "CTX_EMBED_PROVIDER") {
				t.Errorf("find stderr = %q, want a warning with the fix", stderr)
			}
		})
	}
}
