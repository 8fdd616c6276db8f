package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
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
		if cls.typ == "class_definition" && pyEnumClass(w, n) {
			d.aliases = pyEnumMembers(w, d)
		}
	}
	return d, ok
}

// pyEnumBases matches the base classes of an enumeration: the standard
// library's Enum, IntEnum, StrEnum, Flag and IntFlag, and Django's
// Choices, TextChoices and IntegerChoices, qualified or not.
var pyEnumBases = lazyre.New(`\b(?:\w*Enum|\w*Flag|\w*Choices)\b`)

// pyEnumClass reports whether the class_definition n is an
// enumeration: a base or a decorator names one ("class Status(IntEnum)",
// the standard library's "@_simple_enum(IntEnum)").
func pyEnumClass(w *walker, n *sitter.Node) bool {
	if pyEnumBases().MatchString(w.fieldText(n, "superclasses")) {
		return true
	}
	p := n.Parent()
	if p == nil || p.Type() != "decorated_definition" {
		return false
	}
	cnt := min(int(p.NamedChildCount()), maxScan)
	for i := 0; i < cnt; i++ {
		if c := p.NamedChild(i); c.Type() == "decorator" && pyEnumBases().MatchString(w.text(c)) {
			return true
		}
	}
	return false
}

// pyEnumMembers returns the members of an enumeration class d, the
// names its body assigns ("RED = 1"; not private "_ignore_" ones), as
// declarations "Class.NAME" of kind const.
func pyEnumMembers(w *walker, d def) []Decl {
	if d.body == nil {
		return nil
	}
	var out []Decl
	cnt := min(int(d.body.NamedChildCount()), 4*maxEnumMembers)
	for i := 0; i < cnt && len(out) < maxEnumMembers; i++ {
		st := d.body.NamedChild(i)
		if st.Type() != "expression_statement" {
			continue
		}
		_, left := assignTarget(st)
		if left == nil {
			continue
		}
		name := w.text(left)
		first, last := w.nodeSpan(st)
		if name == "" || name[0] == '_' || first < 0 {
			continue
		}
		out = append(out, Decl{Kind: KindConst, Symbol: d.name + "." + name, Name: name,
			Breadcrumb: d.name, StartLine: first + 1, EndLine: last + 1})
	}
	return out
}

// assignment makes a module-level assignment that spans several lines
// (a table, a configuration dict) a definition named by its target;
// one-line assignments are small statements grouped into blocks.
func assignment(w *walker, n *sitter.Node, sc *scope) (def, bool) {
	if sc.m != nil || !w.multiLine(n) {
		return def{}, false
	}
	a, left := assignTarget(n)
	if left == nil {
		return def{}, false
	}
	d := def{node: n, kind: KindVar, name: w.text(left), body: a.ChildByFieldName("right")}
	if isUpperName(d.name) {
		d.kind = KindConst
	}
	return d, true
}

// assignTarget returns the assignment an expression_statement n holds
// and its target when that is one name ("x = …", not "a.b = …" or
// "x, y = …"); a nil target otherwise.
func assignTarget(n *sitter.Node) (a, left *sitter.Node) {
	a = firstNamed(n)
	if a == nil || a.Type() != "assignment" {
		return nil, nil
	}
	left = a.ChildByFieldName("left")
	if left == nil || left.Type() != "identifier" {
		return nil, nil
	}
	return a, left
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
