package chunk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctx-dev/ctx/internal/discover"
)

// Options tunes chunk sizes. A nil *Options, and any field left at zero,
// means the default.
type Options struct {
	// MaxLines is the largest definition, in lines, kept as one chunk;
	// a longer one is split at statement boundaries into parts. Default 60:
	// on the semble DEV set (lexical-only NDCG@10) 40 lines scored 0.779,
	// 60 0.781, 80 0.780, 120 0.777 and 200 0.774, and on SWE-bench DEV 50
	// 60 took file Acc@1 from 0.56 (120) to 0.58.
	MaxLines int
	// MaxBytes is the largest definition, in bytes, kept as one chunk;
	// a larger one is split like a long one. Default 3000 (about 60 lines
	// of 50 bytes).
	MaxBytes int
	// GroupLines is how many lines of neighbouring top-level statements
	// that are not definitions (imports, small assignments, calls) are
	// grouped into one [KindBlock] chunk at most. Default 40.
	GroupLines int
	// WindowLines is the size, in lines, of the windows that files without
	// a grammar (and long Markdown sections) are cut into. Default 60.
	WindowLines int
}

// Default sizes; see [Options].
const (
	DefaultMaxLines    = 60
	DefaultMaxBytes    = 3000
	DefaultGroupLines  = 40
	DefaultWindowLines = 60
)

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxLines <= 0 {
		r.MaxLines = DefaultMaxLines
	}
	if r.MaxBytes <= 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	if r.GroupLines <= 0 {
		r.GroupLines = DefaultGroupLines
	}
	if r.WindowLines <= 0 {
		r.WindowLines = DefaultWindowLines
	}
	return r
}

// Chunker splits files into [Chunk]s. It is safe for concurrent use by
// many goroutines: tree-sitter parsers are pooled per language, and a
// parser is used by one goroutine at a time.
type Chunker struct {
	opts    Options
	parsers map[string]*sync.Pool // by language; values are *sitter.Parser
	walkers sync.Pool             // *walker
	budget  func(n int) time.Duration
}

// New returns a Chunker using opts; nil means the defaults.
func New(opts *Options) *Chunker {
	c := &Chunker{opts: opts.withDefaults(), parsers: make(map[string]*sync.Pool, len(specs)), budget: parseBudget}
	for id, s := range specs {
		c.parsers[id] = &sync.Pool{New: func() any {
			s.init()
			p := sitter.NewParser()
			p.SetLanguage(s.lang)
			return p
		}}
	}
	c.walkers.New = func() any { return new(walker) }
	return c
}

// debugChecks makes Chunk panic when its output breaks an invariant,
// instead of falling back to line windows. Tests turn it on.
var debugChecks = false

// Chunk splits one file into chunks, sorted by position, that never
// overlap and that cover every line holding non-whitespace text. lang is
// a discover.Lang* identifier: languages with a tree-sitter grammar are
// chunked by definitions, Markdown by headings, anything else by line
// windows. path names the file; it does not change the result today.
//
// Chunk returns an error only when ctx is done. A file that does not parse
// is still chunked: tree-sitter recovers from syntax errors, and a file it
// cannot parse within its time budget (pathological input only, see
// parseBudget) is cut into line windows. An empty or blank file has no
// chunks.
func (c *Chunker) Chunk(ctx context.Context, path, lang string, src []byte) ([]Chunk, error) {
	f, err := c.ChunkFile(ctx, path, lang, src)
	return f.Chunks, err
}

// ChunkFile is [Chunker.Chunk] that also returns the file's declarations
// that are not chunks (see [Decl]). Errors are Chunk's.
func (c *Chunker) ChunkFile(ctx context.Context, path, lang string, src []byte) (File, error) {
	if err := ctx.Err(); err != nil {
		return File{}, err
	}
	w := c.walkers.Get().(*walker)
	defer func() {
		w.release()
		c.walkers.Put(w)
	}()
	w.reset(src, c.opts)
	if w.li.trimmedEmpty() {
		return File{}, nil
	}
	switch s := specs[lang]; {
	case s != nil:
		parsed := src
		if s.mask != nil {
			parsed = s.mask(src)
		}
		tree, err := c.parse(ctx, s, parsed)
		if err != nil {
			if ctx.Err() != nil {
				return File{}, ctx.Err()
			}
			w.windows(0, w.li.count()-1, nil, KindWindow)
			break
		}
		w.spec = s
		w.walkRoot(tree.RootNode())
		w.cover()
		w.sketchPieces(tree.RootNode())
		tree.Close()
	case lang == discover.LangMarkdown:
		w.markdown()
	default:
		w.windows(0, w.li.count()-1, nil, KindWindow)
	}
	if err := w.check(); err != nil {
		if debugChecks {
			panic(fmt.Sprintf("chunk %s (%s): %v", path, lang, err))
		}
		w.out = w.out[:0]
		w.decls = w.decls[:0]
		w.sketches = nil
		w.cur = 0
		w.windows(0, w.li.count()-1, nil, KindWindow)
	}
	return File{Chunks: w.chunks(), Decls: w.declList()}, nil
}

// parseBudget is how long tree-sitter may take to parse a file of n bytes:
// 1 s plus 10 µs a byte, twenty times its slowest speed on real code
// (0.35 s for the 1.9 MB ssa/rewriteAMD64.go). The budget is wall time, so
// it is generous enough that a busy machine does not make a normal file
// run out (which would change its chunks); only pathological input, such
// as tree-sitter's error recovery on text of another language, does, and
// is then cut into line windows.
func parseBudget(n int) time.Duration {
	return time.Second + time.Duration(n)*10*time.Microsecond
}

// parse parses src with a pooled parser. A parser whose parse failed is
// not reused: a timed-out parser keeps state for resuming, and
// go-tree-sitter may set a cancelled parser's flag after the parse has
// returned.
func (c *Chunker) parse(ctx context.Context, s *langSpec, src []byte) (*sitter.Tree, error) {
	pool := c.parsers[s.id]
	budget := c.budget(len(src))
	for attempt := 0; ; attempt++ {
		p := pool.Get().(*sitter.Parser)
		p.SetOperationLimit(int(budget.Microseconds()))
		start := time.Now()
		tree, err := p.ParseCtx(ctx, nil, src)
		if err == nil && ctx.Err() == nil {
			pool.Put(p)
			return tree, nil
		}
		p.Close()
		if tree != nil {
			tree.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A parse that fails at once hit a stale cancellation flag:
		// retry with a fresh parser. One that ran out of time failed.
		if attempt > 0 || time.Since(start) > budget/2 {
			return nil, err
		}
	}
}

// trimmedEmpty reports whether the file has no non-whitespace byte.
func (li *lineIndex) trimmedEmpty() bool {
	for _, c := range li.src {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// cover adds block pieces for non-blank lines that no piece owns. The
// walker covers every byte of the tree; this catches text the grammar left
// out of the tree (after a NUL byte, for one).
func (w *walker) cover() {
	next := 0
	missing := false
	for _, p := range w.out {
		if f, _ := w.li.trim(next, p.first-1); f <= p.first-1 {
			missing = true
			break
		}
		next = p.last + 1
	}
	if !missing {
		if f, _ := w.li.trim(next, w.li.count()-1); f > w.li.count()-1 {
			return
		}
	}
	old := append([]piece(nil), w.out...)
	w.out = w.out[:0]
	w.cur = 0
	next = 0
	for _, p := range old {
		w.windows(next, p.first-1, nil, KindBlock)
		w.out = append(w.out, p)
		w.cur = p.last + 1
		next = p.last + 1
	}
	w.windows(next, w.li.count()-1, nil, KindBlock)
}

// windows cuts lines first..last into pieces of kind k of at most
// WindowLines lines and MaxBytes bytes, preferring to end a window at a
// blank line in its last quarter.
func (w *walker) windows(first, last int, m *meta, k Kind) {
	first, last = w.li.trim(max(first, w.cur), last)
	for first <= last {
		e := first
		for e < last && e-first+1 < w.opts.WindowLines && w.li.size(first, e+1) <= w.opts.MaxBytes {
			e++
		}
		if e < last {
			for b := e; b > first+(e-first)*3/4; b-- {
				if w.li.blank(b) {
					e = b - 1
					break
				}
			}
		}
		before := len(w.out)
		w.emit(first, e, m)
		if len(w.out) > before {
			w.out[len(w.out)-1].kind = k
		}
		first, last = w.li.trim(e+1, last)
	}
}

// check verifies the invariants of the pieces.
func (w *walker) check() error {
	prev := -1
	for i, p := range w.out {
		if p.first <= prev || p.last < p.first || p.last >= w.li.count() {
			return fmt.Errorf("piece %d: lines %d..%d after line %d of %d", i, p.first, p.last, prev, w.li.count())
		}
		prev = p.last
	}
	return nil
}

// declList returns the recorded declarations in line order.
func (w *walker) declList() []Decl {
	if len(w.decls) == 0 {
		return nil
	}
	ds := slices.Clone(w.decls)
	slices.SortStableFunc(ds, func(a, b Decl) int { return cmp.Compare(a.StartLine, b.StartLine) })
	return ds
}

// chunks converts the pieces into chunks.
func (w *walker) chunks() []Chunk {
	if len(w.out) == 0 {
		return nil
	}
	cs := make([]Chunk, len(w.out))
	for i, p := range w.out {
		c := Chunk{
			Kind:      p.kind,
			Part:      p.part,
			StartLine: p.first + 1,
			EndLine:   p.last + 1,
			StartByte: w.li.start(p.first),
			EndByte:   w.li.end(p.last),
		}
		if m := p.m; m != nil {
			c.Kind, c.Symbol, c.Name, c.Breadcrumb, c.Signature = m.kind, m.symbol, m.name, m.crumb, m.sig
			if p.doc {
				c.Doc = m.doc
			}
		}
		if i < len(w.sketches) {
			c.Sketch = w.sketches[i]
		}
		cs[i] = c
	}
	return cs
}

// sketchPieces sets w.sketches to the structural sketch of each piece.
func (w *walker) sketchPieces(root *sitter.Node) {
	spans := make([]span, len(w.out))
	for i, p := range w.out {
		spans[i] = span{w.li.start(p.first), w.li.end(p.last)}
	}
	w.sketches = w.spec.sketchSpans(&w.sk, root, spans)
}

// ErrNoGrammar is returned by [Chunker.Sketch] for a language ctx has no
// tree-sitter grammar for.
var ErrNoGrammar = errors.New("no grammar for the language")

// HasGrammar reports whether lang (a discover.Lang* id) is parsed with a
// tree-sitter grammar, so its chunks carry sketches.
func HasGrammar(lang string) bool { return specs[lang] != nil }

// Sketch returns the structural sketch of the bytes [start, end) of src, a
// file in lang (a discover.Lang* id): made from the syntax nodes wholly
// inside the range, as a chunk of that range would be. The sketch is nil
// when the range holds no syntax node (only comments or blanks).
// errLine is the 1-based line of the first syntax error inside the range
// (0: none); tree-sitter recovers from errors, so the sketch is made
// either way. Errors: [ErrNoGrammar], ctx's, and a parse that ran out of
// its time budget.
func (c *Chunker) Sketch(ctx context.Context, lang string, src []byte, start, end int) (sketch []byte, errLine int, err error) {
	s := specs[lang]
	if s == nil {
		return nil, 0, fmt.Errorf("%w: %s", ErrNoGrammar, lang)
	}
	start, end = max(0, min(start, len(src))), max(0, min(end, len(src)))
	parsed := src
	if s.mask != nil {
		parsed = s.mask(src)
	}
	tree, err := c.parse(ctx, s, parsed)
	if err != nil {
		return nil, 0, fmt.Errorf("parsing %s: %w", lang, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		errLine = firstError(root, uint32(start), uint32(end))
	}
	var sk sketcher
	return s.sketchSpans(&sk, root, []span{{start, end}})[0], errLine, nil
}

// firstError returns the 1-based line of the first ERROR or MISSING node
// under n that overlaps [start, end), or 0.
func firstError(n *sitter.Node, start, end uint32) int {
	if n.EndByte() < start || n.StartByte() > end || !n.HasError() && !n.IsMissing() {
		return 0
	}
	if n.IsError() || n.IsMissing() {
		return int(n.StartPoint().Row) + 1
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		if l := firstError(n.Child(i), start, end); l > 0 {
			return l
		}
	}
	return 0
}
