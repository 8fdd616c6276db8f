package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/ruby"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangRuby,
		grammar: ruby.GetLanguage,
		types: map[string]nodeClass{
			"comment":          comment(),
			"method":           defOf(KindFunction),
			"singleton_method": defOf(KindFunction),
			"class":            containerOf(KindClass),
			"module":           containerOf(KindModule),
			"singleton_class":  transparent(),
			"body_statement":   body(),
			"assignment":       custom(KindConst),
		},
		resolve:      rubyResolve,
		lineComments: []string{"#"},
		notDoc:       []string{"#!"},
		closers:      []string{"end"},
	})
}

func rubyResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "assignment":
		// A constant spanning several lines (a table) is a definition.
		left := n.ChildByFieldName("left")
		if left == nil || left.Type() != "constant" || !w.multiLine(n) {
			return def{}, false
		}
		return def{node: n, kind: KindConst, name: w.text(left), body: n.ChildByFieldName("right")}, true
	case "singleton_method":
		d, ok := defaultResolve(w, n, cls, sc)
		d.bodiless = false
		if obj := n.ChildByFieldName("object"); obj != nil && obj.Type() != "self" {
			d.symbol = w.text(obj) + "." + d.name
		}
		return d, ok
	}
	d, ok := defaultResolve(w, n, cls, sc)
	// An empty "def x; end" is still a method.
	d.bodiless = false
	if cls.typ == "method" && sc.qual != "" && !inSingletonClass(n) {
		// An instance method is written Base#call, a class method
		// (def self.call, or in class << self) Base.call.
		d.symbol = sc.qual + "#" + d.name
	}
	if cls.container {
		d.container, d.members = true, n
		d.finish()
	}
	return d, ok
}

// inSingletonClass reports whether the method n is defined inside
// "class << self".
func inSingletonClass(n *sitter.Node) bool {
	p := n.Parent()
	for i := 0; p != nil && i < 2; i++ {
		if p.Type() == "singleton_class" {
			return true
		}
		p = p.Parent()
	}
	return false
}
