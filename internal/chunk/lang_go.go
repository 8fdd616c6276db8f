package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"

	"github.com/ctx-dev/ctx/internal/discover"
)

var cComments = struct {
	line       []string
	start, end string
}{[]string{"//"}, "/*", "*/"}

func init() {
	register(&langSpec{
		id:      discover.LangGo,
		grammar: golang.GetLanguage,
		types: map[string]nodeClass{
			"comment":              comment(),
			"function_declaration": defOf(KindFunction),
			"method_declaration":   custom(KindMethod),
			"type_declaration":     custom(KindType),
			"type_spec":            custom(KindType),
			"type_alias":           custom(KindType),
			"const_declaration":    custom(KindConst),
			"var_declaration":      custom(KindVar),
		},
		resolve:      goResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

func goResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "method_declaration":
		d := def{node: n, kind: KindMethod, body: n.ChildByFieldName("body")}
		d.name = w.fieldText(n, "name")
		if d.name == "" {
			return d, false
		}
		recv, ptr := goReceiver(w, n.ChildByFieldName("receiver"))
		if recv != "" {
			d.crumb = recv
			if ptr {
				d.symbol = "(*" + recv + ")." + d.name
			} else {
				d.symbol = "(" + recv + ")." + d.name
			}
		}
		return d, true
	case "type_declaration":
		var spec *sitter.Node
		specs := 0
		cnt := min(int(n.NamedChildCount()), maxScan)
		for i := 0; i < cnt; i++ {
			c := n.NamedChild(i)
			if t := c.Type(); t == "type_spec" || t == "type_alias" {
				spec = c
				specs++
			}
		}
		if specs > 1 {
			return def{transparent: true}, true
		}
		if spec == nil {
			return def{}, false
		}
		d, ok := goTypeSpec(w, spec)
		d.node = n
		return d, ok
	case "type_spec", "type_alias":
		d, ok := goTypeSpec(w, n)
		d.sigPrefix = "type "
		return d, ok
	case "const_declaration", "var_declaration":
		spec := firstNamed(n)
		if spec != nil && spec.Type() == "var_spec_list" {
			spec = firstNamed(spec)
		}
		if spec == nil {
			return def{}, false
		}
		d := def{node: n, kind: cls.kind, name: w.fieldText(spec, "name")}
		if spec.Parent() != nil && !spec.Parent().Equal(n) || hasChild(n, "(") {
			// A group: its header line is "var (", so the signature
			// shows the first spec instead.
			d.node, d.sigPrefix = spec, "var "
			if cls.kind == KindConst {
				d.sigPrefix = "const "
			}
		}
		return d, d.name != ""
	}
	return defaultResolve(w, n, cls, sc)
}

// goTypeSpec resolves one type_spec or type_alias.
func goTypeSpec(w *walker, spec *sitter.Node) (def, bool) {
	d := def{node: spec, kind: KindType, name: w.fieldText(spec, "name")}
	if spec.Type() == "type_spec" {
		switch t := spec.ChildByFieldName("type"); {
		case t == nil:
		case t.Type() == "struct_type":
			d.kind = KindStruct
			d.body = firstNamed(t)
		case t.Type() == "interface_type":
			d.kind = KindInterface
			// Its methods are declarations: Reader.Read.
			cnt := min(int(t.NamedChildCount()), maxScan)
			for i := 0; i < cnt; i++ {
				m := t.NamedChild(i)
				if m.Type() != "method_elem" && m.Type() != "method_spec" {
					continue
				}
				name := w.fieldText(m, "name")
				first, last := w.nodeSpan(m)
				if name == "" || first < 0 {
					continue
				}
				d.aliases = append(d.aliases, Decl{Kind: KindMethod, Symbol: d.name + "." + name, Name: name,
					Breadcrumb: d.name, StartLine: first + 1, EndLine: last + 1})
			}
		}
	}
	return d, d.name != ""
}

// goReceiver returns the receiver's base type name and whether it is a
// pointer: "(r *Map[K, V])" gives "Map", true.
func goReceiver(w *walker, recv *sitter.Node) (string, bool) {
	p := firstNamed(recv)
	if p == nil {
		return "", false
	}
	t := p.ChildByFieldName("type")
	ptr := false
	for i := 0; t != nil && i < 4; i++ {
		switch t.Type() {
		case "pointer_type":
			ptr = true
			t = firstNamed(t)
		case "parenthesized_type":
			t = firstNamed(t)
		case "generic_type":
			t = t.ChildByFieldName("type")
		default:
			return baseTypeName(w.text(t)), ptr
		}
	}
	return "", false
}
