package chunk

import (
	"bytes"
	"maps"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

var cTypes = map[string]nodeClass{
	"comment":                comment(),
	"function_definition":    custom(KindFunction),
	"struct_specifier":       custom(KindStruct),
	"union_specifier":        custom(KindStruct),
	"enum_specifier":         custom(KindEnum),
	"type_definition":        custom(KindType),
	"declaration":            custom(KindVar),
	"field_declaration":      custom(KindVar),
	"preproc_def":            custom(KindMacro),
	"preproc_function_def":   custom(KindMacro),
	"preproc_if":             transparent(),
	"preproc_ifdef":          transparent(),
	"preproc_else":           transparent(),
	"preproc_elif":           transparent(),
	"preproc_elifdef":        transparent(),
	"linkage_specification":  transparent(),
	"declaration_list":       body(),
	"field_declaration_list": body(),
}

var cppTypes = func() map[string]nodeClass {
	m := maps.Clone(cTypes)
	maps.Copy(m, map[string]nodeClass{
		"struct_specifier":     customContainer(KindStruct),
		"union_specifier":      customContainer(KindStruct),
		"class_specifier":      customContainer(KindClass),
		"namespace_definition": customContainer(KindModule),
		"template_declaration": wrapper(),
		"alias_declaration":    defOf(KindType),
		"concept_definition":   defOf(KindType),
	})
	return m
}()

func init() {
	for _, l := range []struct {
		id      string
		grammar func() *sitter.Language
		types   map[string]nodeClass
		mask    func([]byte) []byte
	}{
		{discover.LangC, c.GetLanguage, cTypes, func(src []byte) []byte { return cMaskMacros(src, false) }},
		{discover.LangCPP, cpp.GetLanguage, cppTypes, func(src []byte) []byte { return cMaskMacros(src, true) }},
	} {
		register(&langSpec{
			id:           l.id,
			grammar:      l.grammar,
			types:        l.types,
			resolve:      cResolve,
			mask:         l.mask,
			lineComments: cComments.line,
			blockStart:   cComments.start,
			blockEnd:     cComments.end,
			closers:      []string{"#endif"},
		})
	}
}

func cResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "function_definition":
		d := def{node: n, kind: KindFunction, body: n.ChildByFieldName("body")}
		// "virtual f() = 0;" and "f() = default;" parse as definitions
		// without a body: in a class they are declarations.
		d.bodiless = d.body == nil
		name, qual := cDeclName(w, n.ChildByFieldName("declarator"))
		if name == "" {
			return d, false
		}
		d.name = name
		if qual != "" {
			// An out-of-class member definition: C::f.
			parts := strings.Split(qual, "::")
			d.kind = KindMethod
			d.symbol = joinQual(parts[len(parts)-1], name)
			d.crumb = strings.Join(parts, " > ")
		}
		return d, true
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		d, ok := defaultResolve(w, n, cls, sc)
		if d.body == nil {
			return d, false // a forward declaration or a use of the type
		}
		// A specialization "struct is_char<char> : std::true_type" is
		// named by its template: is_char.
		d.name = baseTypeName(d.name)
		d.members = n
		d.container = cls.container
		d.finish()
		return d, ok
	case "type_definition":
		d := def{node: n, kind: KindType}
		d.name, _ = cDeclName(w, n.ChildByFieldName("declarator"))
		if t := n.ChildByFieldName("type"); t != nil {
			if b := t.ChildByFieldName("body"); b != nil {
				d.body = b
				d.kind = KindStruct
				if t.Type() == "enum_specifier" {
					d.kind = KindEnum
				}
			}
		}
		return d, d.name != ""
	case "declaration", "field_declaration":
		// A prototype is a declaration (filler, recorded as a Decl); a
		// one-line global is a small statement; a declaration spanning
		// lines (a table) is a variable.
		decl := n.ChildByFieldName("declarator")
		if isPrototype(decl) {
			d := def{node: n, kind: KindFunction, decl: true}
			name, qual := cDeclName(w, decl)
			if name == "" || qual != "" {
				return def{}, false // a friend or a redeclaration elsewhere
			}
			d.name = name
			return d, true
		}
		if cls.typ == "field_declaration" || !w.multiLine(n) {
			return def{}, false
		}
		if decl == nil || decl.Type() == "function_declarator" {
			return def{}, false
		}
		d := def{node: n, kind: KindVar}
		d.name, _ = cDeclName(w, decl)
		if decl.Type() == "init_declarator" {
			d.body = decl.ChildByFieldName("value")
		}
		return d, d.name != ""
	case "preproc_def", "preproc_function_def":
		if cls.typ == "preproc_def" && n.ChildByFieldName("value") == nil {
			return def{}, false // #define FOO_H: a flag, not a macro worth a chunk
		}
		return defaultResolve(w, n, cls, sc)
	case "namespace_definition":
		d := def{node: n, kind: KindModule, body: n.ChildByFieldName("body"), members: n, container: true}
		d.name = w.fieldText(n, "name")
		if d.name == "" {
			d.name = "(anonymous)"
		}
		return d, d.body != nil
	}
	return defaultResolve(w, n, cls, sc)
}

// isPrototype reports whether a declarator declares a function ("f(int)",
// "*f(void)", "&at(size_t)"), not a variable of function pointer type
// ("(*fp)(int)").
func isPrototype(n *sitter.Node) bool {
	for i := 0; n != nil && i < 8; i++ {
		switch n.Type() {
		case "function_declarator":
			d := n.ChildByFieldName("declarator")
			return d != nil && d.Type() != "parenthesized_declarator"
		case "pointer_declarator":
			n = n.ChildByFieldName("declarator")
		case "reference_declarator":
			n = firstNamed(n)
		default:
			return false
		}
	}
	return false
}

// cDeclName digs the declared name out of a C declarator ("*(*f)(int)",
// "names[]", "ns::C::m", C++ "&at(int)", "operator bool()") and returns
// it with its scope qualifier, if any.
func cDeclName(w *walker, n *sitter.Node) (name, qual string) {
	for i := 0; n != nil && i < 16; i++ {
		switch n.Type() {
		case "identifier", "field_identifier", "type_identifier", "destructor_name", "operator_name", "primitive_type":
			return w.text(n), qual
		case "qualified_identifier":
			if s := baseTypeName(w.fieldText(n, "scope")); s != "" {
				qual = joinScope(qual, s)
			}
			n = n.ChildByFieldName("name")
		case "template_function", "template_type":
			n = n.ChildByFieldName("name")
		case "parenthesized_declarator", "reference_declarator":
			// "(*f)", and C++ "T& f()" or "T&& f()": the reference
			// declarator has no field for what it wraps.
			n = firstNamed(n)
		case "operator_cast":
			// "operator bool() const": named by the target type.
			if t := w.fieldText(n, "type"); t != "" {
				return "operator " + t, qual
			}
			return "", ""
		default:
			if d := n.ChildByFieldName("declarator"); d != nil {
				n = d
				continue
			}
			return "", ""
		}
	}
	return "", ""
}

func joinScope(a, b string) string {
	if a == "" {
		return b
	}
	return a + "::" + b
}

// cMaskMacros blanks, in a copy of a C or C++ file, the macros that
// tree-sitter cannot read because it does not expand them: words in
// capitals with an underscore (FMT_API, UV_EXTERN, FMT_CONSTEXPR20) that
// stand where a specifier goes, before a declaration's type and name
// ("FMT_API void close();", "static FMT_INLINE auto f(") or after
// class/struct ("class FMT_API format_error"), and such a word alone on
// its line (FMT_BEGIN_NAMESPACE, Q_OBJECT). Left as they are, the grammar
// takes the macro for the type and the real type for the name, or opens
// an error node that swallows the definitions after it. Preprocessor
// lines are left alone. In C++ (cpp) a macro before a constructor or
// destructor ("FMT_CONSTEXPR buffer(grow_fun g)") is blanked too. It
// returns src itself when nothing is blanked.
func cMaskMacros(src []byte, cpp bool) []byte {
	var out []byte
	lineStart, directive := true, false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			// A directive continues past a backslash-newline.
			if !(directive && i > 0 && src[i-1] == '\\') {
				directive = false
			}
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#' && lineStart:
			directive = true
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			e := bytes.Index(src[i+2:], []byte("*/"))
			if e < 0 {
				return orSrc(out, src)
			}
			i += e + 4
			continue
		case c == '"' || c == '\'':
			i = skipQuoted(src, i)
			lineStart = false
			continue
		}
		atLine := lineStart
		lineStart = false
		if directive || !isIdentStart(c) {
			i++
			continue
		}
		j := i
		for j < len(src) && isIdentByte(src[j]) {
			j++
		}
		if i > 0 && isIdentByte(src[i-1]) || !macroWord(src[i:j]) {
			i = j
			continue
		}
		if cpp && cppAfterNamespace().Match(src[max(0, i-64):i]) {
			// Blank the macro's arguments with it.
			rest := src[j:]
			if t := bytes.TrimLeft(rest, " \t"); len(t) > 0 && t[0] == '(' {
				if e := bytes.IndexByte(t, ')'); e >= 0 && bytes.IndexByte(t[:e], '\n') < 0 {
					j += len(rest) - len(t) + e + 1
				}
			}
		} else if !maskable(src, i, j, atLine, cpp) {
			i = j
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		for k := i; k < j; k++ {
			out[k] = ' '
		}
		i = j
	}
	return orSrc(out, src)
}

func orSrc(out, src []byte) []byte {
	if out == nil {
		return src
	}
	return out
}

// macroWord: capitals, digits and underscores, with an underscore inside
// or in front, and a capital first after any leading underscores (FMT_API,
// _GLIBCXX20_CONSTEXPR; not FILE, DWORD, _M or _Tp).
func macroWord(w []byte) bool {
	lead := len(w) - len(bytes.TrimLeft(w, "_"))
	if len(w) < 4 || lead == len(w) || w[lead] < 'A' || w[lead] > 'Z' || w[len(w)-1] == '_' {
		return false
	}
	under := lead > 0
	for _, c := range w[lead:] {
		switch {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under
}

var (
	// A declaration follows: a type (maybe qualified, templated or
	// pointer) and then a name and its parameter list, or more
	// specifiers. Anchored at the end of the macro word.
	cAfterSpecifier      = lazyre.New(`^\s+(?:[A-Za-z_][\w:]*(?:<[^;{}()]*>)?[\s*&]+)+(?:operator\b|~?[A-Za-z_]\w*\s*\()`)
	cppBeforeConstructor = lazyre.New(`^\s+~?[A-Za-z_]\w*\s*\(`)
	cAfterParams         = lazyre.New(`^\s*(?:[{;:=]|->|[A-Z_]|const\b|override\b|final\b|noexcept\b)`)
	// "namespace std _GLIBCXX_VISIBILITY(default) {": the macro and its
	// arguments stand between the name and the body.
	cppAfterNamespace = lazyre.New(`\bnamespace\s+[\w:]+\s+$`)
	cAloneOnLine      = lazyre.New(`^[ \t]*;?[ \t]*(?:\r?\n|$)`)
	cAfterClass       = lazyre.New(`(?:class|struct|union)\s+$`)
)

// maskable reports whether the macro word src[i:j] stands as a specifier
// or alone on its line.
func maskable(src []byte, i, j int, atLine, cpp bool) bool {
	rest := src[j:min(len(src), j+400)]
	if atLine && cAloneOnLine().Match(rest) {
		// After a comma it is an enumerator or an argument, the last of
		// its list ("UV_RUN_DEFAULT = 0,\n  UV_RUN_ONCE\n}"), not a
		// specifier.
		prev := bytes.TrimRight(src[max(0, i-64):i], " \t\r\n")
		return len(prev) == 0 || prev[len(prev)-1] != ','
	}
	if cAfterSpecifier().Match(rest) || cpp && cppBeforeConstructor().Match(rest) {
		return true
	}
	// After a parameter list (and const), before the body or the end
	// of the declaration: "f(int n) const _GLIBCXX_NOEXCEPT {".
	b := bytes.TrimRight(src[max(0, i-64):i], " \t\r\n")
	if t, ok := bytes.CutSuffix(b, []byte("const")); ok {
		b = bytes.TrimRight(t, " \t\r\n")
	}
	if len(b) > 0 && b[len(b)-1] == ')' && cAfterParams().Match(rest) {
		return true
	}
	before := src[max(0, i-16):i]
	if !cAfterClass().Match(before) || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	next := bytes.TrimLeft(rest, " \t")
	return len(next) > 0 && isIdentStart(next[0])
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// skipQuoted returns the index after the string or character literal
// starting at src[i] (at the end of its line when it is not closed).
func skipQuoted(src []byte, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			return i
		}
	}
	return i
}
