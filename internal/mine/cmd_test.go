package mine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	out := filepath.Join(t.TempDir(), "out")
	var stderr bytes.Buffer
	code := Main(t.Context(), []string{"--out", out, "--goroot", "", "--modcache", "", "--dir", "gomod=" + filepath.Join(dir, "gomod"),
		"--node-modules", filepath.Join(dir, "nm-missing")}, &stderr)
	if code != 1 {
		t.Errorf("missing node_modules: exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	stderr.Reset()
	code = Main(t.Context(), []string{"--out", out, "--goroot", "", "--modcache", "", "--dir", "gomod=" + filepath.Join(dir, "gomod"), "--heldout", "0"}, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "9 pairs from 1 sources") {
		t.Errorf("summary missing: %s", stderr.String())
	}
	for _, f := range []string{PairsFile, ManifestFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	for _, args := range [][]string{{}, {"--out", out, "extra"}, {"--out", out, "--dir", "noequals"}, {"--bogus"}} {
		if code := Main(t.Context(), append(args, "--goroot", "", "--modcache", ""), &bytes.Buffer{}); code != 2 {
			t.Errorf("Main(%q) = %d, want 2", args, code)
		}
	}
}
