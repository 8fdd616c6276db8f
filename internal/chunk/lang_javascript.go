package chunk

import (
	"maps"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/ctx-dev/ctx/internal/discover"
)

var jsTypes = map[string]nodeClass{
	"comment":                        comment(),
	"decorator":                      attr(),
	"function_declaration":           defOf(KindFunction),
	"generator_function_declaration": defOf(KindFunction),
	"class_declaration":              containerOf(KindClass),
	"class_body":                     body(),
	"method_definition":              defOf(KindFunction),
	"export_statement":               wrapper(),
	"lexical_declaration":            custom(KindConst),
	"variable_declaration":           custom(KindVar),
	// "obj.m = function () {}" at top level defines obj.m.
	"expression_statement":  wrapper(),
	"assignment_expression": custom(KindFunction),
	// "(function () { … })();": a wrapper whose definitions are the
	// file's (see jsWrapperBody).
	"call_expression":          custom(KindFunction),
	"parenthesized_expression": custom(KindFunction),
}

var tsTypes = func() map[string]nodeClass {
	m := maps.Clone(jsTypes)
	maps.Copy(m, map[string]nodeClass{
		"abstract_class_declaration": containerOf(KindClass),
		"interface_declaration":      defOf(KindInterface),
		"type_alias_declaration":     defOf(KindType),
		"enum_declaration":           defOf(KindEnum),
		"internal_module":            containerOf(KindModule),
		"module":                     containerOf(KindModule),
		"statement_block":            body(),
		"ambient_declaration":        wrapper(),
		// "namespace X { }" parses as an expression statement, which
		// jsTypes already wraps.
	})
	return m
}()

func init() {
	for _, l := range []struct {
		id      string
		grammar func() *sitter.Language
		types   map[string]nodeClass
	}{
		{discover.LangJavaScript, javascript.GetLanguage, jsTypes},
		{discover.LangTypeScript, typescript.GetLanguage, tsTypes},
		{discover.LangTSX, tsx.GetLanguage, tsTypes},
	} {
		register(&langSpec{
			id:           l.id,
			grammar:      l.grammar,
			types:        l.types,
			resolve:      jsResolve,
			lineComments: cComments.line,
			blockStart:   cComments.start,
			blockEnd:     cComments.end,
			docGap:       true,
		})
	}
}

func jsResolve(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	switch cls.typ {
	case "lexical_declaration", "variable_declaration":
		return jsDeclaration(w, n, cls, sc)
	case "assignment_expression":
		return jsAssignment(w, n, sc)
	case "call_expression", "parenthesized_expression":
		if sc.m != nil {
			return def{}, false
		}
		if body := jsIIFEBody(n); body != nil {
			return def{transparent: true, members: body}, true
		}
		return def{}, false
	case "module":
		d, ok := defaultResolve(w, n, cls, sc)
		d.name = strings.Trim(d.name, `"'`)
		return d, ok && d.name != ""
	}
	return defaultResolve(w, n, cls, sc)
}

// jsDeclaration resolves "const f = () => {}" as a function, "const K =
// class {}" as a class, and a declaration spanning several lines (a big
// object or table) as a const or var; a one-line declaration is a small
// statement.
func jsDeclaration(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool) {
	decl := childOfType(n, "variable_declarator")
	if decl == nil {
		return def{}, false
	}
	name := decl.ChildByFieldName("name")
	if name == nil || name.Type() != "identifier" {
		return def{}, false
	}
	d := def{node: n, name: w.text(name), kind: cls.kind}
	if cls.kind == KindConst && !hasChild(n, "const") {
		d.kind = KindVar // let
	}
	value := decl.ChildByFieldName("value")
	if value != nil {
		switch t := value.Type(); {
		case jsIsFunction(t):
			d.kind = KindFunction
			d.body = value.ChildByFieldName("body")
			return d, true
		case jsIsClass(t):
			d.kind = KindClass
			d.body = value.ChildByFieldName("body")
			d.container, d.members, d.qualifies = d.body != nil, value, true
			return d, true
		}
	}
	if !w.multiLine(n) {
		return def{}, false
	}
	d.body = value
	return d, true
}

// jsAssignment resolves "obj.m = function () {}", "Foo.prototype.m = () =>
// {}", "exports.f = function f() {}" and chains such as "req.get =
// req.header = function header() {}" as a function (a class for "obj.K =
// class {}") whose symbol is the assigned name as written, without a
// leading "module.exports." or "exports." (those name the file's module,
// which the lookup reads from its path). A chain's further names become
// aliases. Any other assignment is filler.
func jsAssignment(w *walker, n *sitter.Node, sc *scope) (def, bool) {
	var lefts []*sitter.Node
	right := n
	for i := 0; right != nil && right.Type() == "assignment_expression" && i < 8; i++ {
		lefts = append(lefts, right.ChildByFieldName("left"))
		right = right.ChildByFieldName("right")
	}
	if right == nil {
		return def{}, false
	}
	d := def{node: n, kind: KindFunction}
	switch t := right.Type(); {
	case jsIsFunction(t):
		d.body = right.ChildByFieldName("body")
		if body := jsWrapperBody(right); body != nil && sc.m == nil && len(lefts) == 1 && jsIsModuleExports(w, lefts[0]) {
			// "module.exports = function (Promise, util) { … }": a
			// factory that holds the module's definitions.
			return def{transparent: true, members: body}, true
		}
	case jsIsClass(t):
		d.kind = KindClass
		d.body = right.ChildByFieldName("body")
		d.container, d.members, d.qualifies = d.body != nil, right, true
	default:
		return def{}, false
	}
	for _, l := range lefts {
		sym := jsAssignedName(w, l)
		if sym == "" {
			// "module.exports = function name() {}" is named by the
			// function.
			if l == lefts[len(lefts)-1] && d.symbol == "" {
				sym = w.fieldText(right, "name")
			}
			if sym == "" {
				continue
			}
		}
		if d.symbol == "" {
			d.symbol, d.name = sym, bareName(sym)
			if d.kind == KindFunction && strings.Contains(sym, ".prototype.") {
				d.kind = KindMethod
			}
			continue
		}
		first, last := w.nodeSpan(l)
		d.aliases = append(d.aliases, Decl{Symbol: sym, Name: bareName(sym), StartLine: first + 1, EndLine: last + 1})
	}
	return d, d.symbol != ""
}

// jsAssignedName returns the dotted name an assignment's left side writes
// ("app.render", "View.prototype.render"), without a leading
// "module.exports." or "exports."; "" for anything else (a subscript, a
// destructuring pattern, module.exports itself).
func jsAssignedName(w *walker, l *sitter.Node) string {
	if l == nil {
		return ""
	}
	var parts []string
	for i := 0; l != nil && i < 8; i++ {
		switch l.Type() {
		case "identifier", "this":
			parts = append(parts, w.text(l))
			l = nil
		case "member_expression":
			p := l.ChildByFieldName("property")
			if p == nil || p.Type() != "property_identifier" {
				return ""
			}
			parts = append(parts, w.text(p))
			l = l.ChildByFieldName("object")
		default:
			return ""
		}
	}
	if l != nil {
		return ""
	}
	slices.Reverse(parts)
	switch {
	case len(parts) >= 2 && parts[0] == "module" && parts[1] == "exports":
		parts = parts[2:]
	case len(parts) >= 1 && parts[0] == "exports":
		parts = parts[1:]
	case len(parts) >= 1 && parts[0] == "this":
		return ""
	}
	return strings.Join(parts, ".")
}

// jsIsModuleExports reports whether l is "module.exports" itself.
func jsIsModuleExports(w *walker, l *sitter.Node) bool {
	if l == nil || l.Type() != "member_expression" {
		return false
	}
	o, p := l.ChildByFieldName("object"), l.ChildByFieldName("property")
	return o != nil && p != nil && o.Type() == "identifier" && w.text(o) == "module" && w.text(p) == "exports"
}

// jsIIFEBody returns the body of the function an immediately invoked
// function expression calls ("(function () { … })()", "(function () { …
// }())", "(() => { … })()"), when it is a wrapper (jsWrapperBody); nil
// for any other call.
func jsIIFEBody(n *sitter.Node) *sitter.Node {
	n = jsUnparen(n)
	if n == nil || n.Type() != "call_expression" {
		return nil
	}
	if f := jsUnparen(n.ChildByFieldName("function")); f != nil && jsIsFunction(f.Type()) {
		return jsWrapperBody(f)
	}
	return nil
}

// jsUnparen returns n without the parentheses around it (up to 4).
func jsUnparen(n *sitter.Node) *sitter.Node {
	for i := 0; n != nil && n.Type() == "parenthesized_expression" && i < 4; i++ {
		n = firstNamed(n)
	}
	return n
}

// jsIsFunction reports whether a node type is a function value
// ("function () {}", "() => {}", a generator).
func jsIsFunction(t string) bool {
	switch t {
	case "function_expression", "function", "arrow_function", "generator_function", "generator_function_expression":
		return true
	}
	return false
}

// jsIsClass reports whether a node type is a class value ("class {}").
func jsIsClass(t string) bool { return t == "class" || t == "class_expression" }

// jsWrapperBody returns the statement block of an anonymous function
// that wraps a module's definitions, so the walker takes its statements
// for top-level ones: a CommonJS factory ("module.exports =
// function (Promise, INTERNAL) { … }", as bluebird writes each file) or
// an immediately invoked function. It must hold a definition (a function
// or class declaration, or a function assigned to a name) among its first
// statements; an exported function that is itself the module's one
// function stays filler, as it was. nil otherwise.
func jsWrapperBody(f *sitter.Node) *sitter.Node {
	if f.ChildByFieldName("name") != nil {
		return nil
	}
	body := f.ChildByFieldName("body")
	if body == nil || body.Type() != "statement_block" {
		return nil
	}
	// defining: a value the walker resolves as a definition when it is
	// assigned or declared (jsAssignment, jsDeclaration).
	defining := func(v *sitter.Node) bool { return v != nil && (jsIsFunction(v.Type()) || jsIsClass(v.Type())) }
	cnt := min(int(body.NamedChildCount()), maxScan)
	for i := 0; i < cnt; i++ {
		st := body.NamedChild(i)
		switch st.Type() {
		case "function_declaration", "generator_function_declaration", "class_declaration":
			return body
		case "expression_statement":
			if a := firstNamed(st); a != nil && a.Type() == "assignment_expression" && defining(a.ChildByFieldName("right")) {
				return body
			}
		case "lexical_declaration", "variable_declaration":
			if d := childOfType(st, "variable_declarator"); d != nil && defining(d.ChildByFieldName("value")) {
				return body
			}
		}
	}
	return nil
}
