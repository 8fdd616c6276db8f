package graph

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"strconv"
	"strings"
)

// GoFile is one file of a Go package as the loader gives it.
type GoFile struct {
	Path string // slash path relative to the repository root
	Src  []byte
}

// GoCalls resolves the calls of Go functions to their declarations with
// go/parser and go/ast alone: receivers, parameters and local variables
// whose types are written or follow from a composite literal, new, &, a
// conversion or a call of a function whose result type is declared;
// fields and methods of struct and interface types declared in the
// repository, promoted through embedded fields; package-qualified names
// through the file's imports. What needs a type checker (a map or slice
// element, a range variable, a generic type argument, a type switch) is
// reported unresolved, never guessed.
//
// It is not safe for concurrent use; one per query.
type GoCalls struct {
	// Files returns the files of the package in a directory (slash,
	// relative to the root; "." for the root) that the build would
	// compile; test files only when tests is set.
	Files func(dir string, tests bool) []GoFile
	// ImportDir returns the directory an import path in a file resolves
	// to inside the repository, "" when it does not.
	ImportDir func(file, spec string) string

	fset    *token.FileSet
	pkgs    map[string]*goPkg       // by directory, then "+test" for a test build
	imports map[string]*fileImports // by file
}

// GoCall is one call (or method value) in a function body.
type GoCall struct {
	Name string // the called identifier ("Lock" in s.mu.Lock())
	Line int    // 1-based line of the name
	Text string // the call's expression, as written, at most 120 bytes
	// Kind is "function", "method", "interface method" (a call through
	// an interface: DeclLine is the method's line in the interface),
	// "method value" (a method named but not called), or "func value"
	// (a call of a variable, parameter or field of function type).
	Kind string
	// DeclFile and DeclLine (1-based) locate the declaration it calls;
	// empty when unresolved.
	DeclFile string
	DeclLine int
	// Recv is the receiver's type name for a method ("" for functions).
	Recv string
	// External is set for a call into a package outside the repository.
	External bool
	// Pkg is the slash directory of the package a function call goes
	// into: the imported package of pkg.F(), the caller's own for a bare
	// F(); empty for methods and function values.
	Pkg string
	// Reason says why a call is unresolved ("" when resolved).
	Reason string
}

// NewGoCalls returns a resolver reading packages through files and imports.
func NewGoCalls(files func(dir string, tests bool) []GoFile, importDir func(file, spec string) string) *GoCalls {
	return &GoCalls{Files: files, ImportDir: importDir, fset: token.NewFileSet(), pkgs: map[string]*goPkg{}, imports: map[string]*fileImports{}}
}

// goPkg is one parsed package: its top-level declarations by name.
type goPkg struct {
	dir   string
	name  string
	files map[string]*ast.File // by path
	types map[string]*goType
	funcs map[string]goDecl // package-level functions
	vars  map[string]goVar  // package-level variables and constants
}

type goDecl struct {
	file    string
	line    int
	results []ast.Expr // result types; nil when none
	decl    *ast.FuncDecl
}

type goVar struct {
	file string
	typ  ast.Expr // declared type, or nil
	val  ast.Expr // initial value when the type is not written
}

type goType struct {
	name    string
	file    string
	line    int
	expr    ast.Expr // the type's definition (StructType, InterfaceType, …)
	methods map[string]goDecl
	// fields and embedded of a struct; embedded interfaces and methods
	// (in methods, with their line) of an interface.
	fields    map[string]ast.Expr
	embedded  []ast.Expr
	iface     bool
	underType ast.Expr // for a defined type over another named type
}

// typeRef is a named type: its package directory and name.
type typeRef struct {
	dir, name string
}

func (t typeRef) ok() bool { return t.name != "" }

// pkg parses (once) the package in dir.
func (g *GoCalls) pkg(dir string, tests bool) *goPkg {
	key := dir
	if tests {
		key += "+test"
	}
	if p, ok := g.pkgs[key]; ok {
		return p
	}
	p := &goPkg{dir: dir, files: map[string]*ast.File{}, types: map[string]*goType{}, funcs: map[string]goDecl{}, vars: map[string]goVar{}}
	g.pkgs[key] = p
	names := map[string]int{}
	var parsed []*ast.File
	var paths []string
	for _, f := range g.Files(dir, tests) {
		af, err := parser.ParseFile(g.fset, f.Path, f.Src, parser.SkipObjectResolution)
		if af == nil || af.Name == nil {
			continue
		}
		_ = err // a file with syntax errors still declares what parsed
		parsed = append(parsed, af)
		paths = append(paths, f.Path)
		names[strings.TrimSuffix(af.Name.Name, "_test")]++
	}
	// The package's name: the most common one (documentation and
	// "ignore" files may declare another).
	for n, c := range names {
		if c > names[p.name] || c == names[p.name] && n < p.name {
			p.name = n
		}
	}
	for i, af := range parsed {
		if strings.TrimSuffix(af.Name.Name, "_test") != p.name {
			continue
		}
		if !tests && strings.HasSuffix(af.Name.Name, "_test") {
			continue
		}
		p.files[paths[i]] = af
		p.collect(g.fset, paths[i], af)
	}
	return p
}

// collect records a file's top-level declarations.
func (p *goPkg) collect(fset *token.FileSet, file string, af *ast.File) {
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			gd := goDecl{file: file, line: line(d.Name), decl: d}
			if d.Type.Results != nil {
				for _, f := range d.Type.Results.List {
					n := max(1, len(f.Names))
					for range n {
						gd.results = append(gd.results, f.Type)
					}
				}
			}
			if d.Recv == nil || len(d.Recv.List) == 0 {
				if _, dup := p.funcs[d.Name.Name]; !dup {
					p.funcs[d.Name.Name] = gd
				}
				continue
			}
			recv := recvName(d.Recv.List[0].Type)
			if recv == "" {
				continue
			}
			t := p.typ(recv)
			if _, dup := t.methods[d.Name.Name]; !dup {
				t.methods[d.Name.Name] = gd
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					t := p.typ(s.Name.Name)
					if t.file != "" {
						continue // a second declaration under other build tags
					}
					t.file, t.line, t.expr = file, line(s.Name), s.Type
					p.typeBody(fset, t, s.Type)
				case *ast.ValueSpec:
					for i, n := range s.Names {
						v := goVar{file: file, typ: s.Type}
						if s.Type == nil && i < len(s.Values) && len(s.Values) == len(s.Names) {
							v.val = s.Values[i]
						}
						if _, dup := p.vars[n.Name]; !dup {
							p.vars[n.Name] = v
						}
					}
				}
			}
		}
	}
}

func (p *goPkg) typ(name string) *goType {
	t := p.types[name]
	if t == nil {
		t = &goType{name: name, methods: map[string]goDecl{}, fields: map[string]ast.Expr{}}
		p.types[name] = t
	}
	return t
}

// typeBody records a struct's fields and embedded fields, an interface's
// methods and embedded interfaces.
func (p *goPkg) typeBody(fset *token.FileSet, t *goType, e ast.Expr) {
	switch e := e.(type) {
	case *ast.StructType:
		for _, f := range e.Fields.List {
			if len(f.Names) == 0 {
				t.embedded = append(t.embedded, f.Type)
				continue
			}
			for _, n := range f.Names {
				t.fields[n.Name] = f.Type
			}
		}
	case *ast.InterfaceType:
		t.iface = true
		for _, f := range e.Methods.List {
			if len(f.Names) == 0 {
				t.embedded = append(t.embedded, f.Type)
				continue
			}
			ft, _ := f.Type.(*ast.FuncType)
			for _, n := range f.Names {
				gd := goDecl{file: t.file, line: fset.Position(n.Pos()).Line}
				if ft != nil && ft.Results != nil {
					for _, r := range ft.Results.List {
						for range max(1, len(r.Names)) {
							gd.results = append(gd.results, r.Type)
						}
					}
				}
				t.methods[n.Name] = gd
			}
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.StarExpr, *ast.IndexExpr, *ast.IndexListExpr:
		t.underType = e
	}
}

// recvName is a receiver type's name: "T" for T, *T, T[K], *T[K].
func recvName(e ast.Expr) string {
	if id, ok := baseType(e).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// baseType strips pointers, parentheses and type arguments from a type
// expression: *T, (T), T[K] and *pkg.T[K, V] give T or pkg.T.
func baseType(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return e
		}
	}
}

// fileImports are one file's imports by the name the file uses for them.
// An import without an explicit name is first keyed by its path's last
// element (less a major version "v2"), the Go convention; the packages'
// declared names are read only when a name is not found that way, so
// that resolving a call parses the packages it uses, not every import.
type fileImports struct {
	byName  map[string]string // name → directory ("" outside the repository)
	guessed []string          // directories of imports keyed by their path
	checked bool              // guessed ones were also keyed by their declared names
}

// importsOf returns a file's imports (cached).
func (g *GoCalls) importsOf(file string, af *ast.File) *fileImports {
	if fi, ok := g.imports[file]; ok {
		return fi
	}
	fi := &fileImports{byName: map[string]string{}}
	g.imports[file] = fi
	for _, im := range af.Imports {
		spec, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		dir := g.ImportDir(file, spec)
		name := ""
		if im.Name != nil {
			name = im.Name.Name
		} else {
			name = path.Base(spec)
			if goMajor().MatchString(name) && path.Dir(spec) != "." {
				name = path.Base(path.Dir(spec))
			}
			name = strings.TrimPrefix(strings.TrimPrefix(name, "go-"), "go.")
			if dir != "" {
				fi.guessed = append(fi.guessed, dir)
			}
		}
		if name == "_" || name == "." {
			continue
		}
		fi.byName[name] = dir
	}
	return fi
}

// dir returns the directory of the import a file calls name.
func (fi *fileImports) dir(g *GoCalls, name string) (string, bool) {
	if d, ok := fi.byName[name]; ok {
		return d, true
	}
	if !fi.checked {
		fi.checked = true
		for _, d := range fi.guessed {
			if n := g.pkg(d, false).name; n != "" {
				if _, taken := fi.byName[n]; !taken {
					fi.byName[n] = d
				}
			}
		}
	}
	d, ok := fi.byName[name]
	return d, ok
}

// Calls resolves the calls in the body of the function or method declared
// in file whose declaration spans line (1-based), in source order. ok is
// false when no declaration of file holds line.
func (g *GoCalls) Calls(file string, line int) (calls []GoCall, ok bool) {
	dir := path.Dir(file)
	tests := strings.HasSuffix(file, "_test.go")
	p := g.pkg(dir, tests)
	af := p.files[file]
	if af == nil {
		return nil, false
	}
	var fn *ast.FuncDecl
	for _, d := range af.Decls {
		if d, isFn := d.(*ast.FuncDecl); isFn && d.Body != nil {
			s, e := g.fset.Position(d.Pos()).Line, g.fset.Position(d.End()).Line
			if s <= line && line <= e {
				fn = d
				break
			}
		}
	}
	if fn == nil {
		return nil, false
	}
	c := &callWalk{g: g, pkg: p, file: file, imports: g.importsOf(file, af), locals: map[string][]local{}}
	c.declareFields(fn.Recv, fn.Pos())
	c.declareFields(fn.Type.Params, fn.Pos())
	c.declareFields(fn.Type.Results, fn.Pos())
	c.walk(fn.Body)
	return c.out, true
}

// local is one declaration of a local name: where, and its type (nil when
// not known without a type checker).
type local struct {
	pos token.Pos
	typ ast.Expr
	val ast.Expr // initial value, when the type is not written
	idx int      // which result of val (a call with several)
}

type callWalk struct {
	g       *GoCalls
	pkg     *goPkg
	file    string
	imports *fileImports
	locals  map[string][]local
	out     []GoCall
	depth   int
	callSel map[*ast.SelectorExpr]bool // selectors that are a call's function
}

func (c *callWalk) declareFields(fl *ast.FieldList, pos token.Pos) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			c.locals[n.Name] = append(c.locals[n.Name], local{pos: pos, typ: f.Type})
		}
	}
}

// walk visits a body in source order, declaring locals as it meets them
// and resolving each call.
func (c *callWalk) walk(body ast.Node) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for i, l := range n.Lhs {
					id, ok := l.(*ast.Ident)
					if !ok || id.Name == "_" {
						continue
					}
					d := local{pos: id.Pos()}
					switch {
					case len(n.Rhs) == len(n.Lhs):
						d.val = n.Rhs[i]
					case len(n.Rhs) == 1:
						d.val, d.idx = n.Rhs[0], i
						if _, isCall := n.Rhs[0].(*ast.CallExpr); !isCall {
							d.val = nil // v, ok := m[k] and the like
						}
					}
					c.locals[id.Name] = append(c.locals[id.Name], d)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				d := local{pos: id.Pos(), typ: n.Type}
				if n.Type == nil && len(n.Values) == len(n.Names) {
					d.val = n.Values[i]
				}
				c.locals[id.Name] = append(c.locals[id.Name], d)
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
					c.locals[id.Name] = append(c.locals[id.Name], local{pos: id.Pos()})
				}
			}
		case *ast.TypeSwitchStmt:
			if a, ok := n.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					c.locals[id.Name] = append(c.locals[id.Name], local{pos: id.Pos()})
				}
			}
		case *ast.FuncLit:
			c.declareFields(n.Type.Params, n.Pos())
			c.declareFields(n.Type.Results, n.Pos())
		case *ast.CallExpr:
			c.call(n)
		case *ast.SelectorExpr:
			// A method named without a call: a method value.
			c.methodValue(n)
		}
		return true
	})
}

// call resolves one call expression.
func (c *callWalk) call(n *ast.CallExpr) {
	fun := ast.Unparen(n.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok { // f[T](x)
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		c.callIdent(f, n)
	case *ast.SelectorExpr:
		c.called(f)
		c.callSelector(f, n)
	}
}

// called remembers a selector as a call's function.
func (c *callWalk) called(s *ast.SelectorExpr) {
	if c.callSel == nil {
		c.callSel = map[*ast.SelectorExpr]bool{}
	}
	c.callSel[s] = true
}

func (c *callWalk) methodValue(s *ast.SelectorExpr) {
	if c.callSel[s] {
		return
	}
	if id, ok := s.X.(*ast.Ident); ok && c.isImport(id) {
		return // pkg.Name: a function value or a type, not a method value
	}
	t, ok := c.typeOf(s.X)
	if !ok {
		return
	}
	if m, _, found := c.g.method(t, s.Sel.Name, 0); found {
		c.add(GoCall{Name: s.Sel.Name, Line: c.line(s.Sel), Text: c.text(s), Kind: "method value", DeclFile: m.file, DeclLine: m.line, Recv: m.recv})
	}
}

func (c *callWalk) line(n ast.Node) int { return c.g.fset.Position(n.Pos()).Line }

// text is an expression as written, clipped.
func (c *callWalk) text(e ast.Expr) string {
	s := types.ExprString(e)
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func (c *callWalk) add(gc GoCall) { c.out = append(c.out, gc) }

// lookupLocal returns the latest declaration of name before pos.
func (c *callWalk) lookupLocal(name string, pos token.Pos) (local, bool) {
	ds := c.locals[name]
	for i := len(ds) - 1; i >= 0; i-- {
		if ds[i].pos <= pos {
			return ds[i], true
		}
	}
	return local{}, false
}

// isImport reports whether an identifier names one of the file's imports
// (and no local shadows it).
func (c *callWalk) isImport(id *ast.Ident) bool {
	if _, ok := c.lookupLocal(id.Name, id.Pos()); ok {
		return false
	}
	if _, ok := c.pkg.vars[id.Name]; ok {
		return false
	}
	_, ok := c.imports.dir(c.g, id.Name)
	return ok
}

// goBuiltins are the predeclared functions: not callees.
var goBuiltins = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true}

// goBasic are the predeclared types: a call of one is a conversion.
var goBasic = map[string]bool{"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"rune": true, "string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true, "comparable": true}

func (c *callWalk) callIdent(id *ast.Ident, n *ast.CallExpr) {
	name := id.Name
	if _, ok := c.lookupLocal(name, id.Pos()); ok {
		c.add(GoCall{Name: name, Line: c.line(id), Text: c.text(n.Fun), Kind: "func value", Reason: "a call of a local function value"})
		return
	}
	if d, ok := c.pkg.funcs[name]; ok {
		c.add(GoCall{Name: name, Line: c.line(id), Text: c.text(n.Fun), Kind: "function", DeclFile: d.file, DeclLine: d.line})
		return
	}
	if _, ok := c.pkg.types[name]; ok {
		return // a conversion
	}
	if _, ok := c.pkg.vars[name]; ok {
		c.add(GoCall{Name: name, Line: c.line(id), Text: c.text(n.Fun), Kind: "func value", Reason: "a call of a package-level function variable"})
		return
	}
	if goBuiltins[name] || goBasic[name] {
		return
	}
	c.add(GoCall{Name: name, Line: c.line(id), Text: c.text(n.Fun), Kind: "function", Pkg: path.Dir(c.file), Reason: "not declared in the package's files for this build"})
}

func (c *callWalk) callSelector(s *ast.SelectorExpr, n *ast.CallExpr) {
	name := s.Sel.Name
	gc := GoCall{Name: name, Line: c.line(s.Sel), Text: c.text(n.Fun)}
	if id, ok := s.X.(*ast.Ident); ok && c.isImport(id) {
		dir, _ := c.imports.dir(c.g, id.Name)
		if dir == "" {
			gc.Kind, gc.External = "function", true
			gc.Reason = "in package " + id.Name + ", outside the repository"
			c.add(gc)
			return
		}
		p := c.g.pkg(dir, false)
		gc.Pkg = dir
		if d, ok := p.funcs[name]; ok {
			gc.Kind, gc.DeclFile, gc.DeclLine = "function", d.file, d.line
		} else if _, ok := p.types[name]; ok {
			return // a conversion to pkg.T
		} else if _, ok := p.vars[name]; ok {
			gc.Kind, gc.Reason = "func value", "a call of a package-level function variable"
		} else {
			gc.Kind, gc.Reason = "function", "not declared in "+dir+" for this build"
		}
		c.add(gc)
		return
	}
	t, ok := c.typeOf(s.X)
	if !ok {
		gc.Kind, gc.Reason = "method", "the receiver's type is not known without a type checker"
		c.add(gc)
		return
	}
	if m, _, found := c.g.method(t, name, 0); found {
		gc.Kind, gc.DeclFile, gc.DeclLine, gc.Recv = m.kind, m.file, m.line, m.recv
		c.add(gc)
		return
	}
	if _, found := c.g.field(t, name, 0); found {
		gc.Kind, gc.Reason = "func value", "a call of a field of function type"
		c.add(gc)
		return
	}
	gc.Kind, gc.Reason = "method", "no method "+name+" found on "+t.name
	c.add(gc)
}

// foundMethod is a method a selector resolved to.
type foundMethod struct {
	file, recv, kind string
	line             int
	results          []ast.Expr
	dir              string // the declaring package, for its result types
}

// method finds a method of t by name, promoted through embedded fields
// (breadth first: the shallowest wins; two at one depth are ambiguous).
func (g *GoCalls) method(t typeRef, name string, depth int) (foundMethod, int, bool) {
	if depth > 4 || !t.ok() {
		return foundMethod{}, 0, false
	}
	p := g.pkg(t.dir, false)
	gt := p.types[t.name]
	if gt == nil {
		return foundMethod{}, 0, false
	}
	if d, ok := gt.methods[name]; ok {
		kind := "method"
		if gt.iface {
			kind = "interface method"
		}
		return foundMethod{file: d.file, line: d.line, recv: t.name, kind: kind, results: d.results, dir: t.dir}, depth, true
	}
	if gt.underType != nil && len(gt.embedded) == 0 {
		// type T U: T has U's fields (not its methods) unless U is an
		// interface, whose methods T keeps.
		if u, ok := g.typeExpr(p, gt.file, gt.underType); ok {
			if ut := g.pkg(u.dir, false).types[u.name]; ut != nil && ut.iface {
				return g.method(u, name, depth+1)
			}
		}
	}
	best, bestDepth, n := foundMethod{}, 1<<30, 0
	for _, e := range gt.embedded {
		et, ok := g.typeExpr(p, gt.file, e)
		if !ok {
			continue
		}
		m, d, found := g.method(et, name, depth+1)
		if !found {
			continue
		}
		switch {
		case d < bestDepth:
			best, bestDepth, n = m, d, 1
		case d == bestDepth:
			n++
		}
	}
	if n == 1 {
		return best, bestDepth, true
	}
	return foundMethod{}, 0, false
}

// field finds a field of t by name (promoted too) and its type.
func (g *GoCalls) field(t typeRef, name string, depth int) (typeRef, bool) {
	if depth > 4 || !t.ok() {
		return typeRef{}, false
	}
	p := g.pkg(t.dir, false)
	gt := p.types[t.name]
	if gt == nil {
		return typeRef{}, false
	}
	if gt.underType != nil && len(gt.fields) == 0 && len(gt.embedded) == 0 {
		if u, ok := g.typeExpr(p, gt.file, gt.underType); ok {
			return g.field(u, name, depth+1)
		}
	}
	if ft, ok := gt.fields[name]; ok {
		r, ok := g.typeExpr(p, gt.file, ft)
		if !ok {
			return typeRef{dir: "?"}, true // a field, of a type with no name
		}
		return r, true
	}
	for _, e := range gt.embedded {
		et, ok := g.typeExpr(p, gt.file, e)
		if !ok {
			continue
		}
		if et.name == name {
			return et, true // the embedded field itself
		}
		if r, ok := g.field(et, name, depth+1); ok {
			return r, true
		}
	}
	return typeRef{}, false
}

// typeExpr resolves a type expression written in a file of package p to
// a named type.
func (g *GoCalls) typeExpr(p *goPkg, file string, e ast.Expr) (typeRef, bool) {
	switch x := baseType(e).(type) {
	case *ast.Ident:
		if _, ok := p.types[x.Name]; ok {
			return typeRef{dir: p.dir, name: x.Name}, true
		}
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		af := p.files[file]
		if !ok || af == nil {
			return typeRef{}, false
		}
		dir, ok := g.importsOf(file, af).dir(g, id.Name)
		if !ok || dir == "" {
			return typeRef{}, false
		}
		if _, ok := g.pkg(dir, false).types[x.Sel.Name]; ok {
			return typeRef{dir: dir, name: x.Sel.Name}, true
		}
	}
	return typeRef{}, false
}

// typeOf is the named type of an expression in the caller's body, when
// it follows from what is written.
func (c *callWalk) typeOf(e ast.Expr) (typeRef, bool) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 12 {
		return typeRef{}, false
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.typeOf(x.X)
	case *ast.StarExpr:
		return c.typeOf(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return c.typeOf(x.X)
		}
	case *ast.CompositeLit:
		if x.Type != nil {
			return c.g.typeExpr(c.pkg, c.file, x.Type)
		}
	case *ast.TypeAssertExpr:
		if x.Type != nil {
			return c.g.typeExpr(c.pkg, c.file, x.Type)
		}
	case *ast.Ident:
		if d, ok := c.lookupLocal(x.Name, x.Pos()); ok {
			switch {
			case d.typ != nil:
				return c.g.typeExpr(c.pkg, c.file, d.typ)
			case d.val != nil && d.val.Pos() < x.Pos():
				return c.valueType(d.val, d.idx)
			}
			return typeRef{}, false
		}
		if v, ok := c.pkg.vars[x.Name]; ok {
			if v.typ != nil {
				return c.g.typeExpr(c.pkg, v.file, v.typ)
			}
			if v.val != nil && v.file == c.file {
				return c.valueType(v.val, 0)
			}
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && c.isImport(id) {
			dir, _ := c.imports.dir(c.g, id.Name)
			if dir == "" {
				return typeRef{}, false
			}
			if v, ok := c.g.pkg(dir, false).vars[x.Sel.Name]; ok && v.typ != nil {
				return c.g.typeExpr(c.g.pkg(dir, false), v.file, v.typ)
			}
			return typeRef{}, false
		}
		t, ok := c.typeOf(x.X)
		if !ok {
			return typeRef{}, false
		}
		if f, ok := c.g.field(t, x.Sel.Name, 0); ok && f.dir != "?" {
			return f, true
		}
	case *ast.CallExpr:
		return c.valueType(x, 0)
	}
	return typeRef{}, false
}

// valueType is the type of result idx of a value expression: a call's
// declared result, new(T), a conversion T(x), or the expression's type.
func (c *callWalk) valueType(v ast.Expr, idx int) (typeRef, bool) {
	call, ok := ast.Unparen(v).(*ast.CallExpr)
	if !ok {
		if idx == 0 {
			return c.typeOf(v)
		}
		return typeRef{}, false
	}
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	result := func(p *goPkg, file string, rs []ast.Expr) (typeRef, bool) {
		if idx >= len(rs) {
			return typeRef{}, false
		}
		return c.g.typeExpr(p, file, rs[idx])
	}
	switch f := fun.(type) {
	case *ast.Ident:
		if _, local := c.lookupLocal(f.Name, f.Pos()); local {
			return typeRef{}, false
		}
		if f.Name == "new" && len(call.Args) == 1 {
			return c.g.typeExpr(c.pkg, c.file, call.Args[0])
		}
		if d, ok := c.pkg.funcs[f.Name]; ok {
			return result(c.pkg, d.file, d.results)
		}
		if _, ok := c.pkg.types[f.Name]; ok && idx == 0 {
			return typeRef{dir: c.pkg.dir, name: f.Name}, true
		}
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok && c.isImport(id) {
			dir, _ := c.imports.dir(c.g, id.Name)
			if dir == "" {
				return typeRef{}, false
			}
			p := c.g.pkg(dir, false)
			if d, ok := p.funcs[f.Sel.Name]; ok {
				return result(p, d.file, d.results)
			}
			if _, ok := p.types[f.Sel.Name]; ok && idx == 0 {
				return typeRef{dir: dir, name: f.Sel.Name}, true
			}
			return typeRef{}, false
		}
		t, ok := c.typeOf(f.X)
		if !ok {
			return typeRef{}, false
		}
		if m, _, found := c.g.method(t, f.Sel.Name, 0); found {
			return result(c.g.pkg(m.dir, false), m.file, m.results)
		}
	}
	return typeRef{}, false
}
