package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

func TestApplyInserts(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	a := file("pkg/a.go", "go", chunk("Open", 0, "open file handle"), chunk("Close", 100, "close file handle"))
	b := file("lib/b.py", "python", chunk("parse", 0, "parse args"))
	apply(t, db, a, b)

	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.FileState{
		"pkg/a.go": {Size: a.File.Size, ModTime: a.File.ModTime, Hash: a.File.Hash},
		"lib/b.py": {Size: b.File.Size, ModTime: b.File.ModTime, Hash: b.File.Hash},
	}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("FileStates mismatch (-want +got):\n%s", diff)
	}
	for match, want := range map[string][]string{
		"handle":        {"Open", "Close"},
		"close":         {"Close"},
		"args":          {"parse"},
		"file AND open": {"Open"},
		"missing":       nil,
	} {
		got := search(t, db, match, weights)
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("search %q mismatch (-want +got):\n%s", match, diff)
		}
	}
}

func TestApplyReplacesChunks(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db,
		file("a.go", "go", chunk("Old", 0, "alpha shared"), chunk("Older", 50, "alpha beta shared")),
		file("other.go", "go", chunk("Other", 0, "shared")))
	old := search(t, db, "alpha", weights)
	if len(old) != 2 {
		t.Fatalf("search alpha before replacing = %q, want two chunks", old)
	}
	oldRows, err := db.FileChunks(t.Context(), "a.go")
	if err != nil {
		t.Fatal(err)
	}

	apply(t, db, file("a.go", "go", chunk("New", 0, "gamma shared")))

	for match, want := range map[string][]string{
		"alpha":  nil,
		"beta":   nil,
		"old":    nil,
		"gamma":  {"New"},
		"shared": {"New", "Other"},
	} {
		got := search(t, db, match, weights)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after re-Apply, search %q mismatch (-want +got):\n%s", match, diff)
		}
	}
	rows, err := db.FileChunks(t.Context(), "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Name != "New" {
		t.Errorf("FileChunks after re-Apply = %v, want only New", rows)
	}
	ids := make([]int64, len(oldRows))
	for i, r := range oldRows {
		ids[i] = r.ID
	}
	if gone, err := db.Chunks(t.Context(), ids); err != nil || len(gone) != 0 {
		t.Errorf("Chunks(old ids) = %v, %v; want none", gone, err)
	}
	// DocFreqs counts live chunks only, before and after the replaced
	// chunks' postings are compacted away.
	for i, when := range []string{"before compaction", "after compaction"} {
		df, err := db.DocFreqs(t.Context(), []string{"alpha", "beta", "gamma", "shared"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{"alpha": 0, "beta": 0, "gamma": 1, "shared": 2}, df); diff != "" {
			t.Errorf("DocFreqs after re-Apply, %s, mismatch (-want +got):\n%s", when, diff)
		}
		if i == 0 {
			compact(t, db)
		}
	}
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != 2 || c.Chunks != 2 {
		t.Errorf("Count after re-Apply = %+v, want 2 files, 2 chunks", c)
	}
}

func TestApplyDelete(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db,
		file("a.go", "go", chunk("A1", 0, "alpha shared"), chunk("A2", 10, "alpha")),
		file("b.go", "go", chunk("B1", 0, "beta shared")))
	rows, err := db.FileChunks(t.Context(), "a.go")
	if err != nil {
		t.Fatal(err)
	}

	apply(t, db, deletion("a.go"), deletion("never-indexed.go"))

	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states["a.go"]; ok || len(states) != 1 {
		t.Errorf("FileStates after Delete = %v, want only b.go", states)
	}
	if got, err := db.FileChunks(t.Context(), "a.go"); err != nil || len(got) != 0 {
		t.Errorf("FileChunks(a.go) after Delete = %v, %v; want none", got, err)
	}
	if got, err := db.Chunks(t.Context(), []int64{rows[0].ID, rows[1].ID}); err != nil || len(got) != 0 {
		t.Errorf("Chunks of a.go after Delete = %v, %v; want none", got, err)
	}
	if got := search(t, db, "alpha", weights); got != nil {
		t.Errorf("search alpha after Delete = %q, want none", got)
	}
	if got := search(t, db, "shared", weights); !slices.Equal(got, []string{"B1"}) {
		t.Errorf("search shared after Delete = %q, want [B1]", got)
	}
	for i, when := range []string{"before compaction", "after compaction"} {
		df, err := db.DocFreqs(t.Context(), []string{"alpha", "shared", "a1"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{"alpha": 0, "shared": 1, "a1": 0}, df); diff != "" {
			t.Errorf("DocFreqs after Delete, %s, mismatch (-want +got):\n%s", when, diff)
		}
		if i == 0 {
			compact(t, db)
		}
	}

	// A deleted path can be indexed again.
	apply(t, db, file("a.go", "go", chunk("A3", 0, "alpha")))
	if got := search(t, db, "alpha", weights); !slices.Equal(got, []string{"A3"}) {
		t.Errorf("search alpha after re-adding = %q, want [A3]", got)
	}
}

func TestApplyCanceled(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := db.Apply(ctx, []store.Update{file("a.go", "go", chunk("A", 0, "alpha"))}); err == nil {
		t.Fatal("Apply with a canceled context succeeded")
	}
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != 0 || c.Chunks != 0 {
		t.Errorf("Count after a canceled Apply = %+v, want nothing written", c)
	}
	// The writer is still usable.
	apply(t, db, file("a.go", "go", chunk("A", 0, "alpha")))
}

func TestApplyIsAtomic(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db, file("keep.go", "go", chunk("Keep", 0, "kept")))
	bad := file("bad.go", "go", chunk("Bad", 0, "bad"))
	bad.File.Hash = nil // files.hash is NOT NULL
	err := db.Apply(t.Context(), []store.Update{
		file("new.go", "go", chunk("New", 0, "fresh")),
		deletion("keep.go"),
		bad,
	})
	if err == nil {
		t.Fatal("Apply with a NULL hash succeeded")
	}
	// Nothing of the failed batch is visible: not the new file, not the
	// deletion.
	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states["keep.go"]; !ok || len(states) != 1 {
		t.Errorf("FileStates after a failed batch = %v, want only keep.go", states)
	}
	if got := search(t, db, "fresh", weights); got != nil {
		t.Errorf("search fresh after a failed batch = %q, want none", got)
	}
	if got := search(t, db, "kept", weights); !slices.Equal(got, []string{"Keep"}) {
		t.Errorf("search kept after a failed batch = %q, want [Keep]", got)
	}
}

func TestVectors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	key := sha256.Sum256([]byte("model\x00func shared() {}"))
	other := sha256.Sum256([]byte("model\x00func other() {}"))
	vecA := []byte{1, 2, 3, 4}
	vecB := []byte{9, 9, 9, 9}

	a := file("a.go", "go", chunk("SharedA", 0, "shared"), chunk("NoVector", 20, "none"))
	a.Chunks[0].EmbedKey = key[:]
	a.Vectors = map[string][]byte{string(key[:]): vecA}
	// b.go has a chunk with the same text, so the same key; its vector
	// differs only to show that the first one stored is kept.
	b := file("b.go", "go", chunk("SharedB", 0, "shared"), chunk("Other", 20, "other"))
	b.Chunks[0].EmbedKey = key[:]
	b.Chunks[1].EmbedKey = other[:]
	b.Vectors = map[string][]byte{string(key[:]): vecB, string(other[:]): vecB}
	apply(t, db, a)
	apply(t, db, b)
	apply(t, db, b) // re-Apply: same keys, still one row each

	c, err := db.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Vectors != 2 {
		t.Errorf("Count().Vectors = %d, want 2 (one per distinct key)", c.Vectors)
	}

	all, err := db.EmbeddingKeys(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{string(key[:]): true, string(other[:]): true}, all); diff != "" {
		t.Errorf("EmbeddingKeys mismatch (-want +got):\n%s", diff)
	}
	if capped, err := db.EmbeddingKeys(ctx, 2); err != nil || len(capped) != 2 {
		t.Errorf("EmbeddingKeys with a limit of 2 = %v, %v; want both keys", capped, err)
	}
	if capped, err := db.EmbeddingKeys(ctx, 1); err != nil || capped != nil {
		t.Errorf("EmbeddingKeys with a limit of 1 = %v, %v; want nil (more keys than the limit)", capped, err)
	}

	rows, err := db.FileChunks(ctx, "b.go")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[int64]string{}
	for _, r := range rows {
		byName[r.ID] = r.Name
	}
	rows, err = db.FileChunks(ctx, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		byName[r.ID] = r.Name
	}
	if !slices.Equal(rows[0].EmbedKey, key[:]) || rows[1].EmbedKey != nil {
		t.Errorf("EmbedKeys of a.go = %x, %x; want %x, nil", rows[0].EmbedKey, rows[1].EmbedKey, key)
	}

	got := map[string][]byte{}
	expect := -1
	_, err = db.Vectors(ctx, func(_ store.Version, n int) error { expect = n; return nil }, func(id int64, vec []byte) error {
		got[byName[id]] = slices.Clone(vec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"SharedA": vecA, "SharedB": vecA, "Other": vecB}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Vectors mismatch (-want +got):\n%s", diff)
	}
	if expect != len(want) {
		t.Errorf("Vectors announced %d rows, then gave %d", expect, len(want))
	}

	stop := errors.New("stop")
	calls := 0
	_, err = db.Vectors(ctx, func(store.Version, int) error { return nil }, func(int64, []byte) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Vectors with a failing callback: error %v after %d calls, want stop after 1", err, calls)
	}
}

func TestEmbeddingKeysReportsErrors(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// A failed lookup must not read as "nothing stored", or the indexer
	// re-embeds text it already has.
	if keys, err := db.EmbeddingKeys(ctx, 0); err == nil {
		t.Errorf("EmbeddingKeys with a canceled context = %v, nil; want an error", keys)
	}
}

// compact runs CompactPostings and fails the test unless it merged.
func compact(t testing.TB, db *store.DB) {
	t.Helper()
	st, err := db.CompactPostings(t.Context())
	if err != nil {
		t.Fatalf("CompactPostings: %v", err)
	}
	if st.Segments == 0 {
		t.Fatalf("CompactPostings merged nothing")
	}
}
