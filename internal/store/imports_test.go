package store_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestImports: imports are written with their file, resolved in place,
// found by importer and by target, and go when their file goes.
func TestImports(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	file := func(p string, imports ...store.Import) store.Update {
		return store.Update{File: store.File{Path: p, Language: "go", Hash: make([]byte, 32)}, Imports: imports}
	}
	if err := db.Apply(ctx, []store.Update{
		file("a/a.go", store.Import{Spec: "example.com/m/b", Line: 3}, store.Import{Spec: "fmt", Line: 4}),
		file("b/b.go"),
		file("c/c.go", store.Import{Spec: "example.com/m/b", Line: 5}),
	}); err != nil {
		t.Fatal(err)
	}
	resolve := func(im store.ImportRow) store.Resolution {
		if im.Spec == "example.com/m/b" {
			return store.Resolution{Target: "b", Internal: true}
		}
		return store.Resolution{}
	}
	// Resolving one file's imports stores only its answers and counts the
	// whole index's.
	total, internal, resolved, err := db.ResolveImports(ctx, &store.ImportScope{Files: []string{"c/c.go"}}, resolve)
	if err != nil || total != 3 || internal != 1 || resolved != 1 {
		t.Fatalf("ResolveImports(c/c.go) = %d, %d, %d, %v; want 3, 1, 1", total, internal, resolved, err)
	}
	if own, err := db.ImportsOf(ctx, "a/a.go"); err != nil || own[0].Target != "" {
		t.Errorf("ResolveImports(c/c.go) resolved a/a.go's imports: %+v, %v", own, err)
	}
	total, internal, resolved, err = db.ResolveImports(ctx, nil, resolve)
	if err != nil || total != 3 || internal != 2 || resolved != 2 {
		t.Fatalf("ResolveImports = %d, %d, %d, %v; want 3, 2, 2", total, internal, resolved, err)
	}
	own, err := db.ImportsOf(ctx, "a/a.go")
	if err != nil || len(own) != 2 || own[0].Target != "b" || !own[0].Internal || own[1].Spec != "fmt" || own[1].Internal {
		t.Errorf("ImportsOf(a/a.go) = %+v, %v", own, err)
	}
	in, err := db.ImportersOf(ctx, "b/b.go", "b")
	if err != nil || len(in) != 2 || in[0].Path != "a/a.go" || in[1].Path != "c/c.go" || in[1].Line != 5 {
		t.Errorf("ImportersOf(b) = %+v, %v", in, err)
	}
	// Rewriting a file replaces its imports; deleting it removes them.
	if err := db.Apply(ctx, []store.Update{file("a/a.go"), {File: store.File{Path: "c/c.go"}, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	if in, err := db.ImportersOf(ctx, "b/b.go", "b"); err != nil || len(in) != 0 {
		t.Errorf("importers after the rewrite and delete = %+v, %v", in, err)
	}
	if total, _, _, err := db.ResolveImports(ctx, nil, resolve); err != nil || total != 0 {
		t.Errorf("imports left = %d, %v", total, err)
	}
}

// TestResolveImportsScope: a scope resolves only the imports it names:
// those of its files, the unresolved ones, and those resolving to its
// targets.
func TestResolveImportsScope(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	file := func(p string, imports ...store.Import) store.Update {
		return store.Update{File: store.File{Path: p, Language: "go", Hash: make([]byte, 32)}, Imports: imports}
	}
	apply(t, db,
		file("a.go", store.Import{Spec: "m/x", Line: 1}),
		file("b.go", store.Import{Spec: "m/y", Line: 1}),
		file("c.go", store.Import{Spec: "m/z", Line: 1}),
		file("d.go", store.Import{Spec: "m/w", Line: 1}))
	// x and y resolve, z and w do not.
	first := func(im store.ImportRow) store.Resolution {
		switch im.Spec {
		case "m/x":
			return store.Resolution{Target: "x", Internal: true}
		case "m/y":
			return store.Resolution{Target: "y", Internal: true}
		}
		return store.Resolution{Internal: true}
	}
	if _, _, resolved, err := db.ResolveImports(ctx, nil, first); err != nil || resolved != 2 {
		t.Fatalf("ResolveImports = %d resolved, %v", resolved, err)
	}
	var asked []string
	everything := func(im store.ImportRow) store.Resolution {
		asked = append(asked, im.Path)
		return store.Resolution{Target: "new", Internal: true}
	}
	// c.go's own imports, the unresolved ones (c.go, d.go) and those
	// resolving to y (b.go); not a.go's.
	_, _, resolved, err := db.ResolveImports(ctx, &store.ImportScope{Files: []string{"c.go"}, Unresolved: true, Targets: []string{"y"}}, everything)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"b.go", "c.go", "d.go"}) || resolved != 4 {
		t.Errorf("scope asked for %v and counts %d resolved; want b.go, c.go, d.go and 4", asked, resolved)
	}
	if own, err := db.ImportsOf(ctx, "a.go"); err != nil || own[0].Target != "x" {
		t.Errorf("a.go's import was re-resolved: %+v, %v", own, err)
	}
}
