package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/elixir"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangElixir,
		grammar: elixir.GetLanguage,
		types: map[string]nodeClass{
			"comment":        comment(),
			"call":           custom(KindFunction),
			"unary_operator": attr(),
			"do_block":       body(),
		},
		resolve:      elixirResolve,
		attrHook:     elixirAttr,
		lineComments: []string{"#"},
		notDoc:       []string{"#!"},
		closers:      []string{"end"},
	})
}

// elixirResolve recognises the definition macros: defmodule, defprotocol
// and defimpl are containers; def, defp, defmacro, defguard, defdelegate
// are functions (macros for defmacro). Everything else is a plain call.
func elixirResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	if cls.typ != "call" {
		return def{}, false
	}
	target := n.ChildByFieldName("target")
	if target == nil || target.Type() != "identifier" {
		return def{}, false
	}
	args := childOfType(n, "arguments")
	block := childOfType(n, "do_block")
	d := def{node: n, body: block}
	switch w.text(target) {
	case "defmodule":
		d.kind = KindModule
	case "defprotocol":
		d.kind = KindInterface
	case "defimpl":
		d.kind = KindImpl
	case "def", "defp", "defdelegate", "defguard", "defguardp", "defn", "defnp":
		d.kind = KindFunction
	case "defmacro", "defmacrop":
		d.kind = KindMacro
	default:
		return def{}, false
	}
	head := firstNamed(args)
	if d.kind == KindModule || d.kind == KindInterface || d.kind == KindImpl {
		d.name = w.text(head)
		d.container = block != nil
		d.qualifies = true
		return d, d.name != ""
	}
	// The head is f(args), f(args) when guard, or a bare f.
	for i := 0; head != nil && i < 4; i++ {
		switch head.Type() {
		case "binary_operator":
			head = head.ChildByFieldName("left")
		case "call":
			head = head.ChildByFieldName("target")
		case "identifier":
			d.name = w.text(head)
			return d, true
		default:
			return d, false
		}
	}
	return d, false
}

// elixirAttr decides what a "@name value" module attribute is: @doc
// documents the next definition (its text becomes the Doc), @spec, @impl
// and friends stand before it, and @moduledoc documents the enclosing
// module. Other attributes (@type, @behaviour, ...) are plain statements.
func elixirAttr(w *walker, n *sitter.Node, sc *scope) (bool, string) {
	op := n.ChildByFieldName("operand")
	if op == nil || op.Type() != "call" || w.fieldText(n, "operator") != "@" {
		return false, ""
	}
	arg := firstNamed(childOfType(op, "arguments"))
	str := arg != nil && (arg.Type() == "string" || arg.Type() == "sigil")
	switch w.fieldText(op, "target") {
	case "doc":
		if str {
			return true, unquote(w.text(arg))
		}
		return true, ""
	case "moduledoc":
		if str && sc.m != nil && sc.m.doc == "" {
			sc.m.doc = unquote(w.text(arg))
		}
		return false, ""
	case "spec", "impl", "deprecated", "since", "dialyzer", "decorate":
		return true, ""
	}
	return false, ""
}
