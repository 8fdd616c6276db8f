package engine

import (
	"context"
	"path"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
)

// ExpandOptions sets how much context [Engine.Expand] adds around the
// ranked hits (the seeds).
type ExpandOptions struct {
	// Seeds is how many of the best hits are expanded (0: none).
	Seeds int
	// Headers adds the definition of the type or class a method seed
	// belongs to (breadcrumb completion): the chunk in the seed's file,
	// or for Go in its package directory, that defines the breadcrumb's
	// last name, cut to its first headerLines lines.
	Headers bool
	// Callees adds the definitions of up to MaxCallees functions a seed
	// calls that live in a file the seed's file imports (through the
	// import graph) or in its own Go package, cut to calleeLines lines.
	Callees    bool
	MaxCallees int
	// Neighbours adds, for a seed of at most smallSeed lines, the
	// definitions just before and after it in its file (cut to
	// calleeLines): a small hit reads better with what surrounds it.
	Neighbours bool
	// Callers adds, when the query asks who calls or uses something, the
	// functions holding up to MaxCallers calls of the best seed's name
	// linked to it with confidence ≥ 0.9.
	Callers    bool
	MaxCallers int
}

// BalancedExpansion and DeepExpansion are the expansion of the
// balanced and deep retrieval modes (quick expands nothing).
var (
	BalancedExpansion = ExpandOptions{Seeds: 3, Headers: true, Callees: true, MaxCallees: 3, Callers: true, MaxCallers: 3}
	DeepExpansion     = ExpandOptions{Seeds: 8, Headers: true, Callees: true, MaxCallees: 6, Neighbours: true, Callers: true, MaxCallers: 8}
)

// Mode is a retrieval preset: the token budget of the answer (o200k_base
// tokens) and the context expanded around its best hits.
type Mode struct {
	Budget int
	Expand ExpandOptions
}

// Modes are the presets of `ctx find --mode` and codebase_retrieval's
// mode, by name.
var Modes = map[string]Mode{
	"quick":    {Budget: 4000},
	"balanced": {Budget: 8000, Expand: BalancedExpansion},
	"deep":     {Budget: 16000, Expand: DeepExpansion},
}

// Lines kept of an expanded definition: its header and first lines are
// what a reader needs to use it, not its whole body.
const (
	headerLines = 15
	calleeLines = 20
	smallSeed   = 12
)

// expandedScore is the factor between a seed's score and the pieces
// added for it, so expansions rank (and pack) after the seeds.
const expandedScore = 0.5

// callIdent matches a call: an identifier, optionally qualified, then
// "(" (Go, Python, JavaScript, Java, C, Rust calls and constructors).
var callIdent = lazyre.New(`(?:([A-Za-z_]\w*)\s*(?:\.|::|->)\s*)?([A-Za-z_]\w*)\s*\(`)

// askCallers matches queries that ask for the users of something.
var askCallers = lazyre.New(`(?i)\b(who|what|where)\b.*\b(calls?|uses?|invokes?|called|used)\b|\bcallers?\s+of\b|\busages?\s+of\b`)

// callKeywords are words followed by "(" that are not calls.
var callKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "func": true, "function": true, "def": true,
	"catch": true, "sizeof": true, "typeof": true, "elif": true, "print": true, "super": true, "new": true, "make": true,
	"len": true, "append": true, "cap": true, "panic": true, "defer": true, "go": true, "fn": true, "match": true, "with": true,
	"assert": true, "isinstance": true, "str": true, "int": true, "range": true, "delete": true, "copy": true, "and": true, "or": true, "not": true,
}

// Expand returns context pieces for hits (ranked, best first): type
// headers of method seeds, definitions the seeds call through the import
// graph, and callers when the query asks for them. Each piece says why
// it was added in Context (and in Boosts, "expanded: …"), scores expandedScore × its seed, and
// is left out when a hit or an earlier piece already covers its lines.
// Errors: those of a query.
func (e *Engine) Expand(ctx context.Context, query string, hits []Hit, o ExpandOptions) ([]Hit, error) {
	if o.Seeds <= 0 || len(hits) == 0 {
		return nil, nil
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.expandView(ctx, v, query, hits, o)
}

// expandView is [Engine.Expand] on a view the caller holds (a search
// expands from the view it searched, without reading the head again).
func (e *Engine) expandView(ctx context.Context, v *view, query string, hits []Hit, o ExpandOptions) ([]Hit, error) {
	if o.Seeds <= 0 || len(hits) == 0 {
		return nil, nil
	}
	var out []Hit
	covers := func(h Hit, p string, start, end int) bool {
		return h.Path == p && h.StartLine <= start && end <= h.EndLine
	}
	// add adds the first maxLines lines of r unless a hit or an earlier
	// piece already shows them, and reports whether it did.
	add := func(r store.ChunkRow, score float64, maxLines int, why string) bool {
		end := min(r.EndLine, r.StartLine+maxLines-1)
		for _, hs := range [][]Hit{hits, out} {
			for _, h := range hs {
				if covers(h, r.Path, r.StartLine, end) {
					return false
				}
			}
		}
		h := Hit{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: end, Score: round(score), Language: r.Language, Kind: r.Kind,
			Symbol: r.Symbol, Summary: r.Summary, Boosts: []string{"expanded: " + why}, Context: why, StartByte: r.StartByte, EndByte: r.EndByte}
		h.Stale = e.changed(r.Path, r.FileSize, r.FileTime)
		if end < r.EndLine {
			h.StartByte, h.EndByte = -1, -1 // read the cut by lines
		}
		out = append(out, h)
		return true
	}
	seeds := hits[:min(o.Seeds, len(hits))]
	src := e.chunkSource(ctx, v)
	// The seeds' reads are independent of what is added, so they run at
	// once; the pieces are then added in the seeds' order, as one by one.
	reads := make([]seedReads, len(seeds))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(expandWorkers)
	for i, seed := range seeds {
		g.Go(func() (err error) {
			reads[i], err = e.readSeed(gctx, v.db, src, seed, o)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for k, seed := range seeds {
		rd := reads[k]
		if rd.owner != "" {
			if r, ok := bestOwner(rd.owners, rd.owner, seed.Path); ok {
				add(r, seed.Score*expandedScore, headerLines, "definition of "+rd.owner)
			}
		}
		if o.Callees {
			addCallees(seed, rd.callees, o.MaxCallees, add)
		}
		if rows := rd.file; rows != nil {
			for i, r := range rows {
				if r.StartLine != seed.StartLine || r.EndLine != seed.EndLine {
					continue
				}
				for _, j := range []int{i - 1, i + 1} {
					if j >= 0 && j < len(rows) && rows[j].Name != "" {
						add(rows[j], seed.Score*expandedScore, calleeLines, "next to "+seed.Symbol)
					}
				}
				break
			}
		}
	}
	if o.Callers && askCallers().MatchString(query) && hits[0].Symbol != "" {
		refs, err := e.References(ctx, ReferenceQuery{Symbol: hits[0].Symbol, Kinds: []string{"call"}, Max: 4 * o.MaxCallers, MinConfidence: 0.9})
		if err != nil {
			return nil, err
		}
		n := 0
		chunks := map[string][]store.ChunkRow{} // by path: references share files
		for _, r := range refs {
			if n == o.MaxCallers {
				break
			}
			rows, ok := chunks[r.Path]
			if !ok {
				if rows, err = v.db.FileChunks(ctx, r.Path); err != nil {
					return nil, err
				}
				chunks[r.Path] = rows
			}
			if c, ok := innermost(rows, r.Line); ok && add(c, hits[0].Score*expandedScore, calleeLines, "calls "+hits[0].Symbol) {
				n++
			}
		}
	}
	return out, nil
}

// expandWorkers is how many seeds [Engine.Expand] reads at once.
const expandWorkers = 2

// seedReads is what [Engine.Expand] reads from the index for one seed.
type seedReads struct {
	owner   string           // the type a method seed belongs to; "" for none
	owners  []store.ChunkRow // chunks named owner
	callees calleeReads
	file    []store.ChunkRow // the seed's file's chunks, for Neighbours
}

// readSeed reads what the expansions o asks for need about seed: chunk
// rows by name from src (see [Engine.chunkSource]), the rest from db.
func (e *Engine) readSeed(ctx context.Context, db *store.DB, src search.Source, seed Hit, o ExpandOptions) (seedReads, error) {
	var rd seedReads
	var err error
	if o.Headers && seed.breadcrumb != "" {
		parts := strings.Split(seed.breadcrumb, " > ")
		rd.owner = parts[len(parts)-1]
		if rd.owners, err = src.ChunksByName(ctx, []string{rd.owner}, 50); err != nil {
			return rd, err
		}
	}
	if o.Callees {
		if rd.callees, err = e.readCallees(ctx, db, src, seed); err != nil {
			return rd, err
		}
	}
	if o.Neighbours && seed.EndLine-seed.StartLine < smallSeed {
		if rd.file, err = db.FileChunks(ctx, seed.Path); err != nil {
			return rd, err
		}
		if rd.file == nil {
			rd.file = []store.ChunkRow{}
		}
	}
	return rd, nil
}

// bestOwner picks the type or class definition named owner, preferring
// the seed's file, then its directory.
func bestOwner(rows []store.ChunkRow, owner, seedPath string) (store.ChunkRow, bool) {
	best, rank := store.ChunkRow{}, 0
	for _, r := range rows {
		if r.Name != owner || !typeKinds[r.Kind] || r.Part > 1 {
			continue
		}
		k := 1
		switch {
		case r.Path == seedPath:
			k = 3
		case path.Dir(r.Path) == path.Dir(seedPath):
			k = 2
		}
		if k > rank {
			best, rank = r, k
		}
	}
	return best, rank >= 2
}

// typeKinds holds store.TypeKinds.
var typeKinds = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range store.TypeKinds {
		m[k] = true
	}
	return m
}()

// calleeReads is what [Engine.readCallees] read for a seed: the names
// it calls, in order of first call, the files and directories its file
// imports, and the chunks defining those names.
type calleeReads struct {
	names   []string
	targets map[string]bool
	rows    []store.ChunkRow
}

// readCallees reads the names seed calls and their definitions (from
// src, by name).
func (e *Engine) readCallees(ctx context.Context, db *store.DB, src search.Source, seed Hit) (calleeReads, error) {
	code := seed.Code // set by a Full find
	if code == "" {
		code = e.Code(seed)
	}
	seen := map[string]bool{}
	var names []string
	own, _ := splitSymbol(seed.Symbol)
	for _, m := range callIdent().FindAllStringSubmatch(code, -1) {
		name := m[2]
		if seen[name] || callKeywords[name] || name == own || len(name) < 3 {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	if len(names) == 0 {
		return calleeReads{}, nil
	}
	ims, err := db.ImportsOf(ctx, seed.Path)
	if err != nil {
		return calleeReads{}, err
	}
	targets := map[string]bool{}
	for _, im := range ims {
		if im.Target != "" {
			targets[im.Target] = true
		}
	}
	rows, err := src.ChunksByName(ctx, names, 20*len(names))
	if err != nil {
		return calleeReads{}, err
	}
	return calleeReads{names: names, targets: targets, rows: rows}, nil
}

// addCallees adds up to max definitions of the names seed calls that its
// own file, its file's imports or its Go package hold: for each name, one
// in its own file if any, else the first in scope.
func addCallees(seed Hit, c calleeReads, max int, add func(store.ChunkRow, float64, int, string) bool) {
	names, targets, rows := c.names, c.targets, c.rows
	n := 0
	for _, name := range names {
		if n == max {
			break
		}
		// A definition in the seed's own file first (a method's
		// self._helper, a module's private function), then one its
		// imports (or its Go package) hold.
		var pick *store.ChunkRow
		for i := range rows {
			r := &rows[i]
			if r.Name != name || !definitionKinds[r.Kind] || r.Part > 1 || r.Path == seed.Path && r.StartLine == seed.StartLine {
				continue
			}
			if r.Path == seed.Path {
				pick = r
				break
			}
			dir := path.Dir(r.Path)
			if pick == nil && (targets[r.Path] || targets[dir] || strings.HasSuffix(r.Path, ".go") && dir == path.Dir(seed.Path)) {
				pick = r
			}
		}
		if pick != nil {
			add(*pick, seed.Score*expandedScore, calleeLines, "called by "+seed.Symbol)
			n++
		}
	}
}

// innermost returns the smallest chunk holding line.
func innermost(rows []store.ChunkRow, line int) (store.ChunkRow, bool) {
	var best store.ChunkRow
	found := false
	for _, r := range rows {
		if r.StartLine <= line && line <= r.EndLine && (!found || r.EndLine-r.StartLine < best.EndLine-best.StartLine) {
			best, found = r, true
		}
	}
	return best, found
}

// Expanded reports whether h is a context piece [Engine.Expand] added,
// not a search result.
func (h Hit) Expanded() bool { return h.Context != "" }
