package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestSnapshotWhileWriting: snapshots taken while a writer commits
// batches of ten files each hold whole batches only, and pass the check.
func TestSnapshotWhileWriting(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for b := range 30 {
			var batch []store.Update
			for i := range 10 {
				batch = append(batch, file(fmt.Sprintf("b%02d/f%d.go", b, i), "go", chunk("F", 0, "alpha beta")))
			}
			if err := db.Apply(t.Context(), batch); err != nil {
				t.Errorf("Apply: %v", err)
				return
			}
		}
	}()
	dir := t.TempDir()
	for i := range 6 {
		snap := filepath.Join(dir, fmt.Sprintf("snap%d.db", i))
		if err := db.SnapshotTo(t.Context(), snap); err != nil {
			t.Fatalf("SnapshotTo: %v", err)
		}
		if err := store.CheckFile(t.Context(), snap); err != nil {
			t.Errorf("CheckFile(snapshot %d): %v", i, err)
		}
		files, _, err := store.ReadFileEntries(t.Context(), snap)
		if err != nil {
			t.Fatal(err)
		}
		if len(files)%10 != 0 {
			t.Errorf("snapshot %d holds %d files: part of a batch", i, len(files))
		}
	}
	wg.Wait()
	if err := db.SnapshotTo(t.Context(), filepath.Join(dir, "snap0.db")); err == nil {
		t.Error("SnapshotTo over an existing file succeeded")
	}
}

// TestScrub: the named meta keys are gone, from the table and from the
// file's bytes; the others stay.
func TestScrub(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db, file("a.go", "go", chunk("A", 0, "alpha")))
	root := "/home/someone/src/secret-project"
	if err := db.SetMeta(t.Context(), map[string]string{store.MetaRoot: root, "keep": "kept"}); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := db.SnapshotTo(t.Context(), snap); err != nil {
		t.Fatal(err)
	}
	if err := store.Scrub(t.Context(), snap, root, []string{store.MetaRoot}); err != nil {
		t.Fatalf("Scrub: %v", err)
	}
	_, meta, err := store.ReadFileEntries(t.Context(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := meta[store.MetaRoot]; ok || meta["keep"] != "kept" {
		t.Errorf("meta after Scrub: %v", meta)
	}
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(root)) {
		t.Error("the scrubbed file still holds the root's bytes")
	}
}

// TestCheckFileRefuses: a file that is not a database, and a database of
// another schema.
func TestCheckFileRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("junk"), 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.CheckFile(t.Context(), junk); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("CheckFile(junk) = %v, want ErrCorrupt", err)
	}
	db := openDB(t)
	if err := db.SetMeta(t.Context(), map[string]string{"schema_version": fmt.Sprint(store.SchemaVersion + 1)}); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "new.db")
	if err := db.SnapshotTo(t.Context(), snap); err != nil {
		t.Fatal(err)
	}
	if err := store.CheckFile(t.Context(), snap); !errors.Is(err, store.ErrSchemaTooNew) {
		t.Errorf("CheckFile(newer schema) = %v, want ErrSchemaTooNew", err)
	}
}
