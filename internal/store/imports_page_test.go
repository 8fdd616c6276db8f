package store

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"
)

// TestResolveImportsPaged checks that resolving imports a few rows at a
// time asks about each import exactly once, stores every answer and
// counts the whole index, for all imports and for a scope.
func TestResolveImportsPaged(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTempDB(t)
	db.importPage = 3
	var updates []Update
	for i := range 10 {
		u := Update{File: File{Path: fmt.Sprintf("f%d.go", i), Language: "go", Hash: make([]byte, 32)}}
		for j := range i % 3 {
			u.Imports = append(u.Imports, Import{Spec: fmt.Sprintf("m/p%d", (i+j)%4), Line: j + 1})
		}
		updates = append(updates, u)
	}
	if err := db.Apply(ctx, updates); err != nil {
		t.Fatal(err)
	}
	// p0 and p1 resolve to their own names, p2 and p3 nowhere.
	var asked []int64
	resolve := func(im ImportRow) Resolution {
		asked = append(asked, im.ID)
		if im.Spec == "m/p0" || im.Spec == "m/p1" {
			return Resolution{Target: im.Spec[2:], Internal: true}
		}
		return Resolution{Internal: true}
	}
	total, internal, resolved, err := db.ResolveImports(ctx, nil, resolve)
	if err != nil {
		t.Fatal(err)
	}
	want, err := collect(ctx, db.w, "imports", `SELECT rowid FROM imports ORDER BY rowid`, nil, func(rows *sql.Rows, id *int64) error { return rows.Scan(id) })
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2*3 || !slices.Equal(asked, want) {
		t.Fatalf("resolve was asked about %v, want each of %v once (more than two pages)", asked, want)
	}
	var stored int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM imports WHERE target IN ('p0', 'p1') AND internal`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if total != len(want) || internal != total || resolved != stored || stored == 0 {
		t.Errorf("counts %d total, %d internal, %d resolved with %d stored; want %d, %d, %d", total, internal, resolved, stored, len(want), len(want), stored)
	}

	// A scope over the unresolved ones: each asked once, the counts still
	// the whole index's.
	asked = nil
	all := func(im ImportRow) Resolution {
		asked = append(asked, im.ID)
		return Resolution{Target: "x", Internal: true}
	}
	total, _, resolved, err = db.ResolveImports(ctx, &ImportScope{Unresolved: true}, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != len(want)-stored || !slices.IsSorted(asked) || total != len(want) || resolved != len(want) {
		t.Errorf("scope asked about %v (want %d unresolved in order), counts %d total %d resolved (want %d both)", asked, len(want)-stored, total, resolved, len(want))
	}
}
