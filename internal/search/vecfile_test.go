package search

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVectorFileRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.db.vec")
	v := &Vectors{Generation: 7, dims: 3, ids: []int64{4, 9}, data: []float32{1, 0, 0, 0, 0.6, -0.8}}
	if err := WriteVectorFile(path, "fake/hash@3", v); err != nil {
		t.Fatal(err)
	}
	got, err := ReadVectorFile(path, "fake/hash@3", 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, got, cmp.AllowUnexported(Vectors{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	ids, _ := got.Nearest([]float32{0, 0.6, -0.8}, 1)
	if len(ids) != 1 || ids[0] != 9 {
		t.Errorf("Nearest after reading = %v, want [9]", ids)
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
	b, _ := os.ReadFile(path)
	for name, content := range map[string][]byte{
		"truncated": b[:len(b)-3],
		"not ours":  []byte("hello world, this is not a vector file at all!!"),
		"empty":     nil,
	} {
		p := filepath.Join(t.TempDir(), "bad.vec")
		os.WriteFile(p, content, 0o644)
		if _, err := ReadVectorFile(p, "fake/hash@3", 3, 7); err == nil || errors.Is(err, ErrStaleVectorFile) {
			t.Errorf("%s: %v, want a format error", name, err)
		}
	}
}
