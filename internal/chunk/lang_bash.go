package chunk

import (
	"github.com/smacker/go-tree-sitter/bash"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangBash,
		grammar: bash.GetLanguage,
		types: map[string]nodeClass{
			"comment":             comment(),
			"function_definition": defOf(KindFunction),
		},
		lineComments: []string{"#"},
		notDoc:       []string{"#!"},
		closers:      []string{"fi", "done", "esac"},
	})
}
