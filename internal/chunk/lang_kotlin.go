package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/kotlin"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangKotlin,
		grammar: kotlin.GetLanguage,
		types: map[string]nodeClass{
			"line_comment":          comment(),
			"multiline_comment":     comment(),
			"class_declaration":     customContainer(KindClass),
			"object_declaration":    customContainer(KindClass),
			"companion_object":      customContainer(KindClass),
			"function_declaration":  custom(KindFunction),
			"secondary_constructor": custom(KindFunction),
			"property_declaration":  custom(KindVar),
			"type_alias":            custom(KindType),
			"class_body":            body(),
			"enum_class_body":       body(),
		},
		resolve:      kotlinResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

// kotlinResolve reads names from child node types: the Kotlin grammar
// has no name or body fields.
func kotlinResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	d := def{node: n, kind: cls.kind}
	switch cls.typ {
	case "class_declaration", "object_declaration", "companion_object":
		switch {
		case hasChild(n, "interface"):
			d.kind = KindInterface
		case hasChild(n, "enum"):
			d.kind = KindEnum
		}
		d.name = w.text(childOfType(n, "type_identifier"))
		if d.name == "" && cls.typ == "companion_object" {
			d.name = "Companion"
		}
		d.body = childOfType(n, "class_body", "enum_class_body")
		d.container, d.members = true, n
	case "function_declaration":
		d.name = w.text(childOfType(n, "simple_identifier"))
		d.body = childOfType(n, "function_body")
	case "secondary_constructor":
		d.name = "constructor"
		d.body = childOfType(n, "block")
	case "type_alias":
		d.name = w.text(childOfType(n, "type_identifier"))
	case "property_declaration":
		// Properties are class state; at top level one spanning several
		// lines is a definition.
		if sc.m != nil || !w.multiLine(n) {
			return d, false
		}
		v := childOfType(n, "variable_declaration")
		d.name = w.text(childOfType(v, "simple_identifier"))
		if b := childOfType(n, "binding_pattern_kind"); b != nil && w.text(b) == "val" {
			d.kind = KindConst
		}
	}
	d.finish()
	return d, d.name != ""
}
