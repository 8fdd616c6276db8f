package store_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/store"
)

func TestDocFreqs(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	c1 := chunk("Alpha", 0, "alpha beta beta")
	c1.Terms[store.ColDoc] = "alpha"
	c1.Terms[store.ColPath] = "pkg a go"
	apply(t, db,
		file("pkg/a.go", "go", c1, chunk("B", 10, "beta")),
		file("pkg/c.go", "go", chunk("C", 0, "beta gamma")))

	df, err := db.DocFreqs(t.Context(), []string{"alpha", "beta", "gamma", "pkg", "b", "missing", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	// A chunk counts once however many columns and times it holds a term.
	want := map[string]int{"alpha": 1, "beta": 3, "gamma": 1, "pkg": 1, "b": 1, "missing": 0}
	if diff := cmp.Diff(want, df); diff != "" {
		t.Errorf("DocFreqs mismatch (-want +got):\n%s", diff)
	}

	empty, err := db.DocFreqs(t.Context(), nil)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("DocFreqs(nil) = %v, %v; want an empty map", empty, err)
	}
}

func TestChunksByName(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	anon := chunk("", 20, "anonymous")
	apply(t, db,
		file("a.go", "go", chunk("ServeHTTP", 0, "serve"), chunk("Other", 10, "other"), anon),
		file("b.go", "go", chunk("servehttp", 0, "serve")))

	tests := []struct {
		name  string
		names []string
		limit int
		want  []string // path:name, sorted; only the count is checked when limit cuts the result
	}{
		{"exact case", []string{"ServeHTTP"}, 10, []string{"a.go:ServeHTTP", "b.go:servehttp"}},
		{"other case", []string{"SERVEHTTP"}, 10, []string{"a.go:ServeHTTP", "b.go:servehttp"}},
		{"several names", []string{"servEHttp", "other"}, 10, []string{"a.go:Other", "a.go:ServeHTTP", "b.go:servehttp"}},
		{"limit", []string{"ServeHTTP"}, 1, []string{"a.go:ServeHTTP or b.go:servehttp"}},
		{"unknown", []string{"Missing"}, 10, nil},
		{"empty name never matches", []string{""}, 10, nil},
		{"no names", nil, 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows, err := db.ChunksByName(t.Context(), tc.names, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if tc.limit < 10 {
				if len(rows) != len(tc.want) {
					t.Errorf("ChunksByName(%q, %d) = %d rows, want %d", tc.names, tc.limit, len(rows), len(tc.want))
				}
				return
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.Path+":"+r.Name)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ChunksByName(%q) mismatch (-want +got):\n%s", tc.names, diff)
			}
		})
	}
}

func TestFileChunks(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	third := chunk("Third", 200, "c")
	third.Kind, third.Symbol, third.Breadcrumb, third.Summary, third.Part = "method", "T.Third", "T", "func (T) Third()", 1
	u := file("a.go", "go", third, chunk("First", 0, "a"), chunk("Second", 100, "b"))
	apply(t, db, u, file("b.go", "go", chunk("Elsewhere", 50, "d")))

	rows, err := db.FileChunks(t.Context(), "a.go")
	if err != nil {
		t.Fatal(err)
	}
	row := func(c store.Chunk) store.ChunkRow {
		c.Terms = [store.NumColumns]string{} // not stored
		return store.ChunkRow{Chunk: c, Path: "a.go", Language: "go", FileSize: u.File.Size, FileTime: u.File.ModTime}
	}
	want := []store.ChunkRow{row(u.Chunks[1]), row(u.Chunks[2]), row(third)}
	if diff := cmp.Diff(want, rows, cmpopts.IgnoreFields(store.Chunk{}, "ID", "FileID")); diff != "" {
		t.Errorf("FileChunks mismatch (-want +got):\n%s", diff)
	}
	for _, r := range rows {
		if r.ID == 0 || r.FileID == 0 || r.FileID != rows[0].FileID {
			t.Errorf("chunk %s has ID %d, FileID %d", r.Name, r.ID, r.FileID)
		}
	}

	got, err := db.Chunks(t.Context(), []int64{rows[2].ID, rows[0].ID, 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, r := range got {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"First", "Third"}) {
		t.Errorf("Chunks(Third, First, unknown) = %q, want First and Third", names)
	}
	if got, err := db.Chunks(t.Context(), nil); got != nil || err != nil {
		t.Errorf("Chunks(nil) = %v, %v; want nil, nil", got, err)
	}
	if got, err := db.FileChunks(t.Context(), "missing.go"); len(got) != 0 || err != nil {
		t.Errorf("FileChunks(missing.go) = %v, %v; want none", got, err)
	}
}

func TestTouchFiles(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db, file("a.go", "go"), file("b.go", "go"))
	if err := db.TouchFiles(t.Context(), nil); err != nil {
		t.Errorf("TouchFiles(nil): %v", err)
	}
	if err := db.TouchFiles(t.Context(), map[string]int64{"a.go": 42, "missing.go": 7}); err != nil {
		t.Fatal(err)
	}
	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for p, s := range states {
		got[p] = s.ModTime
	}
	if diff := cmp.Diff(map[string]int64{"a.go": 42, "b.go": 1e18}, got); diff != "" {
		t.Errorf("mtimes after TouchFiles mismatch (-want +got):\n%s", diff)
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	a := file("a.go", "go", chunk("A", 0, "a"), chunk("B", 10, "b"))
	a.Chunks[0].EmbedKey = []byte("k1")
	a.Vectors = map[string][]byte{"k1": {1}}
	apply(t, db, a,
		file("b.go", "go", chunk("C", 0, "c")),
		file("c.py", "python", chunk("D", 0, "d")),
		file("README.md", "markdown"))

	got, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := store.Counts{Files: 4, Chunks: 4, Vectors: 1, Languages: map[string]int{"go": 2, "python": 1, "markdown": 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Count mismatch (-want +got):\n%s", diff)
	}
	for _, del := range []string{"", "b.go"} {
		if del != "" {
			apply(t, db, deletion(del))
			want.Chunks--
		}
		if n, err := db.ChunkCount(t.Context()); err != nil || n != want.Chunks {
			t.Errorf("ChunkCount after deleting %q = %d, %v; want %d", del, n, err, want.Chunks)
		}
	}
}

// TestFilesByPathSuffixes checks the matching rules of query mentions,
// answered in one pass: a bare name, a relative path, an absolute path
// from a traceback, a non-ASCII name, and mentions with no file.
func TestFilesByPathSuffixes(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db, file("base.py", "python"), file("django/core/handlers/base.py", "python"),
		file("django/db/backends/base/base.py", "python"), file("django/urls/resolvers.py", "python"),
		file("docs/grüße.py", "python"), file("xbase.py", "python"))
	mentions := []string{
		"base.py",
		"handlers/base.py",
		"/l10n/venv/lib/python3.6/site-packages/django/core/handlers/base.py",
		"./django/urls/resolvers.py",
		"grüße.py",
		"missing.py",
		"dir/",
	}
	got, err := db.FilesByPathSuffixes(t.Context(), mentions)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([][]string, len(got))
	for i, refs := range got {
		for _, f := range refs {
			paths[i] = append(paths[i], f.Path)
		}
	}
	want := [][]string{
		{"base.py", "django/core/handlers/base.py", "django/db/backends/base/base.py"},
		// A longer mention also names a file its path ends with: the
		// root base.py too.
		{"base.py", "django/core/handlers/base.py"},
		{"base.py", "django/core/handlers/base.py"},
		{"django/urls/resolvers.py"},
		{"docs/grüße.py"},
		nil,
		nil,
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("FilesByPathSuffixes mismatch (-want +got):\n%s", diff)
	}
	if got, err := db.FilesByPathSuffixes(t.Context(), nil); len(got) != 0 || err != nil {
		t.Errorf("FilesByPathSuffixes(nil) = %v, %v", got, err)
	}
}
