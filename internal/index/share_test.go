package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

// TestSkipShareAndLinks indexes a tree with a link to a file inside it
// (indexed under the link's path, found by search there), a link that
// leaves it, files skipped by name, by content and as secrets, and
// skipped directories, and checks which of them count as candidates, on
// the first run, on an unchanged second run (content skips carried
// forward) and in the plan status uses.
func TestSkipShareAndLinks(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	writeFile(t, outside, "far.go", "package far\n")
	writeFile(t, root, "a/real.go", "package a\n\nfunc GrizzlyTotal() int { return 1 }\n")
	writeFile(t, root, "b.go", "package b\n")
	writeFile(t, root, "data.txt", "x\x00y\n")                // binary by content
	writeFile(t, root, ".env", "TOKEN=abc\n")                 // secret
	writeFile(t, root, "logo.png", "png")                     // binary by name
	writeFile(t, root, "node_modules/x/i.js", "module.x=1\n") // a skipped directory
	writeFile(t, root, ".hg/store", "x")                      // version control
	for name, target := range map[string]string{
		"Sources/Name/real.go": "../../a/real.go",
		"far.go":               filepath.Join(outside, "far.go"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	db := openDB(t)
	want := SkipShare{Candidates: 7, Skipped: 4, Reasons: map[discover.Reason]int{
		discover.ReasonBinary: 2, discover.ReasonSecret: 1, discover.ReasonSymlink: 1,
	}}
	st := run(t, db, root, nil)
	if diff := cmp.Diff(want, st.SkipShare()); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Sources/Name/real.go", "a/real.go"}, found(t, db, "GrizzlyTotal")); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	st = run(t, db, root, nil)
	if diff := cmp.Diff(want, st.SkipShare()); diff != "" {
		t.Errorf("unchanged run (-want +got):\n%s", diff)
	}
	plan, err := NewPlan(t.Context(), db, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, plan.SkipShare()); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}

	// Editing the target re-indexes the link's path too: the link's file
	// carries the target's size and mtime.
	writeFile(t, root, "a/real.go", "package a\n\nfunc KodiakTotal() int { return 2 }\n")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(root, "a", "real.go"), later, later); err != nil {
		t.Fatal(err)
	}
	st = run(t, db, root, nil)
	if st.Changed != 2 {
		t.Errorf("after editing the target: %d changed, want 2 (the target and the link)", st.Changed)
	}
	if diff := cmp.Diff([]string{"Sources/Name/real.go", "a/real.go"}, found(t, db, "KodiakTotal")); diff != "" {
		t.Errorf("search after the edit (-want +got):\n%s", diff)
	}
}
