package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangPython,
		grammar: python.GetLanguage,
		types: map[string]nodeClass{
			"comment":              comment(),
			"function_definition":  defOf(KindFunction),
			"class_definition":     containerOf(KindClass),
			"decorated_definition": wrapper(),
			"block":                body(),
			"expression_statement": custom(KindVar),
		},
		resolve:      pythonResolve,
		lineComments: []string{"#"},
		notDoc:       []string{"#!"},
	})
}

func pythonResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	if cls.typ == "expression_statement" {
		return assignment(w, n, sc)
	}
	d, ok := defaultResolve(w, n, cls, sc)
	if ok {
		d.bodiless = false
		d.members = n
		d.doc = pyDocstring(w, d.body)
	}
	return d, ok
}

// assignment makes a module-level assignment that spans several lines
// (a table, a configuration dict) a definition named by its target;
// one-line assignments are small statements grouped into blocks.
func assignment(w *walker, n *sitter.Node, sc *scope) (def, bool) {
	if sc.m != nil || !w.multiLine(n) {
		return def{}, false
	}
	a := firstNamed(n)
	if a == nil || a.Type() != "assignment" {
		return def{}, false
	}
	left := a.ChildByFieldName("left")
	if left == nil || left.Type() != "identifier" {
		return def{}, false
	}
	d := def{node: n, kind: KindVar, name: w.text(left), body: a.ChildByFieldName("right")}
	if isUpperName(d.name) {
		d.kind = KindConst
	}
	return d, true
}

// pyDocstring returns the docstring that opens a function or class body.
func pyDocstring(w *walker, body *sitter.Node) string {
	st := firstNamed(body)
	if st == nil || st.Type() != "expression_statement" || st.NamedChildCount() != 1 {
		return ""
	}
	s := st.NamedChild(0)
	if s == nil || s.Type() != "string" {
		return ""
	}
	return unquote(w.text(s))
}
