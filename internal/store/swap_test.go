package store_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

// ReplaceWith gives the live database the other one's content in one
// transaction, and the content version moves past both databases' so no
// derived file of either passes for the result; a failed swap changes
// nothing.
func TestReplaceWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := openAt(t, filepath.Join(dir, "live.db"), nil)
	apply(t, live, file("old/a.go", "go", chunk("OldOpen", 0, "open old handle")))
	apply(t, live, file("old/b.go", "go", chunk("OldClose", 0, "close old handle")))
	before, err := live.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	nextPath := filepath.Join(dir, "next.db")
	next, err := store.Open(t.Context(), nextPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		apply(t, next, file("new/"+string(rune('a'+i))+".go", "go", chunk("NewOpen", 0, "open new handle")))
	}
	if err := next.SetMeta(t.Context(), map[string]string{store.MetaGeneration: "9"}); err != nil {
		t.Fatal(err)
	}
	nextVer, _ := next.Version(t.Context())
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}

	ver, err := live.ReplaceWith(t.Context(), nextPath)
	if err != nil {
		t.Fatalf("ReplaceWith: %v", err)
	}
	if ver.IndexID != nextVer.IndexID || ver.IndexID == before.IndexID || ver.Content <= max(before.Content, nextVer.Content) {
		t.Errorf("version after the swap = %+v; want the rebuilt index's id %q (not %q) and content past %d and %d", ver, nextVer.IndexID, before.IndexID, before.Content, nextVer.Content)
	}
	if got, _ := live.Version(t.Context()); got != ver {
		t.Errorf("stored version %+v, ReplaceWith returned %+v", got, ver)
	}
	if got := search(t, live, "handle", weights); !cmp.Equal(got, []string{"NewOpen", "NewOpen", "NewOpen", "NewOpen", "NewOpen"}) {
		t.Errorf("BM25 after the swap = %v; want the new index's chunks only", got)
	}
	c, err := live.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != 5 || c.Chunks != 5 {
		t.Errorf("after the swap: %d files, %d chunks; want 5, 5", c.Files, c.Chunks)
	}
	if g, _ := live.Meta(t.Context(), store.MetaGeneration); g != "9" {
		t.Errorf("generation after the swap = %q, want the new index's 9", g)
	}
	// Later writes go on from the swapped-in content.
	apply(t, live, file("new/z.go", "go", chunk("Later", 0, "later handle")))
	if got := search(t, live, "later", weights); !cmp.Equal(got, []string{"Later"}) {
		t.Errorf("BM25 for a file written after the swap = %v", got)
	}
	if _, err := live.ReplaceWith(t.Context(), filepath.Join(dir, "missing.db")); err == nil {
		t.Error("ReplaceWith of a missing file succeeded")
	}
	if got := search(t, live, "later", weights); !cmp.Equal(got, []string{"Later"}) {
		t.Errorf("a failed swap changed the index: %v", got)
	}
}

// A search after ReplaceWith never takes a cached doc length of the
// replaced content: replaced twice with the same database and caught up
// differently each time, the index gives one chunk id two chunks with
// different token counts.
func TestReplaceWithDocLengths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := openAt(t, filepath.Join(dir, "live.db"), nil)
	nextPath := filepath.Join(dir, "next.db")
	next, err := store.Open(t.Context(), nextPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, next, file("a.go", "go", chunk("A", 0, "alpha beta")), file("b.go", "go", chunk("B", 0, "gamma")))
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}
	q := store.BM25Query{Terms: []string{"alpha"}, Weights: weights, Limit: 10}
	for i, body := range []string{"alpha", "alpha alpha beta beta gamma gamma delta delta epsilon"} {
		if _, err := live.ReplaceWith(t.Context(), nextPath); err != nil {
			t.Fatal(err)
		}
		apply(t, live, file("c.go", "go", chunk("C", 0, body)))
		got, err := live.SearchBM25(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		// A new handle has nothing cached.
		fresh := openAt(t, filepath.Join(dir, "live.db"), &store.Options{ReadOnly: true})
		want, err := fresh.SearchBM25(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round %d: search of the live handle (-new handle +live):\n%s", i, diff)
		}
	}
}
