package engine

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/search"
)

// Understood is how a find understood its query ([FindRequest].Explain):
// the analysis the search itself ranked by, not a second one.
type Understood struct {
	// Kind is "symbol", "natural" or "long"; it sets the channel weights
	// and which ranking adjustments apply.
	Kind string `json:"kind"`
	// Name is the name a symbol query asks for; absent for other kinds.
	Name string `json:"name,omitempty"`
	// Symbols, Paths and Phrases are the code-style identifiers, path-like
	// tokens and double-quoted phrases found in the query, each at most
	// [maxUnderstood] long (SymbolsMore and PathsMore count the rest).
	Symbols     []string `json:"symbols"`
	SymbolsMore int      `json:"symbols_more,omitempty"`
	Paths       []string `json:"paths"`
	PathsMore   int      `json:"paths_more,omitempty"`
	Phrases     []string `json:"phrases"`
	// Frames are the stack-trace frames found, "path:line func"; absent
	// when none.
	Frames []string `json:"frames,omitempty"`
	// Patched are the files a unified diff in the query changes, "path"
	// or "path:line" (its first hunk's first new line); absent when none.
	Patched []string `json:"patched,omitempty"`
	// Names are the capitalised words of a question matched to defined
	// names in their exact case ("Monad"); absent when none.
	Names []string `json:"names,omitempty"`
	// Title is a long query's first line when it was searched on its own
	// too (an issue's title); absent otherwise.
	Title string `json:"title,omitempty"`
	// Terms are the query's heaviest terms as the lexical channels
	// weighed them, heaviest first, at most [maxUnderstood].
	Terms []UnderstoodTerm `json:"terms"`
	// Missing lists the terms that occur nowhere in the index, at most
	// [maxUnderstood] (MissingMore counts the rest).
	Missing     []string `json:"missing,omitempty"`
	MissingMore int      `json:"missing_more,omitempty"`
	// DenseQuery is the text the dense channel embedded when it was not
	// the query as written (see [FindStats].DenseQuery).
	DenseQuery string `json:"dense_query,omitempty"`
	// Defined and Definition say, for a symbol query with relationships,
	// whether the index defines the name asked for and where (its best
	// definition, as `ctx def` ranks them); absent otherwise.
	Defined    *bool    `json:"defined,omitempty"`
	Definition *Related `json:"definition,omitempty"`
}

// UnderstoodTerm is one analyzed query term.
type UnderstoodTerm struct {
	Term string `json:"term"`
	// Weight is its weight in the query: 1 per occurrence (identifier
	// parts and stems included), doubled for code-style identifiers.
	Weight float64 `json:"weight"`
	// IDF is its BM25 inverse document frequency in this index (rarer is
	// higher); 0 when no chunk holds it.
	IDF float64 `json:"idf"`
}

// Relationships is how a result connects to the rest of the code base,
// from the symbol and import graphs ([FindRequest].Explain). Each list
// holds at most [maxRelated] entries, ordered by path and line; the
// matching *More field counts the rest (references are read up to
// [maxRelationRefs], so a count can stop there).
type Relationships struct {
	// Definition is where the code the result belongs to is defined when
	// that is elsewhere: the enclosing definition of a chunk that is not
	// one, or, for a symbol query, the definition of the name asked for
	// when the result only uses it. Absent when the result is the
	// definition.
	Definition *Related `json:"definition,omitempty"`
	// Callers are lines outside tests that call the result's symbol,
	// each with its enclosing definition.
	Callers     []Related `json:"callers"`
	CallersMore int       `json:"callers_more,omitempty"`
	// Importers are import statements outside tests that name the
	// result's file or, for Go, its package.
	Importers     []Related `json:"importers"`
	ImportersMore int       `json:"importers_more,omitempty"`
	// Tests are the tests that mention the result's symbol (one entry per
	// test function, at its first mention) or import its file.
	Tests     []Related `json:"tests"`
	TestsMore int       `json:"tests_more,omitempty"`
}

// Related is one place related to a result.
type Related struct {
	Path string `json:"path"`
	// Line is 1-based; EndLine (1-based, inclusive) is set for a span.
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
	Symbol  string `json:"symbol,omitempty"` // the definition there, or the one enclosing the line
	Text    string `json:"text,omitempty"`   // the line, trimmed, at most 200 bytes
}

// Bounds of an explanation.
const (
	maxUnderstood   = 12  // identifiers, paths and terms listed
	maxRelated      = 5   // entries per relationship list
	maxRelationRefs = 200 // references read per result
	maxMatched      = 6   // matched terms named in a why-line
	// minMatchedIDF: a term nearly every chunk holds ("go" in a Go
	// repository) says nothing as a match.
	minMatchedIDF = 0.1
)

// explainAnswer fills resp's explanation: how the query was understood
// (from sst, the search's own statistics and analysis), each result's
// why-lines and, with relations, its relationships. It reads each
// result's code for the terms it matched, and the symbol and import
// graphs. Errors: ctx's, and store failures of the graph lookups.
func (e *Engine) explainAnswer(ctx context.Context, resp *FindResponse, relations bool) error {
	q := resp.analysis.Query
	if q == nil {
		// A remote backend analyses nothing itself.
		query, _ := e.CutQuery(resp.Query)
		q = analyze.Analyze(query)
		resp.analysis.Query = q
	}
	resp.Understood = understood(q, &resp.analysis, resp.Stats.DenseQuery)
	weights := map[string]float64{}
	for _, t := range resp.Understood.Terms {
		if t.IDF > 0 {
			weights[t.Term] = t.Weight
		}
	}
	// uses[i]: result i's code names the symbol a symbol query asks for.
	uses := make([]bool, len(resp.Results))
	name, _ := splitSymbol(q.Name)
	for i := range resp.Results {
		h := &resp.Results[i]
		lexical := hasLexical(h.Channels)
		var code string
		if lexical || name != "" {
			code = e.Code(*h)
		}
		var matched []string
		if lexical {
			matched = matchedTerms(code+"\n"+h.Path, resp.Understood.Terms)
		}
		uses[i] = name != "" && wordIndex([]byte(code), name) >= 0
		h.Why = whyLines(*h, matched)
	}
	if !relations || e.remoteBackend() {
		// A remote backend holds no symbol or import graph.
		return nil
	}
	if q.Kind == analyze.QuerySymbol && q.Name != "" {
		defs, err := e.Definitions(ctx, q.Name, "", 1, false)
		if err != nil && ctx.Err() != nil {
			return err
		}
		defined := len(defs) > 0
		resp.Understood.Defined = &defined
		if defined {
			d := defs[0]
			resp.Understood.Definition = &Related{Path: d.Path, Line: d.StartLine, EndLine: d.EndLine, Symbol: d.Symbol}
		}
	}
	asked := resp.Understood.Definition
	// Which results define the name asked for, by place: a reranker may
	// have reordered the results since the search.
	defines := map[string]bool{}
	for _, r := range resp.Raw {
		if r.Defines {
			defines[r.Path+":"+strconv.Itoa(r.StartLine)] = true
		}
	}
	// The graph walk gets a request deadline of its own
	// (limits.request_timeout from now): past it, the results it has
	// not reached go without relationships and the answer says so.
	rctx, cancel, _ := e.requestDeadline(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(rctx)
	g.SetLimit(2)
	imp := newImporterCache(e)
	// Each Go package is parsed once for every result, from a view
	// held until the walk ends.
	v, release, err := e.acquireCurrent(rctx)
	if err != nil {
		return err
	}
	defer release()
	calls := &sharedGoCalls{g: e.goCalls(rctx, v.db)}
	rels := make([]*Relationships, len(resp.Results))
	for i := range resp.Results {
		h := resp.Results[i]
		if h.Context != "" {
			continue // a context piece says why it is there
		}
		def := asked
		if !uses[i] || defines[h.Path+":"+strconv.Itoa(h.StartLine)] {
			def = nil // it is the definition, or does not name it
		}
		g.Go(func() error {
			r, err := e.relationships(gctx, h, def, imp, calls)
			rels[i] = r
			return err
		})
	}
	err = g.Wait()
	for i, r := range rels {
		resp.Results[i].Relationships = r
	}
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		resp.Stats.markPartial(cutNote("the relationships of every result were found; those without them were not reached"))
		return nil
	}
	return err
}

// understood is the [Understood] of q, with its term weights from sst.
func understood(q *analyze.Query, sst *search.Stats, denseQuery string) *Understood {
	u := &Understood{Kind: string(q.Kind), Name: EchoQuery(q.Name), Symbols: firstFew(q.Symbols), SymbolsMore: max(0, len(q.Symbols)-maxUnderstood),
		Paths: firstFew(q.Paths), PathsMore: max(0, len(q.Paths)-maxUnderstood), Phrases: firstFew(q.Phrases), Terms: []UnderstoodTerm{}, DenseQuery: denseQuery}
	for _, f := range q.Frames[:min(len(q.Frames), maxUnderstood)] {
		s := f.Path
		if f.Line > 0 {
			s += ":" + strconv.Itoa(f.Line)
		}
		if f.Func != "" {
			s += " " + f.Func
		}
		u.Frames = append(u.Frames, s)
	}
	for _, p := range q.Patches[:min(len(q.Patches), maxUnderstood)] {
		s := p.Path
		if p.Line > 0 {
			s += ":" + strconv.Itoa(p.Line)
		}
		u.Patched = append(u.Patched, s)
	}
	u.Names = firstFew(q.Names)
	if q.Title != nil {
		u.Title = EchoQuery(q.Title.Raw)
	}
	tw := sst.TermWeights()
	if tw == nil {
		// The search stopped before weighing the terms.
		for _, t := range q.TopTerms(maxUnderstood) {
			tw = append(tw, search.TermWeight{Text: t.Text, Weight: t.Weight})
		}
	}
	for _, t := range tw {
		if t.DocFreq == 0 && sst.Query != nil {
			if len(u.Missing) < maxUnderstood {
				u.Missing = append(u.Missing, t.Text)
			} else {
				u.MissingMore++
			}
		}
		if len(u.Terms) < maxUnderstood {
			u.Terms = append(u.Terms, UnderstoodTerm{Term: t.Text, Weight: round(t.Weight), IDF: round(t.IDF)})
		}
	}
	return u
}

// firstFew returns the first maxUnderstood of xs, never nil.
func firstFew(xs []string) []string {
	return append([]string{}, xs[:min(len(xs), maxUnderstood)]...)
}

// hasLexical reports whether a lexical channel over the chunk's words
// found it.
func hasLexical(ch map[string]search.ChannelHit) bool {
	for _, c := range []string{"bm25", "code", "phrase", "bm25-file"} {
		if _, ok := ch[c]; ok {
			return true
		}
	}
	return false
}

// matchedTerms returns the query terms found in text (a chunk's code and
// path), in the order of terms (heaviest first), at most maxMatched; only
// terms that tell chunks apart (IDF at least minMatchedIDF) count.
func matchedTerms(text string, terms []UnderstoodTerm) []string {
	want := map[string]bool{}
	for _, t := range terms {
		if t.IDF >= minMatchedIDF {
			want[t.Term] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	found := map[string]bool{}
	analyze.Terms(text, func(t string) {
		if want[t] {
			found[t] = true
		}
	})
	var out []string
	for _, t := range terms {
		if found[t.Term] && len(out) < maxMatched && !stemOfAny(t.Term, found) {
			out = append(out, t.Term)
		}
	}
	return out
}

// stemOfAny reports whether term is a proper prefix of a word in words:
// the stem the analysis adds beside a word ("clos" beside "close") says
// nothing the word does not.
func stemOfAny(term string, words map[string]bool) bool {
	for w := range words {
		if len(w) > len(term) && strings.HasPrefix(w, term) {
			return true
		}
	}
	return false
}

// channelWords names each channel in a why-line.
var channelWords = map[string]string{
	"bm25":      "BM25",
	"code":      "identifier search",
	"phrase":    "quoted-phrase search",
	"symbol":    "defined-name search",
	"path":      "path-word search:",
	"bm25-file": "file-level BM25:",
	"title":     "the title line's search:",
	"dense":     "dense (embedding)",
}

// whyLines says in words why h ranked where it did: each channel that
// found it, with its rank and score (matched, the query terms its text
// holds, on the first lexical line), then each ranking adjustment.
func whyLines(h Hit, matched []string) []string {
	var out []string
	if h.Context != "" {
		out = append(out, "added as context, not found by the search: "+h.Context)
	}
	matchedSaid := false
	for _, name := range append(slices.Clone(search.ChannelNames), "dense-rerank", "rerank") {
		c, ok := h.Channels[name]
		if !ok {
			continue
		}
		var line string
		switch name {
		case "dense":
			line = fmt.Sprintf("dense (embedding) rank %d (cosine %.2f)", c.Rank, c.Score)
		case "dense-rerank":
			line = fmt.Sprintf("meaning: cosine %.2f to the query, %s among the candidates", c.Score, ordinal(c.Rank))
		case "rerank":
			line = fmt.Sprintf("the reranker placed it %s (score %.3g)", ordinal(c.Rank), c.Score)
		case "mention":
			line = "the query names its file (a path or stack frame)"
			if c.Rank > 1 {
				line += fmt.Sprintf(", the %s file it names", ordinal(c.Rank))
			}
		case "path", "bm25-file", "title":
			line = fmt.Sprintf("%s its file ranked %s", channelWords[name], ordinal(c.Rank))
		default:
			line = fmt.Sprintf("%s rank %d", channelWords[name], c.Rank)
			if c.Score != 0 {
				line += fmt.Sprintf(" (score %.3g)", c.Score)
			}
		}
		if !matchedSaid && len(matched) > 0 && (name == "bm25" || name == "code" || name == "phrase" || name == "bm25-file") {
			line += "; matched: " + strings.Join(matched, ", ")
			matchedSaid = true
		}
		out = append(out, line)
	}
	for _, b := range h.Boosts {
		out = append(out, boostWords(b))
	}
	return out
}

// ordinal is 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// boostWords says a ranking adjustment (a [search.Result] boost label) in
// words.
func boostWords(b string) string {
	if share, ok := strings.CutPrefix(b, "file-name×"); ok {
		if f, err := strconv.ParseFloat(share, 64); err == nil {
			return fmt.Sprintf("lifted: its file or directory name holds %.0f%% of the query's words", 100*f)
		}
	}
	switch b {
	case "definition":
		return "lifted: defines the symbol asked for"
	case "definition (qualified)":
		return "lifted: defines the symbol asked for, under the qualifiers the query gives"
	case "definition (other owner)":
		return "lifted less: defines the name asked for, but not under the qualifiers the query gives"
	case "definition~":
		return "lifted: defines the name asked for, in another letter case"
	case "mentioned-definition":
		return "lifted: defines an identifier the query mentions"
	case "named-definition":
		return "lifted: defines a name the query writes with a capital"
	case "patched":
		return "lifted: a diff in the query changes its file"
	case "file-is-symbol":
		return "lifted: its file is named after the symbol"
	case "internal":
		return "lowered: an internal package, and the query does not ask for internals"
	case "tiny":
		return "lowered: a chunk of very few lines"
	case "superseded":
		return "lowered: an older version of a file a newer one supersedes"
	case "other-os":
		return "lowered: code for another operating system"
	case "test":
		return "lowered: a test file, and the query does not ask for tests"
	case "example":
		return "lowered: an example, and the query does not ask for examples"
	case "vendored":
		return "lowered: vendored code"
	case "docs":
		return "lowered: documentation, and the query does not ask for docs"
	case "declarations":
		return "lowered: a declarations-only file (.d.ts, __init__.py)"
	case "prose":
		return "lowered: prose, for a long query whose answer is code"
	}
	return "adjusted: " + b
}

// relationships returns h's relationships (see [Relationships]); asked is
// the definition of the name a symbol query asks for when h names it
// without being it (nil otherwise).
func (e *Engine) relationships(ctx context.Context, h Hit, asked *Related, imp *importerCache, calls *sharedGoCalls) (*Relationships, error) {
	r := &Relationships{Callers: []Related{}, Importers: []Related{}, Tests: []Related{}}
	symbol := ""
	if definitionKinds[h.Kind] && h.Symbol != "" {
		symbol = h.Symbol
	}
	// Where the code is defined, when that is elsewhere.
	switch {
	case symbol == "" && h.breadcrumb != "":
		parts := strings.Split(h.breadcrumb, " > ")
		defs, err := e.Definitions(ctx, parts[len(parts)-1], h.Path, 1, false)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if len(defs) > 0 {
			d := defs[0]
			r.Definition = &Related{Path: d.Path, Line: d.StartLine, EndLine: d.EndLine, Symbol: d.Symbol}
			// A chunk inside a definition: its callers and tests are
			// the definition's.
			symbol = d.Symbol
		}
	case asked != nil && !(asked.Path == h.Path && asked.Line <= h.StartLine && asked.EndLine >= h.EndLine):
		r.Definition = asked
	}
	var tests []Related
	testSeen := map[string]bool{}
	if symbol != "" {
		refs, err := e.References(ctx, ReferenceQuery{Symbol: symbol, ExcludeDefinition: true, Max: maxRelationRefs, Hint: h.Path, MinConfidence: 0.5, shared: calls})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			refs = nil // a symbol the lookup cannot parse has no references
		}
		for _, ref := range refs {
			if ref.Path == h.Path && ref.Line >= h.StartLine && ref.Line <= h.EndLine {
				continue // within the result itself: recursion, or a same-named call it makes
			}
			rel := Related{Path: ref.Path, Line: ref.Line, Symbol: ref.Enclosing, Text: ref.Text}
			switch {
			case discover.IsTestPath(ref.Path):
				key := ref.Path + "\x00" + ref.Enclosing
				if ref.Enclosing == "" {
					key += strconv.Itoa(ref.Line)
				}
				if !testSeen[key] {
					testSeen[key] = true
					tests = append(tests, rel)
				}
			case ref.Kind == "call":
				addRelated(&r.Callers, &r.CallersMore, rel)
			}
		}
	}
	deps, err := imp.importers(ctx, h.Path)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		rel := Related{Path: d.Path, Line: d.Line, Text: d.Spec}
		if discover.IsTestPath(d.Path) {
			if !testSeen[d.Path+"\x00"] {
				testSeen[d.Path+"\x00"] = true
				tests = append(tests, rel)
			}
			continue
		}
		addRelated(&r.Importers, &r.ImportersMore, rel)
	}
	slices.SortStableFunc(tests, func(a, b Related) int { return strings.Compare(a.Path, b.Path) })
	for _, t := range tests {
		addRelated(&r.Tests, &r.TestsMore, t)
	}
	return r, nil
}

// addRelated appends rel to list while it holds fewer than maxRelated,
// else counts it in more.
func addRelated(list *[]Related, more *int, rel Related) {
	if len(*list) < maxRelated {
		*list = append(*list, rel)
		return
	}
	*more++
}

// importerCache looks up each file's importers once per explanation
// (results often share a file).
type importerCache struct {
	e    *Engine
	mu   sync.Mutex // guards deps
	deps map[string][]Dependency
}

func newImporterCache(e *Engine) *importerCache {
	return &importerCache{e: e, deps: map[string][]Dependency{}}
}

// importers returns the import statements of other files that resolve to
// rel (for Go, to its package directory); none for a file the index does
// not hold.
func (c *importerCache) importers(ctx context.Context, rel string) ([]Dependency, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.deps[rel]; ok {
		return d, nil
	}
	d, err := c.e.Deps(ctx, rel)
	if err != nil {
		if ctx.Err() != nil || Classify(err).Code != CodeNotFound {
			return nil, err
		}
		d = &Deps{}
	}
	// One entry per importing file: a Go package's files each import it.
	var out []Dependency
	seen := map[string]bool{}
	for _, dep := range d.Importers {
		if !seen[dep.Path] && path.Clean(dep.Path) != rel {
			seen[dep.Path] = true
			out = append(out, dep)
		}
	}
	c.deps[rel] = out
	return out, nil
}
