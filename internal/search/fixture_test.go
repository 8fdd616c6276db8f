package search

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/store"
)

// extract writes the files of testdata/name into a new temporary directory
// and returns its symlink-resolved path, as the engine would pass it.
func extract(t testing.TB, name string) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(a, dir); err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildIndex indexes root with index.Run into a new store in a temporary
// directory (emb nil: lexical-only) and returns the open store.
func buildIndex(t testing.TB, root string, emb embed.Provider) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := index.Run(t.Context(), db, root, &index.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks == 0 {
		t.Fatalf("indexing %s wrote no chunks", root)
	}
	return db
}

// goroot returns $(go env GOROOT), skipping when the go command is missing.
func goroot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
