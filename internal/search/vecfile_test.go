package search

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/store"
)

// sameVectors compares two Vectors field by field, a nil and an empty
// slice being equal. (cmp.Diff takes seconds on a million int8s under
// -race.)
func sameVectors(t *testing.T, want, got *Vectors) {
	t.Helper()
	if want.Generation != got.Generation || want.dims != got.dims || want.words != got.words {
		t.Errorf("generation, dims, words = %d, %d, %d; want %d, %d, %d",
			got.Generation, got.dims, got.words, want.Generation, want.dims, want.words)
	}
	for _, f := range []struct {
		name string
		same bool
	}{
		{"ids", slices.Equal(want.allIDs(), got.allIDs())},
		{"scales", slices.Equal(want.scales, got.scales)},
		{"signs", slices.Equal(want.signs, got.signs)},
		{"rows", sameRows(want, got)},
		{"weights", slices.Equal(want.weights, got.weights)},
	} {
		if !f.same {
			t.Errorf("%s differ", f.name)
		}
	}
}

// sameRows reports whether want and got hold the same int8 rows, whether
// in memory or packed.
func sameRows(want, got *Vectors) bool {
	if want.Len() != got.Len() {
		return false
	}
	a, b := make([]int8, want.dims), make([]int8, got.dims)
	for i := range want.Len() {
		if !slices.Equal(want.row(i, a), got.row(i, b)) {
			return false
		}
	}
	return true
}

func TestVectorFileRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		n, dims int
		model   string
	}{
		{"tiny", 2, 3, "fake/hash@3"},
		{"one word", 50, 64, "fake/hash@64"},
		{"padded", 33, 100, "model2vec/x@100 with a model name of odd length"},
		{"empty", 0, 8, "m"},
		{"prefiltered", 5000, 256, "builtin/ctx-code@256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, query := clusteredRows(rand.New(rand.NewPCG(uint64(tc.n), 1)), tc.n, tc.dims)
			v := r.quantised()
			v.Generation = 7
			path := filepath.Join(t.TempDir(), "x.db.vec")
			if err := WriteVectorFile(path, tc.model, v); err != nil {
				t.Fatal(err)
			}
			got, err := ReadVectorFile(path, tc.model, tc.dims, 7)
			if err != nil {
				t.Fatal(err)
			}
			sameVectors(t, v, got)
			for range 3 {
				q := query()
				wantIDs, wantScores := v.Nearest(q, 10)
				gotIDs, gotScores := got.Nearest(q, 10)
				if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
					t.Errorf("Nearest after reading: ids (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantScores, gotScores); diff != "" {
					t.Errorf("Nearest after reading: scores (-want +got):\n%s", diff)
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.dims == 256 {
				// 260 bytes a row (the consecutive ids are one run) plus
				// a header, model and weights.
				if per := float64(fi.Size()) / float64(tc.n); per < 260 || per > 261 {
					t.Errorf("%d bytes for %d rows: %.1f bytes a row, want 260", fi.Size(), tc.n, per)
				}
			}
		})
	}
}

func TestVectorFileStale(t *testing.T) {
	t.Parallel()
	r, _ := randomRows(rand.New(rand.NewPCG(1, 2)), 4, 3)
	v := r.quantised()
	v.Generation = 7
	path := filepath.Join(t.TempDir(), "x.db.vec")
	if err := WriteVectorFile(path, "fake/hash@3", v); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"other generation": func() error { _, err := ReadVectorFile(path, "fake/hash@3", 3, 8); return err },
		"other model":      func() error { _, err := ReadVectorFile(path, "fake/other@3", 3, 7); return err },
		"other dims":       func() error { _, err := ReadVectorFile(path, "fake/hash@3", 4, 7); return err },
	} {
		if err := read(); !errors.Is(err, ErrStaleVectorFile) {
			t.Errorf("%s: %v, want ErrStaleVectorFile", name, err)
		}
	}
	if _, err := ReadVectorFile(filepath.Join(t.TempDir(), "none"), "m", 3, 7); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}

	// A version 1 file (float32 rows) of the same generation and model
	// is stale, so the engine rewrites it without a warning.
	v1 := []byte(vecMagicV1)
	for _, x := range []int64{7, 3, 1, 11} {
		v1 = binary.LittleEndian.AppendUint64(v1, uint64(x))
	}
	v1 = append(v1, "fake/hash@3"...)
	v1 = binary.LittleEndian.AppendUint64(v1, 42)
	v1 = append(v1, make([]byte, 12)...)
	p1 := filepath.Join(t.TempDir(), "v1.vec")
	if err := os.WriteFile(p1, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVectorFile(p1, "fake/hash@3", 3, 7); !errors.Is(err, ErrStaleVectorFile) {
		t.Errorf("version 1 file: %v, want ErrStaleVectorFile", err)
	}
}

func TestVectorFileCorrupt(t *testing.T) {
	t.Parallel()
	r, _ := randomRows(rand.New(rand.NewPCG(1, 2)), 4, 3)
	v := r.quantised()
	v.Generation = 7
	path := filepath.Join(t.TempDir(), "x.db.vec")
	if err := WriteVectorFile(path, "fake/hash@3", v); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header := func(gen, dims, count, ml int64) []byte {
		h := append([]byte(nil), b...)
		for i, x := range []int64{gen, dims, count, ml} {
			binary.LittleEndian.PutUint64(h[8+8*i:], uint64(x))
		}
		return h
	}
	for name, content := range map[string][]byte{
		"truncated":           b[:len(b)-3],
		"extended":            append(append([]byte(nil), b...), 0),
		"not ours":            []byte("hello world, this is not a vector file at all!!"),
		"empty":               nil,
		"header only":         b[:vecHeader-1],
		"negative count":      header(7, 3, -1, 11),
		"huge count":          header(7, 3, 1<<62, 11),
		"model past the end":  header(7, 3, 4, 1<<20),
		"negative model size": header(7, 3, 4, -5),
	} {
		p := filepath.Join(t.TempDir(), "bad.vec")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadVectorFile(p, "fake/hash@3", 3, 7); err == nil || errors.Is(err, ErrStaleVectorFile) {
			t.Errorf("%s: %v, want a format error", name, err)
		}
	}
}

// mappedFile writes v (64 dimensions, generation 1, model "m") to a vector
// file and returns its path and the Vectors read back from it.
func mappedFile(t *testing.T, v *Vectors) (string, *Vectors) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.db.vec")
	if err := WriteVectorFile(path, "m", v); err != nil {
		t.Fatal(err)
	}
	got, err := ReadVectorFile(path, "m", 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	return path, got
}

// TestVectorFileMapped: a read Vectors stays usable after the file is
// replaced and across garbage collections, and dropped ones are unmapped
// without harm.
func TestVectorFileMapped(t *testing.T) {
	t.Parallel()
	r, query := clusteredRows(rand.New(rand.NewPCG(3, 4)), 5000, 64)
	v := r.quantised()
	path, got := mappedFile(t, v)
	for range 5 {
		// Readers whose Vectors become garbage at once.
		if _, err := ReadVectorFile(path, "m", 64, 1); err != nil {
			t.Fatal(err)
		}
	}
	r2, _ := randomRows(rand.New(rand.NewPCG(5, 6)), 10, 64)
	v2 := r2.quantised()
	v2.Generation = 2
	if err := WriteVectorFile(path, "m", v2); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	q := query()
	wantIDs, _ := v.Nearest(q, 20)
	gotIDs, _ := got.Nearest(q, 20)
	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
		t.Errorf("Nearest on the replaced file's mapping (-want +got):\n%s", diff)
	}
	if _, err := ReadVectorFile(path, "m", 64, 1); !errors.Is(err, ErrStaleVectorFile) {
		t.Errorf("reading the replaced file at the old generation: %v, want ErrStaleVectorFile", err)
	}
}

// TestWriteVectorFileFrom checks that the file streamed from an index
// holds exactly what LoadVectors reads into memory (rows, ids, sign bits
// and the sampled weights), that it is stamped with the version read, and
// that the writer leaves no side file behind.
func TestWriteVectorFileFrom(t *testing.T) {
	t.Parallel()
	const dims = 64
	db := buildIndex(t, extract(t, "repo.txtar"), embedtest.New(dims))
	want, ver, err := LoadVectors(t.Context(), db, dims, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Len() == 0 {
		t.Fatal("the fixture index has no vectors")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db.vec")
	got, err := WriteVectorFileFrom(t.Context(), db, path, dims, func(v store.Version) string { return "fake#" + v.IndexID }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != ver {
		t.Errorf("stamped with %+v, want %+v", got, ver)
	}
	read, err := ReadVectorFile(path, "fake#"+ver.IndexID, dims, ver.Content)
	if err != nil {
		t.Fatal(err)
	}
	sameVectors(t, want, read)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files left beside the vector file: %v", entries)
	}

	// A vector of another length fails the write and leaves nothing.
	path2 := filepath.Join(t.TempDir(), "other.vec")
	if _, err := WriteVectorFileFrom(t.Context(), db, path2, dims+1, func(store.Version) string { return "m" }, nil); !errors.Is(err, embed.ErrDimension) {
		t.Errorf("wrong dimensions: %v, want embed.ErrDimension", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path2)); len(entries) != 0 {
		t.Errorf("a failed write left %v", entries)
	}
}

// TestVectorFileVersion2IsStale checks that a file of the previous layout
// (rows last) is rewritten rather than read.
func TestVectorFileVersion2IsStale(t *testing.T) {
	t.Parallel()
	b := []byte(vecMagicV2)
	for _, x := range []int64{7, 3, 0, 1} {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	b = append(b, 'm', 0, 0, 0, 0, 0, 0, 0)
	b = append(b, make([]byte, 16)...)
	path := filepath.Join(t.TempDir(), "v2.vec")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVectorFile(path, "m", 3, 7); !errors.Is(err, ErrStaleVectorFile) {
		t.Errorf("version 2 file: %v, want ErrStaleVectorFile", err)
	}
}

// TestVectorsFromFoldedBase: after the store folds its vectors into a
// vector file, a new file, an in-memory load and an advance all take the
// folded rows from that file (the new file holding exactly what the first
// did), and each fails with ErrVectorsMissing when the file is gone.
func TestVectorsFromFoldedBase(t *testing.T) {
	t.Parallel()
	const dims = 64
	db := buildIndex(t, extract(t, "repo.txtar"), embedtest.New(dims))
	model := func(v store.Version) string { return "fake#" + v.IndexID }
	path := filepath.Join(t.TempDir(), "index.db.vec")
	ver, err := WriteVectorFileFrom(t.Context(), db, path, dims, model, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ReadVectorFile(path, model(ver), dims, ver.Content)
	if err != nil {
		t.Fatal(err)
	}
	if first.FileID == 0 {
		t.Fatal("the vector file has no file id")
	}
	n, ok, err := db.FoldVectors(t.Context(), store.Version{IndexID: ver.IndexID, Content: ver.Content + 1}, first.FileID)
	if err != nil || ok || n != 0 {
		t.Fatalf("FoldVectors at another version = %d, %v, %v; want nothing folded", n, ok, err)
	}
	n, ok, err = db.FoldVectors(t.Context(), ver, first.FileID)
	if err != nil || !ok || n == 0 {
		t.Fatalf("FoldVectors = %d, %v, %v; want vectors folded", n, ok, err)
	}
	base := FileBase(path, dims, model)

	path2 := filepath.Join(t.TempDir(), "again.vec")
	if _, err := WriteVectorFileFrom(t.Context(), db, path2, dims, model, base); err != nil {
		t.Fatal(err)
	}
	again, err := ReadVectorFile(path2, model(ver), dims, ver.Content)
	if err != nil {
		t.Fatal(err)
	}
	sameVectors(t, first, again)
	mem, _, err := LoadVectors(t.Context(), db, dims, base)
	if err != nil {
		t.Fatal(err)
	}
	sameVectors(t, first, mem)

	// An advance from an empty copy reads every chunk as new: all folded.
	empty := newVectors(0, dims, 0)
	empty.IndexID = ver.IndexID
	adv, _, err := empty.Advance(t.Context(), db, base)
	if err != nil {
		t.Fatal(err)
	}
	if adv.Len() != first.Len() {
		t.Errorf("advance read %d rows, want %d", adv.Len(), first.Len())
	}

	gone := FileBase(filepath.Join(t.TempDir(), "none.vec"), dims, model)
	if _, err := WriteVectorFileFrom(t.Context(), db, filepath.Join(t.TempDir(), "x.vec"), dims, model, gone); !errors.Is(err, ErrVectorsMissing) {
		t.Errorf("write without the base: %v, want ErrVectorsMissing", err)
	}
	if _, _, err := LoadVectors(t.Context(), db, dims, gone); !errors.Is(err, ErrVectorsMissing) {
		t.Errorf("load without the base: %v, want ErrVectorsMissing", err)
	}
	if _, _, err := empty.Advance(t.Context(), db, gone); !errors.Is(err, ErrVectorsMissing) {
		t.Errorf("advance without the base: %v, want ErrVectorsMissing", err)
	}
}

// TestVectorFileKeepsLaterState: a writer never renames its file over a
// file of the same index stamped with a later content version (that
// file's rows may be the only copy of vectors folded since).
func TestVectorFileKeepsLaterState(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.db.vec")
	later := newVectors(5, 3, 1)
	later.add(1, []float32{1, 0, 0})
	if err := WriteVectorFile(path, "m#x", later); err != nil {
		t.Fatal(err)
	}
	earlier := newVectors(3, 3, 1)
	earlier.add(1, []float32{0, 1, 0})
	if err := WriteVectorFile(path, "m#x", earlier); !errors.Is(err, ErrStaleVectorFile) {
		t.Errorf("writing an earlier state over a later one: %v, want ErrStaleVectorFile", err)
	}
	if _, err := ReadVectorFile(path, "m#x", 3, 5); err != nil {
		t.Errorf("the later file was not kept: %v", err)
	}
	// Another index (model identity) is replaced whatever its version.
	if err := WriteVectorFile(path, "m#y", earlier); err != nil {
		t.Errorf("replacing another index's file: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files left beside the vector file: %v", entries)
	}
}

// TestReleasePages: a mapped Vectors reports its file's size, and after
// ReleasePages it answers exactly as before (its pages are read again);
// vectors in memory map nothing.
func TestReleasePages(t *testing.T) {
	t.Parallel()
	r, query := clusteredRows(rand.New(rand.NewPCG(7, 8)), 3000, 64)
	v := r.quantised()
	path, got := mappedFile(t, v)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.MappedBytes() != int(fi.Size()) || v.MappedBytes() != 0 {
		t.Errorf("MappedBytes: file %d (size %d), in memory %d; want the file's size and 0", got.MappedBytes(), fi.Size(), v.MappedBytes())
	}
	for range 3 {
		q := query()
		wantIDs, wantScores := got.Nearest(q, 10)
		got.ReleasePages()
		v.ReleasePages()
		gotIDs, gotScores := got.Nearest(q, 10)
		if !cmp.Equal(wantIDs, gotIDs) || !cmp.Equal(wantScores, gotScores) {
			t.Errorf("after ReleasePages: %v %v, want %v %v", gotIDs, gotScores, wantIDs, wantScores)
		}
	}
}

// TestNearestReleasing: a releasing search answers exactly as Nearest
// does, and leaves far fewer of the file's pages in the resident set
// than a plain one, whose scattered exact scores map nearly all of it
// (Linux, where /proc tells the resident set's file pages).
func TestNearestReleasing(t *testing.T) {
	rssFile := func() int {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return -1
		}
		for l := range strings.Lines(string(b)) {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "RssFile:" {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
		return -1
	}
	if rssFile() < 0 {
		t.Skip("no RssFile in /proc/self/status")
	}
	defer func(b int) { releaseBatch = b }(releaseBatch)
	releaseBatch = 16 // at most about 1 MiB mapped ahead of the release
	// Structureless rows: the prefilter scores most of them exactly.
	r, query := randomRows(rand.New(rand.NewPCG(9, 10)), 120_000, 64)
	_, got := mappedFile(t, r.quantised())
	packedKB := len(got.packed) / 1024
	for range 3 {
		q := query()
		got.ReleasePages()
		base := rssFile()
		wantIDs, wantScores := got.Nearest(q, 100)
		plain := rssFile() - base
		got.ReleasePages()
		base = rssFile()
		ids, scores, _ := got.search(q, 100, true)
		releasing := rssFile() - base
		if !cmp.Equal(ids, wantIDs) || !cmp.Equal(scores, wantScores) {
			t.Fatalf("releasing search: %v %v, want %v %v", ids, scores, wantIDs, wantScores)
		}
		if ids, scores := got.NearestReleasing(q, 100); !cmp.Equal(ids, wantIDs) || !cmp.Equal(scores, wantScores) {
			t.Fatalf("NearestReleasing: %v %v, want %v %v", ids, scores, wantIDs, wantScores)
		}
		if plain < packedKB/2 {
			t.Fatalf("a plain search mapped %d kB of %d kB of rows: the test cannot tell a release", plain, packedKB)
		}
		if releasing > plain/2 {
			t.Errorf("a releasing search left %d kB mapped, a plain one %d kB (rows %d kB)", releasing, plain, packedKB)
		}
		t.Logf("mapped after a search: plain %d kB, releasing %d kB, of %d kB of rows", plain, releasing, packedKB)
	}
}
