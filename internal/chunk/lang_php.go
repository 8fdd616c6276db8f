package chunk

import (
	"github.com/smacker/go-tree-sitter/php"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangPHP,
		grammar: php.GetLanguage,
		types: map[string]nodeClass{
			"comment":               comment(),
			"function_definition":   defOf(KindFunction),
			"method_declaration":    defOf(KindFunction),
			"class_declaration":     containerOf(KindClass),
			"interface_declaration": containerOf(KindInterface),
			"trait_declaration":     containerOf(KindTrait),
			"enum_declaration":      containerOf(KindEnum),
			"namespace_definition":  containerOf(KindModule),
			"declaration_list":      body(),
			"enum_declaration_list": body(),
			"compound_statement":    body(),
		},
		resolve:      classResolve,
		lineComments: []string{"//", "#"},
		notDoc:       []string{"#["},
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}
