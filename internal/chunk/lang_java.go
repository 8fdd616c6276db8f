package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/java"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	register(&langSpec{
		id:      discover.LangJava,
		grammar: java.GetLanguage,
		types: map[string]nodeClass{
			"line_comment":                    comment(),
			"block_comment":                   comment(),
			"class_declaration":               containerOf(KindClass),
			"record_declaration":              containerOf(KindClass),
			"interface_declaration":           containerOf(KindInterface),
			"annotation_type_declaration":     containerOf(KindInterface),
			"enum_declaration":                containerOf(KindEnum),
			"method_declaration":              defOf(KindFunction),
			"constructor_declaration":         defOf(KindFunction),
			"compact_constructor_declaration": defOf(KindFunction),
			"class_body":                      body(),
			"interface_body":                  body(),
			"annotation_type_body":            body(),
			"enum_body":                       body(),
			"enum_body_declarations":          body(),
		},
		resolve:      classResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
	register(&langSpec{
		id:      discover.LangCSharp,
		grammar: csharp.GetLanguage,
		types: map[string]nodeClass{
			"comment":                           comment(),
			"namespace_declaration":             containerOf(KindModule),
			"file_scoped_namespace_declaration": custom(KindModule),
			"class_declaration":                 containerOf(KindClass),
			"record_declaration":                containerOf(KindClass),
			"struct_declaration":                containerOf(KindStruct),
			"record_struct_declaration":         containerOf(KindStruct),
			"interface_declaration":             containerOf(KindInterface),
			"enum_declaration":                  defOf(KindEnum),
			"delegate_declaration":              defOf(KindType),
			"method_declaration":                defOf(KindFunction),
			"constructor_declaration":           defOf(KindFunction),
			"destructor_declaration":            defOf(KindFunction),
			"operator_declaration":              defOf(KindFunction),
			"conversion_operator_declaration":   defOf(KindFunction),
			"local_function_statement":          defOf(KindFunction),
			"declaration_list":                  body(),
			// "#if DEBUG … #endif" around an attribute often takes the
			// class after it into the directive's node (KeePass's
			// ProtectedString): its members are the scope's, as in C.
			"preproc_if":   transparent(),
			"preproc_elif": transparent(),
			"preproc_else": transparent(),
		},
		resolve:      classResolve,
		lineComments: cComments.line,
		blockStart:   cComments.start,
		blockEnd:     cComments.end,
	})
}

// classResolve serves the languages whose definitions all carry "name"
// and "body" fields (Java, C#, PHP, Scala): containers walk their own
// children to find the body, and an expression-bodied member ("=> x")
// counts as having a body.
func classResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	if cls.typ == "file_scoped_namespace_declaration" || cls.typ == "namespace_definition" && n.ChildByFieldName("body") == nil {
		return def{scopeName: w.fieldText(n, "name")}, true
	}
	d := def{node: n, kind: cls.kind, container: cls.container}
	d.name = w.fieldText(n, "name")
	// C# operators have no name field: "operator +", and "implicit
	// operator int(Quantity q)" is named by its target type.
	op := ""
	switch cls.typ {
	case "operator_declaration":
		op = w.fieldText(n, "operator")
	case "conversion_operator_declaration":
		op = w.fieldText(n, "type")
	}
	if op != "" {
		d.name = "operator " + op
	}
	if d.name == "" {
		return d, false
	}
	d.body = n.ChildByFieldName("body")
	if d.body == nil && isFunc(d.kind) {
		d.body = childOfType(n, "arrow_expression_clause")
	}
	if cls.container {
		d.members = n
	}
	d.finish()
	return d, true
}
