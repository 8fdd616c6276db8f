package chunk

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Helpers for the language resolvers. They run once per definition-like
// node, not per syntax node, so asking tree-sitter for type names (which
// allocates) is fine here.

// maxScan bounds the children a resolver looks at.
const maxScan = 48

// childOfType returns n's first child (named or not) whose type is one of
// types.
func childOfType(n *sitter.Node, types ...string) *sitter.Node {
	if n == nil {
		return nil
	}
	cnt := min(int(n.ChildCount()), maxScan)
	for i := 0; i < cnt; i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		t := c.Type()
		for _, want := range types {
			if t == want {
				return c
			}
		}
	}
	return nil
}

// hasChild reports whether n has a child of type t (anonymous tokens
// included, so it finds keywords).
func hasChild(n *sitter.Node, t string) bool { return childOfType(n, t) != nil }

// firstNamed returns n's first named child that is not a comment.
func firstNamed(n *sitter.Node) *sitter.Node {
	if n == nil {
		return nil
	}
	cnt := min(int(n.NamedChildCount()), maxScan)
	for i := 0; i < cnt; i++ {
		c := n.NamedChild(i)
		if c != nil && !strings.Contains(c.Type(), "comment") {
			return c
		}
	}
	return nil
}

// multiLine reports whether n's text spans more than one line.
func (w *walker) multiLine(n *sitter.Node) bool {
	f, l := w.nodeSpan(n)
	return l > f
}

// baseTypeName strips generic arguments, references and paths from a type
// as written ("&'a mut fmt::Formatter<T>" -> "Formatter").
func baseTypeName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "<[("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimLeft(s, "&*'")
	if f := strings.Fields(s); len(f) > 0 {
		s = f[len(f)-1]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	return strings.TrimSpace(s)
}

// isUpperName reports whether s looks like a constant (FOO_BAR).
func isUpperName(s string) bool {
	upper := false
	for _, c := range s {
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == '_' || '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return upper
}
