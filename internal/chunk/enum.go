package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// maxEnumMembers caps the members read from one enum: generated enums
// of thousands of entries are not worth a lookup each.
const maxEnumMembers = 512

// enumBodies are the node types that hold an enum's members, across the
// grammars (Rust, C and C++, Java, C#, TypeScript, Kotlin and Swift,
// PHP, Scala).
var enumBodies = map[string]bool{
	"enum_variant_list":            true,
	"enumerator_list":              true,
	"enum_body":                    true,
	"enum_member_declaration_list": true,
	"enum_class_body":              true,
	"enum_declaration_list":        true,
}

// enumMembers returns the members of the enum d defines (Rust variants,
// C enumerators, Java constants, TypeScript members, Swift cases, …) as
// declarations "Enum.Member" of kind const, so that a lookup of
// ArgAction::Count finds the enum's chunk that holds it. sym is the
// enum's own symbol. An enum without a recognised body gives none.
func (w *walker) enumMembers(d def, sym string) []Decl {
	body := enumBody(d.node, 2)
	if body == nil {
		return nil
	}
	var out []Decl
	add := func(n *sitter.Node) {
		if n != nil && n.Type() == "string" {
			// A TypeScript member named by a string: "Blue" = 3.
			if f := firstNamed(n); f != nil {
				n = f
			}
		}
		name := w.text(n)
		first, last := w.nodeSpan(n)
		if name == "" || first < 0 || len(out) >= maxEnumMembers {
			return
		}
		out = append(out, Decl{Kind: KindConst, Symbol: sym + "." + name, Name: name,
			Breadcrumb: d.name, StartLine: first + 1, EndLine: last + 1})
	}
	var members func(list *sitter.Node, depth int)
	members = func(list *sitter.Node, depth int) {
		cnt := min(int(list.ChildCount()), 4*maxEnumMembers)
		for i := 0; i < cnt && len(out) < maxEnumMembers; i++ {
			m := list.Child(i)
			if m == nil || !m.IsNamed() {
				continue
			}
			switch m.Type() {
			case "enum_variant", "enumerator", "enum_constant", "enum_member_declaration",
				"enum_assignment", "enum_case", "simple_enum_case", "full_enum_case":
				add(m.ChildByFieldName("name"))
			case "property_identifier":
				// A TypeScript member without a value is the body's
				// own name field.
				if list.FieldNameForChild(i) == "name" {
					add(m)
				}
			case "enum_entry":
				// Swift: every name of "case red, green"; Kotlin: the
				// entry's identifier.
				n := int(m.ChildCount())
				found := false
				for j := 0; j < n; j++ {
					if m.FieldNameForChild(j) == "name" {
						add(m.Child(j))
						found = true
					}
				}
				if !found {
					for j := 0; j < n; j++ {
						if c := m.Child(j); c.Type() == "simple_identifier" {
							add(c)
							break
						}
					}
				}
			case "enum_case_definitions":
				// Scala: "case Red, Green" holds its cases.
				if depth == 0 {
					members(m, depth+1)
				}
			}
		}
	}
	members(body, 0)
	return out
}

// enumBody returns the node holding n's enum members: n's body field or
// a child of one of the enumBodies types, at most depth levels down (a
// C typedef holds its enum_specifier, which holds the list).
func enumBody(n *sitter.Node, depth int) *sitter.Node {
	if n == nil {
		return nil
	}
	if b := n.ChildByFieldName("body"); b != nil && enumBodies[b.Type()] {
		return b
	}
	cnt := min(int(n.NamedChildCount()), maxScan)
	for i := 0; i < cnt; i++ {
		c := n.NamedChild(i)
		if enumBodies[c.Type()] {
			return c
		}
	}
	if depth == 0 {
		return nil
	}
	for i := 0; i < cnt; i++ {
		if b := enumBody(n.NamedChild(i), depth-1); b != nil {
			return b
		}
	}
	return nil
}
