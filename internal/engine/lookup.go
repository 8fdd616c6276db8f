package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/store"
)

// LookupMethod says how a symbol answer was found.
const LookupMethod = "scope-resolved: qualifiers matched against each definition's package, path and enclosing types; Go calls resolved through receivers, fields and imports with go/ast (no type checker); references are whole-word text matches"

// Definition is one place a symbol is defined.
type Definition struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	StartLine int    `json:"start_line"` // 1-based, inclusive
	EndLine   int    `json:"end_line"`   // 1-based, inclusive
	Language  string `json:"language"`
	Kind      string `json:"kind"`
	Symbol    string `json:"symbol"`
	Summary   string `json:"summary"`
	// Confidence in [0, 1]: 1 only when the lookup names this definition
	// and no other (see Resolution); lower for one of several candidates.
	Confidence float64 `json:"confidence"`
	// Resolution says how the lookup reached this definition: "exact" (the
	// qualifiers are its package, path or enclosing types and it is the
	// only such definition outside tests), "unique" (an unqualified name
	// defined once), "overload" (one of the overloads of one type),
	// "ambiguous" (one of several definitions the lookup fits equally),
	// "in-test" (fits, but in a test file while others outside tests do),
	// "declaration" (a C or C++ prototype of a definition listed before
	// it),
	// "loose" (the qualifiers appear in its scope, not as its innermost
	// names: a guess), "name-only" (no qualifier fits; the bare name
	// does: a guess), "case-insensitive" (a guess).
	Resolution string `json:"resolution"`
	// Parts is how many indexed chunks the definition spans when it was
	// split (a long function, a class around its members); 0 when one.
	Parts int    `json:"parts,omitempty"`
	Code  string `json:"code,omitempty"`
	Stale bool   `json:"stale,omitempty"`
}

// definitionKinds are chunk kinds that define a name (blocks, sections
// and windows only contain code).
var definitionKinds = map[string]bool{
	"function": true, "method": true, "class": true, "struct": true, "interface": true, "trait": true,
	"enum": true, "type": true, "impl": true, "module": true, "const": true, "var": true, "macro": true,
}

// splitSymbol returns a symbol's bare name and its qualifier parts
// (see graph.ParseLookup): "(*http.Server).Shutdown" → "Shutdown",
// ["http", "Server"]; "pkg::mod::f" → "f", ["pkg", "mod"]; an operator
// keeps its operator: "Vec2.operator+" → "operator+", ["Vec2"] (C#
// writes "operator +"; [nameVariants] gives both).
func splitSymbol(symbol string) (string, []string) {
	l := graph.ParseLookup(symbol)
	return l.Name, l.Quals
}

// nameVariants returns the spellings a bare name may be stored under:
// itself, and for an operator also with a space after "operator".
func nameVariants(name string) []string {
	if op, ok := strings.CutPrefix(name, "operator"); ok && op != "" && !strings.HasPrefix(op, " ") {
		return []string{name, "operator " + op}
	}
	return []string{name}
}

// Definitions returns up to max places where symbol is defined, best
// first (see [Engine.resolveDefinitions] for the order and what
// Confidence and Resolution say). A definition the index holds as
// several chunks is one answer spanning all of them. Errors: those of a
// query ([ErrNotIndexed], [ErrStale], store failures) and a symbol with
// no identifier in it.
func (e *Engine) Definitions(ctx context.Context, symbol, hintPath string, max int, withCode bool) ([]Definition, error) {
	lk := graph.ParseLookup(symbol)
	if lk.Name == "" {
		return nil, fmt.Errorf("symbol %q has no identifier in it", symbol)
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	cands, err := e.resolveDefinitions(ctx, v.db, lk, hintPath)
	if err != nil {
		return nil, err
	}
	defs := make([]Definition, 0, min(max, len(cands)))
	for _, c := range cands[:min(max, len(cands))] {
		defs = append(defs, e.definition(c, withCode))
	}
	return defs, nil
}

// pathNearness scores how close p is to hint: 3 for the same file, 2 for
// the same directory, 1 for a shared leading directory or a hint that is
// a substring of p, else 0 (also for an empty hint).
func pathNearness(hint, p string) int {
	hint = strings.Trim(filepath.ToSlash(hint), "/")
	switch {
	case hint == "":
		return 0
	case hint == p:
		return 3
	case path.Dir(hint) == path.Dir(p) || hint == path.Dir(p):
		return 2
	case strings.Contains(p, hint):
		return 1
	}
	h, _, _ := strings.Cut(hint, "/")
	q, _, _ := strings.Cut(p, "/")
	if h == q && strings.Contains(hint, "/") {
		return 1
	}
	return 0
}

// Reference is one line that mentions a symbol by its whole name.
type Reference struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	Line      int    `json:"line"`   // 1-based
	Column    int    `json:"column"` // 1-based, in bytes
	Text      string `json:"text"`   // the line, trimmed, at most 200 bytes
	Language  string `json:"language"`
	// Enclosing is the symbol of the chunk the line is in ("" at top level).
	Enclosing string `json:"enclosing,omitempty"`
	// Kind is "call" when a mention on the line is followed by "(" and
	// the line does not declare it (a prototype, an abstract method, an
	// overload signature) and is not a comment, "import" when the line is an
	// import/include/use statement, "definition" on the line that
	// defines it, else "reference".
	Kind string `json:"kind"`
	// Definition is the definition the mention is linked to, as the
	// path and first line of its chunk (which starts at its doc comment);
	// Confidence in [0, 1] is how likely that link is: 1 for a Go call
	// resolved with go/ast when the lookup named one definition among
	// several (0.9 through an interface method), 0.9 and
	// above through scope (the file, package, class or imports), 0.5 for a
	// guess (the name's only definition, reached through a receiver whose
	// type is unknown), 0 when not linked (see [linker]).
	Definition string  `json:"definition,omitempty"`
	Confidence float64 `json:"confidence"`
}

// linker links a mention of a name to one of its definitions through
// scope (see [linker.scoped]); a mention it cannot place that way is
// linked, with confidence 0.5, only to the name's one definition outside
// tests (a method called on a receiver whose type is unknown), else left
// unlinked.
type linker struct {
	caller  Definition // for [linker.scoped]: the calling definition
	ctx     context.Context
	db      *store.DB
	defs    []store.ChunkRow
	imports map[string][]store.ImportRow // by importing file, cached
	// others: definitions of the name outside tests that are not in defs
	// (a qualified lookup chose among them); the 0.5 guess needs none.
	others int
}

func newLinker(ctx context.Context, db *store.DB, defs []store.ChunkRow) *linker {
	return &linker{ctx: ctx, db: db, defs: defs, imports: map[string][]store.ImportRow{}}
}

// link returns the definition a mention in file from most likely means,
// as "path:line", and the confidence; before is the line's text up to
// the mention, enclosing the symbol of the chunk holding it. The link is
// made only through scope ([linker.scoped]); "" and 0 when the mention
// cannot be linked that way.
func (l *linker) link(from, enclosing, lang, before string) (string, float64) {
	if len(l.defs) == 0 {
		return "", 0
	}
	qualifier := ""
	if t := strings.TrimRight(before, " \t"); strings.HasSuffix(t, ".") || strings.HasSuffix(t, "::") || strings.HasSuffix(t, "->") {
		t = strings.TrimRight(t, ".:->")
		i := strings.LastIndexFunc(t, func(r rune) bool { return !isIdent(r) })
		qualifier = t[i+1:]
	}
	l.caller = Definition{Symbol: enclosing, Language: lang}
	d, conf, why := l.scoped(from, qualifier)
	if why != "" {
		if strings.HasPrefix(why, "imported from ") {
			return "", 0
		}
		// A labelled guess: the only definition of the name outside
		// tests, reached through a receiver whose type is unknown.
		if only, ok := l.only(); ok {
			return fmt.Sprintf("%s:%d", only.Path, only.StartLine), 0.5
		}
		return "", 0
	}
	return fmt.Sprintf("%s:%d", d.Path, d.StartLine), conf
}

// only returns the one definition of l.defs outside test files, if one.
func (l *linker) only() (store.ChunkRow, bool) {
	var one store.ChunkRow
	n := l.others
	for _, d := range l.defs {
		if !discover.IsTestPath(d.Path) {
			one, n = d, n+1
		}
	}
	return one, n == 1
}

// selfWords are the receivers that mean the caller's own class.
var selfWords = map[string]bool{"self": true, "this": true, "cls": true, "Self": true, "static": true}

// scoped links a call of one of l.defs made in file from with qualifier
// qual ("" for a bare call; "self", "this", an import name or a variable
// otherwise) only through scope: the caller's own class for self/this
// calls, an import the qualifier names (external when it leaves the
// repository), the caller's file, a file it imports, and for C and C++
// (one global namespace) the only definition of the name outside tests.
// why says why a call is not linked ("" when it is).
func (l *linker) scoped(from, qual string) (def store.ChunkRow, conf float64, why string) {
	ims, ok := l.imports[from]
	if !ok {
		ims, _ = l.db.ImportsOf(l.ctx, from)
		l.imports[from] = ims
	}
	container := ""
	if q := graph.ParseLookup(l.caller.Symbol).Quals; len(q) > 0 {
		container = q[len(q)-1]
	}
	switch {
	case selfWords[qual]:
		for _, d := range l.defs {
			if d.Path == from && container != "" && definitionOwner(d) == container {
				return d, 1, ""
			}
		}
		return def, 0, "not a method of " + container + " in this file (inherited or dynamic)"
	case qual != "":
		for _, im := range ims {
			if !importNames(im.Spec, qual) {
				continue
			}
			if im.Target == "" {
				return def, 0, "imported from " + im.Spec + ", outside the repository"
			}
			for _, d := range l.defs {
				if d.Path == im.Target || path.Dir(d.Path) == im.Target || strings.TrimSuffix(d.Path, "/__init__.py") == strings.TrimSuffix(im.Target, "/__init__.py") {
					return d, 0.95, ""
				}
			}
			return def, 0, "not defined in " + im.Target
		}
		// A class name as qualifier: Class.method, Class::method.
		var hit []store.ChunkRow
		for _, d := range l.defs {
			if definitionOwner(d) == qual {
				hit = append(hit, d)
			}
		}
		if len(hit) == 1 {
			return hit[0], 0.9, ""
		}
		return def, 0, "the type of " + qual + " is not known without a type checker"
	}
	// A bare call: the caller's class (in languages where a bare name
	// reaches the receiver's methods), then its file, then its imports.
	for _, d := range l.defs {
		if implicitReceiver[l.caller.Language] && d.Path == from && container != "" && definitionOwner(d) == container {
			return d, 0.95, ""
		}
	}
	for _, d := range l.defs {
		if d.Path == from && definitionOwner(d) == "" {
			return d, 0.95, ""
		}
	}
	for _, d := range l.defs {
		if definitionOwner(d) == "" && path.Dir(d.Path) == path.Dir(from) && path.Ext(d.Path) == ".go" && path.Ext(from) == ".go" {
			return d, 0.9, "" // the same Go package
		}
	}
	for _, im := range ims {
		if im.Target == "" {
			continue
		}
		for _, d := range l.defs {
			if definitionOwner(d) == "" && (d.Path == im.Target || path.Dir(d.Path) == im.Target || strings.TrimSuffix(d.Path, "/__init__.py") == strings.TrimSuffix(im.Target, "/__init__.py")) {
				return d, 0.9, ""
			}
		}
	}
	if lang := l.caller.Language; lang == "c" || lang == "cpp" {
		var only []store.ChunkRow
		for _, d := range l.defs {
			if definitionOwner(d) == "" && !discover.IsTestPath(d.Path) {
				only = append(only, d)
			}
		}
		if len(only) == 1 {
			return only[0], 0.8, ""
		}
	}
	return def, 0, fmt.Sprintf("%d definitions of this name, none in the caller's file, class or imports", len(l.defs))
}

// implicitReceiver are the languages where a bare call inside a method
// may call another method of the same object (Java's foo() for
// this.foo()); in Python, JavaScript, Go, Rust and PHP it never does.
var implicitReceiver = map[string]bool{"java": true, "kotlin": true, "csharp": true, "cpp": true, "scala": true, "ruby": true, "swift": true, "dart": true}

// definitionOwner returns the type or object a definition belongs to:
// its breadcrumb's innermost name, else its symbol's last qualifier
// ("res" for JavaScript's res.send, "View" for View.prototype.render);
// "" for a top-level definition.
func definitionOwner(d store.ChunkRow) string {
	if d.Breadcrumb != "" {
		parts := strings.Split(d.Breadcrumb, " > ")
		return parts[len(parts)-1]
	}
	q := graph.ParseLookup(d.Symbol).Quals
	if n := len(q); n > 1 && q[n-1] == "prototype" {
		q = q[:n-1]
	}
	if len(q) == 0 {
		return ""
	}
	return q[len(q)-1]
}

// importNames reports whether an import spec's last element is name:
// "net/http" and "a.b.http" name http, as does "crate::http".
func importNames(spec, name string) bool {
	return spec == name || strings.HasSuffix(spec, "/"+name) || strings.HasSuffix(spec, "."+name) || strings.HasSuffix(spec, "::"+name)
}

// ReferenceQuery selects what [Engine.References] returns.
type ReferenceQuery struct {
	Symbol string
	// ExcludeDefinition leaves out the lines that define the symbol.
	ExcludeDefinition bool
	// Kinds keeps only these reference kinds ("call", "import",
	// "reference", "definition"); empty keeps all.
	Kinds []string
	// Max is the most references returned (default 50).
	Max int
	// Scope keeps only references in files under this slash directory
	// relative to the root ("" keeps all).
	Scope string
	// MinConfidence drops references linked with less confidence.
	MinConfidence float64
	// Hint, a file or directory, picks among same-named definitions as
	// in [Engine.Definitions].
	Hint string
	// shared, when set, resolves Go calls through a parse cache that
	// other References calls of the same explanation share.
	shared *sharedGoCalls
}

// References returns whole-word, case-sensitive mentions of a symbol's
// bare name, found through the full-text index and confirmed in the
// current file text, ordered by path and line. A qualified symbol or a
// hint narrows the definitions it means (see referenceTargets): other
// same-named definitions are then left out, and so is a Go call that
// go/ast resolves to another declaration or outside the repository; for
// Go definitions, so are mentions outside Go files and, for an
// unexported name, outside its package's directory.
// Errors: those of a query and an empty symbol.
func (e *Engine) References(ctx context.Context, q ReferenceQuery) ([]Reference, error) {
	name, _ := splitSymbol(q.Symbol)
	if name == "" {
		return nil, fmt.Errorf("symbol %q has no identifier in it", q.Symbol)
	}
	if q.Max <= 0 {
		q.Max = 50
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	defs, err := definitionRows(ctx, v.db, name)
	if err != nil {
		return nil, err
	}
	// The definitions the lookup means: qualifiers and the hint choose
	// among same-named ones as for Definitions ("(*Server).Serve").
	targets, narrowed := e.referenceTargets(ctx, v.db, defs, graph.ParseLookup(q.Symbol), q.Hint)
	var defRows []store.ChunkRow
	targetChunk := map[int64]bool{}
	for _, c := range targets {
		defRows = append(defRows, c.row)
		targetChunk[c.row.ID] = true
	}
	link := newLinker(ctx, v.db, defRows)
	// A defining chunk's first non-comment line naming the symbol is its
	// definition (the chunk may start at its doc comment).
	defChunks := map[int64]bool{}
	for _, d := range defs {
		if d.StartByte >= 0 && d.Name == name && definitionKinds[d.Kind] {
			defChunks[d.ID] = true
			if d.Part <= 1 && !targetChunk[d.ID] && !discover.IsTestPath(d.Path) {
				link.others++ // a later part is the same definition
			}
		}
	}
	// Resolving Go calls parses every package a mention is in (0.4 s
	// for (*Server).Shutdown on the Go tree, against 0.03 s by text):
	// done when the lookup named one definition among several, where it
	// tells their uses apart.
	goLink := e.newGoRefLinker(ctx, v.db, defRows, narrowed, q.shared)
	// When the lookup named Go definitions only, a mention outside Go
	// files is not a use, nor is a mention of an unexported name outside
	// its package's directory.
	goOnly, unexported := narrowed && len(defRows) > 0, false
	goDirs := map[string]bool{}
	for _, d := range defRows {
		goOnly = goOnly && d.Language == "go"
		goDirs[path.Dir(d.Path)] = true
	}
	if r, _ := utf8.DecodeRuneInString(name); goOnly && !unicode.IsUpper(r) {
		unexported = true
	}
	hits, err := v.db.SearchBM25(ctx, store.BM25Query{Terms: []string{strings.ToLower(name)}, Weights: store.BM25Weights{1, 0, 0, 1}, Limit: 2000})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	rows, err := v.db.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b store.ChunkRow) int {
		if c := cmp.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return cmp.Compare(a.StartLine, b.StartLine)
	})
	var out []Reference
	var lines [][]byte // of the file srcPath, split once per file
	var srcPath string
	seen := map[string]bool{}
	for _, r := range rows {
		if len(out) >= q.Max {
			break
		}
		if q.Scope != "" && !strings.HasPrefix(r.Path, q.Scope+"/") {
			continue
		}
		if goOnly && r.Language != "go" || unexported && !goDirs[path.Dir(r.Path)] {
			continue
		}
		if r.Path != srcPath {
			srcPath, lines = r.Path, nil
			if src, err := e.readIndexed(r.Path); err == nil {
				e.maskFile(r.Path, src) // redact.go
				lines = bytes.SplitAfter(src, []byte("\n"))
			}
		}
		if lines == nil {
			continue
		}
		defPending := defChunks[r.ID]
		otherDef := narrowed && defPending && !targetChunk[r.ID]
		for ln := r.StartLine; ln <= r.EndLine && ln <= len(lines) && len(out) < q.Max; ln++ {
			line := lines[ln-1]
			col := wordIndex(line, name)
			if col < 0 {
				continue
			}
			key := fmt.Sprintf("%s:%d", r.Path, ln)
			if seen[key] {
				continue
			}
			seen[key] = true
			kind := refKind(line, col, col+len(name), r.Language)
			if kind == "call" && isComment(line) {
				kind = "reference" // "* res.send(...)" in a doc comment
			}
			if kind == "reference" && !isComment(line) {
				// A later mention may be the call: label: label(cart).
				for off := col + len(name); ; {
					j := wordIndex(line[off:], name)
					if j < 0 {
						break
					}
					if refKind(line, off+j, off+j+len(name), r.Language) == "call" {
						col, kind = off+j, "call"
						break
					}
					off += j + len(name)
				}
			}
			if defPending && !isComment(line) {
				kind, defPending = "definition", false
				if otherDef {
					continue // another definition of the name
				}
			}
			if kind == "definition" && q.ExcludeDefinition {
				continue
			}
			// A Go call resolved with go/ast: to one of the targets it
			// is linked for sure; to another declaration, or outside the
			// repository, it is not a reference to the symbol.
			goDef, goConf, goKnown := "", 0.0, false
			if kind == "call" || kind == "reference" {
				goDef, goConf, goKnown = goLink.link(r.Path, ln, name)
				if goKnown && goDef == "" {
					continue
				}
			}
			if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, kind) {
				continue
			}
			enclosing := r.Symbol
			if kind == "definition" {
				enclosing = ""
			}
			out = append(out, Reference{Path: r.Path, PathBytes: PathBytes(r.Path), Line: ln, Column: col + 1, Text: clip(strings.TrimSpace(string(line)), 200),
				Language: r.Language, Enclosing: enclosing, Kind: kind})
			ref := &out[len(out)-1]
			ref.Definition, ref.Confidence = link.link(r.Path, r.Symbol, r.Language, string(line[max(0, col-64):col]))
			if goKnown {
				ref.Definition, ref.Confidence = goDef, goConf
			}
			if kind == "definition" {
				ref.Definition, ref.Confidence = fmt.Sprintf("%s:%d", r.Path, ln), 1
			}
			if ref.Confidence < q.MinConfidence {
				out = out[:len(out)-1]
			}
		}
	}
	return out, nil
}

// wordIndex returns the byte offset of the first whole-word occurrence of
// name in line, or -1.
func wordIndex(line []byte, name string) int {
	off := 0
	for {
		i := bytes.Index(line[off:], []byte(name))
		if i < 0 {
			return -1
		}
		i += off
		before, _ := utf8.DecodeLastRune(line[:i])
		after, _ := utf8.DecodeRune(line[i+len(name):])
		if i == 0 || !isIdent(before) {
			if i+len(name) == len(line) || !isIdent(after) {
				return i
			}
		}
		off = i + 1
	}
}

func isIdent(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isComment reports whether a line starts with a comment marker of a
// common language.
func isComment(line []byte) bool {
	t := bytes.TrimSpace(line)
	for _, p := range []string{"//", "#", "/*", "*", "--", ";", `"""`, "'''"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

// goImportSpec matches a line of a Go import block: an optional name and
// a quoted path.
// It is compiled on first use: its Unicode classes cost about 0.3 ms,
// which every process would pay at start.
var goImportSpec = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([\pL_][\pL\pN_]*\s+|[_.]\s+)?"[^"]+"\s*(//.*)?$`)
})

// refKind classifies the mention line[start:end]: an import statement,
// a call (the name is followed by "(" or a generic argument list and
// "(", and is not declared there), else a reference.
func refKind(line []byte, start, end int, lang string) string {
	t := strings.TrimSpace(string(line))
	for _, p := range []string{"import ", "from ", "#include", "use ", "require(", "using "} {
		if strings.HasPrefix(t, p) {
			return "import"
		}
	}
	if strings.Contains(t, "require(") && (lang == "javascript" || lang == "typescript") {
		return "import"
	}
	if lang == "go" && goImportSpec().MatchString(t) {
		return "import"
	}
	rest := bytes.TrimLeft(line[end:], " \t")
	if len(rest) > 0 && rest[0] == '[' {
		// Go or TS type arguments: f[T](x).
		if j := bytes.IndexByte(rest, ']'); j > 0 {
			rest = rest[j+1:]
		}
	}
	if len(rest) > 0 && rest[0] == '(' && !declares(t, strings.TrimSpace(string(line[:start])), lang) {
		return "call"
	}
	return "reference"
}

// declPrefix matches what may stand before a declared name in the C
// family: types, qualifiers and modifiers ("static inline int",
// "std::vector<T>&", "const char *"), ending in a name, "*", "&", ">"
// or "]" (not "." or "::", which qualify a call).
// Compiled on first use, as goImportSpec.
var declPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\pL_][\pL\pN_\s*&<>,:\[\]]*[\pL\pN_*&>\]]$`)
})

// stmtWords start statements or expressions, not declarations.
var stmtWords = map[string]bool{"return": true, "else": true, "do": true, "case": true, "default": true, "goto": true,
	"throw": true, "new": true, "delete": true, "await": true, "yield": true, "co_return": true, "co_await": true,
	"co_yield": true, "sizeof": true, "typeof": true, "not": true, "and": true, "or": true, "in": true, "is": true, "as": true}

// declares reports whether a name followed by "(" on the trimmed line t,
// after prefix, is declared rather than called: after a function
// keyword (a TypeScript overload signature, a nested def), or in the C
// family a prototype or abstract method, Type name(...);.
func declares(t, prefix, lang string) bool {
	i := strings.LastIndexFunc(prefix, func(r rune) bool { return !isIdent(r) && r != '*' })
	switch prefix[i+1:] {
	case "function", "function*", "def", "fn", "func":
		return true
	}
	switch lang {
	case "c", "cpp", "java", "csharp":
	default:
		return false
	}
	if !strings.HasSuffix(t, ";") || !declPrefix().MatchString(prefix) {
		return false
	}
	first := strings.FieldsFunc(prefix, func(r rune) bool { return !isIdent(r) })
	return len(first) > 0 && !stmtWords[first[0]]
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// FileEntry is one indexed file.
type FileEntry struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	Language  string `json:"language"`
	Lines     int    `json:"lines"`
	Bytes     int64  `json:"bytes"`
}

// Files returns indexed files matching glob (a doublestar pattern relative
// to the root; "" matches all) and one of langs (empty: any), sorted by
// path, at most max (0: all), and how many matched in all. Errors: a bad
// glob, and those of a query.
func (e *Engine) Files(ctx context.Context, glob string, langs []string, max int) ([]FileEntry, int, error) {
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return nil, 0, Errorf(ErrInvalidArgument, "bad glob %q", glob)
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	files, err := v.db.ListFiles(ctx)
	if err != nil {
		return nil, 0, err
	}
	var out []FileEntry
	total := 0
	for _, f := range files {
		if glob != "" && !MatchGlob(glob, f.Path) {
			continue
		}
		if len(langs) > 0 && !slices.Contains(langs, f.Language) {
			continue
		}
		total++
		if max <= 0 || len(out) < max {
			out = append(out, FileEntry{Path: f.Path, PathBytes: PathBytes(f.Path), Language: f.Language, Lines: f.Lines, Bytes: f.Size})
		}
	}
	return out, total, nil
}

// MatchGlob matches a doublestar glob against a slash path relative to the
// root; a glob without a
// slash also matches the base name anywhere ("*.go" finds every Go file).
func MatchGlob(glob, p string) bool {
	if ok, _ := doublestar.Match(glob, p); ok {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, path.Base(p))
		return ok
	}
	return false
}

// readRange returns the text of a stored byte range, or its line range
// from the current file when the file changed since indexing.
func (e *Engine) readRange(rel string, startByte, endByte, startLine, endLine int, stale bool) string {
	if !stale && 0 <= startByte && startByte < endByte {
		// The file is as indexed: read just the range.
		if f, err := e.openIndexed(rel); err == nil {
			buf := make([]byte, endByte-startByte)
			n, err := f.ReadAt(buf, int64(startByte))
			if n == len(buf) || err == nil {
				e.maskSpan(f, rel, startByte, buf[:n]) // redact.go
				f.Close()
				return string(buf[:n])
			}
			f.Close()
		}
	}
	src, err := e.readIndexed(rel)
	if err != nil {
		return ""
	}
	lo, hi, ok := lineBytes(src, startLine, endLine)
	if !ok {
		return ""
	}
	// Mask what the lines show, from a window of the file around them,
	// as the byte-range path does.
	e.maskSpan(bytes.NewReader(src), rel, lo, src[lo:hi]) // redact.go
	return string(src[lo:hi])
}

// lineBytes returns the byte range [lo, hi) of lines startLine to
// endLine (1-based, inclusive; endLine past the last line means to the
// end) of src, each with its line break; ok is false when startLine is
// before the first line or past the line after the last line break.
func lineBytes(src []byte, startLine, endLine int) (lo, hi int, ok bool) {
	if startLine < 1 {
		return 0, 0, false
	}
	// The offset where line n starts, or -1 past the last line.
	start := func(from, at, n int) int {
		for ; n > at; at++ {
			i := bytes.IndexByte(src[from:], '\n')
			if i < 0 {
				return -1
			}
			from += i + 1
		}
		return from
	}
	if lo = start(0, 1, startLine); lo < 0 {
		return 0, 0, false
	}
	if endLine < startLine {
		return lo, lo, true
	}
	if hi = start(lo, startLine, endLine+1); hi < 0 {
		hi = len(src)
	}
	return lo, hi, true
}

// openIndexed opens an indexed file by its root-relative slash path for
// reading code back, refusing (ErrOutsideRoot) a path that now leaves the
// repository: a file link retargeted outside it since it was indexed, or
// a directory on the way replaced by such a link.
func (e *Engine) openIndexed(rel string) (*os.File, error) {
	if err := discover.ConfineIndexed(e.root, rel); err != nil {
		e.log.Warn("not reading a file that now leaves the repository", "path", rel, "err", err)
		return nil, err
	}
	return os.Open(filepath.Join(e.root, filepath.FromSlash(rel)))
}

// readIndexed is [Engine.openIndexed] reading the whole file.
func (e *Engine) readIndexed(rel string) ([]byte, error) {
	f, err := e.openIndexed(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the file's size, as os.ReadFile does, rather
	// than grow one from 512 bytes (io.ReadAll): one allocation of fresh
	// memory instead of a dozen for a 50 KB file.
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && int64(int(fi.Size())) == fi.Size() {
		size = int(fi.Size())
	}
	buf := make([]byte, 0, size+1) // +1: the read that sees EOF
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew: make room
		}
	}
}

// Code returns a hit's text, as [FindRequest.Full] would have attached
// it: the indexed byte range when the file is unchanged, else the same
// lines of the current file; "" when the file cannot be read.
func (e *Engine) Code(h Hit) string {
	return e.readRange(h.Path, h.StartByte, h.EndByte, h.StartLine, h.EndLine, h.Stale)
}

// CodeSpan returns the text of a span of a file: bytes [startByte,
// endByte) of the indexed file when stale is false, else lines startLine
// to endLine (1-based, inclusive) of the current file; "" when the file
// cannot be read.
func (e *Engine) CodeSpan(path string, startByte, endByte, startLine, endLine int, stale bool) string {
	return e.readRange(path, startByte, endByte, startLine, endLine, stale)
}

// acquireCurrent is [Engine.acquire] for lookups: it also fails with
// [ErrStale], or [ErrIndexing], [ErrPartialIndex] or [ErrInterrupted]
// (a first run not finished), when the index cannot answer, naming the
// command that fixes it.
func (e *Engine) acquireCurrent(ctx context.Context) (*view, func(), error) {
	v, release, err := e.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	// The identity takes the vector length from the index: lookups never
	// call the embedding provider.
	if err := e.storedDims(ctx, v.db); err != nil {
		release()
		return nil, nil, err
	}
	switch v.stored {
	case "":
		err := e.firstRunError(ctx, v)
		release()
		return nil, nil, err
	case e.Identity().Hash:
		return v, release, nil
	}
	release()
	return nil, nil, fmt.Errorf("%w: %s was indexed by another ctx build or embedding model; run `ctx index` to rebuild it", ErrStale, e.root)
}

// Dependency is one import statement: in a file's own imports, what it
// names; in its importers, who names it.
type Dependency struct {
	// Repo is the workspace member of the importing file, when it is
	// another member than the file asked about ([DepsAcross]).
	Repo string `json:"repo,omitempty"`
	Path string `json:"path"` // the importing file
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	Line      int    `json:"line"`   // 1-based
	Spec      string `json:"spec"`   // as written
	Target    string `json:"target"` // repository path it resolves to; "" outside the repository or unresolved
	// TargetBytes is to Target what PathBytes is to Path.
	TargetBytes string `json:"target_bytes,omitempty"`
	// Internal is set when the import should resolve inside the
	// repository; with no Target it is broken or unresolvable.
	Internal bool `json:"internal"`
	// TargetRepo is the workspace member Target is in, when the import
	// resolves into another member ([DepsAcross]).
	TargetRepo string `json:"target_repo,omitempty"`
}

// Deps is what a file imports and what imports it.
type Deps struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string       `json:"path_bytes,omitempty"`
	Imports   []Dependency `json:"imports"`
	Importers []Dependency `json:"importers"`
}

// indexedPath returns p, a file path a caller passed (relative to the
// root, or absolute), as the index names it: slash-separated and relative
// to the root. Errors: a path that leaves the root (through "..", or an
// absolute path elsewhere) wraps discover.ErrOutsideRoot.
func (e *Engine) indexedPath(p string) (string, error) {
	rel := strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./")
	if rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(p) {
		return rel, nil
	}
	r, err := discover.Confine(e.root, p)
	if err != nil {
		return "", fmt.Errorf("%w (%s)", err, e.root)
	}
	return r, nil
}

// Deps returns the import statements of the file at rel (a slash path
// relative to the root) and those of other files that resolve to it or,
// for Go, to its package directory. Errors: those of a query, and a path
// the index does not hold.
func (e *Engine) Deps(ctx context.Context, rel string) (*Deps, error) {
	rel, err := e.indexedPath(rel)
	if err != nil {
		return nil, err
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	own, err := v.db.ImportsOf(ctx, rel)
	if err != nil {
		return nil, err
	}
	dir := ""
	if strings.HasSuffix(rel, ".go") {
		if dir = path.Dir(rel); dir == "." {
			dir = "."
		}
	}
	in, err := v.db.ImportersOf(ctx, rel, dir)
	if err != nil {
		return nil, err
	}
	if len(own) == 0 && len(in) == 0 {
		files, err := v.db.ListFiles(ctx)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(files, func(f store.FileRow) bool { return f.Path == rel }) {
			return nil, Errorf(ErrNotFound, "%s is not in the index of %s (see `ctx status` for skipped files)", rel, e.root)
		}
	}
	d := &Deps{Path: rel, PathBytes: PathBytes(rel), Imports: []Dependency{}, Importers: []Dependency{}}
	for _, r := range own {
		d.Imports = append(d.Imports, dependency(r))
	}
	for _, r := range in {
		if r.Path == rel {
			continue
		}
		d.Importers = append(d.Importers, dependency(r))
	}
	return d, nil
}

// Importers returns the import statements that name a module, package or
// file (see store.DB.ImportsNaming): from the stored import graph, so
// exact where [Engine.References] with kind import is a text match.
// Scope keeps only importing files under that slash directory ("" all).
func (e *Engine) Importers(ctx context.Context, name, scope string, limit int) ([]Dependency, error) {
	name = strings.Trim(strings.TrimSpace(name), `"'`)
	if name == "" {
		return nil, fmt.Errorf("empty module name")
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := v.db.ImportsNaming(ctx, name, 5000)
	if err != nil {
		return nil, err
	}
	out := []Dependency{}
	for _, r := range rows {
		if scope != "" && !strings.HasPrefix(r.Path, scope+"/") {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, dependency(r))
	}
	return out, nil
}

// dependency is the answer's form of a stored import.
func dependency(r store.ImportRow) Dependency {
	return Dependency{Path: r.Path, PathBytes: PathBytes(r.Path), Line: r.Line, Spec: r.Spec, Target: r.Target, TargetBytes: PathBytes(r.Target), Internal: r.Internal}
}

// Symbol is one defined name.
type Symbol struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string `json:"path_bytes,omitempty"`
	StartLine int    `json:"start_line"` // 1-based, inclusive
	EndLine   int    `json:"end_line"`   // 1-based, inclusive
	Kind      string `json:"kind"`
	Symbol    string `json:"symbol"` // qualified
	Name      string `json:"name"`   // bare
}

// Symbols lists defined names by path and line, keeping the given kinds
// (empty: all) under the slash directory or file prefix ("" all), at most
// limit (0: all). Errors: those of a query.
func (e *Engine) Symbols(ctx context.Context, kinds []string, prefix string, limit int) ([]Symbol, error) {
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := v.db.Symbols(ctx, kinds, strings.Trim(filepath.ToSlash(prefix), "/"), limit)
	if err != nil {
		return nil, err
	}
	out := make([]Symbol, len(rows))
	for i, r := range rows {
		out[i] = Symbol{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Kind: r.Kind, Symbol: r.Symbol, Name: r.Name}
	}
	return out, nil
}

// maxWholeLines is the longest split definition [Engine.ChunkAt] returns
// whole; past it, the part holding the line, labelled.
const maxWholeLines = 400

// ChunkAt returns the chunk of the file at rel holding the 1-based line
// (the innermost one when chunks nest), with its code. When that chunk is
// one part of a definition the index split (a long function, a class
// around its members), it returns the whole definition if it has at most
// maxWholeLines lines, else the part, with Hit.Part, Hit.Parts and the
// definition's lines saying which part it is. Errors: those of a query, a
// file the index does not hold, a line outside every chunk.
func (e *Engine) ChunkAt(ctx context.Context, rel string, line int) (*Hit, error) {
	rel, err := e.indexedPath(rel)
	if err != nil {
		return nil, err
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := v.db.FileChunks(ctx, rel)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, Errorf(ErrNotFound, "%s has no chunks in the index of %s (see `ctx status` for skipped files)", rel, e.root)
	}
	best, ok := innermost(rows, line)
	if !ok {
		return nil, Errorf(ErrNotFound, "%s:%d is outside every chunk (the file has %d chunks, lines %d-%d)", rel, line, len(rows), rows[0].StartLine, rows[len(rows)-1].EndLine)
	}
	h := &Hit{Path: best.Path, PathBytes: PathBytes(best.Path), StartLine: best.StartLine, EndLine: best.EndLine, Language: best.Language, Kind: best.Kind,
		Symbol: best.Symbol, Summary: best.Summary, StartByte: best.StartByte, EndByte: best.EndByte}
	if best.Part > 0 {
		if first, last, n := wholeDefinition(rows, best); n > 1 {
			h.Parts, h.DefStartLine, h.DefEndLine = n, first.StartLine, last.EndLine
			if last.EndLine-first.StartLine+1 <= maxWholeLines {
				h.StartLine, h.EndLine, h.StartByte, h.EndByte = first.StartLine, last.EndLine, first.StartByte, last.EndByte
			} else {
				h.Part = best.Part
			}
		}
	}
	h.Stale = e.changed(best.Path, best.FileSize, best.FileTime)
	h.Code = e.Code(*h)
	return h, nil
}
