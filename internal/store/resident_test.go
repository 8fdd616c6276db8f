package store_test

import (
	"cmp"
	"errors"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestChunkTableAnswersAsDB checks that a ChunkTable answers Chunks and
// ChunksByName as the database does, read whole and brought up to date
// with Advance after files are changed, deleted, added and touched.
func TestChunkTableAnswersAsDB(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	named := func(name string, start int, crumb, summary string) store.Chunk {
		c := chunk(name, start, "body")
		c.Breadcrumb, c.Summary, c.Part = crumb, summary, start%3
		return c
	}
	apply(t, db,
		file("b/server.go", "go", named("ServeHTTP", 0, "Server", "serves"), named("Close", 40, "Server", ""), named("", 80, "", "anonymous")),
		file("a/conn.go", "go", named("Close", 0, "conn", "closes"), named("close", 50, "", ""), named("Read", 90, "conn", "reads")),
		file("c/x.py", "python", named("CLOSE", 0, "", ""), named("Ärger", 20, "", "not ASCII")))

	tab, err := db.ReadChunkTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := compareTable(t, db, tab, nil)

	same, err := tab.Advance(ctx, db)
	if err != nil || same != tab {
		t.Errorf("Advance with nothing committed = %p, %v; want the same table", same, err)
	}

	// The deleted file's id is the highest, so the file added after it
	// takes that id again: its old chunks must not come back with it.
	apply(t, db,
		deletion("c/x.py"),
		file("d/new.go", "go", named("Close", 10, "", "new"), named("ärger", 20, "", "")),
		file("b/server.go", "go", named("ServeHTTP", 0, "Server", "serves again"), named("Shutdown", 30, "Server", "")))
	if err := db.TouchFiles(ctx, map[string]int64{"a/conn.go": 42}); err != nil {
		t.Fatal(err)
	}
	next, err := tab.Advance(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if next == tab {
		t.Fatal("Advance after changes returned the old table")
	}
	compareTable(t, db, next, old)
	whole, err := db.ReadChunkTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next.Len() != whole.Len() || next.Version != whole.Version {
		t.Errorf("advanced table: %d rows at %v; read whole: %d at %v", next.Len(), next.Version, whole.Len(), whole.Version)
	}

	other := openDB(t)
	apply(t, other, file("a.go", "go", named("X", 0, "", "")))
	if _, err := next.Advance(ctx, other); !errors.Is(err, store.ErrOtherIndexTable) {
		t.Errorf("Advance on another database: %v; want ErrOtherIndexTable", err)
	}
}

// compareTable compares tab's answers with db's, also for the chunk ids
// in more, and returns the ids it asked for.
func compareTable(t *testing.T, db *store.DB, tab *store.ChunkTable, more []int64) []int64 {
	t.Helper()
	ctx := t.Context()
	all, err := db.ChunksByName(ctx, []string{"servehttp", "close", "read", "shutdown", "ärger", "x"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	anon, err := db.FileChunks(ctx, "b/server.go")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range append(all, anon...) {
		ids = append(ids, r.ID)
	}
	ids = append(ids, ids[0], 1<<40) // a duplicate and an unknown id
	ids = append(ids, more...)
	want, err := db.Chunks(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(a, b store.ChunkRow) int { return cmp.Compare(a.ID, b.ID) }
	for i := range want {
		want[i].EmbedKey = nil
	}
	slices.SortFunc(want, byID)
	got := tab.Chunks(ids)
	slices.SortFunc(got, byID)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Chunks mismatch (-db +table):\n%s", diff)
	}
	for _, tc := range []struct {
		names []string
		limit int
	}{
		{[]string{"Close"}, 100},
		{[]string{"CLOSE"}, 2},
		{[]string{"close", "Close", "servehttp"}, 100},
		{[]string{"close", "read"}, 3},
		{[]string{"ärger"}, 10}, // NOCASE folds ASCII only
		{[]string{"Ärger", "Shutdown"}, 10},
		{[]string{""}, 10},
		{[]string{"missing"}, 10},
		{[]string{"Close"}, 0},
	} {
		want, err := db.ChunksByName(ctx, tc.names, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i].EmbedKey = nil
		}
		got := tab.ChunksByName(tc.names, tc.limit)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("ChunksByName(%q, %d) mismatch (-db +table):\n%s", tc.names, tc.limit, diff)
		}
	}
	return ids
}
