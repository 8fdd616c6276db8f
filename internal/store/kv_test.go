package store

import (
	"path/filepath"
	"testing"
)

func TestKV(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "cache.db")
	kv, err := OpenKV(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := kv.Get(t.Context(), "k"); ok || err != nil {
		t.Fatalf("empty cache: ok %v err %v", ok, err)
	}
	if err := kv.Put(t.Context(), "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := kv.Put(t.Context(), "k", "v2"); err != nil {
		t.Fatal(err)
	}
	kv.Close()
	// Another opener (another process) sees what was written.
	kv2, err := OpenKV(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer kv2.Close()
	if v, ok, err := kv2.Get(t.Context(), "k"); v != "v2" || !ok || err != nil {
		t.Errorf("Get = %q, %v, %v; want v2", v, ok, err)
	}
}
