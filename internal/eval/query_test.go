package eval

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/mine"
)

func TestStripName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q, name, want string
		stripped      bool
	}{
		{"ReadMIMEHeader reads a MIME-style header from r.", "ReadMIMEHeader", "reads a MIME-style header from r.", true},
		{"Calls `Reader.ReadMIMEHeader()` and keeps the result.", "ReadMIMEHeader", "Calls and keeps the result.", true},
		{"See http::parse_header, then Parser#parse_header's caller.", "parse_header", "See then caller.", true},
		{"A Server defines parameters for running an HTTP server.", "Server", "A defines parameters for running an HTTP server.", true},
		// An English word that spells the name differently is kept.
		{"Parse the header line into fields.", "parse", "Parse the header line into fields.", false},
		{"Returns the servers list.", "Server", "Returns the servers list.", false},
		{"No name here at all.", "", "No name here at all.", false},
	}
	for _, tt := range tests {
		got, stripped := StripName(tt.q, tt.name)
		if got != tt.want || stripped != tt.stripped {
			t.Errorf("StripName(%q, %q) = %q, %v; want %q, %v", tt.q, tt.name, got, stripped, tt.want, tt.stripped)
		}
	}
}

func pair(kind, path, symbol, query string, line int) mine.Pair {
	return mine.Pair{Kind: kind, Path: path, Symbol: symbol, Query: query, Lang: "go", StartLine: line, EndLine: line + 5}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	pairs := []mine.Pair{
		pair(mine.PairDoc, "a.go", "Open", "Open opens the named file for reading.", 10),
		pair(mine.PairName, "a.go", "OpenFile", "open file", 20),
		// The same text in two files: either answers it, so it is not asked.
		pair(mine.PairDoc, "a.go", "String", "String returns the name as text.", 30),
		pair(mine.PairDoc, "b.go", "String", "String returns the name as text.", 5),
		// Nothing left once the name is out.
		pair(mine.PairDoc, "b.go", "Close", "Close closes it.", 40),
		// Asked twice in one file: once.
		pair(mine.PairComment, "b.go", "Run", "drain the queue before stopping", 50),
		pair(mine.PairComment, "b.go", "Run", "Drain the queue  before stopping", 60),
		// Not eligible.
		pair(mine.PairDoc, "skip/c.go", "Walk", "Walk visits every node of the tree in order.", 1),
	}
	eligible := func(p string) bool { return p != "skip/c.go" }
	got, pool := Select(pairs, SelectOptions{Seed: 1, Eligible: eligible})
	wantPool := Pool{Pairs: 8, Eligible: 7, Ambiguous: 2, Short: 1, Repeated: 1, Candidates: 3}
	if d := cmp.Diff(wantPool, pool); d != "" {
		t.Errorf("pool (-want +got):\n%s", d)
	}
	want := []Query{
		{Text: "opens the named file for reading.", Kind: "doc", Language: "go", Path: "a.go", StartLine: 10, EndLine: 15, Symbol: "Open", Stripped: true},
		{Text: "open file", Kind: "name", Language: "go", Path: "a.go", StartLine: 20, EndLine: 25, Symbol: "OpenFile"},
		{Text: "drain the queue before stopping", Kind: "comment", Language: "go", Path: "b.go", StartLine: 50, EndLine: 55, Symbol: "Run"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}

	// With the names kept, "Close closes it." is long enough to ask.
	kept, pool := Select(pairs, SelectOptions{Seed: 1, KeepNames: true, Eligible: eligible})
	if pool.Candidates != 4 || pool.Short != 0 {
		t.Errorf("with KeepNames: %d candidates, %d short; want 4, 0", pool.Candidates, pool.Short)
	}
	for _, q := range kept {
		if q.Symbol == "Open" && (q.Text != "Open opens the named file for reading." || q.Stripped) {
			t.Errorf("with KeepNames the doc query is %q (stripped %v), want the doc as mined", q.Text, q.Stripped)
		}
	}
}

// TestSelectSample checks that the sample is capped, takes the kinds in
// turn, and depends on the seed alone.
func TestSelectSample(t *testing.T) {
	t.Parallel()
	var pairs []mine.Pair
	for i := range 60 {
		pairs = append(pairs, pair(mine.PairDoc, fmt.Sprintf("d%d.go", i), "F", fmt.Sprintf("describes thing number %d well", i), 1))
	}
	for i := range 5 {
		pairs = append(pairs, pair(mine.PairName, fmt.Sprintf("n%d.go", i), "F", fmt.Sprintf("name %d", i), 1))
	}
	got, _ := Select(pairs, SelectOptions{N: 12, Seed: 3})
	if len(got) != 12 {
		t.Fatalf("Select kept %d queries, want 12", len(got))
	}
	kinds := map[string]int{}
	for _, q := range got {
		kinds[q.Kind]++
	}
	if kinds["name"] != 5 || kinds["doc"] != 7 {
		t.Errorf("kinds %v, want all 5 name queries and 7 doc queries", kinds)
	}
	again, _ := Select(pairs, SelectOptions{N: 12, Seed: 3})
	if d := cmp.Diff(got, again); d != "" {
		t.Errorf("the same seed selected differently (-first +second):\n%s", d)
	}
	other, _ := Select(pairs, SelectOptions{N: 12, Seed: 4})
	if cmp.Equal(got, other) {
		t.Errorf("seeds 3 and 4 selected the same queries")
	}
}

// TestSelectKeepNamesSameSample checks that taking names out changes the
// queries' text, not which pairs are asked, so the two runs compare query
// by query.
func TestSelectKeepNamesSameSample(t *testing.T) {
	t.Parallel()
	var pairs []mine.Pair
	for i := range 40 {
		name := fmt.Sprintf("Func%d", i)
		pairs = append(pairs, pair(mine.PairDoc, fmt.Sprintf("f%d.go", i), name, name+fmt.Sprintf(" handles request kind %d for the server", i), 1))
	}
	where := func(qs []Query) []string {
		var out []string
		for _, q := range qs {
			out = append(out, fmt.Sprintf("%s:%d", q.Path, q.StartLine))
		}
		return out
	}
	stripped, _ := Select(pairs, SelectOptions{N: 10, Seed: 9})
	kept, _ := Select(pairs, SelectOptions{N: 10, Seed: 9, KeepNames: true})
	if d := cmp.Diff(where(kept), where(stripped)); d != "" {
		t.Errorf("--keep-names sampled other pairs (-kept +stripped):\n%s", d)
	}
	if stripped[0].Text == kept[0].Text {
		t.Errorf("query %q is the same with and without the name", stripped[0].Text)
	}
}
