package store

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docLensFixture writes n files of chunks whose bodies differ in length
// into a new database at dir/index.db and returns it open for writing.
func docLensFixture(t *testing.T, dir string, n int) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(dir, "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ups []Update
	for i := range n {
		p := fmt.Sprintf("pkg/file%d.go", i)
		sum := sha256.Sum256([]byte(p))
		var chunks []Chunk
		for j := range 3 {
			body := strings.Repeat("parse duration ", 1+(i+j)%5) + strings.Repeat("filler ", 3*j)
			chunks = append(chunks, Chunk{Kind: "function", Name: fmt.Sprintf("F%d_%d", i, j), StartLine: j*10 + 1, EndLine: j*10 + 5,
				StartByte: j * 100, EndByte: j*100 + 90, Terms: [NumColumns]string{ColName: fmt.Sprintf("f%d_%d", i, j), ColBody: body}})
		}
		ups = append(ups, Update{File: File{Path: p, Language: "go", Size: 100, ModTime: 1e18, Hash: sum[:], Lines: 40}, Chunks: chunks})
	}
	if err := db.Apply(t.Context(), ups); err != nil {
		t.Fatal(err)
	}
	return db
}

func bm25(t *testing.T, db *DB) []Hit {
	t.Helper()
	hits, err := db.SearchBM25(t.Context(), BM25Query{Terms: []string{"parse", "duration", "filler"}, Weights: BM25Weights{3, 2, 2, 1}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func oneShot(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(t.Context(), path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDocLensFile: a one-shot reader takes the doc lengths from the file
// of the state it searches (scores equal to reading SQLite), ignores a
// file of another state, and an unchanged index keeps its file.
func TestDocLensFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := docLensFixture(t, dir, 20)
	want := bm25(t, w) // the writer never maps the file
	if len(want) == 0 {
		t.Fatal("no hits")
	}
	if err := w.WriteDocLens(t.Context()); err != nil {
		t.Fatal(err)
	}
	ver, err := w.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := fileState(w.docLensPath()); got != ver.String() {
		t.Fatalf("file stamped %q, want %q", got, ver)
	}
	r := oneShot(t, w.path)
	if d := cmp.Diff(want, bm25(t, r)); d != "" {
		t.Errorf("one-shot search with the file (-SQLite +file):\n%s", d)
	}
	if r.docLens.file == nil {
		t.Error("the one-shot reader did not map the file")
	}

	// The lengths come from the file: one that says every chunk has one
	// token changes the scores.
	b, err := os.ReadFile(w.docLensPath())
	if err != nil {
		t.Fatal(err)
	}
	st, pages, ok := decodeDocLens(b)
	if !ok {
		t.Fatal("the written file does not decode")
	}
	flat := make([][]byte, len(pages))
	for i, p := range pages {
		vals, err := decodeDocPage(p)
		if err != nil {
			t.Fatal(err)
		}
		for j := range vals {
			if vals[j] > 0 {
				vals[j] = 1
			}
		}
		flat[i] = encodeDocPage(vals)
	}
	if err := os.WriteFile(w.docLensPath(), encodeDocLens(st, flat), 0o600); err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(want, bm25(t, oneShot(t, w.path))) {
		t.Error("a file of the searched state with other lengths left the scores unchanged: it was not read")
	}
	// Another state: the doctored file, stamped with the state before, is
	// left alone, and the next call rewrites it.
	if err := w.Apply(t.Context(), []Update{{File: File{Path: "pkg/file0.go"}, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	want = bm25(t, w)
	if d := cmp.Diff(want, bm25(t, oneShot(t, w.path))); d != "" {
		t.Errorf("one-shot search beside a file of another state (-SQLite +got):\n%s", d)
	}
	if err := w.WriteDocLens(t.Context()); err != nil {
		t.Fatal(err)
	}
	ver2, _ := w.Version(t.Context())
	if got := fileState(w.docLensPath()); got != ver2.String() || ver2 == ver {
		t.Errorf("after a change the file is stamped %q, want %q (was %q)", got, ver2, ver)
	}
	info, _ := os.Stat(w.docLensPath())
	if err := w.WriteDocLens(t.Context()); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(w.docLensPath()); !os.SameFile(info, again) {
		t.Error("an unchanged index rewrote its file")
	}
	if w.SizeBytes() < int64(len(b)) {
		t.Errorf("SizeBytes %d does not count the %d-byte file", w.SizeBytes(), len(b))
	}
}

// TestDecodeDocLens: every cut of a file, and a page that does not
// decode, is refused; the whole file gives back its state and pages.
func TestDecodeDocLens(t *testing.T) {
	t.Parallel()
	pages := [][]byte{encodeDocPage([]uint32{3, 0, 7}), nil, encodeDocPage([]uint32{300, 5})}
	b := encodeDocLens("abc:4", pages)
	st, got, ok := decodeDocLens(b)
	if !ok || st != "abc:4" || !cmp.Equal(got, [][]byte{pages[0], nil, pages[2]}) {
		t.Fatalf("decode = %q, %v, %v", st, got, ok)
	}
	for n := range len(b) {
		if _, _, ok := decodeDocLens(b[:n]); ok {
			t.Errorf("a file cut at %d of %d bytes decoded", n, len(b))
		}
	}
	if _, _, ok := decodeDocLens(append(bytes.Clone(b), 0)); ok {
		t.Error("a file with a trailing byte decoded")
	}
	bad := encodeDocLens("abc:4", [][]byte{{3, 1, 2}}) // width 3
	if _, _, ok := decodeDocLens(bad); ok {
		t.Error("a page of width 3 decoded")
	}
}
