package chunk

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/lua"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangLua,
		grammar: lua.GetLanguage,
		types: map[string]nodeClass{
			"comment":              comment(),
			"function_statement":   custom(KindFunction),
			"variable_declaration": custom(KindFunction),
		},
		resolve:      luaResolve,
		lineComments: []string{"--"},
		blockStart:   "--[[",
		blockEnd:     "]]",
		closers:      []string{"end"},
	})
}

// luaResolve names "function M.f()" as M.f (breadcrumb M), "function
// M:m()" as the method M.m, and "local f = function() end" as f.
func luaResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	d := def{node: n, kind: KindFunction}
	var full string
	switch cls.typ {
	case "function_statement":
		name := n.ChildByFieldName("name")
		if name == nil {
			return d, false
		}
		full = w.text(name)
		d.body = childOfType(n, "function_body")
	case "variable_declaration":
		value := n.ChildByFieldName("value")
		if value == nil || value.Type() != "function" {
			return d, false
		}
		full = w.text(n.ChildByFieldName("name"))
		d.body = childOfType(value, "function_body")
	}
	full = strings.Join(strings.Fields(full), "")
	if i := strings.LastIndexAny(full, ".:"); i >= 0 {
		if full[i] == ':' {
			d.kind = KindMethod
		}
		d.crumb = strings.ReplaceAll(full[:i], ":", ".")
		d.symbol = d.crumb + "." + full[i+1:]
		full = full[i+1:]
	}
	d.name = full
	return d, d.name != ""
}
