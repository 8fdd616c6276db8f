package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/scala"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangScala,
		grammar: scala.GetLanguage,
		types: map[string]nodeClass{
			"comment":             comment(),
			"block_comment":       comment(),
			"class_definition":    containerOf(KindClass),
			"object_definition":   containerOf(KindClass),
			"trait_definition":    containerOf(KindTrait),
			"enum_definition":     containerOf(KindEnum),
			"function_definition": defOf(KindFunction),
			"type_definition":     defOf(KindType),
			"val_definition":      custom(KindConst),
			"var_definition":      custom(KindVar),
			"template_body":       body(),
			"enum_body":           body(),
		},
		resolve:      scalaResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

func scalaResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "val_definition", "var_definition":
		if sc.m != nil || !w.multiLine(n) {
			return def{}, false
		}
		p := n.ChildByFieldName("pattern")
		if p == nil || p.Type() != "identifier" {
			return def{}, false
		}
		return def{node: n, kind: cls.kind, name: w.text(p), body: n.ChildByFieldName("value")}, true
	}
	return classResolve(w, n, cls, sc)
}
