package chunk

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctx-dev/ctx/internal/discover"
)

// TestSketchSimilarity checks that a sketch ignores identifiers, literals
// and comments, tolerates a small edit, and tells different shapes apart,
// within a language and across two.
func TestSketchSimilarity(t *testing.T) {
	t.Parallel()
	c := New(nil)
	sketch := func(lang, src string) []byte {
		t.Helper()
		s, errLine, err := c.Sketch(t.Context(), lang, []byte(src), 0, len(src))
		if err != nil || errLine != 0 {
			t.Fatalf("sketch of %q: syntax error line %d, %v", src, errLine, err)
		}
		if len(s) != SketchBytes {
			t.Fatalf("sketch of %q: %d bytes, want %d", src, len(s), SketchBytes)
		}
		return s
	}
	sum := sketch(discover.LangGo, `func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		if x > 0 {
			total += x
		}
	}
	return total
}
`)
	renamed := sketch(discover.LangGo, `// Count counts.
func Count(items []float64) float64 {
	acc := 1.5
	for _, it := range items {
		if it > 2 {
			acc += it
		}
	}
	return acc
}
`)
	edited := sketch(discover.LangGo, `func Count(items []float64) float64 {
	acc := 1.5
	for _, it := range items {
		if it > 2 {
			acc += it
			n++
		}
	}
	return acc
}
`)
	other := sketch(discover.LangGo, `func Open(name string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	return &File{f: f}, nil
}
`)
	pySum := sketch(discover.LangPython, `def total(xs):
    acc = 0
    for x in xs:
        if x > 0:
            acc += x
    return acc
`)
	pyOther := sketch(discover.LangPython, `def open_file(name):
    try:
        f = open(name)
    except OSError as e:
        raise RuntimeError("open %s" % name) from e
    return File(f)
`)
	if got := Similarity(sum, renamed); got != 1 {
		t.Errorf("renamed identifiers and literals, comment added: similarity %.3f, want 1", got)
	}
	if s, o := Similarity(sum, edited), Similarity(sum, other); s < 0.6 || s <= o {
		t.Errorf("one statement added: similarity %.3f, want >= 0.6 and above an unrelated function's %.3f", s, o)
	}
	if s, o := Similarity(pySum, sum), Similarity(pySum, other); s <= o {
		t.Errorf("Python loop against the Go loop %.3f, against unrelated Go %.3f: want the loop closer", s, o)
	}
	if s, o := Similarity(pySum, pySum), Similarity(pySum, pyOther); s != 1 || o > 0.5 {
		t.Errorf("Python self-similarity %.3f (want 1), against an unrelated function %.3f (want <= 0.5)", s, o)
	}
	if Similarity(sum, nil) != 0 {
		t.Error("similarity to a missing sketch is not 0")
	}
}

// TestSketchErrors checks the errors and syntax error lines of Sketch.
func TestSketchErrors(t *testing.T) {
	t.Parallel()
	c := New(nil)
	if _, _, err := c.Sketch(t.Context(), discover.LangText, []byte("hello"), 0, 5); !errors.Is(err, ErrNoGrammar) {
		t.Errorf("text: err = %v, want ErrNoGrammar", err)
	}
	src := []byte("x = 1\nif (:\n")
	if _, line, err := c.Sketch(t.Context(), discover.LangPython, src, 0, len(src)); err != nil || line != 2 {
		t.Errorf("broken Python: error line %d, %v; want 2", line, err)
	}
	src = []byte("// only a comment\n")
	if sk, line, err := c.Sketch(t.Context(), discover.LangGo, src, 0, len(src)); err != nil || line != 0 || sk != nil {
		t.Errorf("comment only: sketch %x, error line %d, %v; want nil, 0, nil", sk, line, err)
	}
}

// TestSketchWalkLayout checks the C walk's reading of go-tree-sitter's
// node (sketch_walk.go): the nodes it reports for a span are the named
// nodes the Go binding lists, in preorder, with their depths.
func TestSketchWalkLayout(t *testing.T) {
	t.Parallel()
	s := specs[discover.LangGo]
	s.init()
	src := []byte("func f(a int) int {\n\treturn a + 1\n}\n")
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(s.lang)
	tree, err := p.ParseCtx(t.Context(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var want []uint32
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		if n.IsNamed() {
			want = append(want, uint32(n.Symbol())|uint32(depth)<<16)
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			walk(n.Child(i), depth+1)
		}
	}
	root := tree.RootNode()
	for i := 0; i < int(root.ChildCount()); i++ {
		walk(root.Child(i), 1)
	}
	got := walkSpans(root, []span{{0, len(src)}}, nil)
	if len(got) < 2 || got[0] != walkMark || got[1] != 0 {
		t.Fatalf("walk = %x, want a mark for span 0 first", got)
	}
	if diff := cmp.Diff(want, got[2:]); diff != "" {
		t.Errorf("walked nodes (-want +got):\n%s", diff)
	}
}
