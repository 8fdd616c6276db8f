package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/engine"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	start := time.Now().Add(-time.Second)
	rep := index(t, e, engine.IndexOptions{})
	st := status(t, e)

	wantLangs := map[string]int{"go": 2, "python": 1, "javascript": 1, "markdown": 1, "text": 1}
	if diff := cmp.Diff(wantLangs, st.Languages); diff != "" {
		t.Errorf("languages (-want +got):\n%s", diff)
	}
	wantSkips := map[string]int{string(discover.ReasonSecret): 1, string(discover.ReasonLockfile): 1, string(discover.ReasonBinary): 1}
	if diff := cmp.Diff(wantSkips, st.Skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if st.Files != len(fixtureFiles) || st.Chunks != rep.Stats.Chunks || st.Chunks < st.Files || st.Vectors != 0 {
		t.Errorf("files %d, chunks %d, vectors %d; want %d files, %d chunks, no vectors", st.Files, st.Chunks, st.Vectors, len(fixtureFiles), rep.Stats.Chunks)
	}
	if st.Root != e.Root() || st.IndexPath != e.DBPath() || st.IndexBytes <= 0 {
		t.Errorf("root %s, index %s (%d bytes)", st.Root, st.IndexPath, st.IndexBytes)
	}
	if st.Generation != rep.Generation || st.LastIndexed.Before(start.Truncate(time.Second)) || st.Stale {
		t.Errorf("generation %d (want %d), last indexed %v (want after %v), stale %v", st.Generation, rep.Generation, st.LastIndexed, start, st.Stale)
	}
	if !strings.Contains(st.Semantic, "lexical-only") {
		t.Errorf("Semantic = %q, want lexical-only", st.Semantic)
	}
	if st.Changed+st.Added+st.Deleted != 0 {
		t.Errorf("fresh index: changed %d, added %d, deleted %d", st.Changed, st.Added, st.Deleted)
	}

	// Edits on disk show up before the next Index.
	writeFile(t, root, "client/retry.go", "package client\n\n// Retry was removed.\n")
	writeFile(t, root, "client/http.go", "package client\n\nfunc Get() {}\n")
	if err := os.Remove(filepath.Join(root, "web", "render.js")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "secrets/.env.local", "TOKEN=x\n") // skipped: not counted
	st = status(t, e)
	if st.Changed != 1 || st.Added != 1 || st.Deleted != 1 {
		t.Errorf("after edits: changed %d, added %d, deleted %d; want 1, 1, 1", st.Changed, st.Added, st.Deleted)
	}
	if st.Files != len(fixtureFiles) {
		t.Errorf("Status changed the index: %d files", st.Files)
	}
	rep = index(t, e, engine.IndexOptions{})
	if s := rep.Stats; s.Changed != 1 || s.Added != 1 || s.Deleted != 1 {
		t.Errorf("Index after edits: changed %d, added %d, deleted %d", s.Changed, s.Added, s.Deleted)
	}
	if st = status(t, e); st.Changed+st.Added+st.Deleted != 0 || st.Skips[string(discover.ReasonSecret)] != 2 {
		t.Errorf("status after Index: changed %d, added %d, deleted %d, skips %v", st.Changed, st.Added, st.Deleted, st.Skips)
	}
}
