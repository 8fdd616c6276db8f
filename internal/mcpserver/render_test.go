package mcpserver

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// TestMarkdownTokensAdditive checks markdownTokens, which sums the counts
// of a page's parts, against counting the whole rendered page, over pages
// of real Go code cut at random lines (code that ends mid-line, holds
// fences, blank or indented edges), with and without warnings, stale files
// and a truncation footer.
func TestMarkdownTokensAdditive(t *testing.T) {
	t.Parallel()
	lines := goSourceLines(t, "strings")
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

// TestJSONPageTokens checks jsonPageTokens, which sums a page's JSON
// from its segments' counts, against counting the whole JSON text, over
// pages of real Go code (and text with quotes, backslashes, non-ASCII and
// invalid UTF-8) whose segments were counted with another tokens value
// than the page shows, with every optional field set in some rounds. It
// also checks that the sum is taken, not the fallback, and that a segment
// changed after it was counted is recounted.
func TestJSONPageTokens(t *testing.T) {
	t.Parallel()
	lines := goSourceLines(t, "strconv")
	odd := []string{"", "\n", "\"quoted\" \\ back\\slash\t}", "héllo wörld 世界 😀", "bad \xff\xfe utf-8", "0", "123}", "{\"k\":[1,2]}", "</script>&amp;"}
	numbers := []int{0, 1, 9, 10, 99, 100, 999, 1000, 1234, 99999, 123456, 1234567}
	rng := rand.New(rand.NewPCG(5, 6))
	summed := 0
	for round := range 300 {
		out := &RetrievalOutput{Query: "how does \"ParseFloat\" round", Confidence: "high", Method: "hybrid", MaxTokens: 4000, Tokens: rng.IntN(5000)}
		out.Freshness.IndexGeneration = int64(round)
		for range rng.IntN(6) {
			var code string
			if rng.IntN(4) == 0 {
				code = odd[rng.IntN(len(odd))]
			} else {
				i := rng.IntN(len(lines) - 40)
				code = strings.Join(lines[i:i+1+rng.IntN(40)], "")
			}
			sg := Segment{Path: "strconv/atof.go", StartLine: 1 + rng.IntN(500), Language: "go", Kind: "function", Symbol: "ParseFloat", Code: code,
				Summary: odd[rng.IntN(len(odd))], Score: rng.Float64(), Tokens: numbers[rng.IntN(len(numbers))],
				ScoreComponents: map[string]search.ChannelHit{"bm25": {Rank: 1 + rng.IntN(9), Score: rng.Float64()}}}
			if rng.IntN(3) == 0 {
				sg.Context, sg.Boosts, sg.Merged, sg.Stale, sg.Clipped = "callee of Builder.Write", []string{"def x1.2"}, 2, true, true
				sg.PathBytes, sg.Explanation = "c3RyY29udg", "parses a float"
			}
			sg.EndLine = sg.StartLine + strings.Count(code, "\n")
			sg.jsonTokens() // counted with one tokens value, shown with another
			sg.Tokens = numbers[rng.IntN(len(numbers))]
			out.Segments = append(out.Segments, sg)
		}
		if rng.IntN(3) == 0 {
			out.Warning = "the best match was weak"
			out.Truncated, out.Remaining, out.Cursor = true, rng.IntN(9), "eyJvIjozfQ"
		}
		summarize(out)
		text := mustJSON(out)
		want := tokens.Count(text)
		if got := jsonPageTokens(text, out.Segments); got != want {
			t.Fatalf("round %d: jsonPageTokens = %d, counting the whole text = %d\n%s", round, got, want, text)
		}
		if len(out.Segments) == 0 {
			continue
		}
		// The sum is what answered: a wrong segment count shows.
		out.Segments[0].js++
		if jsonPageTokens(text, out.Segments) == want+1 {
			summed++
		}
		out.Segments[0].js--
		// A segment changed since it was counted is not taken from its
		// count.
		out.Segments[0].Code += "x"
		text = mustJSON(out)
		if got, want := jsonPageTokens(text, out.Segments), tokens.Count(text); got != want {
			t.Fatalf("round %d: after a change, jsonPageTokens = %d, counting the whole text = %d", round, got, want)
		}
	}
	if summed < 200 {
		t.Errorf("the segments' counts were summed on %d pages of 300, want most", summed)
	}
}

// goSourceLines returns the lines, each with its newline, of the Go files
// of the standard library package pkg; it skips the test without them.
func goSourceLines(t *testing.T, pkg string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pkg, "*.go"))
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
	return lines
}
