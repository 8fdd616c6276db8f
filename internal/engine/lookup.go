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
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/store"
)

// LookupMethod says how a symbol answer was found. Until the symbol graph
// is built, every lookup is a heuristic over chunk names and the full-text
// index, and answers say so.
const LookupMethod = "heuristic: defined names and whole-word text matches in the index; not a resolved symbol graph"

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
	// Confidence in [0, 1]: 1 for an exact, qualified, case-sensitive
	// match; lower for a bare-name or case-insensitive one.
	Confidence float64 `json:"confidence"`
	Code       string  `json:"code,omitempty"`
	Stale      bool    `json:"stale,omitempty"`
}

// definitionKinds are chunk kinds that define a name (blocks, sections
// and windows only contain code).
var definitionKinds = map[string]bool{
	"function": true, "method": true, "class": true, "struct": true, "interface": true, "trait": true,
	"enum": true, "type": true, "impl": true, "module": true, "const": true, "var": true, "macro": true,
}

// splitSymbol returns a symbol's bare name and its qualifier parts:
// "(*http.Server).Shutdown" → "Shutdown", ["http", "Server"];
// "pkg::mod::f" → "f", ["pkg", "mod"].
//
// An operator keeps its operator: "Vec2.operator+" → "operator+",
// ["Vec2"] (C# writes "operator +"; [nameVariants] gives both).
func splitSymbol(symbol string) (string, []string) {
	if m := operatorRe.FindStringSubmatchIndex(symbol); m != nil {
		name := "operator" + strings.TrimSpace(symbol[m[2]:m[3]])
		_, quals := splitSymbol(symbol[:m[0]] + " x")
		return name, quals
	}
	parts := strings.FieldsFunc(symbol, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$')
	})
	if len(parts) == 0 {
		return "", nil
	}
	return parts[len(parts)-1], parts[:len(parts)-1]
}

// operatorRe finds an operator name: "operator" then its symbol.
var operatorRe = regexp.MustCompile(`(?:^|[\s.:>])operator\s*([^\w\s(][^\s(]*|\w+\s*\(\))\s*$`)

// nameVariants returns the spellings a bare name may be stored under:
// itself, and for an operator also with a space after "operator".
func nameVariants(name string) []string {
	if op, ok := strings.CutPrefix(name, "operator"); ok && op != "" && !strings.HasPrefix(op, " ") {
		return []string{name, "operator " + op}
	}
	return []string{name}
}

// Definitions returns up to max places where symbol is defined, best
// first: exact-case names before case-insensitive ones, qualifiers
// (package, type) found in the chunk's symbol, breadcrumb or path, paths
// nearer hintPath, and non-test files first. Errors: those of a query
// ([ErrNotIndexed], [ErrStale], store failures) and an empty symbol.
func (e *Engine) Definitions(ctx context.Context, symbol, hintPath string, max int, withCode bool) ([]Definition, error) {
	name, quals := splitSymbol(symbol)
	if name == "" {
		return nil, fmt.Errorf("symbol %q has no identifier in it", symbol)
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := v.db.ChunksByName(ctx, nameVariants(name), 500)
	if err != nil {
		return nil, err
	}
	// One-line constants and variables no definition chunk covers.
	named, err := v.db.NamesByName(ctx, []string{name}, 100)
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
	type scored struct {
		row  store.ChunkRow
		conf float64
		near int
	}
	var out []scored
	for _, r := range rows {
		if !definitionKinds[r.Kind] {
			continue
		}
		conf := 0.6
		if r.Name == name || strings.ReplaceAll(r.Name, " ", "") == name {
			conf = 0.8
		}
		if len(quals) > 0 {
			hay := strings.ToLower(r.Symbol + " " + r.Breadcrumb + " " + r.Path)
			found := 0
			for _, q := range quals {
				if strings.Contains(hay, strings.ToLower(q)) {
					found++
				}
			}
			conf += 0.2 * float64(found) / float64(len(quals))
		} else if r.Name == name {
			conf += 0.1
		}
		if isTestPath(r.Path) {
			conf -= 0.1
		}
		out = append(out, scored{row: r, conf: conf, near: pathNearness(hintPath, r.Path)})
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		if c := cmp.Compare(b.near, a.near); c != 0 {
			return c
		}
		if c := cmp.Compare(b.conf, a.conf); c != 0 {
			return c
		}
		if c := cmp.Compare(a.row.Path, b.row.Path); c != 0 {
			return c
		}
		return cmp.Compare(a.row.StartLine, b.row.StartLine)
	})
	defs := make([]Definition, 0, min(max, len(out)))
	for _, s := range out[:min(max, len(out))] {
		r := s.row
		stale := e.changed(r.Path, r.FileSize, r.FileTime)
		d := Definition{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Language: r.Language, Kind: r.Kind,
			Symbol: r.Symbol, Summary: r.Summary, Confidence: round(min(s.conf, 1)), Stale: stale}
		if withCode {
			d.Code = e.readRange(r.Path, r.StartByte, r.EndByte, r.StartLine, r.EndLine, stale)
		}
		defs = append(defs, d)
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

// isTestPath reports whether a path looks like a test file in any of the
// common layouts (Go _test.go, Python test_*.py/*_test.py, JS/TS
// *.test.*/*.spec.*, Java/C# *Test(s).*, tests/ and __tests__ folders).
func isTestPath(p string) bool {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasPrefix(stem, "test_"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"), strings.HasSuffix(stem, "_spec"):
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch dir {
		case "test", "tests", "__tests__", "spec", "testdata":
			return true
		}
	}
	return false
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
	// overload signature), "import" when the line is an
	// import/include/use statement, "definition" on the line that
	// defines it, else "reference".
	Kind string `json:"kind"`
	// Definition is the definition the mention is linked to, as the
	// path and first line of its chunk (which starts at its doc comment); Confidence in [0, 1] is
	// how likely that link is (see [linker]).
	Definition string  `json:"definition,omitempty"`
	Confidence float64 `json:"confidence"`
}

// linker links a mention of a name to one of its definitions by scope,
// using the import graph: for a mention qualified by the name of an
// import (pkg.Name, module.f, Class.m), the definition in the file or
// package it resolves to (0.95), or none when it is external (0.2);
// else the mention's own file (0.95), a file of the
// same Go package or directory (0.9), a file it imports, or whose
// package it imports (0.9; 0.95 when the mention is qualified by the
// imported name, as in pkg.Name), a definition whose qualifiers the query
// named (0.8), the only definition in the repository (0.6), else the
// first of n (0.5/n). A name with no definition in the repository links
// to nothing (confidence 0.2: likely a library's).
type linker struct {
	ctx     context.Context
	db      *store.DB
	defs    []store.ChunkRow
	quals   []string
	imports map[string][]store.ImportRow // by importing file, cached
}

func newLinker(ctx context.Context, db *store.DB, defs []store.ChunkRow, quals []string) *linker {
	return &linker{ctx: ctx, db: db, defs: defs, quals: quals, imports: map[string][]store.ImportRow{}}
}

// link returns the definition a mention in file from most likely means,
// and the confidence; before is the line's text up to the mention.
func (l *linker) link(from, before string) (string, float64) {
	if len(l.defs) == 0 {
		return "", 0.2
	}
	loc := func(d store.ChunkRow) string { return fmt.Sprintf("%s:%d", d.Path, d.StartLine) }
	ims, ok := l.imports[from]
	if !ok {
		ims, _ = l.db.ImportsOf(l.ctx, from)
		l.imports[from] = ims
	}
	qualifier := ""
	if t := strings.TrimRight(before, " \t"); strings.HasSuffix(t, ".") || strings.HasSuffix(t, "::") || strings.HasSuffix(t, "->") {
		t = strings.TrimRight(t, ".:->")
		i := strings.LastIndexFunc(t, func(r rune) bool { return !isIdent(r) })
		qualifier = t[i+1:]
	}
	// A mention qualified by an imported name (pkg.Name, module.f,
	// Class.m) is that import's, whatever the file itself defines: its
	// definition there, or none for an external one (errors.New).
	for _, im := range ims {
		if qualifier == "" || !importNames(im.Spec, qualifier) {
			continue
		}
		if im.Target == "" {
			if !im.Internal {
				return "", 0.2
			}
			continue
		}
		for _, d := range l.defs {
			if d.Path == im.Target || path.Dir(d.Path) == im.Target {
				return loc(d), 0.95
			}
		}
	}
	for _, d := range l.defs {
		if d.Path == from {
			return loc(d), 0.95
		}
	}
	for _, d := range l.defs {
		if path.Dir(d.Path) == path.Dir(from) && path.Ext(d.Path) == ".go" && path.Ext(from) == ".go" {
			return loc(d), 0.9
		}
	}
	for _, im := range ims {
		if im.Target == "" {
			continue
		}
		for _, d := range l.defs {
			if d.Path == im.Target || path.Dir(d.Path) == im.Target || strings.TrimSuffix(d.Path, "/__init__.py") == strings.TrimSuffix(im.Target, "/__init__.py") {
				c := 0.9
				if qualifier != "" && importNames(im.Spec, qualifier) {
					c = 0.95
				}
				return loc(d), c
			}
		}
	}
	if len(l.quals) > 0 {
		for _, d := range l.defs {
			hay := strings.ToLower(d.Symbol + " " + d.Breadcrumb + " " + d.Path)
			if strings.Contains(hay, strings.ToLower(l.quals[len(l.quals)-1])) {
				return loc(d), 0.8
			}
		}
	}
	if len(l.defs) == 1 {
		return loc(l.defs[0]), 0.6
	}
	return loc(l.defs[0]), round(0.5 / float64(len(l.defs)))
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
}

// References returns whole-word, case-sensitive mentions of a symbol's
// bare name, found through the full-text index and confirmed in the
// current file text, ordered by path and line. Errors: those of a query
// and an empty symbol.
func (e *Engine) References(ctx context.Context, q ReferenceQuery) ([]Reference, error) {
	name, quals := splitSymbol(q.Symbol)
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
	defs, err := v.db.ChunksByName(ctx, []string{name}, 50)
	if err != nil {
		return nil, err
	}
	// A defining chunk's first non-comment line naming the symbol is its
	// definition (the chunk may start at its doc comment).
	defChunks := map[int64]bool{}
	for _, d := range defs {
		if d.Name == name && definitionKinds[d.Kind] {
			defChunks[d.ID] = true
		}
	}
	var defRows []store.ChunkRow
	for _, d := range defs {
		if defChunks[d.ID] {
			defRows = append(defRows, d)
		}
	}
	link := newLinker(ctx, v.db, defRows, quals)
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
			if kind == "reference" {
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
			}
			if kind == "definition" && q.ExcludeDefinition {
				continue
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
			ref.Definition, ref.Confidence = link.link(r.Path, string(line[max(0, col-64):col]))
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
var goImportSpec = regexp.MustCompile(`^([\pL_][\pL\pN_]*\s+|[_.]\s+)?"[^"]+"\s*(//.*)?$`)

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
	if lang == "go" && goImportSpec.MatchString(t) {
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
var declPrefix = regexp.MustCompile(`^[\pL_][\pL\pN_\s*&<>,:\[\]]*[\pL\pN_*&>\]]$`)

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
	if !strings.HasSuffix(t, ";") || !declPrefix.MatchString(prefix) {
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
		return nil, 0, fmt.Errorf("bad glob %q", glob)
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
	e.maskFile(rel, src) // redact.go
	lines := strings.SplitAfter(string(src), "\n")
	if startLine < 1 || startLine > len(lines) {
		return ""
	}
	return strings.Join(lines[startLine-1:min(endLine, len(lines))], "")
}

// openIndexed opens an indexed file by its root-relative slash path for
// reading code back, refusing (ErrOutsideRoot) a path that now leaves the
// repository: a file link retargeted outside it since it was indexed, or
// a directory on the way replaced by such a link.
func (e *Engine) openIndexed(rel string) (*os.File, error) {
	if _, err := discover.Confine(e.root, rel); err != nil {
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
	return io.ReadAll(f)
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
// [ErrStale] or [ErrNotIndexed] (unfinished first run) when the index
// cannot answer, naming the command that fixes it.
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
		release()
		return nil, nil, fmt.Errorf("%w: the first index of %s did not finish; run `ctx index`", ErrNotIndexed, e.root)
	case e.Identity().Hash:
		return v, release, nil
	}
	release()
	return nil, nil, fmt.Errorf("%w: %s was indexed by another ctx build or embedding model; run `ctx index` to rebuild it", ErrStale, e.root)
}

// Dependency is one import statement: in a file's own imports, what it
// names; in its importers, who names it.
type Dependency struct {
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

// Deps returns the import statements of the file at rel (a slash path
// relative to the root) and those of other files that resolve to it or,
// for Go, to its package directory. Errors: those of a query, and a path
// the index does not hold.
func (e *Engine) Deps(ctx context.Context, rel string) (*Deps, error) {
	rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
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
			return nil, fmt.Errorf("%s is not in the index of %s (see `ctx status` for skipped files)", rel, e.root)
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

// ChunkAt returns the chunk of the file at rel holding the 1-based line
// (the innermost one when chunks nest), with its code. Errors: those of
// a query, a file the index does not hold, a line outside every chunk.
func (e *Engine) ChunkAt(ctx context.Context, rel string, line int) (*Hit, error) {
	rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
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
		return nil, fmt.Errorf("%s has no chunks in the index of %s (see `ctx status` for skipped files)", rel, e.root)
	}
	best, ok := innermost(rows, line)
	if !ok {
		return nil, fmt.Errorf("%s:%d is outside every chunk (the file has %d chunks, lines %d-%d)", rel, line, len(rows), rows[0].StartLine, rows[len(rows)-1].EndLine)
	}
	h := &Hit{Path: best.Path, PathBytes: PathBytes(best.Path), StartLine: best.StartLine, EndLine: best.EndLine, Language: best.Language, Kind: best.Kind,
		Symbol: best.Symbol, Summary: best.Summary, StartByte: best.StartByte, EndByte: best.EndByte}
	h.Stale = e.changed(best.Path, best.FileSize, best.FileTime)
	h.Code = e.Code(*h)
	return h, nil
}
