package store_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

// BM25 weights the engine uses: name, path, doc, body.
var weights = store.BM25Weights{3, 2, 2, 1}

// openDB opens a fresh database in a temporary directory and closes it at
// the end of the test.
func openDB(t testing.TB) *store.DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "index.db"), nil)
}

func openAt(t testing.TB, path string, opts *store.Options) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// file returns an update writing path with the given chunks. Its size,
// mtime and hash are derived from path so they are stable.
func file(path, lang string, chunks ...store.Chunk) store.Update {
	sum := sha256.Sum256([]byte(path))
	return store.Update{
		File:   store.File{Path: path, Language: lang, Size: int64(len(path)), ModTime: 1e18, Hash: sum[:], Lines: 10},
		Chunks: chunks,
	}
}

// chunk returns a chunk named name at byte start whose body column holds
// body (already analyzed: space-separated lower-case terms).
func chunk(name string, start int, body string) store.Chunk {
	return store.Chunk{
		Kind: "function", Symbol: name, Name: name, StartLine: start/10 + 1, EndLine: start/10 + 2,
		StartByte: start, EndByte: start + 10,
		Terms: [store.NumColumns]string{store.ColName: strings.ToLower(name), store.ColBody: body},
	}
}

func deletion(path string) store.Update {
	return store.Update{File: store.File{Path: path}, Delete: true}
}

func apply(t testing.TB, db *store.DB, updates ...store.Update) {
	t.Helper()
	if err := db.Apply(t.Context(), updates); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

// search returns the names of the chunks matching match, best first:
// terms separated by spaces match any of them; "a AND b" matches both.
func search(t testing.TB, db *store.DB, match string, w store.BM25Weights) []string {
	t.Helper()
	q := store.BM25Query{Weights: w, Limit: 100}
	if strings.Contains(match, " AND ") {
		q.Terms = strings.Split(match, " AND ")
		q.Groups = [][]int{{}}
		for i := range q.Terms {
			q.Groups[0] = append(q.Groups[0], i)
		}
	} else {
		q.Terms = strings.Fields(match)
	}
	hits, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatalf("SearchBM25(%q): %v", match, err)
	}
	if len(hits) == 0 {
		return nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	rows, err := db.Chunks(t.Context(), ids)
	if err != nil {
		t.Fatalf("Chunks: %v", err)
	}
	name := map[int64]string{}
	for _, r := range rows {
		name[r.ID] = r.Name
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		n, ok := name[h.ChunkID]
		if !ok {
			t.Fatalf("SearchBM25(%q) returned chunk %d, which has no row", match, h.ChunkID)
		}
		out[i] = n
	}
	return out
}

func TestOpenCreatesAndMigrates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cache", "ctx", "index.db")
	db := openAt(t, path, nil)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file: %v", err)
	}
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	v, err := db.Meta(t.Context(), "schema_version")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(store.SchemaVersion); v != want {
		t.Errorf("schema_version = %q, want %q", v, want)
	}
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != 0 || c.Chunks != 0 || c.Vectors != 0 || len(c.Languages) != 0 {
		t.Errorf("Count of a new index = %+v, want zeros", c)
	}
	if db.SizeBytes() <= 0 {
		t.Errorf("SizeBytes() = %d, want > 0", db.SizeBytes())
	}
}

func TestOpenReopenIsNoop(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Apply(ctx, []store.Update{file("a.go", "go", chunk("Alpha", 0, "needle"))}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta(ctx, map[string]string{store.MetaRoot: "/src/proj"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for _, opts := range []*store.Options{nil, {MustExist: true}, {ReadOnly: true}} {
		db, err := store.Open(ctx, path, opts)
		if err != nil {
			t.Fatalf("reopening with %+v: %v", opts, err)
		}
		for key, want := range map[string]string{"schema_version": strconv.Itoa(store.SchemaVersion), store.MetaRoot: "/src/proj"} {
			if got, err := db.Meta(ctx, key); err != nil || got != want {
				t.Errorf("after reopening with %+v: Meta(%s) = %q, %v; want %q", opts, key, got, err, want)
			}
		}
		if got := search(t, db, "needle", weights); len(got) != 1 || got[0] != "Alpha" {
			t.Errorf("after reopening with %+v: search = %q, want [Alpha]", opts, got)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *store.Options
	}{
		{"MustExist", &store.Options{MustExist: true}},
		{"ReadOnly", &store.Options{ReadOnly: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cache")
			path := filepath.Join(dir, "index.db")
			db, err := store.Open(t.Context(), path, tc.opts)
			if !errors.Is(err, store.ErrNotIndexed) {
				if err == nil {
					db.Close()
				}
				t.Fatalf("Open(missing, %+v) error = %v, want ErrNotIndexed", tc.opts, err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Open(missing, %+v) created %s (stat: %v)", tc.opts, dir, err)
			}
		})
	}
}

func TestOpenSchemaTooNew(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta(ctx, map[string]string{"schema_version": strconv.Itoa(store.SchemaVersion + 1)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*store.Options{nil, {MustExist: true}, {ReadOnly: true}} {
		db, err := store.Open(ctx, path, opts)
		if !errors.Is(err, store.ErrSchemaTooNew) {
			if err == nil {
				db.Close()
			}
			t.Errorf("Open with %+v of a schema %d index: error = %v, want ErrSchemaTooNew", opts, store.SchemaVersion+1, err)
		}
	}
}

// TestOpenOddDirectory checks that the database lands at exactly the path
// given, even when the path has characters that mean something in a SQLite
// URI ("?" starts the query, "#" the fragment, "%" an escape).
func TestOpenOddDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dirs := []string{"with space", "with#hash", "with#other", "with%41pct", "with?query", "with?query&x=1", "ünïcode"}
	for _, d := range dirs {
		path := filepath.Join(base, d, "index.db")
		db := openAt(t, path, nil)
		apply(t, db, file(d+".go", "go", chunk("F", 0, "needle")))
		if _, err := os.Stat(path); err != nil {
			t.Errorf("Open(%q) did not create the file: %v", path, err)
		}
	}
	// Each directory has its own index, holding its own file only.
	for _, d := range dirs {
		db := openAt(t, filepath.Join(base, d, "index.db"), &store.Options{MustExist: true})
		states, err := db.FileStates(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := states[d+".go"]; !ok || len(states) != 1 {
			t.Errorf("index in %q holds %d files, want only %s.go", d, len(states), d)
		}
	}
}

func TestPathFor(t *testing.T) {
	t.Parallel()
	const cache = "/home/u/.cache/ctx"
	hash := func(root string) string {
		sum := sha256.Sum256([]byte(root))
		return hex.EncodeToString(sum[:6])
	}
	tests := []struct {
		name, root, want string
	}{
		{"plain", "/src/proj", "proj-" + hash("/src/proj") + ".db"},
		{"dots and dashes kept", "/src/my-proj_v1.2", "my-proj_v1.2-" + hash("/src/my-proj_v1.2") + ".db"},
		{"space and punctuation", "/src/my proj (copy)!", "my_proj__copy__-" + hash("/src/my proj (copy)!") + ".db"},
		{"non-ASCII", "/src/проект", "______-" + hash("/src/проект") + ".db"},
		{"filesystem root", "/", "root-" + hash("/") + ".db"},
		{"one odd rune", "/src/ü", "root-" + hash("/src/ü") + ".db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := store.PathFor(cache, tc.root)
			if want := filepath.Join(cache, tc.want); got != want {
				t.Errorf("PathFor(%q) = %q, want %q", tc.root, got, want)
			}
			if again := store.PathFor(cache, tc.root); again != got {
				t.Errorf("PathFor(%q) is not stable: %q then %q", tc.root, got, again)
			}
			if filepath.Dir(got) != cache {
				t.Errorf("PathFor(%q) = %q, not directly inside %s", tc.root, got, cache)
			}
			if !regexp.MustCompile(`^[A-Za-z0-9._-]+-[0-9a-f]{12}\.db$`).MatchString(filepath.Base(got)) {
				t.Errorf("PathFor(%q) = %q, an unsafe file name", tc.root, got)
			}
		})
	}

	// Roots with the same base name get different databases.
	a, b := store.PathFor(cache, "/a/proj"), store.PathFor(cache, "/b/proj")
	if a == b {
		t.Errorf("PathFor gives /a/proj and /b/proj the same database %s", a)
	}
}
