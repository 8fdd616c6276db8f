package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestDeferLookupIndexes checks the cold-run path: an empty index drops
// its name and import-target indexes, lookups by name still answer
// without them, BuildLookupIndexes and a full merge each bring them
// back, and an index that holds files never loses them.
func TestDeferLookupIndexes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTempDB(t)
	present := func() []string {
		var out []string
		for _, ix := range lookupIndexes {
			var n int
			if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, ix.name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				out = append(out, ix.name)
			}
		}
		return out
	}
	all := []string{"chunks_name", "names_name", "imports_target"}
	if got := present(); !slices.Equal(got, all) {
		t.Fatalf("a new index has lookup indexes %v, want %v", got, all)
	}
	update := func(path string, n int) Update {
		u := Update{File: File{Path: path, Language: "go", Hash: make([]byte, 32)}}
		for i := range n {
			name := fmt.Sprintf("%s%d", path[:1], i)
			u.Chunks = append(u.Chunks, Chunk{Name: name, Terms: [NumColumns]string{ColBody: "body " + name}})
			u.Names = append(u.Names, Name{Name: name, Kind: "func", Line: i + 1})
		}
		return u
	}
	lookups := func(step string) {
		t.Helper()
		chunks, err := db.ChunksByName(ctx, []string{"A3", "b1"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		names, err := db.NamesByName(ctx, []string{"a3"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 2 || len(names) != 1 || names[0].Path != "a.go" {
			t.Errorf("%s: ChunksByName gave %d chunks, NamesByName %v; want 2 chunks and a.go", step, len(chunks), names)
		}
	}

	deferred, err := db.DeferLookupIndexes(ctx)
	if err != nil || !deferred {
		t.Fatalf("DeferLookupIndexes on an empty index = %v, %v; want true", deferred, err)
	}
	if got := present(); len(got) != 0 {
		t.Fatalf("after DeferLookupIndexes, lookup indexes %v remain", got)
	}
	if err := db.Apply(ctx, []Update{update("a.go", 20), update("b.go", 5)}); err != nil {
		t.Fatal(err)
	}
	lookups("deferred")
	if deferred, err := db.DeferLookupIndexes(ctx); err != nil || deferred {
		t.Fatalf("DeferLookupIndexes on an index with files = %v, %v; want false", deferred, err)
	}
	if n, err := db.BuildLookupIndexes(ctx); err != nil || n != len(all) {
		t.Fatalf("BuildLookupIndexes = %d, %v; want %d", n, err, len(all))
	}
	if got := present(); !slices.Equal(got, all) {
		t.Fatalf("after BuildLookupIndexes, lookup indexes %v, want %v", got, all)
	}
	if n, err := db.BuildLookupIndexes(ctx); err != nil || n != 0 {
		t.Fatalf("BuildLookupIndexes again = %d, %v; want 0", n, err)
	}
	lookups("built")

	// A full merge builds them too (a cold run's last step), and keeps
	// them when they exist.
	db = openTempDB(t)
	if _, err := db.DeferLookupIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := db.Apply(ctx, []Update{update(fmt.Sprintf("%c.go", 'a'+i), 10)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []int{3, 0} {
		st, err := db.CompactPostings(ctx)
		if err != nil || st.Segments != want {
			t.Fatalf("merge %d: CompactPostings merged %d segments (%v), want %d", i, st.Segments, err, want)
		}
		if got := present(); !slices.Equal(got, all) {
			t.Fatalf("after merge %d, lookup indexes %v, want %v", i, got, all)
		}
	}
	lookups("merged")
}

// openTempDB opens a new index in a temporary directory, closed when the
// test ends.
func openTempDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
