package engine

import (
	"context"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/lazyre"

	"github.com/ctx-dev/ctx/internal/store"
)

// TypeLink is one edge of the type hierarchy: Type extends, implements,
// embeds or includes Base.
type TypeLink struct {
	Type     string `json:"type"`
	Base     string `json:"base"`
	Relation string `json:"relation"` // extends, implements, embeds or impl (Rust impl Trait for Type)
	Path     string `json:"path"`     // where Type's definition (or the impl) is
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	Line      int    `json:"line"`               // 1-based, its first line
	EndLine   int    `json:"end_line,omitempty"` // 1-based, its last line
	Language  string `json:"language"`
	// BasePath and BaseLine locate Base's definition when it resolves
	// through scope (the file, its package or directory, its imports);
	// empty when Base is outside the repository or not resolved.
	BasePath string `json:"base_path,omitempty"`
	BaseLine int    `json:"base_line,omitempty"`

	qual string // Base's qualifier as written ("io" in io.Reader)
}

// Hierarchy is a type's place in the type hierarchy.
type Hierarchy struct {
	Symbol string `json:"symbol"`
	// Supertypes are what the type's definitions extend, implement or
	// embed; Subtypes are the definitions that extend, implement or embed
	// it (and Rust impls of a trait of that name).
	Supertypes []TypeLink `json:"supertypes"`
	Subtypes   []TypeLink `json:"subtypes"`
	// Definition is the type the lookup resolved to (see
	// [Engine.Definitions]), with its Resolution and Confidence; Others
	// are the other types it fits, when it is ambiguous.
	Definition *Definition `json:"definition,omitempty"`
	Others     []Location  `json:"others,omitempty"`
	Method     string      `json:"method"`
}

// HierarchyMethod says how [Engine.Hierarchy] answers.
const HierarchyMethod = "declared relations: base lists in class, interface, struct and impl headers, and Go embedded fields, each resolved through the declaring file's package, directory and imports; Go's implicit interface satisfaction is not computed"

var (
	// extendsRe and implementsRe read Java, Kotlin, Scala, TypeScript,
	// JavaScript, PHP and C# style headers.
	extendsRe    = lazyre.New(`\bextends\s+([\w.$<>, ]+?)(?:\s+implements\b|\s+with\b|\s*\{|$)`)
	implementsRe = lazyre.New(`\bimplements\s+([\w.$<>, ]+?)(?:\s*\{|$)`)
	withRe       = lazyre.New(`\bwith\s+([\w.$]+)`)
	// colonRe reads C#, Kotlin and C++ base lists: "class X : A, public B".
	colonRe = lazyre.New(`^(?:[\w\s<>]*?)\b(?:class|struct|interface|record|object)\s+\w+(?:<[^>]*>)?(?:\([^)]*\))?\s*:\s*([^{]+)`)
	// pyClassRe reads "class X(A, B):".
	pyClassRe = lazyre.New(`^\s*class\s+\w+\s*\(([^)]*)\)`)
	// rbClassRe reads Ruby's "class X < Y".
	rbClassRe = lazyre.New(`^\s*class\s+[\w:]+\s*<\s*([\w:]+)`)
	// rustImplRe reads "impl<T> Trait<T> for Type<T>".
	rustImplRe = lazyre.New(`^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+([\w:]+)(?:<[^>]*>)?\s+for\s+([\w:]+)`)
	// goEmbedRe reads a Go embedded field: a lone (possibly pointer,
	// possibly qualified) type name on its own line.
	goEmbedRe = lazyre.New(`^\s*\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:` + "`[^`]*`" + `)?\s*(?://.*)?$`)
)

// bases reads the supertypes a type definition's header (its summary
// line) declares, by language; for Go structs and interfaces it reads the
// embedded types from the code.
func bases(lang, kind, header, code string) []TypeLink {
	var out []TypeLink
	add := func(rel, list string) {
		for _, b := range splitBases(list) {
			out = append(out, typeLink(b, rel))
		}
	}
	switch lang {
	case "python":
		if m := pyClassRe().FindStringSubmatch(header); m != nil {
			var keep []string
			for _, b := range strings.Split(m[1], ",") {
				if b = strings.TrimSpace(b); b != "" && !strings.Contains(b, "=") {
					keep = append(keep, b)
				}
			}
			add("extends", strings.Join(keep, ","))
		}
	case "ruby":
		if m := rbClassRe().FindStringSubmatch(header); m != nil {
			add("extends", m[1])
		}
	case "rust":
		if m := rustImplRe().FindStringSubmatch(header); m != nil {
			l := typeLink(m[1], "impl")
			l.Type = lastPart(m[2])
			out = append(out, l)
		}
	case "go":
		if kind != "struct" && kind != "interface" && kind != "type" {
			return nil
		}
		lines := strings.Split(code, "\n")
		depth := 0
		for i, l := range lines {
			if depth == 1 && i > 0 {
				if m := goEmbedRe().FindStringSubmatch(l); m != nil && m[1] != "}" {
					out = append(out, typeLink(m[1], "embeds"))
				}
			}
			depth += strings.Count(l, "{") - strings.Count(l, "}")
		}
	default:
		if m := extendsRe().FindStringSubmatch(header); m != nil {
			add("extends", m[1])
		}
		if m := implementsRe().FindStringSubmatch(header); m != nil {
			add("implements", m[1])
		}
		for _, m := range withRe().FindAllStringSubmatch(header, -1) {
			add("implements", m[1])
		}
		if !strings.Contains(header, " extends ") {
			if m := colonRe().FindStringSubmatch(header); m != nil {
				add("extends", m[1])
			}
		}
	}
	return out
}

// splitBases splits a base list at top-level commas, dropping access
// keywords, generic arguments and constructor calls.
func splitBases(list string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(s string) {
		s = strings.TrimSpace(s)
		for _, kw := range []string{"public ", "private ", "protected ", "virtual "} {
			s = strings.TrimSpace(strings.TrimPrefix(s, kw))
		}
		if i := strings.IndexAny(s, "<("); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s != "" && s != "object" {
			out = append(out, s)
		}
	}
	for i, r := range list {
		switch r {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				flush(list[start:i])
				start = i + 1
			}
		}
	}
	flush(list[start:])
	return out
}

// typeLink is a link to the base written as name ("io.Reader",
// "Base", "serde::Serialize"): its last part, and the qualifier.
func typeLink(name, rel string) TypeLink {
	base := lastPart(name)
	qual := strings.TrimRight(strings.TrimSuffix(name, base), ".:")
	return TypeLink{Base: base, Relation: rel, qual: qual}
}

// lastPart is the last segment of a dotted or ::-qualified name.
func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Hierarchy returns what a type extends, implements or embeds, and what
// extends, implements or embeds it, read from the definitions' headers
// (and Go struct and interface bodies) in the index. The lookup is
// resolved as [Engine.Definitions] resolves it, to one type (the others
// it fits are listed in Others); a subtype is listed only when the base
// it names resolves to that type through its own file's scope (see
// [Engine.baseIs]). Errors: those of a query and a symbol without a
// name.
func (e *Engine) Hierarchy(ctx context.Context, symbol string, limit int) (*Hierarchy, error) {
	lk := graph.ParseLookup(symbol)
	if lk.Name == "" {
		return nil, Errorf(ErrInvalidArgument, "symbol %q has no identifier in it", symbol)
	}
	name := lk.Name
	if limit <= 0 {
		limit = 50
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	out := &Hierarchy{Symbol: symbol, Supertypes: []TypeLink{}, Subtypes: []TypeLink{}, Method: HierarchyMethod}
	all, err := e.resolveDefinitions(ctx, v.db, lk, "")
	if err != nil {
		return nil, err
	}
	var cands []defCandidate
	for _, c := range all {
		if typeKinds[c.row.Kind] && c.row.Kind != "impl" {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return out, nil
	}
	own := cands[0]
	d := e.definition(own, false)
	out.Definition = &d
	for _, c := range cands[1:] {
		if c.resolution == "ambiguous" || c.resolution == "overload" {
			r := c.row
			out.Others = append(out.Others, Location{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Symbol: r.Symbol, Kind: r.Kind})
		}
	}
	sc := &baseScope{ctx: ctx, db: v.db, imports: map[string][]store.ImportRow{}, unique: map[string]bool{}}
	spans := newSpanCache(ctx, v.db)
	for _, b := range bases(own.row.Language, own.row.Kind, own.row.Summary, e.chunkCode(own.row)) {
		if b.Relation == "impl" {
			continue
		}
		b.Type, b.Path, b.Line, b.EndLine, b.Language = name, own.row.Path, own.row.StartLine, own.row.EndLine, own.row.Language
		if r, ok := sc.resolve(own.row, b); ok {
			b.BasePath, b.BaseLine = r.Path, r.StartLine
		}
		out.Supertypes = append(out.Supertypes, b)
	}
	cands2, err := v.db.TypesMentioning(ctx, name, 2000)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range cands2 {
		if r.Part > 0 {
			r, _ = spans.whole(r)
		}
		key := r.Path + ":" + strconv.Itoa(r.StartLine)
		if seen[key] {
			continue
		}
		seen[key] = true
		for _, b := range bases(r.Language, r.Kind, r.Summary, e.chunkCode(r)) {
			if b.Base != name {
				if b.Relation == "impl" && b.Type == name && r.Path == own.row.Path {
					// impl Trait for ThisType, in its file.
					b.Path, b.Line, b.EndLine, b.Language = r.Path, r.StartLine, r.EndLine, r.Language
					out.Supertypes = append(out.Supertypes, b)
				}
				continue
			}
			if r.Path == own.row.Path && r.StartLine == own.row.StartLine {
				continue
			}
			if !sc.is(r, b, own.row) {
				continue
			}
			if b.Relation != "impl" {
				b.Type = r.Name
			}
			b.Path, b.Line, b.EndLine, b.Language = r.Path, r.StartLine, r.EndLine, r.Language
			b.BasePath, b.BaseLine = own.row.Path, own.row.StartLine
			out.Subtypes = append(out.Subtypes, b)
		}
		if len(out.Subtypes) >= limit {
			out.Subtypes = out.Subtypes[:limit]
			break
		}
	}
	slices.SortStableFunc(out.Subtypes, func(a, b TypeLink) int { return strings.Compare(a.Path, b.Path) })
	for _, ls := range [][]TypeLink{out.Supertypes, out.Subtypes} {
		for i := range ls {
			ls[i].PathBytes = PathBytes(ls[i].Path)
		}
	}
	return out, nil
}

// baseScope resolves the base a type names to a definition through the
// naming file's scope.
type baseScope struct {
	ctx     context.Context
	db      *store.DB
	imports map[string][]store.ImportRow
	unique  map[string]bool // type name → the only type of that name outside tests
}

func (s *baseScope) importsOf(p string) []store.ImportRow {
	ims, ok := s.imports[p]
	if !ok {
		ims, _ = s.db.ImportsOf(s.ctx, p)
		s.imports[p] = ims
	}
	return ims
}

// is reports whether base b, written in the definition r, names the type
// t: for Go, a qualified base through r's file's import of that name, an
// unqualified one in r's package directory; elsewhere the base's
// qualifier must fit t's scope, and an unqualified base must be in r's
// file, directory (Java, Kotlin, C#, Scala packages), a file r imports,
// r's outermost module or namespace, or be the only type of that name.
func (s *baseScope) is(r store.ChunkRow, b TypeLink, t store.ChunkRow) bool {
	if r.Language == "go" {
		if b.qual == "" {
			return path.Dir(r.Path) == path.Dir(t.Path)
		}
		for _, im := range s.importsOf(r.Path) {
			if importNames(im.Spec, b.qual) {
				return im.Target == path.Dir(t.Path)
			}
		}
		return false
	}
	if b.qual != "" {
		return graph.MatchScope(graph.ParseLookup(b.qual+".x").Quals, graph.Scope(t.Path, t.Language, t.Symbol, t.Breadcrumb)) != graph.MatchNone
	}
	if r.Path == t.Path || path.Dir(r.Path) == path.Dir(t.Path) {
		return true
	}
	for _, im := range s.importsOf(r.Path) {
		if im.Target != "" && (im.Target == t.Path || im.Target == path.Dir(t.Path)) {
			return true
		}
	}
	outer := func(bc string) string { o, _, _ := strings.Cut(bc, " > "); return o }
	if t.Breadcrumb != "" && outer(r.Breadcrumb) == outer(t.Breadcrumb) {
		return true
	}
	return s.onlyType(t.Name)
}

// onlyType reports (once per name) whether name is the name of one type
// outside tests.
func (s *baseScope) onlyType(name string) bool {
	if one, ok := s.unique[name]; ok {
		return one
	}
	rows, err := s.db.ChunksByName(s.ctx, []string{name}, maxNameRows)
	if err != nil {
		return false
	}
	n := 0
	for _, c := range rows {
		if c.Name == name && typeKinds[c.Kind] && c.Kind != "impl" && c.Part <= 1 && !discover.IsTestPath(c.Path) {
			n++
		}
	}
	s.unique[name] = n == 1
	return n == 1
}

// resolve finds the definition of base b written in r, through r's scope.
func (s *baseScope) resolve(r store.ChunkRow, b TypeLink) (store.ChunkRow, bool) {
	rows, err := s.db.ChunksByName(s.ctx, []string{b.Base}, maxNameRows)
	if err != nil {
		return store.ChunkRow{}, false
	}
	var hit []store.ChunkRow
	for _, c := range rows {
		if c.Name == b.Base && typeKinds[c.Kind] && c.Kind != "impl" && c.Part <= 1 && s.is(r, b, c) {
			hit = append(hit, c)
		}
	}
	if len(hit) == 1 {
		return hit[0], true
	}
	return store.ChunkRow{}, false
}

// chunkCode reads a Go type chunk's code (the only language whose
// relations live in the body); others need only the header.
func (e *Engine) chunkCode(r store.ChunkRow) string {
	if r.Language != "go" {
		return ""
	}
	return e.readRange(r.Path, r.StartByte, r.EndByte, r.StartLine, r.EndLine, e.changed(r.Path, r.FileSize, r.FileTime))
}
