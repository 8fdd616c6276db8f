package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/rust"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangRust,
		grammar: rust.GetLanguage,
		types: map[string]nodeClass{
			"line_comment":   comment(),
			"block_comment":  comment(),
			"attribute_item": attr(),
			"function_item":  defOf(KindFunction),
			// A trait method without a default body: a Decl.
			"function_signature_item": defOf(KindFunction),
			"struct_item":             defOf(KindStruct),
			"union_item":              defOf(KindStruct),
			"enum_item":               defOf(KindEnum),
			"type_item":               defOf(KindType),
			"trait_item":              containerOf(KindTrait),
			"impl_item":               customContainer(KindImpl),
			"mod_item":                containerOf(KindModule),
			"macro_definition":        defOf(KindMacro),
			"const_item":              defOf(KindConst),
			"static_item":             defOf(KindVar),
			"declaration_list":        body(),
		},
		resolve:      rustResolve,
		lineComments: cComments.line,
		notDoc:       []string{"//!", "/*!"},
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

func rustResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "impl_item":
		// impl Trait for Type is named by the type: its methods are
		// Type.method.
		d := def{node: n, kind: KindImpl, body: n.ChildByFieldName("body"), members: n, container: true}
		d.name = baseTypeName(w.fieldText(n, "type"))
		d.finish()
		return d, d.name != ""
	case "mod_item":
		if n.ChildByFieldName("body") == nil {
			return def{}, false // "mod foo;" declares a file, not a definition
		}
	}
	d, ok := defaultResolve(w, n, cls, sc)
	if cls.container {
		d.members = n
	}
	return d, ok
}
