package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

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
	Line      int    `json:"line"` // 1-based, its first line
	Language  string `json:"language"`
}

// Hierarchy is a type's place in the type hierarchy.
type Hierarchy struct {
	Symbol string `json:"symbol"`
	// Supertypes are what the type's definitions extend, implement or
	// embed; Subtypes are the definitions that extend, implement or embed
	// it (and Rust impls of a trait of that name).
	Supertypes []TypeLink `json:"supertypes"`
	Subtypes   []TypeLink `json:"subtypes"`
	Method     string     `json:"method"`
}

// HierarchyMethod says how [Engine.Hierarchy] answers.
const HierarchyMethod = "declared relations: base lists in class, interface, struct and impl headers, and Go embedded fields; Go's implicit interface satisfaction is not computed"

var (
	// extendsRe and implementsRe read Java, Kotlin, Scala, TypeScript,
	// JavaScript, PHP and C# style headers.
	extendsRe    = regexp.MustCompile(`\bextends\s+([\w.$<>, ]+?)(?:\s+implements\b|\s+with\b|\s*\{|$)`)
	implementsRe = regexp.MustCompile(`\bimplements\s+([\w.$<>, ]+?)(?:\s*\{|$)`)
	withRe       = regexp.MustCompile(`\bwith\s+([\w.$]+)`)
	// colonRe reads C#, Kotlin and C++ base lists: "class X : A, public B".
	colonRe = regexp.MustCompile(`^(?:[\w\s<>]*?)\b(?:class|struct|interface|record|object)\s+\w+(?:<[^>]*>)?(?:\([^)]*\))?\s*:\s*([^{]+)`)
	// pyClassRe reads "class X(A, B):".
	pyClassRe = regexp.MustCompile(`^\s*class\s+\w+\s*\(([^)]*)\)`)
	// rbClassRe reads Ruby's "class X < Y".
	rbClassRe = regexp.MustCompile(`^\s*class\s+[\w:]+\s*<\s*([\w:]+)`)
	// rustImplRe reads "impl<T> Trait<T> for Type<T>".
	rustImplRe = regexp.MustCompile(`^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+([\w:]+)(?:<[^>]*>)?\s+for\s+([\w:]+)`)
	// goEmbedRe reads a Go embedded field: a lone (possibly pointer,
	// possibly qualified) type name on its own line.
	goEmbedRe = regexp.MustCompile(`^\s*\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:` + "`[^`]*`" + `)?\s*(?://.*)?$`)
)

// bases reads the supertypes a type definition's header (its summary
// line) declares, by language; for Go structs and interfaces it reads the
// embedded types from the code.
func bases(lang, kind, header, code string) []TypeLink {
	var out []TypeLink
	add := func(rel, list string) {
		for _, b := range splitBases(list) {
			out = append(out, TypeLink{Base: b, Relation: rel})
		}
	}
	switch lang {
	case "python":
		if m := pyClassRe.FindStringSubmatch(header); m != nil {
			var keep []string
			for _, b := range strings.Split(m[1], ",") {
				if b = strings.TrimSpace(b); b != "" && !strings.Contains(b, "=") {
					keep = append(keep, b)
				}
			}
			add("extends", strings.Join(keep, ","))
		}
	case "ruby":
		if m := rbClassRe.FindStringSubmatch(header); m != nil {
			add("extends", m[1])
		}
	case "rust":
		if m := rustImplRe.FindStringSubmatch(header); m != nil {
			out = append(out, TypeLink{Type: lastPart(m[2]), Base: lastPart(m[1]), Relation: "impl"})
		}
	case "go":
		if kind != "struct" && kind != "interface" && kind != "type" {
			return nil
		}
		lines := strings.Split(code, "\n")
		depth := 0
		for i, l := range lines {
			if depth == 1 && i > 0 {
				if m := goEmbedRe.FindStringSubmatch(l); m != nil && m[1] != "}" {
					out = append(out, TypeLink{Base: lastPart(m[1]), Relation: "embeds"})
				}
			}
			depth += strings.Count(l, "{") - strings.Count(l, "}")
		}
	default:
		if m := extendsRe.FindStringSubmatch(header); m != nil {
			add("extends", m[1])
		}
		if m := implementsRe.FindStringSubmatch(header); m != nil {
			add("implements", m[1])
		}
		for _, m := range withRe.FindAllStringSubmatch(header, -1) {
			add("implements", m[1])
		}
		if !strings.Contains(header, " extends ") {
			if m := colonRe.FindStringSubmatch(header); m != nil {
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
		s = lastPart(strings.TrimSpace(s))
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

// lastPart is the last segment of a dotted or ::-qualified name.
func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Hierarchy returns what a type extends, implements or embeds, and what
// extends, implements or embeds it, read from the definitions' headers
// (and Go struct bodies) in the index. Errors: those of a query and a
// symbol without a name.
func (e *Engine) Hierarchy(ctx context.Context, symbol string, limit int) (*Hierarchy, error) {
	name, _ := splitSymbol(symbol)
	if name == "" {
		return nil, fmt.Errorf("symbol %q has no identifier in it", symbol)
	}
	if limit <= 0 {
		limit = 50
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	out := &Hierarchy{Symbol: symbol, Supertypes: []TypeLink{}, Subtypes: []TypeLink{}, Method: HierarchyMethod}
	own, err := v.db.ChunksByName(ctx, []string{name}, 50)
	if err != nil {
		return nil, err
	}
	for _, r := range own {
		if r.Name != name || !typeKinds[r.Kind] || r.Part > 1 {
			continue
		}
		for _, b := range bases(r.Language, r.Kind, r.Summary, e.chunkCode(r)) {
			if b.Relation == "impl" {
				continue
			}
			b.Type, b.Path, b.Line, b.Language = name, r.Path, r.StartLine, r.Language
			out.Supertypes = append(out.Supertypes, b)
		}
	}
	cands, err := v.db.TypesMentioning(ctx, name, 2000)
	if err != nil {
		return nil, err
	}
	for _, r := range cands {
		for _, b := range bases(r.Language, r.Kind, r.Summary, e.chunkCode(r)) {
			switch {
			case b.Relation == "impl" && b.Base == name:
				b.Path, b.Line, b.Language = r.Path, r.StartLine, r.Language
				out.Subtypes = append(out.Subtypes, b)
			case b.Relation == "impl" && b.Type == name:
				b.Path, b.Line, b.Language = r.Path, r.StartLine, r.Language
				out.Supertypes = append(out.Supertypes, b)
			case b.Base == name && r.Name != name:
				b.Type, b.Path, b.Line, b.Language = r.Name, r.Path, r.StartLine, r.Language
				out.Subtypes = append(out.Subtypes, b)
			}
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

// chunkCode reads a Go type chunk's code (the only language whose
// relations live in the body); others need only the header.
func (e *Engine) chunkCode(r store.ChunkRow) string {
	if r.Language != "go" {
		return ""
	}
	return e.readRange(r.Path, r.StartByte, r.EndByte, r.StartLine, r.EndLine, e.changed(r.Path, r.FileSize, r.FileTime))
}

// Callee is a function a definition calls.
type Callee struct {
	Name string `json:"name"`
	Line int    `json:"line"` // 1-based line of the first call in the caller
	Text string `json:"text"` // that line, trimmed
	// Definition is the callee's definition in the repository (path and
	// first line of its chunk) linked through the import graph as
	// references are (see [Reference]); "" for calls of names the
	// repository does not define (the standard library, dependencies).
	Definition string  `json:"definition,omitempty"`
	Confidence float64 `json:"confidence"`
}

// Callees returns the calls made inside the best definition of symbol
// (chosen as [Engine.Definitions] ranks them, near hintPath), each
// distinct name once, in order of first call, at most limit. Errors:
// those of [Engine.Definitions], and a symbol with no definition.
func (e *Engine) Callees(ctx context.Context, symbol, hintPath string, limit int) (*Definition, []Callee, error) {
	defs, err := e.Definitions(ctx, symbol, hintPath, 1, true)
	if err != nil {
		return nil, nil, err
	}
	if len(defs) == 0 {
		return nil, nil, fmt.Errorf("no definition of %q in the index of %s", symbol, e.root)
	}
	def := defs[0]
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	own, _ := splitSymbol(def.Symbol)
	type call struct {
		name, qual, text string
		line             int
	}
	var calls []call
	seen := map[string]bool{}
	for i, l := range strings.Split(def.Code, "\n") {
		if isComment([]byte(l)) {
			continue
		}
		for _, m := range callIdent.FindAllStringSubmatch(l, -1) {
			name := m[2]
			if seen[name] || callKeywords[name] || name == own || i == 0 && strings.Contains(l, own) {
				continue
			}
			seen[name] = true
			calls = append(calls, call{name: name, qual: m[1], text: clip(strings.TrimSpace(l), 200), line: def.StartLine + i})
		}
	}
	if limit > 0 && len(calls) > limit {
		calls = calls[:limit]
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.name
	}
	rows, err := v.db.ChunksByName(ctx, names, 20*len(names)+20)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string][]store.ChunkRow{}
	for _, r := range rows {
		if definitionKinds[r.Kind] && r.Part <= 1 {
			byName[r.Name] = append(byName[r.Name], r)
		}
	}
	out := make([]Callee, 0, len(calls))
	// One linker for every call: its cache of def.Path's imports is
	// read once.
	l := newLinker(ctx, v.db, nil, nil)
	for _, c := range calls {
		cl := Callee{Name: c.name, Line: c.line, Text: c.text}
		if d := byName[c.name]; len(d) > 0 {
			before := ""
			if c.qual != "" {
				before = c.qual + "."
			}
			l.defs = d
			cl.Definition, cl.Confidence = l.link(def.Path, before)
		} else {
			cl.Confidence = 0.2
		}
		out = append(out, cl)
	}
	return &def, out, nil
}
