package engine_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestIncrementalMatchesRebuild checks the BM25 index through a series
// of incremental runs (files edited, deleted, added; dead postings and
// segment merges in between) against a fresh build of the same tree:
// every lexical query must return the same hits with the same scores.
func TestIncrementalMatchesRebuild(t *testing.T) {
	t.Parallel()
	root := goPackages(t, "strings", "bufio")
	cfg := testConfig(t)
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})

	extra, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "bytes", "buffer.go"))
	if err != nil {
		t.Skip(err)
	}
	edits := []func(){
		func() { // edit: a file gains a function
			p := filepath.Join(root, "strings", "builder.go")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, "\n// GrowTwice grows the builder's buffer twice over.\nfunc (b *Builder) GrowTwice(n int) { b.Grow(2 * n) }\n"...)
			writeFile(t, root, "strings/builder.go", string(b))
		},
		func() { // delete
			if err := os.Remove(filepath.Join(root, "bufio", "scan.go")); err != nil {
				t.Fatal(err)
			}
		},
		func() { writeFile(t, root, "bytes/buffer.go", string(extra)) }, // add
		func() {
			writeFile(t, root, "strings/reader.go", "package strings\n\n// Reader is gone.\ntype Reader struct{}\n")
		},
	}
	for _, edit := range edits {
		edit()
		index(t, e, engine.IndexOptions{})
	}

	fresh := open(t, testConfig(t), root, nil)
	index(t, fresh, engine.IndexOptions{})
	queries := []string{
		"Builder Grow buffer",
		"scanner split function for lines",
		"read a rune from the reader",
		"GrowTwice",
		"buffer truncate and reset",
		"ReadString delimiter",
		"strings reader",
		"bufio",
		"Replacer",
		"strings.Builder.WriteString",
	}
	ignore := cmpopts.IgnoreFields(engine.FindStats{}, "SearchMS", "IndexGeneration")
	for _, q := range queries {
		for _, ch := range [][]string{{"bm25"}, nil} {
			req := engine.FindRequest{Query: q, Limit: 20, Channels: ch}
			got, want := find(t, e, req), find(t, fresh, req)
			if diff := cmp.Diff(want.Results, got.Results, cmpopts.IgnoreUnexported(engine.Hit{})); diff != "" {
				t.Errorf("%q channels %v: incremental index differs from a fresh build (-fresh +incremental):\n%s", q, ch, diff)
			}
			if diff := cmp.Diff(want.Stats, got.Stats, ignore); diff != "" {
				t.Errorf("%q channels %v: stats differ (-fresh +incremental):\n%s", q, ch, diff)
			}
			if len(got.Results) == 0 {
				t.Errorf("%q channels %v: no results", q, ch)
			}
		}
	}
}
