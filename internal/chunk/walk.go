package chunk

import (
	"cmp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Depth limits keep pathological inputs (thousands of nested classes or
// wrappers) from recursing without bound; deeper structure is chunked as a
// whole or split by lines.
const (
	maxContainerDepth = 24
	maxWrapDepth      = 8
	maxSplitDepth     = 48
)

// piece is a chunk under construction: a run of whole lines.
type piece struct {
	first, last int   // 0-based, inclusive
	m           *meta // nil for blocks and windows
	kind        Kind  // used when m is nil
	part        int
	doc         bool // the piece carries m.doc
}

// meta is what the pieces of one definition share.
type meta struct {
	kind                          Kind
	symbol, name, crumb, sig, doc string
}

// scope is where the walker is: at top level, or among a container's members.
type scope struct {
	m      *meta  // the container that owns filler here; nil at top level
	crumb  string // breadcrumb of definitions in this scope
	qual   string // qualifier of member symbols ("K.In"); empty at top level
	method bool   // functions defined here are methods
	limit  int    // filler is grouped up to this many lines
}

// fillGroup collects neighbouring filler lines until they are emitted as
// one piece.
type fillGroup struct {
	active      bool
	first, last int
	m           *meta
	limit       int
}

// walker turns one syntax tree into pieces. It owns no tree-sitter
// objects between calls and is reused through a sync.Pool.
type walker struct {
	opts Options
	spec *langSpec
	src  []byte
	li   lineIndex
	out  []piece
	// decls are the declarations met that are not chunks (see Decl).
	decls []Decl
	// cur is the first line that no emitted piece owns.
	cur int
	// hard is the last line that holds non-comment content already
	// assigned to a piece or to the filler group: a doc comment search
	// never climbs above it.
	hard int
	fill fillGroup
	// attrStart is the first line of a run of attribute nodes standing
	// before the next definition (-1: none); attrDoc is Elixir's @doc.
	attrStart int
	attrDoc   string
	depth     int
	buf       []byte
	// sketches holds each piece's structural sketch, once made
	// (sketch.go); sk is the sketcher that makes them.
	sketches [][]byte
	sk       sketcher
}

func (w *walker) reset(src []byte, opts Options) {
	w.opts = opts
	w.src = src
	w.li.reset(src)
	w.out = w.out[:0]
	w.decls = w.decls[:0]
	w.cur, w.hard = 0, -1
	w.fill = fillGroup{}
	w.attrStart, w.attrDoc = -1, ""
	w.depth = 0
	w.spec = nil
	w.sketches = nil
}

// release drops references into the caller's data before pooling, and
// the buffers grown by an unusually large file.
func (w *walker) release() {
	const keep = 1 << 16
	w.src, w.li.src, w.spec = nil, nil, nil
	w.attrDoc = ""
	clear(w.out) // metas hold strings from the file
	w.out = w.out[:0]
	clear(w.decls)
	w.decls = w.decls[:0]
	if cap(w.li.starts) > keep {
		w.li.starts = nil
	}
	if cap(w.out) > keep/8 {
		w.out = nil
	}
	if cap(w.buf) > keep {
		w.buf = nil
	}
	if cap(w.sk.buf) > keep {
		w.sk.buf = nil
	}
	w.sketches = nil
}

// nodeSpan returns the first and last line of n's non-blank text.
func (w *walker) nodeSpan(n *sitter.Node) (int, int) {
	return w.li.span(int(n.StartByte()), int(n.EndByte()))
}

// text returns n's source text (clamped to the file).
func (w *walker) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s, e := int(n.StartByte()), int(n.EndByte())
	if e > len(w.src) {
		e = len(w.src)
	}
	if s > e {
		s = e
	}
	return string(w.src[s:e])
}

func (w *walker) fieldText(n *sitter.Node, field string) string {
	return w.text(n.ChildByFieldName(field))
}

// tooBig reports whether lines first..last exceed the definition limits.
func (w *walker) tooBig(first, last int) bool {
	return last-first+1 > w.opts.MaxLines || w.li.size(first, last) > w.opts.MaxBytes
}

// walkRoot chunks the whole tree.
func (w *walker) walkRoot(root *sitter.Node) {
	sc := &scope{limit: w.opts.GroupLines}
	w.walkChildren(root, sc, true)
	w.flushFill()
}

// walkChildren visits n's children in order. bodies says whether member
// lists (roleBody) are descended into rather than treated as filler.
func (w *walker) walkChildren(n *sitter.Node, sc *scope, bodies bool) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	if !c.GoToFirstChild() {
		return
	}
	for {
		w.visit(c.CurrentNode(), sc, bodies)
		if !c.GoToNextSibling() {
			return
		}
	}
}

// walkGroup walks a group of definitions such as Go's type ( ... ): the
// tokens that open the group attach to its first member, like attributes.
func (w *walker) walkGroup(n *sitter.Node, sc *scope) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	if !c.GoToFirstChild() {
		return
	}
	opener := true
	for {
		k := c.CurrentNode()
		if opener {
			switch w.spec.class(k).role {
			case roleComment:
			case roleDef, roleCustom, roleWrapper:
				opener = false
			default:
				if first, last := w.nodeSpan(k); first >= 0 {
					if w.attrStart < 0 {
						w.attrStart = first
					}
					w.addFill(k, first, last, sc, true)
				}
				if !c.GoToNextSibling() {
					return
				}
				continue
			}
		}
		w.visit(k, sc, true)
		if !c.GoToNextSibling() {
			return
		}
	}
}

func (w *walker) visit(n *sitter.Node, sc *scope, bodies bool) {
	first, last := w.nodeSpan(n)
	if first < 0 {
		return
	}
	cls := w.spec.class(n)
	switch cls.role {
	case roleComment:
		w.addFill(n, first, last, sc, true)
		return
	case roleAttr:
		isAttr, doc := true, ""
		if h := w.spec.attrHook; h != nil {
			isAttr, doc = h(w, n, sc)
		}
		if isAttr {
			if w.attrStart < 0 {
				w.attrStart = first
			}
			if doc != "" {
				w.attrDoc = doc
			}
			w.addFill(n, first, last, sc, true)
			return
		}
	case roleTransparent:
		if w.depth < maxContainerDepth {
			w.depth++
			w.walkChildren(n, sc, true)
			w.depth--
			return
		}
	case roleBody:
		if bodies && w.depth < maxContainerDepth {
			w.depth++
			w.walkChildren(n, sc, true)
			w.depth--
			return
		}
	case roleDef, roleCustom, roleWrapper:
		d, ok := w.resolveNode(n, cls, sc, 0)
		switch {
		case !ok:
		case d.scopeName != "":
			sc.crumb, sc.qual = oneLine([]byte(d.scopeName), maxName), ""
			ok = false
		case d.transparent && w.depth < maxContainerDepth:
			w.depth++
			w.walkGroup(cmp.Or(d.members, n), sc)
			w.depth--
			return
		case d.transparent:
			ok = false
		}
		if ok && (d.decl || d.bodiless && sc.m != nil) {
			// A declaration without a body stays filler, and is
			// recorded so that a lookup still finds it.
			w.declare(d, sc, -1, -1)
			ok = false
		}
		if ok {
			w.define(n, first, last, d, sc)
			w.attrStart, w.attrDoc = -1, ""
			if d.kind == KindEnum {
				m, _ := named(d, sc)
				d.aliases = append(d.aliases, w.enumMembers(d, m.symbol)...)
			}
			for _, a := range d.aliases {
				k, crumb := d.kind, d.crumb
				if a.Kind != "" {
					k = a.Kind
				}
				if a.Breadcrumb != "" {
					crumb = joinCrumb(crumb, a.Breadcrumb)
				}
				w.declare(def{kind: k, name: a.Name, symbol: a.Symbol, crumb: crumb}, sc, a.StartLine-1, a.EndLine-1)
			}
			return
		}
	}
	w.addFill(n, first, last, sc, false)
	w.attrStart, w.attrDoc = -1, ""
}

// resolveNode turns a definition-like node into a def.
func (w *walker) resolveNode(n *sitter.Node, cls nodeClass, sc *scope, depth int) (def, bool) {
	if cls.role == roleWrapper {
		if depth >= maxWrapDepth {
			return def{}, false
		}
		cnt := int(n.NamedChildCount())
		for i := 0; i < cnt && i < 16; i++ {
			c := n.NamedChild(i)
			ccls := w.spec.class(c)
			switch ccls.role {
			case roleDef, roleCustom, roleWrapper:
				if d, ok := w.resolveNode(c, ccls, sc, depth+1); ok {
					return d, true
				}
			}
		}
		return def{}, false
	}
	if w.spec.resolve != nil {
		return w.spec.resolve(w, n, cls, sc)
	}
	return defaultResolve(w, n, cls, sc)
}

// defaultResolve reads a definition's name and body from the "name" and
// "body" fields.
func defaultResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	d := def{node: n, kind: cls.kind, container: cls.container}
	d.name = w.fieldText(n, "name")
	if d.name == "" {
		return d, false
	}
	d.body = n.ChildByFieldName("body")
	d.finish()
	return d, true
}

// finish derives the flags that follow from kind and body.
func (d *def) finish() {
	if d.body == nil {
		if isFunc(d.kind) {
			d.bodiless = true
		}
		if d.members == nil {
			d.container = false
		}
	}
	if d.container && typeLike(d.kind) {
		d.qualifies = true
	}
}

func isFunc(k Kind) bool { return k == KindFunction || k == KindMethod }

// typeLike kinds qualify their members' symbols and make their functions
// methods.
func typeLike(k Kind) bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindTrait, KindEnum, KindImpl:
		return true
	}
	return false
}

// bareName returns the last segment of a qualified defined name, as a
// symbol query names it: "Channel" for Elixir's defmodule Phoenix.Channel,
// "bar" for C++'s out-of-line Foo::bar. A name without a separator, or
// ending in one, is returned as it is.
func bareName(name string) string {
	i := strings.LastIndex(name, ".")
	if j := strings.LastIndex(name, "::"); j >= 0 && j+1 > i {
		i = j + 1
	}
	if i < 0 || i == len(name)-1 {
		return name
	}
	return name[i+1:]
}

func joinQual(q, name string) string {
	if q == "" {
		return name
	}
	if name == "" {
		return q
	}
	return q + "." + name
}

func joinCrumb(c, name string) string {
	if c == "" {
		return name
	}
	if name == "" {
		return c
	}
	return c + " > " + name
}

// define emits the pieces of one definition. outer is the node the walker
// met (maybe a wrapper around d.node); first..last its lines.
func (w *walker) define(outer *sitter.Node, first, last int, d def, sc *scope) {
	// The chunk starts at the doc comment above the node, or at the
	// attributes above it and the doc comment above those. Doc lines are
	// docFirst up to docEnd (exclusive).
	floor := w.hard + 1
	start := first
	docFirst, docEnd := first, first
	if first >= floor {
		start = w.scanDocUp(first-1, floor)
		docFirst = start
		if w.attrStart >= floor && w.attrStart < start {
			top := w.scanDocUp(w.attrStart-1, floor)
			if top < w.attrStart {
				docFirst, docEnd = top, w.attrStart
			}
			start = top
		}
	} else {
		// The definition shares its first line with earlier content,
		// which keeps that line.
		start = floor
		if start > last {
			w.addFill(outer, first, last, sc, false)
			return
		}
		docFirst, docEnd = start, start
	}
	if docFirst == docEnd {
		// No comment above: a grammar may have put it inside the node.
		docEnd = w.scanDocDown(docFirst, last)
	}
	start = w.claim(start)
	if start > last {
		return // every line is taken already
	}
	docFirst = max(docFirst, start)

	m, name := named(d, sc)
	m.sig = w.signature(d)
	switch {
	case d.doc != "":
		m.doc = d.doc
	case w.attrDoc != "":
		m.doc = w.attrDoc
	case docEnd > docFirst:
		m.doc = w.docText(docFirst, docEnd-1)
	}
	from := len(w.out)

	if d.container && w.depth < maxContainerDepth {
		w.depth++
		sub := &scope{
			m:      m,
			crumb:  joinCrumb(m.crumb, name),
			qual:   sc.qual,
			method: typeLike(m.kind),
			limit:  w.opts.MaxLines,
		}
		if d.qualifies {
			sub.qual = m.symbol
		}
		hdr, _ := w.nodeSpan(d.node)
		if hdr < docEnd {
			hdr = docEnd
		}
		hdr = max(min(hdr, last), start)
		w.fill = fillGroup{active: true, first: start, last: hdr, m: m, limit: sub.limit}
		w.hard = max(w.hard, hdr)
		w.attrStart, w.attrDoc = -1, ""
		members := d.members
		if members == nil {
			members = d.node
		}
		w.walkChildren(members, sub, true)
		w.addFill(nil, last, last, sub, false)
		w.flushFill()
		w.depth--
	} else {
		if w.tooBig(start, last) {
			w.splitNode(outer, start, last, m)
		} else {
			w.emit(start, last, m)
		}
		w.hard = max(w.hard, w.lastHard(start, last))
	}
	w.finishDef(from, m)
}

// declare records d, a declaration that is not a chunk, with its names
// qualified the way define qualifies a chunk's, over lines first..last
// (0-based; -1: d.node's).
func (w *walker) declare(d def, sc *scope, first, last int) {
	if first < 0 && d.node != nil {
		first, last = w.nodeSpan(d.node)
	}
	if first < 0 || d.name == "" {
		return
	}
	m, _ := named(d, sc)
	w.decls = append(w.decls, Decl{
		Kind: m.kind, Symbol: m.symbol, Name: m.name, Breadcrumb: m.crumb,
		StartLine: first + 1, EndLine: last + 1,
	})
}

// named returns d's kind, symbol, bare name and breadcrumb in scope sc
// (a function among a type's members is a method; a symbol not set by
// the resolver is qualified by the scope), and its name as written, on
// one line. Names come from the source; broken input can make them long
// or multi-line.
func named(d def, sc *scope) (m *meta, name string) {
	kind := d.kind
	if kind == KindFunction && sc.method {
		kind = KindMethod
	}
	name = oneLine([]byte(d.name), maxName)
	sym := oneLine([]byte(d.symbol), maxName)
	if sym == "" {
		sym = joinQual(sc.qual, name)
	}
	return &meta{kind: kind, symbol: sym, name: bareName(name), crumb: joinCrumb(sc.crumb, oneLine([]byte(d.crumb), maxName))}, name
}

// claim makes line start available to a definition: pending filler and
// the last emitted piece give up the doc-comment lines from start on.
// It returns the definition's first line.
func (w *walker) claim(start int) int {
	g := &w.fill
	if g.active {
		if g.last >= start {
			g.last = start - 1
		}
		if g.last < g.first {
			g.active = false
		}
	}
	w.flushFill()
	if start < w.cur {
		if n := len(w.out); n > 0 && w.out[n-1].first < start {
			p := &w.out[n-1]
			p.last = start - 1
			p.first, p.last = w.li.trim(p.first, p.last)
			w.cur = start
		} else {
			start = w.cur
		}
	}
	return start
}

// finishDef numbers the parts of the definition whose pieces start at
// out[from] and marks the first as the one that carries the doc.
func (w *walker) finishDef(from int, m *meta) {
	n, firstAt := 0, -1
	for i := from; i < len(w.out); i++ {
		if w.out[i].m == m {
			if firstAt < 0 {
				firstAt = i
			}
			n++
		}
	}
	if firstAt < 0 {
		return
	}
	w.out[firstAt].doc = true
	if n < 2 {
		return
	}
	part := 0
	for i := firstAt; i < len(w.out); i++ {
		if w.out[i].m == m {
			part++
			w.out[i].part = part
		}
	}
}

// addFill adds a filler node (or, when n is nil, bare lines) to the
// pending group, emitting the group first when it would grow past the
// scope's limit. A filler node too big for one chunk is split at its
// statement boundaries. soft marks comments and attributes, which a
// following definition may still claim.
func (w *walker) addFill(n *sitter.Node, first, last int, sc *scope, soft bool) {
	if !soft {
		h := last
		if n != nil {
			h = w.lastHard(first, last)
		}
		defer func() { w.hard = max(w.hard, h) }()
	}
	if first < w.cur {
		first = w.cur
	}
	if first > last {
		return
	}
	g := &w.fill
	if n != nil && w.tooBig(first, last) {
		start := first
		if g.active && g.last >= first {
			start = g.first
			g.active = false
		} else {
			w.flushFill()
		}
		w.splitNode(n, start, last, sc.m)
		return
	}
	if g.active && first > g.last &&
		(last-g.first+1 > g.limit || w.li.size(g.first, last) > w.opts.MaxBytes) {
		w.flushFill()
	}
	if !g.active {
		*g = fillGroup{active: true, first: first, last: last, m: sc.m, limit: sc.limit}
		return
	}
	if last > g.last {
		g.last = last
	}
}

// flushFill emits the pending filler group. A group of closing
// punctuation ("}", "end", "#endif") joins the piece above instead of
// becoming a chunk of its own.
func (w *walker) flushFill() {
	g := &w.fill
	if !g.active {
		return
	}
	g.active = false
	first, last := max(g.first, w.cur), g.last
	if first > last {
		return
	}
	if n := len(w.out); n > 0 && w.closersOnly(first, last) {
		w.out[n-1].last = last
		w.cur = last + 1
		return
	}
	w.emit(first, last, g.m)
}

// emit appends a piece for lines first..last, minus lines already owned
// and blank lines at either end.
func (w *walker) emit(first, last int, m *meta) {
	if first < w.cur {
		first = w.cur
	}
	first, last = w.li.trim(first, last)
	if first > last {
		return
	}
	w.out = append(w.out, piece{first: first, last: last, m: m, kind: KindBlock})
	w.cur = last + 1
}

// closersOnly reports whether lines first..last hold nothing but closing
// punctuation, closing keywords and trailing comments.
func (w *walker) closersOnly(first, last int) bool {
	if last-first > 4 {
		return false
	}
	closer := false // a group of comments alone is no closer
	for l := first; l <= last; l++ {
		t := w.li.text(l)
		for _, p := range w.spec.lineComments {
			if i := indexBytes(t, p); i >= 0 {
				t = trimSpace(t[:i])
			}
		}
		if p := w.spec.blockStart; p != "" {
			if i := indexBytes(t, p); i >= 0 {
				t = trimSpace(t[:i])
			}
		}
		if len(t) == 0 {
			continue
		}
		closer = true
		ok := true
		for _, c := range t {
			switch c {
			case '}', ')', ']', ';', ',', ' ', '\t':
			default:
				ok = false
			}
		}
		if ok {
			continue
		}
		word := false
		for _, cw := range w.spec.closers {
			if string(trimPunct(t)) == cw {
				word = true
				break
			}
		}
		if !word {
			return false
		}
	}
	return closer
}
