package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

// repoSearcher returns a lexical-only searcher over a new index of
// testdata/repo.txtar; subtests share it (searches never write).
func repoSearcher(t *testing.T) *Searcher {
	t.Helper()
	root := extract(t, "repo.txtar")
	return &Searcher{DB: buildIndex(t, root, nil)}
}

func paths(res []Result) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Path)
	}
	return out
}

// rankOf returns the 1-based position of the first result in path, or 0.
func rankOf(res []Result, path string) int {
	for i, r := range res {
		if r.Path == path {
			return i + 1
		}
	}
	return 0
}

func search(t *testing.T, s *Searcher, req Request) ([]Result, Stats) {
	t.Helper()
	res, st, err := s.Search(t.Context(), req)
	if err != nil {
		t.Fatalf("Search(%q): %v", req.Query, err)
	}
	return res, st
}

func TestSearchFirstResult(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	cases := []struct {
		name, query          string
		kind                 analyze.QueryKind
		wantPath, wantSymbol string
	}{
		{"symbol", "ParseConfig", analyze.QuerySymbol, "config/config.go", "ParseConfig"},
		{"symbol lower camel", "parseConfig", analyze.QuerySymbol, "web/config.js", "parseConfig"},
		{"symbol snake", "load_settings", analyze.QuerySymbol, "scripts/settings.py", "load_settings"},
		{"symbol rust", "tokenize", analyze.QuerySymbol, "lib/tokenizer.rs", "tokenize"},
		{"qualified symbol", "User.save", analyze.QuerySymbol, "app/models/user.py", "User.save"},
		{"natural doc words", "where are retries with exponential backoff done", analyze.QueryNatural, "client/retry.go", "Retry"},
		{"natural file name", "load settings file", analyze.QueryNatural, "scripts/settings.py", "load_settings"},
		{"natural template", "render an html template", analyze.QueryNatural, "web/render.js", "renderTemplate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, st := search(t, s, Request{Query: c.query, Limit: 5})
			if len(res) == 0 {
				t.Fatal("no results")
			}
			if got := analyze.QueryKind(st.QueryKind); got != c.kind {
				t.Errorf("QueryKind = %q, want %q", got, c.kind)
			}
			if got := res[0]; got.Path != c.wantPath || got.Symbol != c.wantSymbol {
				t.Errorf("first result = %s %s, want %s %s (all: %v)", got.Path, got.Symbol, c.wantPath, c.wantSymbol, paths(res))
			}
		})
	}
}

// TestSearchResultFields checks that a result carries its chunk's location
// and the channels that found it, and that results come best first.
func TestSearchResultFields(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	res, st := search(t, s, Request{Query: "ParseConfig", Limit: 10})
	if st.Candidates < len(res) || st.FilesConsidered == 0 || st.SearchMS < 0 {
		t.Errorf("stats = %+v for %d results", st, len(res))
	}
	r := res[0]
	want := Result{Path: "config/config.go", Language: "go", Kind: "function", Symbol: "ParseConfig", StartLine: 8, EndLine: 20}
	got := Result{Path: r.Path, Language: r.Language, Kind: r.Kind, Symbol: r.Symbol, StartLine: r.StartLine, EndLine: r.EndLine}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first result (-want +got):\n%s", diff)
	}
	if r.StartByte >= r.EndByte || r.FileSize == 0 || r.FileTime == 0 || r.Summary == "" {
		t.Errorf("first result = %+v, want a byte range, file size, file time and summary", r)
	}
	for _, ch := range []string{"bm25", "symbol"} {
		if _, ok := r.Channels[ch]; !ok {
			t.Errorf("first result channels = %v, want %q among them", r.Channels, ch)
		}
	}
	if !slices.IsSortedFunc(res, func(a, b Result) int { return -cmpFloat(a.Score, b.Score) }) {
		t.Errorf("results not sorted by score: %v", res)
	}
	for _, r := range res {
		if r.Score <= 0 {
			t.Errorf("%s:%d score %v, want > 0", r.Path, r.StartLine, r.Score)
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSearchLimit(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	for _, limit := range []int{1, 3} {
		res, _ := search(t, s, Request{Query: "config", Limit: limit})
		if len(res) != limit {
			t.Errorf("Limit %d: %d results", limit, len(res))
		}
	}
	// The default is 10.
	res, st := search(t, s, Request{Query: "return error config user settings template tokens", Limit: 0})
	if st.Candidates <= 10 {
		t.Fatalf("only %d candidates; the query must match more than 10 chunks", st.Candidates)
	}
	if len(res) != 10 {
		t.Errorf("Limit 0: %d results, want the default 10", len(res))
	}
}

func TestSearchNoResults(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	for _, q := range []string{"zzzqqqxxx", "", "  ", "?!"} {
		res, _, err := s.Search(t.Context(), Request{Query: q})
		if err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
		if len(res) != 0 {
			t.Errorf("Search(%q) = %v, want no results", q, paths(res))
		}
	}
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	cases := []struct {
		name  string
		req   Request
		want  func(Result) bool
		first string
	}{
		{
			name:  "language",
			req:   Request{Query: "load settings file", Languages: []string{"python"}},
			want:  func(r Result) bool { return r.Language == "python" },
			first: "scripts/settings.py",
		},
		{
			name:  "language case-insensitive, several",
			req:   Request{Query: "parse config", Languages: []string{"JavaScript", "rust"}},
			want:  func(r Result) bool { return r.Language == "javascript" || r.Language == "rust" },
			first: "web/config.js",
		},
		{
			name:  "doublestar glob",
			req:   Request{Query: "backoff retries config", PathGlobs: []string{"client/**"}},
			want:  func(r Result) bool { return strings.HasPrefix(r.Path, "client/") },
			first: "client/retry.go",
		},
		{
			name:  "bare directory",
			req:   Request{Query: "parse config", PathGlobs: []string{"config/"}},
			want:  func(r Result) bool { return strings.HasPrefix(r.Path, "config/") },
			first: "config/config.go",
		},
		{
			name:  "file glob",
			req:   Request{Query: "config", PathGlobs: []string{"**/*.js"}},
			want:  func(r Result) bool { return strings.HasSuffix(r.Path, ".js") },
			first: "web/config.js",
		},
		{
			name: "glob and language together",
			req:  Request{Query: "config", PathGlobs: []string{"config/**"}, Languages: []string{"python"}},
			want: func(Result) bool { return false },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, st := search(t, s, c.req)
			for _, r := range res {
				if !c.want(r) {
					t.Errorf("result %s (%s) passes the filter", r.Path, r.Language)
				}
			}
			if st.Candidates < len(res) {
				t.Errorf("Candidates = %d < %d results", st.Candidates, len(res))
			}
			if c.first == "" {
				if len(res) != 0 {
					t.Errorf("results = %v, want none", paths(res))
				}
				return
			}
			if len(res) == 0 || res[0].Path != c.first {
				t.Errorf("results = %v, want %s first", paths(res), c.first)
			}
		})
	}
}

// traceback is an issue as a user would file it: prose, then a Python
// traceback whose innermost frame is the file to fix.
const traceback = `Saving a user without an email crashes the sign-up page instead of showing a form error.

Traceback (most recent call last):
  File "/srv/app/app/views.py", line 9, in register
    user.save(db)
  File "/srv/app/app/models/user.py", line 14, in save
    raise ValueError("user has no email address")
ValueError: user has no email address
`

func TestSearchTraceback(t *testing.T) {
	t.Parallel()
	s := repoSearcher(t)
	res, st := search(t, s, Request{Query: traceback, Limit: 5})
	if st.QueryKind != string(analyze.QueryLong) {
		t.Errorf("QueryKind = %q, want %q", st.QueryKind, analyze.QueryLong)
	}
	// Both files of the traceback beat every file it does not name.
	for _, p := range []string{"app/models/user.py", "app/views.py"} {
		if r := rankOf(res, p); r == 0 || r > 2 {
			t.Errorf("%s ranks %d, want 1 or 2 (results: %v)", p, r, paths(res))
		}
	}
	// The frame's function is found as a definition.
	i := slices.IndexFunc(res, func(r Result) bool { return r.Symbol == "User.save" })
	if i < 0 || i > 1 {
		t.Errorf("User.save at %d, want among the first two (results: %v)", i, paths(res))
	}
}

func TestSearchDense(t *testing.T) {
	t.Parallel()
	const dims = 64
	root := extract(t, "repo.txtar")
	fake := embedtest.New(dims)
	db := buildIndex(t, root, fake)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	vecs, ver, err := LoadVectors(t.Context(), db, dims, nil)
	if err != nil {
		t.Fatal(err)
	}
	if vecs.Len() != c.Chunks || ver != want || want.Content == 0 || want.IndexID == "" || vecs.Generation != want.Content {
		t.Fatalf("LoadVectors: %d vectors at version %+v (generation %d), want one per chunk (%d) at %+v",
			vecs.Len(), ver, vecs.Generation, c.Chunks, want)
	}
	s := &Searcher{DB: db, Embedder: fake, Vectors: vecs, TotalChunks: c.Chunks}
	calls := fake.Calls()
	res, _ := search(t, s, Request{Query: "write the user to the database", Limit: 5})
	if fake.Calls() != calls+1 {
		t.Errorf("embedder called %d times for one query, want 1", fake.Calls()-calls)
	}
	if len(res) == 0 {
		t.Fatal("no results")
	}
	if res[0].Path != "app/models/user.py" {
		t.Errorf("results = %v, want app/models/user.py first", paths(res))
	}
	dense := 0
	for _, r := range res {
		if _, ok := r.Channels["dense"]; ok {
			dense++
		}
	}
	if dense == 0 {
		t.Errorf("no result has a dense channel hit: %v", res)
	}

	// Without vectors the same searcher is lexical-only.
	lex := &Searcher{DB: db, Embedder: fake}
	res, _ = search(t, lex, Request{Query: "write the user to the database", Limit: 5})
	for _, r := range res {
		if _, ok := r.Channels["dense"]; ok {
			t.Errorf("%s: dense channel hit without vectors", r.Path)
		}
	}
}

func TestLoadVectorsDimensionMismatch(t *testing.T) {
	t.Parallel()
	root := extract(t, "repo.txtar")
	db := buildIndex(t, root, embedtest.New(16))
	_, _, err := LoadVectors(t.Context(), db, 32, nil)
	if !errors.Is(err, embed.ErrDimension) {
		t.Errorf("LoadVectors with other dimensions: %v, want embed.ErrDimension", err)
	}
}

// TestSearchFilterBeyondRecall: a language or path filter keeps the
// matching chunks even when more than a channel's recall limit of other
// chunks match better.
func TestSearchFilterBeyondRecall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"py/tools.py": "def helper(x):\n    \"\"\"Helps with many things, among them the widget.\"\"\"\n    return x + 1\n",
	}
	for i := range 320 {
		files[fmt.Sprintf("pkg/widget%03d.go", i)] = fmt.Sprintf("package pkg\n\n// Widget%d renders a widget.\nfunc Widget%d() string { return \"widget\" }\n", i, i)
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &Searcher{DB: buildIndex(t, root, nil)}
	for _, req := range []Request{
		{Query: "widget", Languages: []string{"python"}},
		{Query: "widget", PathGlobs: []string{"py/**"}},
	} {
		if res, _ := search(t, s, req); rankOf(res, "py/tools.py") != 1 {
			t.Errorf("Search(%+v) = %v, want py/tools.py", req, paths(res))
		}
	}
}

// queryRecorder records the texts a provider embeds as queries.
type queryRecorder struct {
	*embedtest.Fake
	mu      sync.Mutex
	queries []string
}

func (r *queryRecorder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	if kind == embed.Query {
		r.mu.Lock()
		r.queries = append(r.queries, texts...)
		r.mu.Unlock()
	}
	return r.Fake.Embed(ctx, texts, kind)
}

// TestSearchDenseQueryDropsCommonWords: a word every chunk holds (the
// project's directory, in every path) is left out of the embedded query,
// and the stats say what was embedded; BM25 and the results still see the
// whole query.
func TestSearchDenseQueryDropsCommonWords(t *testing.T) {
	t.Parallel()
	const dims = 32
	root := t.TempDir()
	for i := range 40 {
		var b strings.Builder
		for j := range 4 {
			fmt.Fprintf(&b, "def step_%d_%d(value):\n    return value + %d\n\n\n", i, j, i*4+j)
		}
		dir := filepath.Join(root, "acme", fmt.Sprintf("pkg%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			b.WriteString("def charge_payment(order):\n    return checkout(order)\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "views.py"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := &queryRecorder{Fake: embedtest.New(dims)}
	db := buildIndex(t, root, rec)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Chunks < pruneMinChunks {
		t.Fatalf("%d chunks, want at least %d for the rule to apply", c.Chunks, pruneMinChunks)
	}
	vecs, _, err := LoadVectors(t.Context(), db, dims, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Searcher{DB: db, Embedder: rec, Vectors: vecs, TotalChunks: c.Chunks}

	res, st := search(t, s, Request{Query: "acme payment checkout", Limit: 5})
	if len(res) == 0 || res[0].Path != "acme/pkg0/views.py" {
		t.Errorf("results %v, want acme/pkg0/views.py first", paths(res))
	}
	if want := " payment checkout"; st.DenseQuery != want {
		t.Errorf("Stats.DenseQuery = %q, want %q", st.DenseQuery, want)
	}
	// A query of no corpus-wide word is embedded as it is.
	_, st = search(t, s, Request{Query: "payment checkout", Limit: 5})
	if st.DenseQuery != "" {
		t.Errorf("Stats.DenseQuery = %q for a query without common words, want empty", st.DenseQuery)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if want := []string{" payment checkout", "payment checkout"}; !slices.Equal(rec.queries, want) {
		t.Errorf("embedded queries %q, want %q", rec.queries, want)
	}
}

// TestSearchPublicDeclarationFirst: an API query ranks the public header
// above the test, the benchmark and the internal twin that use or copy the
// same name; a qualified query the same.
func TestSearchPublicDeclarationFirst(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "twins.txtar"), nil)}
	for _, q := range []string{"RingBuffer", "ring::RingBuffer", "ring buffer that overwrites its oldest element"} {
		res, _ := search(t, s, Request{Query: q, Limit: 5})
		if len(res) == 0 || res[0].Path != "include/ring/ring_buffer.h" {
			t.Errorf("%q: results %v, want include/ring/ring_buffer.h first", q, paths(res))
		}
	}
}

// TestSearchIssueTitle: an issue whose code sample calls the cart and the
// view, and whose title names the discount, ranks discount.py first; the
// title's rank shows in the channels.
func TestSearchIssueTitle(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "twins.txtar"), nil)}
	issue := "Discount rounding loses a cent\n\n" +
		"When I check out, the result is sometimes one cent too low:\n\n" +
		"```python\nrequest.items = [item]\nresult = checkout(request)\nprint(result[\"items\"], result[\"total\"])\n```\n\n" +
		"The checkout view returns 26.99 where 27.00 was expected.\n"
	res, st := search(t, s, Request{Query: issue, Limit: 5})
	if st.QueryKind != "long" {
		t.Fatalf("issue analysed as %s", st.QueryKind)
	}
	if len(res) == 0 || res[0].Path != "shop/discount.py" {
		t.Fatalf("results %v, want shop/discount.py first", paths(res))
	}
	if _, ok := res[0].Channels["title"]; !ok {
		t.Errorf("first result's channels %v lack the title's rank", res[0].Channels)
	}
	// Without the title search the code sample's names win.
	whole, _ := search(t, s, Request{Query: issue, Limit: 5, Channels: slices.DeleteFunc(slices.Clone(ChannelNames), func(c string) bool { return c == "title" })})
	if len(whole) > 0 && whole[0].Path == "shop/discount.py" {
		t.Errorf("whole-text search alone ranks discount.py first (%v): the fixture no longer tests the title", paths(whole))
	}
}

// TestSearchExactNameNotTiny: a two-line function is first for every way of
// asking for it by name: bare, as its declaration reads, and inside a
// question. The tiny-chunk damping must not hand rank 1 to a longer chunk
// of its file that only shares the file name, or to a caller.
func TestSearchExactNameNotTiny(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "exact.txtar"), nil)}
	for _, q := range []string{"parse_user_agent", "def parse_user_agent", "parse_user_agent function", "where is parse_user_agent defined"} {
		res, _ := search(t, s, Request{Query: q, Limit: 5})
		if len(res) == 0 || res[0].Path != "ua/parse.py" || res[0].StartLine != 3 {
			got := "nothing"
			if len(res) > 0 {
				got = fmt.Sprintf("%s L%d %v", res[0].Path, res[0].StartLine, res[0].Boosts)
			}
			t.Errorf("%q: first result %s, want ua/parse.py L3 (parse_user_agent)", q, got)
		}
	}
}

// TestSearchDeclaredName: a qualified symbol query for a name declared
// inside a chunk (an interface's method, a const group's later entry)
// returns that chunk first, as the definition, above same-named
// definitions of other owners whose words match better.
func TestSearchDeclaredName(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "declared.txtar"), nil)}
	for _, c := range []struct {
		query, path string
		line        int // the declaration's line, which the chunk holds
	}{
		{"stream.Reader.Read", "stream/stream.go", 9},
		{"stream.Writer.Write", "stream/stream.go", 14},
		{"calendar.Monday", "calendar/calendar.go", 9},
		// A module assignment among others: the chunk is a block, the
		// declaration a variable.
		{"Keyword", "lexing/tokens.py", 13},
	} {
		res, _ := search(t, s, Request{Query: c.query, Limit: 5})
		if len(res) == 0 {
			t.Errorf("%s: no results", c.query)
			continue
		}
		r := res[0]
		if r.Path != c.path || r.StartLine > c.line || r.EndLine < c.line {
			t.Errorf("%s: first result %s:%d-%d (%s), want the chunk of %s holding line %d", c.query, r.Path, r.StartLine, r.EndLine, r.Symbol, c.path, c.line)
			continue
		}
		if !slices.ContainsFunc(r.Boosts, func(b string) bool { return strings.HasPrefix(b, "definition") }) || !r.Defines {
			t.Errorf("%s: boosts %v, defines %v; want the definition", c.query, r.Boosts, r.Defines)
		}
	}
	// A source that does not know declared names finds chunks' own names
	// only: the same query then has no definition of Monday.
	plain := &Searcher{DB: ownNamesOnly{s.DB}}
	res, _ := search(t, plain, Request{Query: "calendar.Monday", Limit: 5})
	for _, r := range res {
		if r.Defines {
			t.Errorf("without declared names: %s:%d-%d taken for the definition of Monday", r.Path, r.StartLine, r.EndLine)
		}
	}
}

// ownNamesOnly hides a source's declared names (DeclaredSource).
type ownNamesOnly struct{ Source }

// TestSearchPhrasalVerb: a question that writes a verb and its particle
// apart, inflected ("entries looked up", "server shutting down"), finds
// the function named by their joined base form (Lookup, Shutdown) ahead
// of functions that share the question's other words (Entries, Serve).
func TestSearchPhrasalVerb(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "phrasal.txtar"), nil)}
	for _, c := range []struct {
		query, symbol string
	}{
		{"where are entries looked up", "Lookup"},
		{"what happens when the server is shutting down", "Shutdown"},
	} {
		res, _ := search(t, s, Request{Query: c.query, Limit: 5})
		if len(res) == 0 || !strings.HasSuffix(res[0].Symbol, c.symbol) {
			var got []string
			for _, r := range res {
				got = append(got, fmt.Sprintf("%s L%d %s", r.Path, r.StartLine, r.Symbol))
			}
			t.Errorf("%q: results %v, want %s first", c.query, got, c.symbol)
		}
	}
}

// TestSearchSymbolDeclaration: a symbol query for a type answers the
// piece of its split definition that declares it, not a later piece
// (labelled with the class, holding only a comment between methods) and
// not a constructor, which shares the type's name.
func TestSearchSymbolDeclaration(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "split.txtar"), nil)}
	res, _ := search(t, s, Request{Query: "Widget", Limit: 5})
	if len(res) == 0 || res[0].Path != "shop/Widget.java" || res[0].StartLine > 4 || res[0].EndLine < 4 {
		var got []string
		for _, r := range res {
			got = append(got, fmt.Sprintf("%s L%d-L%d %s %s part %d", r.Path, r.StartLine, r.EndLine, r.Kind, r.Symbol, r.Part))
		}
		t.Errorf("Widget: results %v, want shop/Widget.java's piece holding line 4 (class Widget) first", got)
	}
}

// TestSearchRustMacroInvocation: "select!" asks for the macro as it is
// invoked, defined as macro_rules! select, before a struct Select.
func TestSearchRustMacroInvocation(t *testing.T) {
	t.Parallel()
	s := &Searcher{DB: buildIndex(t, extract(t, "macro.txtar"), nil)}
	res, _ := search(t, s, Request{Query: "select!", Limit: 5})
	if len(res) == 0 || res[0].Path != "src/macros.rs" {
		var got []string
		for _, r := range res {
			got = append(got, fmt.Sprintf("%s L%d %s %s", r.Path, r.StartLine, r.Kind, r.Symbol))
		}
		t.Errorf("select!: results %v, want the macro in src/macros.rs first", got)
	}
}
