package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/swift"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangSwift,
		grammar: swift.GetLanguage,
		types: map[string]nodeClass{
			"comment":               comment(),
			"multiline_comment":     comment(),
			"class_declaration":     customContainer(KindClass),
			"protocol_declaration":  containerOf(KindInterface),
			"function_declaration":  defOf(KindFunction),
			"init_declaration":      custom(KindFunction),
			"deinit_declaration":    custom(KindFunction),
			"subscript_declaration": custom(KindFunction),
			"property_declaration":  custom(KindVar),
			"typealias_declaration": defOf(KindType),
			"class_body":            body(),
			"enum_class_body":       body(),
			"protocol_body":         body(),
		},
		resolve:      swiftResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

func swiftResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "class_declaration":
		// One node type for class, struct, enum, actor and extension.
		d := def{node: n, kind: KindClass, body: n.ChildByFieldName("body"), members: n, container: true}
		switch w.fieldText(n, "declaration_kind") {
		case "struct":
			d.kind = KindStruct
		case "enum":
			d.kind = KindEnum
		case "extension":
			d.kind = KindImpl
		}
		d.name = baseTypeName(w.fieldText(n, "name"))
		d.finish()
		return d, d.name != ""
	case "init_declaration", "deinit_declaration", "subscript_declaration":
		d := def{node: n, kind: KindFunction, body: n.ChildByFieldName("body")}
		d.name = map[string]string{"init_declaration": "init", "deinit_declaration": "deinit", "subscript_declaration": "subscript"}[cls.typ]
		d.finish()
		return d, true
	case "property_declaration":
		if sc.m != nil || !w.multiLine(n) {
			return def{}, false
		}
		d := def{node: n, kind: KindVar, name: w.fieldText(n, "name")}
		if hasChild(childOfType(n, "value_binding_pattern"), "let") {
			d.kind = KindConst
		}
		return d, d.name != ""
	}
	d, ok := defaultResolve(w, n, cls, sc)
	if cls.container {
		d.container, d.members = true, n
		d.finish()
	}
	return d, ok
}
