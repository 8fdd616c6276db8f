package chunk

import (
	"maps"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"

	"github.com/ctx-dev/ctx/internal/discover"
)

var cTypes = map[string]nodeClass{
	"comment":                comment(),
	"function_definition":    custom(KindFunction),
	"struct_specifier":       custom(KindStruct),
	"union_specifier":        custom(KindStruct),
	"enum_specifier":         custom(KindEnum),
	"type_definition":        custom(KindType),
	"declaration":            custom(KindVar),
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
	}{
		{discover.LangC, c.GetLanguage, cTypes},
		{discover.LangCPP, cpp.GetLanguage, cppTypes},
	} {
		register(&langSpec{
			id:           l.id,
			grammar:      l.grammar,
			types:        l.types,
			resolve:      cResolve,
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
	case "declaration":
		// Prototypes and one-line globals are small statements; a
		// declaration spanning lines (a table) is a variable.
		if !w.multiLine(n) {
			return def{}, false
		}
		decl := n.ChildByFieldName("declarator")
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
