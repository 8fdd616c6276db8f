package engine

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/store"
)

// defCandidate is one definition a lookup may mean: its chunk widened to
// the whole definition when the index holds it in parts.
type defCandidate struct {
	row       store.ChunkRow
	parts     int  // indexed chunks it spans when split, else 0
	scope     int  // names in its scope (graph.Scope)
	full      bool // the lookup's qualifiers are its whole scope
	match     graph.Match
	caseExact bool
	test      bool
	near      int
	// quals: how many of the lookup's qualifiers its scope holds (any
	// order or case); orders the guesses.
	quals int
	// proto: a C or C++ prototype (a declaration without a body) of a
	// name that a definition with a body also fits; it follows them.
	proto      bool
	conf       float64
	resolution string
}

// maxNameRows bounds the chunks one name lookup reads: the Go standard
// library's most common method name (String) has 549.
const maxNameRows = 5000

// resolveDefinitions returns the definitions lk may mean, best first,
// with their confidence and resolution set:
//
//  1. the definitions whose scope (package or path, enclosing types; see
//     graph.Scope; the root directory's name counts as the outermost
//     package) ends in the lookup's qualifiers, same-case name;
//  2. those whose scope holds the qualifiers loosely (graph.MatchLoose);
//  3. only when neither exists, the same-case name whatever its scope,
//     and only when no same-case name exists, case-insensitive ones.
//
// Within a tier: paths nearer hintPath first, then files outside tests,
// then the shortest scope, then by path and line. Confidence is 1 for a
// tier-1 definition that is the only one outside tests, or the only one
// whose whole scope the qualifiers spell ("sync.Mutex" is package sync's
// Mutex, not internal/sync's), or one of one type's overloads; tier-1
// definitions that share the lookup split 0.9 between them; guesses
// (tiers 2 and 3) get at most 0.5 and say so in their resolution.
func (e *Engine) resolveDefinitions(ctx context.Context, db *store.DB, lk graph.Lookup, hintPath string) ([]defCandidate, error) {
	rows, err := definitionRows(ctx, db, lk.Name)
	if err != nil {
		return nil, err
	}
	return e.rankDefinitions(ctx, db, rows, lk, hintPath), nil
}

// definitionRows reads what a lookup of name may mean: the chunks named
// name (an operator under either spelling), and the names (one-line
// constants and variables, declarations without a body; StartByte -1)
// that no chunk of that name covers.
func definitionRows(ctx context.Context, db *store.DB, name string) ([]store.ChunkRow, error) {
	rows, err := db.ChunksByName(ctx, nameVariants(name), maxNameRows)
	if err != nil {
		return nil, err
	}
	named, err := db.NamesByName(ctx, []string{name}, 100)
	if err != nil {
		return nil, err
	}
	for _, n := range named {
		if !slices.ContainsFunc(rows, func(r store.ChunkRow) bool {
			return r.Path == n.Path && r.Name == n.Name && r.StartLine <= n.StartLine && n.StartLine <= r.EndLine
		}) {
			rows = append(rows, n)
		}
	}
	return rows, nil
}

// rankDefinitions is resolveDefinitions over rows read by definitionRows.
func (e *Engine) rankDefinitions(ctx context.Context, db *store.DB, rows []store.ChunkRow, lk graph.Lookup, hintPath string) []defCandidate {
	spans := newSpanCache(ctx, db)
	rootName := filepath.Base(e.root)
	seen := map[string]bool{}
	var all []defCandidate
	for _, r := range rows {
		if !definitionKinds[r.Kind] {
			continue
		}
		c := defCandidate{row: r}
		if r.Part > 0 {
			c.row, c.parts = spans.whole(r)
		}
		key := c.row.Path + "\x00" + strconv.Itoa(c.row.StartLine) + "\x00" + c.row.Kind
		if seen[key] {
			continue
		}
		seen[key] = true
		c.caseExact = r.Name == lk.Name || strings.ReplaceAll(r.Name, " ", "") == lk.Name
		scope := graph.Scope(r.Path, r.Language, r.Symbol, r.Breadcrumb)
		c.match = graph.MatchScope(lk.Quals, scope)
		if c.match != graph.MatchExact && rootName != "" {
			// A repository that is one package (pygments/, indexed as
			// the root) is qualified by the root's own name.
			c.match = max(c.match, graph.MatchScope(lk.Quals, append([]string{rootName}, scope...)))
		}
		c.scope, c.full = len(scope), len(lk.Quals) > 0 && len(scope) == len(lk.Quals)
		for _, q := range lk.Quals {
			if slices.ContainsFunc(scope, func(s string) bool { return strings.EqualFold(s, q) }) {
				c.quals++
			}
		}
		c.test = discover.IsTestPath(r.Path)
		c.near = pathNearness(hintPath, r.Path)
		all = append(all, c)
	}
	markPrototypes(all)
	var exact, loose, rest, folded []defCandidate
	for _, c := range all {
		switch {
		case !c.caseExact:
			folded = append(folded, c)
		case c.match == graph.MatchExact:
			exact = append(exact, c)
		case c.match == graph.MatchLoose:
			loose = append(loose, c)
		default:
			rest = append(rest, c)
		}
	}
	exact, loose = splitBySeparator(lk, exact, loose)
	order := func(cs []defCandidate) {
		slices.SortStableFunc(cs, func(a, b defCandidate) int {
			if c := cmp.Compare(b.near, a.near); c != 0 {
				return c
			}
			// A guess that keeps some qualifiers ("detail::X::grow"
			// for X::grow outside namespace detail) first.
			if c := cmp.Compare(b.quals, a.quals); c != 0 {
				return c
			}
			if a.test != b.test {
				if a.test {
					return 1
				}
				return -1
			}
			if a.proto != b.proto {
				if a.proto {
					return 1
				}
				return -1
			}
			// The shortest scope first: "sync.Mutex" is package sync's
			// before internal/sync's.
			if c := cmp.Compare(a.scope, b.scope); c != 0 {
				return c
			}
			if c := cmp.Compare(a.row.Path, b.row.Path); c != 0 {
				return c
			}
			return cmp.Compare(a.row.StartLine, b.row.StartLine)
		})
	}
	for _, cs := range [][]defCandidate{exact, loose, rest, folded} {
		order(cs)
	}
	rateExact(exact, len(lk.Quals) > 0)
	for i := range loose {
		loose[i].conf, loose[i].resolution = round(0.5/float64(len(loose))), "loose"
		if len(exact) > 0 {
			loose[i].conf = 0.1
		}
	}
	out := append(exact, loose...)
	if len(out) == 0 {
		for i := range rest {
			rest[i].conf, rest[i].resolution = round(0.3/float64(len(rest))), "name-only"
		}
		out = rest
	}
	if len(out) == 0 {
		for i := range folded {
			folded[i].conf, folded[i].resolution = 0.1, "case-insensitive"
		}
		out = folded
	}
	return out
}

// rateExact sets the confidence and resolution of the definitions that
// fit a lookup exactly, ordered best first. Definitions in test files do
// not make a lookup ambiguous while one outside tests fits.
func rateExact(cs []defCandidate, qualified bool) {
	primary := 0
	for _, c := range cs {
		if !c.test && !c.proto {
			primary++
		}
	}
	if primary == 0 {
		primary = len(cs)
	}
	one := "exact"
	if !qualified {
		one = "unique"
	}
	overloads := primary > 1
	for _, c := range cs[:primary] {
		if c.row.Path != cs[0].row.Path || c.row.Breadcrumb != cs[0].row.Breadcrumb || (c.row.Kind != "method" && c.row.Kind != "function") || !overloading[c.row.Language] {
			overloads = false
		}
	}
	full := -1 // the one primary the qualifiers spell in whole, if one
	for i, c := range cs[:primary] {
		if c.full {
			if full >= 0 {
				full = -1
				break
			}
			full = i
		}
	}
	if full > 0 {
		// Move it first, keeping the others' order.
		c := cs[full]
		copy(cs[1:full+1], cs[:full])
		cs[0] = c
	}
	for i := range cs {
		c := &cs[i]
		switch {
		case i >= primary && c.proto:
			c.conf, c.resolution = 0.1, "declaration"
		case i >= primary:
			c.conf, c.resolution = 0.1, "in-test"
		case primary == 1:
			c.conf, c.resolution = 1, one
		case overloads:
			c.conf, c.resolution = 1, "overload"
		case full >= 0 && i == 0:
			c.conf, c.resolution = 1, "exact"
		case full >= 0:
			c.conf, c.resolution = 0.1, "ambiguous"
		case i == 0 && c.near > 0 && c.near > cs[1].near:
			// The hint picks it out of several.
			c.conf, c.resolution = 0.9, "ambiguous"
		default:
			c.conf, c.resolution = round(0.9/float64(primary)), "ambiguous"
		}
	}
}

// splitBySeparator narrows exact matches by the separator before the
// name where the language writes instance and class methods apart (Ruby:
// "Base#call" is the instance method, "Base.call" and "Base::call" the
// class method; the chunker writes symbols the same way): when exact
// holds both kinds, those of the other kind move to loose.
func splitBySeparator(lk graph.Lookup, exact, loose []defCandidate) ([]defCandidate, []defCandidate) {
	if lk.Sep == "" || len(exact) < 2 {
		return exact, loose
	}
	instance := func(c defCandidate) bool { return graph.ParseLookup(c.row.Symbol).Sep == "#" }
	if !slices.ContainsFunc(exact, instance) {
		return exact, loose
	}
	var keep, other []defCandidate
	for _, c := range exact {
		if instance(c) == (lk.Sep == "#") {
			keep = append(keep, c)
		} else {
			c.match = graph.MatchLoose
			other = append(other, c)
		}
	}
	if len(keep) == 0 {
		return exact, loose
	}
	return keep, append(other, loose...)
}

// markPrototypes marks the C and C++ prototypes (names rows of a
// function kind: declarations without a body) among cs when a C or C++
// definition with a body has the same name: the definition is the
// answer, the prototype in the header a second place to look.
func markPrototypes(cs []defCandidate) {
	cLike := func(c defCandidate) bool { return c.row.Language == "c" || c.row.Language == "cpp" }
	bodies := map[string]bool{}
	for _, c := range cs {
		if cLike(c) && !bodiless(c.row) {
			bodies[c.row.Name] = true
		}
	}
	for i := range cs {
		cs[i].proto = cLike(cs[i]) && bodiless(cs[i].row) && bodies[cs[i].row.Name]
	}
}

// bodiless reports whether r is a function or method declared without a
// body (a names row, StartByte -1, of a function kind; chunk.Decl).
func bodiless(r store.ChunkRow) bool {
	return r.StartByte < 0 && (r.Kind == "function" || r.Kind == "method")
}

// overloading are the languages where one scope may define a name
// several times with different parameters; elsewhere a second definition
// in one scope replaces the first or belongs to another build, and the
// lookup is ambiguous.
var overloading = map[string]bool{"java": true, "kotlin": true, "csharp": true, "cpp": true, "scala": true, "typescript": true, "swift": true, "dart": true}

// definition is the answer form of a candidate.
func (e *Engine) definition(c defCandidate, withCode bool) Definition {
	r := c.row
	stale := e.changed(r.Path, r.FileSize, r.FileTime)
	d := Definition{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Language: r.Language, Kind: r.Kind,
		Symbol: r.Symbol, Summary: r.Summary, Confidence: round(min(c.conf, 1)), Resolution: c.resolution, Parts: c.parts, Stale: stale}
	if withCode {
		d.Code = e.readRange(r.Path, r.StartByte, r.EndByte, r.StartLine, r.EndLine, stale)
	}
	return d
}

// spanCache widens a chunk that is one part of a split definition to the
// whole definition, reading each file's chunks once.
type spanCache struct {
	ctx   context.Context
	db    *store.DB
	files map[string][]store.ChunkRow
}

func newSpanCache(ctx context.Context, db *store.DB) *spanCache {
	return &spanCache{ctx: ctx, db: db, files: map[string][]store.ChunkRow{}}
}

// whole returns r widened to every part of its definition (the first
// part's start, the last part's end: for a container, the members in
// between too) and the number of parts; r itself and 0 when r is whole
// or its file cannot be read.
func (s *spanCache) whole(r store.ChunkRow) (store.ChunkRow, int) {
	if r.Part == 0 {
		return r, 0
	}
	rows, ok := s.files[r.Path]
	if !ok {
		rows, _ = s.db.FileChunks(s.ctx, r.Path)
		s.files[r.Path] = rows
	}
	first, last, n := wholeDefinition(rows, r)
	if n == 0 {
		return r, 0
	}
	w := first
	w.EndLine, w.EndByte = last.EndLine, last.EndByte
	return w, n
}

// wholeDefinition finds, in a file's chunks ordered by position, the
// parts of the split definition that holds r: the run that starts at a
// part 1 with r's kind and symbol and goes on through parts 2, 3, … of
// them (members of a container come between). It returns the first and
// last part and their count, 0 when r is not among them.
func wholeDefinition(rows []store.ChunkRow, r store.ChunkRow) (first, last store.ChunkRow, n int) {
	same := func(c store.ChunkRow) bool {
		return c.Kind == r.Kind && c.Symbol == r.Symbol && c.Breadcrumb == r.Breadcrumb
	}
	for i, c := range rows {
		if c.Part != 1 || !same(c) {
			continue
		}
		first, last, n = c, c, 1
		found := c.ID == r.ID
		for _, d := range rows[i+1:] {
			if !same(d) {
				continue
			}
			if d.Part != last.Part+1 {
				break
			}
			last, n = d, n+1
			found = found || d.ID == r.ID
		}
		if found {
			return first, last, n
		}
	}
	return store.ChunkRow{}, store.ChunkRow{}, 0
}
