package eval

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestGrepWords(t *testing.T) {
	t.Parallel()
	got := GrepWords("How is the HTTP/2 frame's header_size read? Read it, a x")
	want := []string{"http", "frame", "header_size", "read"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GrepWords (-want +got):\n%s", d)
	}
}

// TestGrep checks the baseline's counts and order: lines holding any of
// the words, case-insensitively and as substrings, once per line.
func TestGrep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		// 2 lines: "Parse" twice on one line counts once; "parser" holds "parse".
		"a.go": "package a\n// Parse parses. Parse!\nfunc parser() {}\nvar x = 1\n",
		// 3 lines.
		"b.go": "package b\n// header\n// HEADER\n// parse header\n",
		// 2 lines, ties with a.go: by path.
		"c.go":  "package c\n// header one\n// header two\n",
		"d.go":  "package d\n// nothing to see\n",
		"e.bin": "header\x00header\x00parse\n", // sniffed out as binary, as the index does
	}
	var fs []discover.File
	for p, src := range files {
		abs := filepath.Join(dir, p)
		if err := os.WriteFile(abs, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, discover.File{Path: p, Abs: abs})
	}
	g, err := NewGrep(t.Context(), fs)
	if err != nil {
		t.Fatal(err)
	}
	if g.Files() != 4 {
		t.Errorf("Grep searches %d files, want 4 (the binary skipped)", g.Files())
	}
	got := g.Search("how to parse the header", 10)
	want := []string{"b.go", "a.go", "c.go"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Search (-want +got):\n%s", d)
	}
	if got := g.Search("parse header", 1); !cmp.Equal(got, []string{"b.go"}) {
		t.Errorf("Search with limit 1 = %q, want [b.go]", got)
	}
	if got := g.Search("the of a", 10); got != nil {
		t.Errorf("Search of stop words alone = %q, want nothing", got)
	}
}

// TestPatternIndex checks the rare-byte search against bytes.Index.
func TestPatternIndex(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abexz_\n "
	for range 2000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			s[i] = alphabet[rng.IntN(len(alphabet))]
		}
		w := make([]byte, 1+rng.IntN(3))
		for i := range w {
			w[i] = alphabet[rng.IntN(5)]
		}
		if got, want := newPattern(string(w)).index(s), bytes.Index(s, w); got != want {
			t.Fatalf("index of %q in %q = %d, want %d", w, s, got, want)
		}
	}
}
