package engine_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// lookupRepo is the engine fixture plus a caller of Retry, a second
// definition named Config in a test file, and a mention in a comment.
func lookupRepo(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	root := repo(t)
	writeFile(t, root, "cmd/main.go", `package main

import (
	"example.com/app/client"
	"example.com/app/config"
)

func main() {
	cfg, _ := config.ParseConfig("app.json")
	_ = client.Retry(cfg.Retries, func() error { return nil })
	// Retry again later; RetryAll is another name.
}
`)
	writeFile(t, root, "config/config_test.go", "package config\n\ntype Config struct{ Fake bool }\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	return e, root
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	e, _ := lookupRepo(t)
	defs, err := e.Definitions(t.Context(), "client.Retry", "", 5, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0].Path != "client/retry.go" || defs[0].StartLine != 5 || defs[0].Kind != "function" {
		t.Fatalf("Definitions(client.Retry) = %+v, want client/retry.go:5 function", defs)
	}
	if defs[0].Confidence != 1 || defs[0].Code == "" {
		t.Errorf("qualified exact match: confidence %v, code %q; want 1 and the code", defs[0].Confidence, defs[0].Code)
	}
	// Two types named Config: the non-test one first, unless the hint
	// points at the test file.
	defs, err = e.Definitions(t.Context(), "Config", "", 5, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(defs); !cmp.Equal(got, []string{"config/config.go", "config/config_test.go"}) {
		t.Errorf("Definitions(Config) paths = %v", got)
	}
	defs, err = e.Definitions(t.Context(), "Config", "config/config_test.go", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(defs); !cmp.Equal(got, []string{"config/config_test.go"}) {
		t.Errorf("Definitions(Config, hint test file, max 1) = %v", got)
	}
	if defs, err := e.Definitions(t.Context(), "NoSuchThing", "", 5, false); err != nil || len(defs) != 0 {
		t.Errorf("Definitions(NoSuchThing) = %v, %v; want none and no error", defs, err)
	}
	if _, err := e.Definitions(t.Context(), "()", "", 5, false); err == nil {
		t.Errorf("Definitions(()) succeeded; want an error for a symbol without a name")
	}
}

func paths(defs []engine.Definition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Path)
	}
	return out
}

func TestReferences(t *testing.T) {
	t.Parallel()
	e, _ := lookupRepo(t)
	refs, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: "Retry"})
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		Loc  string
		Kind string
	}
	var got []ref
	for _, r := range refs {
		got = append(got, ref{r.Path + ":" + itoa(r.Line), r.Kind})
	}
	want := []ref{
		{"client/retry.go:5", "reference"}, // the doc comment
		{"client/retry.go:7", "definition"},
		{"cmd/main.go:10", "call"},
		{"cmd/main.go:11", "reference"}, // the comment; RetryAll is not a match
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("References(Retry) (-want +got):\n%s", d)
	}
	calls, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: "Retry", ExcludeDefinition: true, Kinds: []string{"call"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Path != "cmd/main.go" || calls[0].Enclosing != "main" {
		t.Errorf("calls of Retry = %+v, want one in main of cmd/main.go", calls)
	}
	imps, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: "config", Kinds: []string{"import"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(imps) != 1 || imps[0].Path != "cmd/main.go" || imps[0].Line != 5 {
		t.Errorf("imports of config = %+v, want cmd/main.go:5", imps)
	}
}

func itoa(n int) string {
	return strconv.Itoa(n)
}

func TestFiles(t *testing.T) {
	t.Parallel()
	e, _ := lookupRepo(t)
	files, total, err := e.Files(t.Context(), "*.go", nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if total != 4 || len(files) != 2 || files[0].Path != "client/retry.go" || files[0].Language != "go" || files[0].Lines == 0 {
		t.Errorf("Files(*.go, max 2) = %+v of %d, want 2 of 4 starting with client/retry.go", files, total)
	}
	files, total, err = e.Files(t.Context(), "", []string{"python"}, 0)
	if err != nil || total != 1 || files[0].Path != "scripts/settings.py" {
		t.Errorf("Files(python) = %+v, %d, %v", files, total, err)
	}
	if _, _, err := e.Files(t.Context(), "[", nil, 0); err == nil {
		t.Errorf("Files([) succeeded; want a bad-glob error")
	}
}

func TestLookupNotIndexed(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil)
	if _, err := e.Definitions(t.Context(), "Retry", "", 5, false); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Definitions before indexing: %v, want ErrNotIndexed", err)
	}
	if _, _, err := e.Files(t.Context(), "", nil, 0); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Files before indexing: %v, want ErrNotIndexed", err)
	}
}

// TestReferenceLinks: mentions link to the definition in scope: the same
// file, a file of the same package, or what the mentioning file imports.
func TestReferenceLinks(t *testing.T) {
	t.Parallel()
	e, root := lookupRepo(t)
	// A second Retry, in a package cmd/main.go does not import, which
	// calls both its own and, qualified, client's.
	writeFile(t, root, "other/retry.go", "package other\n\nimport \"example.com/app/client\"\n\n// Retry is another retry.\nfunc Retry() {}\n\nfunc use() {\n\tRetry()\n\tclient.Retry(0, nil)\n}\n")
	index(t, e, engine.IndexOptions{})
	refs, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: "Retry", Kinds: []string{"call"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range refs {
		got[r.Path+":"+strconv.Itoa(r.Line)] = r.Definition + " " + strconv.FormatFloat(r.Confidence, 'g', 3, 64)
	}
	// A bare name is linked through scope, by text.
	want := map[string]string{
		"cmd/main.go:10":    "client/retry.go:5 0.95", // client.Retry, client imported
		"other/retry.go:9":  "other/retry.go:5 0.95",  // same file
		"other/retry.go:10": "client/retry.go:5 0.95", // qualified by an import: not the file's own
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("call links (-want +got):\n%s", d)
	}
	// A qualified lookup keeps the mentions of its definition only: not
	// other.Retry's definition line nor its call.
	refs, err = e.References(t.Context(), engine.ReferenceQuery{Symbol: "client.Retry"})
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]string{}
	for _, r := range refs {
		got[r.Path+":"+strconv.Itoa(r.Line)] = r.Kind
		// Go calls of a named definition are resolved with go/ast:
		// their links are certain.
		if r.Kind == "call" && r.Confidence != 1 {
			t.Errorf("client.Retry call %s:%d linked at %.2f, want 1", r.Path, r.Line, r.Confidence)
		}
	}
	for _, k := range []string{"other/retry.go:6", "other/retry.go:9"} {
		if _, ok := got[k]; ok {
			t.Errorf("client.Retry references list %s (other.Retry's): %v", k, got)
		}
	}
	for _, k := range []string{"client/retry.go:5", "cmd/main.go:10", "other/retry.go:10"} {
		if _, ok := got[k]; !ok {
			t.Errorf("client.Retry references miss %s: %v", k, got)
		}
	}
	refs, err = e.References(t.Context(), engine.ReferenceQuery{Symbol: "Retry", MinConfidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if r.Confidence < 0.9 {
			t.Errorf("MinConfidence 0.9 kept %+v", r)
		}
	}
}

// TestOperatorDefinitions: an operator is looked up by its symbol, in
// the C++ ("operator+") and C# ("operator +") spellings.
func TestOperatorDefinitions(t *testing.T) {
	t.Parallel()
	root := repo(t)
	writeFile(t, root, "geo/vec.hpp", "struct Vec2 {\n  double x, y;\n  Vec2 operator+(const Vec2& o) const { return {x + o.x, y + o.y}; }\n  bool operator==(const Vec2& o) const { return x == o.x && y == o.y; }\n};\n")
	writeFile(t, root, "Shop/Money.cs", "namespace Shop;\n\npublic readonly struct Money\n{\n    public decimal Value { get; init; }\n    public static Money operator +(Money a, Money b) => new() { Value = a.Value + b.Value };\n}\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	for _, tc := range []struct{ symbol, path string }{
		{"Vec2.operator+", "geo/vec.hpp"},
		{"operator==", "geo/vec.hpp"},
		{"Money.operator +", "Shop/Money.cs"},
		{"operator+", "geo/vec.hpp"},
	} {
		defs, err := e.Definitions(t.Context(), tc.symbol, "", 5, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(defs) == 0 || defs[0].Path != tc.path {
			t.Errorf("Definitions(%q) = %+v, want %s first", tc.symbol, defs, tc.path)
		}
	}
}
