package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// explainRepo is the engine fixture plus a caller of ParseConfig in
// another package and a test of it.
func explainRepo(t *testing.T) *engine.Engine {
	t.Helper()
	root := repo(t)
	writeFile(t, root, "cmd/app/main.go", `package main

import "example.com/app/config"

func main() {
	if _, err := config.ParseConfig("app.json"); err != nil {
		panic(err)
	}
}
`)
	writeFile(t, root, "config/config_test.go", `package config

import "testing"

func TestParseConfig(t *testing.T) {
	if _, err := ParseConfig("missing.json"); err == nil {
		t.Fatal("want an error")
	}
}
`)
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	return e
}

func TestFindExplainSymbol(t *testing.T) {
	t.Parallel()
	e := explainRepo(t)

	plain := find(t, e, engine.FindRequest{Query: "ParseConfig", Limit: 3})
	if plain.Understood != nil || slices.ContainsFunc(plain.Results, func(h engine.Hit) bool { return h.Why != nil || h.Relationships != nil }) {
		t.Errorf("a find without Explain carries an explanation: %+v", plain.Understood)
	}

	resp := find(t, e, engine.FindRequest{Query: "ParseConfig", Limit: 3, Explain: true})
	u := resp.Understood
	if u == nil {
		t.Fatal("no Understood with Explain")
	}
	if u.Kind != "symbol" || u.Name != "ParseConfig" || !slices.Equal(u.Symbols, []string{"ParseConfig"}) {
		t.Errorf("understood kind %q, name %q, symbols %q; want symbol, ParseConfig, [ParseConfig]", u.Kind, u.Name, u.Symbols)
	}
	if u.Defined == nil || !*u.Defined || u.Definition == nil || u.Definition.Path != "config/config.go" || u.Definition.Line != 8 {
		t.Errorf("understood definition = %+v, want config/config.go:8", u.Definition)
	}
	if !slices.ContainsFunc(u.Terms, func(t engine.UnderstoodTerm) bool { return t.Term == "parseconfig" && t.IDF > 0 && t.Weight > 0 }) {
		t.Errorf("terms %+v lack parseconfig with a weight and an IDF", u.Terms)
	}

	h := resp.Results[0]
	if h.Path != "config/config.go" || h.Symbol != "ParseConfig" {
		t.Fatalf("first result %s %s, want ParseConfig's definition", h.Path, h.Symbol)
	}
	if !slices.Contains(h.Why, "lifted: defines the symbol asked for") || !slices.ContainsFunc(h.Why, func(w string) bool { return strings.HasPrefix(w, "defined-name search rank 1") }) {
		t.Errorf("why = %q, want the symbol channel's rank and the definition lift", h.Why)
	}
	r := h.Relationships
	if r == nil {
		t.Fatal("no relationships on the first result")
	}
	if r.Definition != nil {
		t.Errorf("the definition names a definition elsewhere: %+v", r.Definition)
	}
	if !slices.ContainsFunc(r.Callers, func(c engine.Related) bool { return c.Path == "cmd/app/main.go" && c.Line == 6 && c.Symbol == "main" }) {
		t.Errorf("callers = %+v, want cmd/app/main.go:6 in main", r.Callers)
	}
	if slices.ContainsFunc(r.Callers, func(c engine.Related) bool { return strings.HasSuffix(c.Path, "_test.go") }) {
		t.Errorf("callers %+v hold a test", r.Callers)
	}
	if !slices.ContainsFunc(r.Tests, func(c engine.Related) bool { return c.Path == "config/config_test.go" && c.Symbol == "TestParseConfig" }) {
		t.Errorf("tests = %+v, want TestParseConfig", r.Tests)
	}
	if !slices.ContainsFunc(r.Importers, func(c engine.Related) bool { return c.Path == "cmd/app/main.go" && c.Line == 3 }) {
		t.Errorf("importers = %+v, want cmd/app/main.go:3", r.Importers)
	}

	// The ranking is the same with and without the explanation.
	if got, want := hitPaths(resp), hitPaths(plain); !slices.Equal(got, want) {
		t.Errorf("explained results %v, plain %v", got, want)
	}

	// NoRelationships keeps the why-lines and skips the graph.
	resp = find(t, e, engine.FindRequest{Query: "ParseConfig", Limit: 3, Explain: true, NoRelationships: true})
	if resp.Results[0].Relationships != nil || len(resp.Results[0].Why) == 0 || resp.Understood.Defined != nil {
		t.Errorf("NoRelationships: relationships %+v, why %q, defined %v", resp.Results[0].Relationships, resp.Results[0].Why, resp.Understood.Defined)
	}
}

func TestFindExplainNatural(t *testing.T) {
	t.Parallel()
	e := explainRepo(t)
	resp := find(t, e, engine.FindRequest{Query: "exponential backoff between zebra attempts", Limit: 3, Explain: true})
	u := resp.Understood
	if u == nil || u.Kind != "natural" || u.Name != "" || u.Defined != nil {
		t.Fatalf("understood = %+v, want a natural query with no name", u)
	}
	if !slices.Contains(u.Missing, "zebra") || slices.Contains(u.Missing, "backoff") {
		t.Errorf("missing = %q, want zebra and not backoff", u.Missing)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "client/retry.go" {
		t.Fatalf("results = %v, want client/retry.go first", hitPaths(resp))
	}
	why := resp.Results[0].Why
	if len(why) == 0 || !strings.HasPrefix(why[0], "BM25 rank 1") || !strings.Contains(why[0], "matched: ") || !strings.Contains(why[0], "backoff") || strings.Contains(why[0], "zebra") {
		t.Errorf("why = %q, want BM25 rank 1 first, matching backoff and not zebra", why)
	}
}

// TestFindExplainPatched: an issue whose title is about the retry code but
// whose diff changes config/config.go answers with config/config.go first,
// says why, and lists the diff's file in what it understood.
func TestFindExplainPatched(t *testing.T) {
	t.Parallel()
	e := explainRepo(t)
	issue := "Retry backoff between attempts is too short\n" +
		"The client retries with a backoff that is too short between attempts because the config is read wrong.\n" +
		"I suggest:\n" +
		"diff --git a/config/config.go b/config/config.go\n" +
		"--- a/config/config.go\n" +
		"+++ b/config/config.go\n" +
		"@@ -8,3 +8,4 @@ func ParseConfig(path string) (*Config, error) {\n"
	resp := find(t, e, engine.FindRequest{Query: issue, Limit: 3, Explain: true})
	u := resp.Understood
	if u == nil || u.Kind != "long" || !slices.Equal(u.Patched, []string{"config/config.go:8"}) {
		t.Fatalf("understood = %+v, want a long query patching config/config.go:8", u)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "config/config.go" {
		t.Fatalf("results = %v, want config/config.go first", hitPaths(resp))
	}
	if !slices.Contains(resp.Results[0].Why, "lifted: a diff in the query changes its file") {
		t.Errorf("why = %q, want the diff's lift", resp.Results[0].Why)
	}
	// A query that opens with its diff has no title line, and the diff's
	// file still comes first.
	bare := find(t, e, engine.FindRequest{Query: issue[strings.Index(issue, "diff --git"):] + "The client retries with a backoff between attempts.\n", Limit: 3, Explain: true})
	if bare.Understood.Title != "" || len(bare.Results) == 0 || bare.Results[0].Path != "config/config.go" {
		t.Errorf("a query opening with the diff: title %q, results %v; want no title and config/config.go first", bare.Understood.Title, hitPaths(bare))
	}
	// Without the diff the title's file wins: the lift is what moved it.
	plain := find(t, e, engine.FindRequest{Query: issue[:strings.Index(issue, "I suggest")], Limit: 3})
	if len(plain.Results) == 0 || plain.Results[0].Path == "config/config.go" {
		t.Errorf("without the diff, results = %v; the test needs another file first", hitPaths(plain))
	}
}

// TestFindExplainNames: a question's capitalised word is understood as a
// name and lifts the definition of exactly that name.
func TestFindExplainNames(t *testing.T) {
	t.Parallel()
	e := explainRepo(t)
	resp := find(t, e, engine.FindRequest{Query: "how long does Retry wait between attempts", Limit: 3, Explain: true})
	if u := resp.Understood; u == nil || !slices.Equal(u.Names, []string{"Retry"}) {
		t.Fatalf("understood = %+v, want the name Retry", resp.Understood)
	}
	if len(resp.Results) == 0 || resp.Results[0].Symbol != "Retry" {
		t.Fatalf("results = %v, want Retry's definition first", hitPaths(resp))
	}
	if !slices.Contains(resp.Results[0].Why, "lifted: defines a name the query writes with a capital") {
		t.Errorf("why = %q, want the name's lift", resp.Results[0].Why)
	}
}
