package eval

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"testing"
)

// testReport is a report with every system scoring something, so each
// one's bars show in the charts.
func testReport() *Report {
	sys := func(name string, v, ms float64) System {
		m := Metrics{Recall1: v, Recall5: v + 0.1, Recall10: v + 0.15, MRR: v + 0.05, NDCG10: v + 0.08, N: 30}
		return System{Name: name, Description: name + " search", Metrics: m, LatencyP50MS: ms, LatencyP95MS: ms * 2,
			ByKind: map[string]Metrics{"doc": m, "name": m, "comment": m}}
	}
	q := Query{Text: "opens the <named> file", Kind: "doc", Language: "go", Path: "os/file.go", StartLine: 10, EndLine: 20, Symbol: "Open"}
	return &Report{Repository: "/src/shop", IndexGeneration: 3, Model: "builtin/ctx-code@1@256", Split: "heldout", Seed: 1, Queries: 30,
		ByKind: map[string]int{"doc": 10, "name": 10, "comment": 10}, Files: 12,
		Systems: []System{sys("default", 0.7, 12), sys("lexical", 0.6, 8), sys("dense", 0.5, 6), sys("grep", 0.4, 30)},
		Details: []Detail{{Query: q, Answers: map[string]Answer{"default": {Rank: 1}, "lexical": {Rank: 2}, "dense": {Rank: 0}, "grep": {Rank: 7}}}},
	}
}

// TestWriteHTML checks that the page stands alone: three inline SVG
// charts, the embedded font, no script and nothing fetched.
func TestWriteHTML(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteHTML(&b, testReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("the page has %d <svg> charts, want 3", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Errorf("an inlined chart kept its XML prolog")
	}
	if !strings.Contains(page, "@font-face{font-family:\"Liberation Sans\";src:url(data:font/ttf;base64,") {
		t.Errorf("the chart font is not embedded")
	}
	// Only the SVG namespaces may name a URL; nothing is loaded.
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|<script|<link|@import|url\((https?:|//)`).FindAllString(page, -1) {
		t.Errorf("the page refers to the network: %q", m)
	}
	for _, want := range []string{"ctx eval: /src/shop", "opens the &lt;named&gt; file", "os/file.go:10", ">grep<", "0.700", "NDCG@10 by query kind"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for name, c := range Colors {
		hex := strings.ToLower(colorHex(c))
		if !strings.Contains(strings.ToLower(page), hex) {
			t.Errorf("no bar of %s's colour %s in the charts", name, hex)
		}
	}
}

func colorHex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
