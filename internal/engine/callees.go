package engine

import (
	"context"
	"fmt"
	"go/build"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/store"
)

// Callee is a function a definition calls.
type Callee struct {
	Name string `json:"name"`
	Line int    `json:"line"` // 1-based line of the first such call in the caller
	Text string `json:"text"` // that line, trimmed
	// Kind is what is called: "function", "method", "interface method"
	// (through an interface: the target is the method in the interface),
	// "method value" (Go: a method named, not called) or "func value" (a
	// variable, parameter or field holding a function); "" when the
	// language's calls are read from the text (all but Go).
	Kind string `json:"kind,omitempty"`
	// Resolution is "resolved" (linked through scope: the caller's
	// package, file, class or imports, and for Go the types of receivers
	// and fields), "external" (a package or module outside the
	// repository), "dynamic" (a function value: no static target) or
	// "unresolved" (Reason says why; never linked to a same-named
	// definition elsewhere).
	Resolution string `json:"resolution"`
	Reason     string `json:"reason,omitempty"`
	// Target is the linked definition (its whole span); nil unless
	// Resolution is "resolved". Definition is the same as "path:line" of
	// its first line.
	Target     *Location `json:"target,omitempty"`
	Definition string    `json:"definition,omitempty"`
	// Candidate is set on an unresolved call whose name has one
	// definition outside tests ("path:line"): what it may call, not
	// linked because nothing in scope says so.
	Candidate string `json:"candidate,omitempty"`
	// Confidence in [0, 1] that Target is what runs: 1 for a direct call
	// resolved through scope, 0.9 for a call through an interface (the
	// interface's method; an implementation runs), 0 when not linked.
	Confidence float64 `json:"confidence"`
}

// Location is a span of a file that holds a definition.
type Location struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	StartLine int    `json:"start_line"` // 1-based, inclusive
	EndLine   int    `json:"end_line"`   // 1-based, inclusive
	Symbol    string `json:"symbol"`
	Kind      string `json:"kind"`
}

// CalleesMethod says how [Engine.Callees] links calls.
const CalleesMethod = "Go: go/ast over the caller's package and the packages it imports (receivers, fields, embedded fields, declared result types; no type checker); other languages: call names read from the text, linked only through the caller's file, class and imports"

// Callees returns the calls made inside the best definition of symbol
// (chosen as [Engine.Definitions] ranks them, near hintPath), each
// distinct callee once at its first call, in order, at most limit (0:
// all). Errors: those of [Engine.Definitions], and a symbol with no
// definition.
func (e *Engine) Callees(ctx context.Context, symbol, hintPath string, limit int) (*Definition, []Callee, error) {
	lk := graph.ParseLookup(symbol)
	if lk.Name == "" {
		return nil, nil, fmt.Errorf("symbol %q has no identifier in it", symbol)
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	cands, err := e.resolveDefinitions(ctx, v.db, lk, hintPath)
	if err != nil {
		return nil, nil, err
	}
	if len(cands) == 0 {
		return nil, nil, Errorf(ErrNotFound, "no definition of %q in the index of %s", symbol, e.root)
	}
	def := e.definition(cands[0], true)
	var out []Callee
	if def.Language == "go" && !def.Stale {
		out, err = e.goCallees(ctx, v.db, def)
		if err != nil {
			return nil, nil, err
		}
	}
	if out == nil {
		out, err = e.textCallees(ctx, v.db, def)
		if err != nil {
			return nil, nil, err
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return &def, out, nil
}

// goCallees resolves a Go definition's calls with graph.GoCalls; nil
// when the definition is not a function body the parser finds.
func (e *Engine) goCallees(ctx context.Context, db *store.DB, def Definition) ([]Callee, error) {
	g := e.goCalls(ctx, db)
	// The declaration line: past the doc comment the chunk starts with.
	lines := strings.Split(def.Code, "\n")
	line := def.StartLine
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "func") {
			line = def.StartLine + i
			break
		}
	}
	calls, ok := g.Calls(def.Path, line)
	if !ok {
		return nil, nil
	}
	spans := newSpanCache(ctx, db)
	out := []Callee{}
	seen := map[string]bool{}
	for _, c := range calls {
		key := c.Name + "\x00" + c.DeclFile + "\x00" + fmt.Sprint(c.DeclLine)
		if c.DeclFile == "" {
			key += "\x00" + c.Text
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		cl := Callee{Name: c.Name, Line: c.Line, Kind: c.Kind, Reason: c.Reason}
		if i := c.Line - def.StartLine; 0 <= i && i < len(lines) {
			cl.Text = clip(strings.TrimSpace(lines[i]), 200)
		}
		switch {
		case c.DeclFile != "":
			loc, ok := spans.at(c.DeclFile, c.DeclLine)
			if !ok {
				cl.Resolution, cl.Reason = "unresolved", fmt.Sprintf("declared at %s:%d, which the index does not hold", c.DeclFile, c.DeclLine)
				break
			}
			cl.Resolution, cl.Target, cl.Definition, cl.Confidence = "resolved", loc, fmt.Sprintf("%s:%d", loc.Path, loc.StartLine), 1
			if c.Kind == "interface method" {
				cl.Confidence = 0.9
			}
		case c.External:
			cl.Resolution = "external"
		case c.Kind == "func value":
			cl.Resolution = "dynamic"
		default:
			cl.Resolution = "unresolved"
		}
		out = append(out, cl)
	}
	return out, nil
}

// goCalls returns a Go call resolver over the indexed files, reading
// each file's resolved imports from the index once.
func (e *Engine) goCalls(ctx context.Context, db *store.DB) *graph.GoCalls {
	imports := map[string]map[string]string{} // file → spec → target
	return graph.NewGoCalls(func(dir string, tests bool) []graph.GoFile {
		return e.goPackageFiles(ctx, db, dir, tests)
	}, func(file, spec string) string {
		m, ok := imports[file]
		if !ok {
			m = map[string]string{}
			rows, _ := db.ImportsOf(ctx, file)
			for _, r := range rows {
				m[r.Spec] = r.Target
			}
			imports[file] = m
		}
		return m[spec]
	})
}

// goPackageFiles loads the indexed Go files of a directory that the
// build for this machine compiles (go/build constraints), test files
// only with tests.
func (e *Engine) goPackageFiles(ctx context.Context, db *store.DB, dir string, tests bool) []graph.GoFile {
	rows, err := db.FilesIn(ctx, dir)
	if err != nil {
		return nil
	}
	abs := filepath.Join(e.root, filepath.FromSlash(dir))
	var out []graph.GoFile
	for _, r := range rows {
		if path.Dir(r.Path) != path.Clean(dir) || !strings.HasSuffix(r.Path, ".go") || !tests && strings.HasSuffix(r.Path, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(abs, path.Base(r.Path)); err == nil && !ok {
			continue
		}
		src, err := e.readIndexed(r.Path)
		if err != nil {
			continue
		}
		out = append(out, graph.GoFile{Path: r.Path, Src: src})
	}
	return out
}

// at returns the definition holding a declaration's line: the innermost
// chunk of file holding it, widened to the whole definition.
func (s *spanCache) at(file string, line int) (*Location, bool) {
	rows, ok := s.files[file]
	if !ok {
		rows, _ = s.db.FileChunks(s.ctx, file)
		s.files[file] = rows
	}
	r, found := innermost(rows, line)
	if !found {
		return nil, false
	}
	r, _ = s.whole(r)
	return &Location{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Symbol: r.Symbol, Kind: r.Kind}, true
}

// textCallees reads the calls of a definition in a language without a
// resolver from its text (call names followed by "("), and links each
// only through scope (see [linker.scoped]); every other call is listed
// unresolved.
func (e *Engine) textCallees(ctx context.Context, db *store.DB, def Definition) ([]Callee, error) {
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
		for _, m := range callIdent().FindAllStringSubmatch(l, -1) {
			name := m[2]
			key := m[1] + "." + name
			if seen[key] || callKeywords[name] || name == own && m[1] == "" || i == 0 && strings.Contains(l, own) {
				continue
			}
			seen[key] = true
			calls = append(calls, call{name: name, qual: m[1], text: clip(strings.TrimSpace(l), 200), line: def.StartLine + i})
		}
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.name
	}
	rows, err := db.ChunksByName(ctx, names, maxNameRows)
	if err != nil {
		return nil, err
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
	l := newLinker(ctx, db, nil)
	l.caller = def
	spans := newSpanCache(ctx, db)
	for _, c := range calls {
		cl := Callee{Name: c.name, Line: c.line, Text: c.text}
		d := byName[c.name]
		if len(d) == 0 {
			cl.Resolution, cl.Reason = "external", "no definition of "+c.name+" in the repository"
			out = append(out, cl)
			continue
		}
		l.defs = d
		r, conf, why := l.scoped(def.Path, c.qual)
		if why != "" {
			cl.Resolution, cl.Reason = "unresolved", why
			if strings.HasPrefix(why, "imported from ") {
				cl.Resolution = "external"
			} else if only, ok := l.only(); ok {
				cl.Candidate = fmt.Sprintf("%s:%d", only.Path, only.StartLine)
			}
			out = append(out, cl)
			continue
		}
		loc, _ := spans.at(r.Path, r.StartLine)
		if loc == nil {
			loc = &Location{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Symbol: r.Symbol, Kind: r.Kind}
		}
		cl.Resolution, cl.Target, cl.Definition, cl.Confidence = "resolved", loc, fmt.Sprintf("%s:%d", loc.Path, loc.StartLine), conf
		out = append(out, cl)
	}
	return out, nil
}
