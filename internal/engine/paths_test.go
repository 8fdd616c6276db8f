package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestPathRunsMatchRebuild checks runs restricted to the paths a watcher
// names (an edited file, a deleted file, a deleted directory, a new
// directory, a rename) on a kept engine with the built-in model, whose
// dense vectors are brought up to date in memory between runs, against a
// fresh build of the same tree: every channel must answer the same.
func TestPathRunsMatchRebuild(t *testing.T) {
	t.Parallel()
	root := goPackages(t, "strings", "bufio", "container/list", "container/ring")
	writeFile(t, root, "go.mod", "module m\n")
	cfg := testConfig(t)
	cfg.Embed.Provider = "builtin"
	e, err := engine.Open(cfg, root, &engine.Options{KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	index(t, e, engine.IndexOptions{})
	warm := engine.FindRequest{Query: "grow the buffer", Limit: 5}
	find(t, e, warm) // loads the vectors the later runs advance

	edits := []struct {
		paths []string
		do    func()
	}{
		{[]string{"strings/builder.go"}, func() {
			b, err := os.ReadFile(filepath.Join(root, "strings", "builder.go"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, "strings/builder.go", string(b)+"\n// GrowTwice grows the builder's buffer twice over.\nfunc (b *Builder) GrowTwice(n int) { b.Grow(2 * n) }\n")
		}},
		{[]string{"bufio/scan.go"}, func() { remove(t, root, "bufio/scan.go") }},
		{[]string{"container/ring"}, func() { remove(t, root, "container/ring") }},
		{[]string{"queue"}, func() {
			writeFile(t, root, "queue/queue.go", "package queue\n\nimport \"m/queue/deque\"\n\n// Queue is a first-in first-out list of zebraquokka items.\ntype Queue struct{ items []int; d deque.Deque }\n\n// Push appends an item at the back of the queue.\nfunc (q *Queue) Push(v int) { q.items = append(q.items, v) }\n")
			writeFile(t, root, "queue/deque/deque.go", "package deque\n\n// Deque is a double-ended zebraquokka queue.\ntype Deque struct{}\n")
		}},
		{[]string{"container/list/list.go", "container/list/linked.go"}, func() {
			if err := os.Rename(filepath.Join(root, "container", "list", "list.go"), filepath.Join(root, "container", "list", "linked.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{[]string{"strings/never-existed.go", "strings"}, func() {}},         // nothing changed
		{[]string{"queue/deque"}, func() { remove(t, root, "queue/deque") }}, // queue's import no longer resolves
		{[]string{"queue/deque/deque.go"}, func() { // and now does again
			writeFile(t, root, "queue/deque/deque.go", "package deque\n\n// Deque is back.\ntype Deque struct{}\n")
		}},
	}
	resolved := -1 // internal imports resolved after the previous step
	for _, ed := range edits {
		ed.do()
		rep := index(t, e, engine.IndexOptions{Paths: ed.paths})
		imp := status(t, e).Imports
		switch ed.paths[0] {
		case "queue/deque": // queue's import of the deleted package no longer resolves
			if imp.Resolved != resolved-1 {
				t.Errorf("after deleting queue/deque: %d internal imports resolved, want %d", imp.Resolved, resolved-1)
			}
		case "queue/deque/deque.go": // and resolves again once it is back
			if imp.Resolved != resolved+1 {
				t.Errorf("after adding queue/deque back: %d internal imports resolved, want %d", imp.Resolved, resolved+1)
			}
		}
		resolved = imp.Resolved
		if rep.Stats.Discovered > 40 {
			t.Errorf("run of %v walked %d files; want only those paths'", ed.paths, rep.Stats.Discovered)
		}
		find(t, e, warm) // advances the kept vectors by this run's changes
	}

	freshCfg := cfg
	freshCfg.CacheDir = t.TempDir()
	fresh := open(t, freshCfg, root, nil)
	index(t, fresh, engine.IndexOptions{})
	// (Stored vectors are a cache by content and keep the old texts'.)
	if got, want := status(t, e), status(t, fresh); got.Files != want.Files || got.Chunks != want.Chunks || got.Imports != want.Imports {
		t.Errorf("after path runs: %d files, %d chunks, imports %+v; a fresh build has %d, %d, %+v", got.Files, got.Chunks, got.Imports, want.Files, want.Chunks, want.Imports)
	}
	ignore := cmpopts.IgnoreFields(engine.FindStats{}, "SearchMS", "IndexGeneration")
	for _, q := range []string{"GrowTwice", "grow the buffer twice", "scanner split lines", "ring buffer", "zebraquokka queue", "doubly linked list element", "Replacer"} {
		for _, ch := range [][]string{{"bm25"}, {"dense"}, nil} {
			req := engine.FindRequest{Query: q, Limit: 20, Channels: ch}
			got, want := find(t, e, req), find(t, fresh, req)
			if diff := cmp.Diff(want.Results, got.Results, cmpopts.IgnoreUnexported(engine.Hit{})); diff != "" {
				t.Errorf("%q channels %v: path runs differ from a fresh build (-fresh +paths):\n%s", q, ch, diff)
			}
			if diff := cmp.Diff(want.Stats, got.Stats, ignore); diff != "" {
				t.Errorf("%q channels %v: stats differ (-fresh +paths):\n%s", q, ch, diff)
			}
		}
	}
}

func remove(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}
