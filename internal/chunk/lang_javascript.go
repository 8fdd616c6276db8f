package chunk

import (
	"maps"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/ctx-dev/ctx/internal/discover"
)

var jsTypes = map[string]nodeClass{
	"comment":                        comment(),
	"decorator":                      attr(),
	"function_declaration":           defOf(KindFunction),
	"generator_function_declaration": defOf(KindFunction),
	"class_declaration":              containerOf(KindClass),
	"class_body":                     body(),
	"method_definition":              defOf(KindFunction),
	"export_statement":               wrapper(),
	"lexical_declaration":            custom(KindConst),
	"variable_declaration":           custom(KindVar),
}

var tsTypes = func() map[string]nodeClass {
	m := maps.Clone(jsTypes)
	maps.Copy(m, map[string]nodeClass{
		"abstract_class_declaration": containerOf(KindClass),
		"interface_declaration":      defOf(KindInterface),
		"type_alias_declaration":     defOf(KindType),
		"enum_declaration":           defOf(KindEnum),
		"internal_module":            containerOf(KindModule),
		"module":                     containerOf(KindModule),
		"statement_block":            body(),
		"ambient_declaration":        wrapper(),
		// "namespace X { }" parses as an expression statement.
		"expression_statement": wrapper(),
	})
	return m
}()

func init() {
	for _, l := range []struct {
		id      string
		grammar func() *sitter.Language
		types   map[string]nodeClass
	}{
		{discover.LangJavaScript, javascript.GetLanguage, jsTypes},
		{discover.LangTypeScript, typescript.GetLanguage, tsTypes},
		{discover.LangTSX, tsx.GetLanguage, tsTypes},
	} {
		register(&langSpec{
			id:           l.id,
			grammar:      l.grammar,
			types:        l.types,
			resolve:      jsResolve,
			lineComments: cComments.line,
			blockStart:   cComments.start,
			blockEnd:     cComments.end,
		})
	}
}

func jsResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "lexical_declaration", "variable_declaration":
		return jsDeclaration(w, n, cls, sc)
	case "module":
		d, ok := defaultResolve(w, n, cls, sc)
		d.name = strings.Trim(d.name, `"'`)
		return d, ok && d.name != ""
	}
	return defaultResolve(w, n, cls, sc)
}

// jsDeclaration resolves "const f = () => {}" as a function, "const K =
// class {}" as a class, and a declaration spanning several lines (a big
// object or table) as a const or var; a one-line declaration is a small
// statement.
func jsDeclaration(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	decl := childOfType(n, "variable_declarator")
	if decl == nil {
		return def{}, false
	}
	name := decl.ChildByFieldName("name")
	if name == nil || name.Type() != "identifier" {
		return def{}, false
	}
	d := def{node: n, name: w.text(name), kind: cls.kind}
	if cls.kind == KindConst && !hasChild(n, "const") {
		d.kind = KindVar // let
	}
	value := decl.ChildByFieldName("value")
	if value != nil {
		switch value.Type() {
		case "arrow_function", "function_expression", "function", "generator_function", "generator_function_expression":
			d.kind = KindFunction
			d.body = value.ChildByFieldName("body")
			return d, true
		case "class", "class_expression":
			d.kind = KindClass
			d.body = value.ChildByFieldName("body")
			d.container, d.members, d.qualifies = d.body != nil, value, true
			return d, true
		}
	}
	if !w.multiLine(n) {
		return def{}, false
	}
	d.body = value
	return d, true
}
