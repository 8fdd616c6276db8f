package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestIndexStatusSkippedMost checks that index_status lists, as a health
// problem with its fix, a repository whose files are mostly skipped:
// here links that leave the repository.
func TestIndexStatusSkippedMost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var st mcpserver.IndexStatusOutput
	mustCall(t, e.cs, "index_status", nil, &st)
	for _, h := range st.Health {
		if strings.Contains(h.Problem, "most files") {
			t.Errorf("fixture: unexpected health problem %+v", h)
		}
	}

	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "far.go"), []byte("package far\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := os.Symlink(filepath.Join(outside, "far.go"), filepath.Join(e.root, fmt.Sprintf("far%d.go", i))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	text := mustCall(t, e.cs, "index_status", nil, &st)
	var found bool
	for _, h := range st.Health {
		if strings.Contains(h.Problem, "most files are not indexed: skipped 20 of ") && strings.Contains(h.Problem, "20 symlink") &&
			strings.Contains(h.Fix, "symlink: only links to files inside the repository are followed") {
			found = true
		}
	}
	if !found {
		t.Errorf("index_status health %+v, want the skipped-most problem", st.Health)
	}
	if st.Status == nil || st.Status.SkippedMost == nil || st.Status.SkippedMost.Skipped != 20 {
		t.Errorf("index_status status.skipped_most = %+v", st.Status)
	}
	if !strings.Contains(text, "problem: most files are not indexed") {
		t.Errorf("index_status text:\n%s", text)
	}
}
