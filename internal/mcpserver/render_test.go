package mcpserver

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/tokens"
)

// TestMarkdownTokensAdditive checks markdownTokens, which sums the counts
// of a page's parts, against counting the whole rendered page, over pages
// of real Go code cut at random lines (code that ends mid-line, holds
// fences, blank or indented edges), with and without warnings, stale files
// and a truncation footer.
func TestMarkdownTokensAdditive(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "strings", "*.go"))
	if len(paths) == 0 {
		t.Skip("no Go sources in GOROOT")
	}
	var lines []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.SplitAfter(string(b), "\n")...)
	}
	odd := []string{"", "\n", "   \n\n", "```\ncode\n```", "\t\tindented", "x := `raw`\n\n\n", "# heading\n", "> quote"}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		out := &RetrievalOutput{Query: "how does Builder grow", Confidence: "medium"}
		out.Freshness.IndexGeneration = int64(round)
		for range rng.IntN(6) {
			var code string
			if rng.IntN(4) == 0 {
				code = odd[rng.IntN(len(odd))]
			} else {
				i := rng.IntN(len(lines) - 40)
				code = strings.Join(lines[i:i+1+rng.IntN(40)], "")
				if rng.IntN(3) == 0 {
					code = strings.TrimRight(code, "\n")
				}
			}
			sg := Segment{Path: "strings/builder.go", StartLine: 1 + rng.IntN(500), Language: "go", Kind: "function", Symbol: "Builder.Grow", Code: code,
				Stale: rng.IntN(5) == 0, Clipped: rng.IntN(7) == 0}
			if rng.IntN(3) == 0 {
				sg.Context = "callee of Builder.Write"
			}
			sg.EndLine = sg.StartLine + strings.Count(code, "\n")
			sg.Score = rng.Float64()
			out.Segments = append(out.Segments, sg)
		}
		if rng.IntN(3) == 0 {
			out.Warning = "the best match was weak"
		}
		summarize(out)
		if rng.IntN(3) == 0 {
			out.Truncated, out.Remaining, out.Cursor, out.MaxTokens = true, rng.IntN(9), "eyJvIjozfQ", 8000
		}
		if got, want := markdownTokens(out), tokens.Count(renderMarkdown(out)); got != want {
			t.Fatalf("round %d: markdownTokens = %d, counting the whole page = %d\n%s", round, got, want, renderMarkdown(out))
		}
	}
}
