package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestSketches checks that a chunk's sketch is written with its file,
// read back by Sketches with its file id (which FileLangs names), and
// gone with the file.
func TestSketches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	sk := []byte("0123456789abcdef0123456789abcdef")
	up := store.Update{
		File: store.File{Path: "a.go", Language: "go", Size: 10, ModTime: 1, Hash: make([]byte, 32), Lines: 3},
		Chunks: []store.Chunk{
			{Kind: "function", Symbol: "A", Name: "A", StartLine: 1, EndLine: 2, EndByte: 5, Sketch: sk},
			{Kind: "block", StartLine: 3, EndLine: 3, StartByte: 5, EndByte: 10},
		},
	}
	if err := db.Apply(ctx, []store.Update{up}); err != nil {
		t.Fatal(err)
	}
	files, err := db.FileLangs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "a.go" || files[0].Language != "go" {
		t.Fatalf("FileLangs = %+v", files)
	}
	type row struct {
		File   int64
		Sketch string
	}
	read := func() []row {
		var got []row
		if err := db.Sketches(ctx, func(id, fileID int64, s []byte) error {
			got = append(got, row{fileID, string(s)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if diff := cmp.Diff([]row{{files[0].ID, string(sk)}}, read()); diff != "" {
		t.Errorf("Sketches (-want +got):\n%s", diff)
	}
	if err := db.Apply(ctx, []store.Update{{File: store.File{Path: "a.go"}, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	if got := read(); len(got) != 0 {
		t.Errorf("Sketches after deleting the file = %v, want none", got)
	}
}
