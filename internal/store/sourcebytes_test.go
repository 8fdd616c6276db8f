package store_test

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

func TestSourceBytes(t *testing.T) {
	t.Parallel()
	sized := func(path string, size int64) store.Update {
		u := file(path, "go", chunk("F", 0, "f"))
		u.File.Size = size
		return u
	}
	skipped := store.Update{File: store.File{Path: "big.bin"}, Delete: true,
		Skip: &store.Skipped{Size: 1 << 30, ModTime: 1, Reason: "binary"}}
	tests := []struct {
		name    string
		updates [][]store.Update // applied in order
		want    int64
	}{
		{name: "empty", want: 0},
		{name: "files", updates: [][]store.Update{{sized("a.go", 100), sized("b.go", 2500)}}, want: 2600},
		{name: "rewritten file counts its new size", updates: [][]store.Update{{sized("a.go", 100), sized("b.go", 2500)}, {sized("a.go", 40)}}, want: 2540},
		{name: "deleted and skipped files do not count", updates: [][]store.Update{{sized("a.go", 100), sized("b.go", 2500)}, {deletion("b.go"), skipped}}, want: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			for _, u := range tt.updates {
				apply(t, db, u...)
			}
			got, err := db.SourceBytes(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("SourceBytes = %d, want %d", got, tt.want)
			}
		})
	}
}
