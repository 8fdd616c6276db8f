package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

// longGoFunc returns a file whose function Big has n statements.
func longGoFunc(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\n// Big does a lot.\nfunc Big(a, b int) (int, error) {\n")
	for i := range n {
		fmt.Fprintf(&b, "\ta += %d\n", i)
		if i%10 == 9 {
			b.WriteString("\tif a > b {\n\t\tb++\n\t}\n")
		}
	}
	b.WriteString("\treturn a, nil\n}\n\nfunc Small() {}\n")
	return b.String()
}

func TestSplitLongFunction(t *testing.T) {
	t.Parallel()
	src := []byte(longGoFunc(300))
	cs := chunkOK(t, New(nil), discover.LangGo, src)
	var parts []Chunk
	for _, c := range cs {
		if c.Symbol == "Big" {
			parts = append(parts, c)
		}
	}
	if len(parts) < 4 {
		t.Fatalf("Big split into %d parts, want >= 4\n%s", len(parts), dumpChunks(cs))
	}
	for i, p := range parts {
		if p.Part != i+1 {
			t.Errorf("part %d has Part %d", i, p.Part)
		}
		if p.EndLine-p.StartLine+1 > DefaultMaxLines {
			t.Errorf("part %d has %d lines", p.Part, p.EndLine-p.StartLine+1)
		}
		if p.Kind != KindFunction || p.Name != "Big" || p.Signature != "func Big(a, b int) (int, error)" {
			t.Errorf("part %d: kind %q name %q sig %q", p.Part, p.Kind, p.Name, p.Signature)
		}
		if want := ""; i == 0 {
			if p.Doc != "Big does a lot." {
				t.Errorf("part 1 doc = %q", p.Doc)
			}
		} else if p.Doc != want {
			t.Errorf("part %d doc = %q, want none", p.Part, p.Doc)
		}
		if i > 0 {
			// Cuts fall between statements: a part never starts inside
			// an if block.
			first := strings.TrimSpace(strings.SplitN(string(src[p.StartByte:p.EndByte]), "\n", 2)[0])
			if first == "b++" || first == "}" {
				t.Errorf("part %d starts mid-statement with %q", p.Part, first)
			}
		}
	}
	if got := parts[0].StartLine; got != 3 {
		t.Errorf("part 1 starts at line %d, want 3 (the doc comment)", got)
	}
	if last := cs[len(cs)-1]; last.Symbol != "Small" || last.Part != 0 {
		t.Errorf("last chunk = %+v, want Small, whole", last)
	}
}

func TestSplitByBytes(t *testing.T) {
	t.Parallel()
	// Few lines, many bytes: MaxBytes decides.
	var b strings.Builder
	b.WriteString("def f():\n")
	for i := range 40 {
		fmt.Fprintf(&b, "    x%d = %q\n", i, strings.Repeat("y", 400))
	}
	src := []byte(b.String())
	cs := chunkOK(t, New(nil), discover.LangPython, src)
	if len(cs) < 3 {
		t.Fatalf("got %d chunks, want a split\n%s", len(cs), dumpChunks(cs))
	}
	for _, c := range cs {
		if c.EndByte-c.StartByte > DefaultMaxBytes {
			t.Errorf("part %d has %d bytes", c.Part, c.EndByte-c.StartByte)
		}
		if c.Symbol != "f" || c.Signature != "def f()" {
			t.Errorf("part %d: symbol %q sig %q", c.Part, c.Symbol, c.Signature)
		}
	}
}

func TestSplitHugeStatementByLines(t *testing.T) {
	t.Parallel()
	// One statement (a raw string) of 400 lines: no syntax boundary
	// inside, so the pieces fall back to line boundaries.
	src := []byte("package p\n\nfunc F() string {\n\treturn `" + strings.Repeat("text\n", 400) + "`\n}\n")
	cs := chunkOK(t, New(nil), discover.LangGo, src)
	if len(cs) < 4 {
		t.Fatalf("got\n%s", dumpChunks(cs))
	}
	for _, c := range cs[1:] {
		if c.Symbol != "F" || c.EndLine-c.StartLine+1 > DefaultMaxLines {
			t.Errorf("chunk %+v", briefOf(c))
		}
	}
}

func TestSplitOptions(t *testing.T) {
	t.Parallel()
	src := []byte(longGoFunc(30))
	c := New(&Options{MaxLines: 10})
	cs := chunkOK(t, c, discover.LangGo, src)
	n := 0
	for _, ch := range cs {
		if ch.Symbol == "Big" {
			n++
			if ch.EndLine-ch.StartLine+1 > 10 {
				t.Errorf("part %d has %d lines", ch.Part, ch.EndLine-ch.StartLine+1)
			}
		}
	}
	if n < 4 {
		t.Errorf("Big has %d parts with MaxLines 10", n)
	}
}

func TestGrouping(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("import os\nimport sys\n\n")
	for i := range 100 {
		fmt.Fprintf(&b, "v%d = %d\n", i, i)
	}
	b.WriteString("\ndef f():\n    pass\n\nprint(f())\n")
	src := []byte(b.String())
	cs := chunkOK(t, New(nil), discover.LangPython, src)
	want := []brief{
		{Kind: KindBlock, Start: 1, End: 40}, // the blank line 3 counts
		{Kind: KindBlock, Start: 41, End: 80},
		{Kind: KindBlock, Start: 81, End: 103},
		{Kind: KindFunction, Symbol: "f", Name: "f", Start: 105, End: 106},
		{Kind: KindBlock, Start: 108, End: 108},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// GroupLines bounds the groups.
	cs = chunkOK(t, New(&Options{GroupLines: 10}), discover.LangPython, src)
	blocks := 0
	for _, c := range cs {
		if c.Kind == KindBlock {
			blocks++
			if n := c.EndLine - c.StartLine + 1; n > 10 {
				t.Errorf("block of %d lines with GroupLines 10", n)
			}
		}
	}
	if blocks < 11 {
		t.Errorf("%d blocks with GroupLines 10", blocks)
	}
}

func TestContainerPieces(t *testing.T) {
	t.Parallel()
	// A class with many fields: its own parts are split by MaxLines and
	// numbered; the members stay whole.
	var b strings.Builder
	b.WriteString("class Big {\n")
	for i := range 150 {
		fmt.Fprintf(&b, "  int f%d = %d;\n", i, i)
	}
	b.WriteString("  void m() {\n    f0++;\n  }\n}\n")
	src := []byte(b.String())
	cs := chunkOK(t, New(&Options{MaxLines: 120, MaxBytes: 6000}), discover.LangJava, src)
	want := []brief{
		{Kind: KindClass, Symbol: "Big", Name: "Big", Start: 1, End: 120, Part: 1},
		{Kind: KindClass, Symbol: "Big", Name: "Big", Start: 121, End: 151, Part: 2},
		{Kind: KindMethod, Symbol: "Big.m", Name: "m", Crumb: "Big", Start: 152, End: 155},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDocClaimedFromPreviousNode(t *testing.T) {
	t.Parallel()
	// tree-sitter-python keeps the indented comment inside a's body; the
	// comment still documents b, directly below it.
	src := []byte("def a():\n    x = 1\n    # b doubles.\ndef b():\n    pass\n")
	cs := chunkOK(t, New(nil), discover.LangPython, src)
	want := []brief{
		{Kind: KindFunction, Symbol: "a", Name: "a", Start: 1, End: 2},
		{Kind: KindFunction, Symbol: "b", Name: "b", Start: 3, End: 5, Doc: "b doubles."},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSharedLines(t *testing.T) {
	t.Parallel()
	// Definitions that share a line with earlier code start below it;
	// one that fits on the shared line entirely stays with that code.
	src := []byte("package p\n\nvar x = 1; func A() {\n}\n\nfunc B() {}; func C() {}\n")
	cs := chunkOK(t, New(nil), discover.LangGo, src)
	want := []brief{
		{Kind: KindBlock, Start: 1, End: 1},
		{Kind: KindVar, Symbol: "x", Name: "x", Start: 3, End: 3},
		{Kind: KindFunction, Symbol: "A", Name: "A", Start: 4, End: 4},
		{Kind: KindFunction, Symbol: "B", Name: "B", Start: 6, End: 6},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
