// Command symbol-labels generates the ground-truth labels for symbol
// navigation (ctx def, ctx callees, ctx hierarchy, and the callers of a
// function) over the Go standard library: the corpus "goroot",
// $(go env GOROOT)/src of the toolchain that runs it. Its output is
// scripts/symbol-eval/labels/goroot.json, in the format of
// scripts/symbol-eval/labels/README.md.
//
// Run it from the repository root:
//
//	go run ./scripts/symbol-labels
//
// (-o names another output file, -v lists the candidates behind every
// label on stderr). It uses the standard library only, and its output
// depends on nothing but the GOROOT it reads: the queries are fixed below,
// entries are sorted, and packages are type-checked for linux/amd64 with
// cgo off whatever the host.
//
// How each kind is labelled:
//
//   - def: every package-level declaration the query names, in a non-test
//     file outside testdata (a syntactic scan of the whole corpus). The
//     qualifier of pkg.Name is the package whose import path is pkg if
//     there is one (sync is sync, not internal/sync), else every package
//     named pkg (template is text/template and html/template); a/b.Name
//     is the package a/b; A.B is package A's B or type A's method B;
//     (*T).M and T.M name T's method M whatever its receiver's kind, in
//     any package. With a hint only declarations in that file or directory
//     count. Declarations for other platforms (file_plan9.go …) are right
//     answers too, so ambiguous queries list all of them.
//   - callees: the caller is the one declaration its query names (as for
//     def; the generator stops unless there is exactly one). Its package
//     is type-checked from source (go/types, importer "source") and every
//     call expression in the body, function literals included, is
//     labelled on the line of its called name: a function or method
//     (promoted ones at their declaration, interface methods at their line
//     in the interface, error's Error in builtin/builtin.go) at its
//     declaration; a call of a function value (variable, parameter, field
//     of func type) as null. Builtins and conversions are left out, and so
//     is a call with no name to label (func(){…}()), reported on stderr.
//     A callee declared once per platform or build tag is labelled at its
//     linux/amd64 declaration, also reported on stderr.
//   - callers: the callee is the one declaration its query names (as for
//     callees). It must be unexported, so that every caller is in its own
//     package: that package is type-checked as for callees together with
//     its _test.go files of the same package (an external pkg_test package
//     cannot call an unexported name), and every call expression whose
//     called name (f, x.f, T.f, f[T]; promoted methods too) uses the
//     callee is a site, labelled on the line of that name with the
//     outermost function or method around it as its caller, also when the
//     call is in a function literal. Method values (x.f without a call)
//     and calls through an interface method of the same name are not
//     calls of the callee; two calls on one line are one site. Files that
//     linux/amd64 does not build (file_plan9.go, files behind a build tag
//     or GOEXPERIMENT) are not read, so their calls are not labelled; each
//     call in them named like the callee is reported on stderr. The
//     generator stops if the callee has no call site, or one outside a
//     function (in a package-level initializer).
//   - hierarchy: syntactic. Supertypes are the types a struct or interface
//     embeds; subtypes every named struct or interface type (local ones
//     too) in a non-testdata file of the corpus that embeds it, vendor/,
//     cmd/ and _test.go files included, a name resolved in its own package
//     or through its file's imports (aliases followed). The generator
//     stops if a testdata file embeds one of the chosen types.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"log"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// defQueries are the def labels: a query and its hint.
var defQueries = [][2]string{
	// net/http
	{"(*Server).Serve", ""},
	{"http.Serve", ""},
	{"net/http.Serve", ""},
	{"(*Server).Shutdown", ""},
	{"(*Server).ListenAndServe", ""},
	{"http.Server.Shutdown", ""},
	{"(*http.Server).Close", ""},
	{"http.Handler", ""},
	{"http.HandlerFunc.ServeHTTP", ""},
	{"http.ListenAndServe", ""},
	{"http.StatusNotFound", ""},
	{"http.DefaultClient", ""},
	{"http.ErrServerClosed", ""},
	{"(*http.Client).Do", ""},
	{"(*Transport).RoundTrip", "net/http"},
	{"http.NewRequest", ""},
	// io
	{"io.Reader", ""},
	{"io.EOF", ""},
	{"io.Copy", ""},
	{"io.ReadAll", ""},
	{"io.SeekEnd", ""},
	{"io.ReadWriteCloser", ""},
	// sync, sync/atomic
	{"sync.Mutex", ""},
	{"(*Mutex).Lock", ""},
	{"sync.(*Mutex).Lock", ""},
	{"(*sync.WaitGroup).Wait", ""},
	{"sync.Once.Do", ""},
	{"(*RWMutex).RLock", ""},
	{"sync/atomic.(*Int64).Add", ""},
	{"atomic.Int64", ""},
	// bufio, bytes, strings
	{"bufio.Reader", ""},
	{"bufio.NewReader", ""},
	{"(*bufio.Reader).ReadString", ""},
	{"(*Reader).ReadRune", ""},
	{"(*Reader).ReadRune", "strings"},
	{"(*Writer).Flush", "bufio"},
	{"bytes.Buffer", ""},
	{"bytes.Buffer.String", ""},
	{"(*bytes.Buffer).Write", ""},
	{"strings.Builder", ""},
	{"(*strings.Builder).WriteString", ""},
	{"strings.NewReader", ""},
	{"strings.Replace", ""},
	// encoding/json
	{"json.Marshal", ""},
	{"encoding/json.Unmarshal", ""},
	{"(*json.Decoder).Decode", ""},
	{"(*Decoder).Decode", "encoding/json"},
	{"json.Number.String", ""},
	// context
	{"context.Context", ""},
	{"context.WithCancel", ""},
	{"context.Canceled", ""},
	// os, errors, fmt
	{"os.Open", ""},
	{"os.File", ""},
	{"(*os.File).Close", ""},
	{"os.ErrNotExist", ""},
	{"errors.New", ""},
	{"errors.Is", ""},
	{"fmt.Errorf", ""},
	{"fmt.Stringer", ""},
	// time, strconv
	{"time.Duration", ""},
	{"time.Duration.String", ""},
	{"time.Time.Format", ""},
	{"time.RFC3339", ""},
	{"(*time.Timer).Stop", ""},
	{"strconv.Itoa", ""},
	{"strconv.ErrRange", ""},
	// net, net/url
	{"net.Conn", ""},
	{"net.Dial", ""},
	{"(*net.Dialer).DialContext", ""},
	{"url.Parse", ""},
	{"net/url.Values.Get", ""},
	{"(*url.URL).String", ""},
	// names several packages declare
	{"template.New", ""},
	{"text/template.New", ""},
	{"rand.Int", ""},
	{"sort.Interface", ""},
	{"sort.Slice", ""},
	{"(*regexp.Regexp).FindString", ""},
	{"hash.Hash", ""},
	{"crypto/sha256.Size", ""},
	{"reflect.Value.Kind", ""},
	{"(*exec.Cmd).Run", ""},
	{"filepath.Join", ""},
	{"path.Join", ""},
	{"(*token.FileSet).Position", ""},
	{"ast.Node", ""},
	{"heap.Push", ""},
	{"binary.BigEndian", ""},
	{"(*log.Logger).Printf", ""},
	{"utf8.RuneError", ""},
}

// calleeQueries are the callers whose calls are labelled: a query and
// its hint.
var calleeQueries = [][2]string{
	{"(*Server).Shutdown", "net/http"},
	{"(*Server).ListenAndServe", "net/http"},
	{"http.Serve", ""},
	{"(*Transport).roundTrip", "net/http"},
	{"(*Client).do", "net/http"},
	{"(*Once).doSlow", "sync"},
	{"(*bufio.Scanner).Scan", ""},
	{"(*bufio.Reader).ReadString", ""},
	{"strings.Replace", ""},
	{"json.Marshal", "encoding/json/encode.go"},
	{"(*json.Decoder).Decode", "encoding/json/stream.go"},
	{"context.WithDeadlineCause", ""},
	{"(*cancelCtx).propagateCancel", "context"},
	{"os.Expand", ""},
	{"os.ReadFile", ""},
	{"os.WriteFile", ""},
	{"(*WaitGroup).Go", "sync"},
	{"io.copyBuffer", ""},
	{"io.ReadAll", ""},
}

// callerQueries are the unexported functions and methods whose call
// sites are labelled: a query and its hint.
var callerQueries = [][2]string{
	// methods with a bare name many packages use
	{"(*conn).serve", "net/http"},
	{"(*persistConn).close", "net/http"},
	{"(*Rows).close", "database/sql"},
	{"(*compressor).close", "compress/flate"},
	{"(*compressor).reset", "compress/flate"},
	{"(*compressor).init", "compress/flate"},
	{"(*compressor).write", "compress/flate"},
	{"(*huffmanBitWriter).flush", "compress/flate"},
	{"(*Conn).flush", "crypto/tls"},
	{"(*Writer).flush", "text/tabwriter"},
	{"(*Reader).reset", "bufio"},
	{"(*Reader).fill", "bufio"},
	{"(*pipe).read", "io"},
	{"(*connReader).lock", "net/http"},
	{"(*Request).write", "net/http"},
	{"(*B).run", "testing"},
	{"(*fmt).init", "fmt"},
	{"(*cancelCtx).cancel", "context"},
	{"(*Location).get", "time"},
	{"(*Location).lookup", "time"},
	{"(*Buffer).grow", "bytes"},
	{"(*Logger).output", "log"},
	{"(*File).checkValid", "os/file_posix.go"},
	// package-level functions that share a name with others
	{"url.parse", ""},
	{"regexp.compile", ""},
	{"json.checkValid", "encoding/json/scanner.go"},
	// few callers
	{"(*pp).doPrintf", "fmt"},
	{"(*Server).closeListenersLocked", "net/http"},
	{"http.newBufioReader", ""},
}

// hierarchyQueries are the types whose supertypes and subtypes are
// labelled.
var hierarchyQueries = []string{
	"io.Writer",
	"io.Closer",
	"io.ReadWriter",
	"io.ReadWriteCloser",
	"io.ReadSeeker",
	"io.ReaderAt",
	"io.Seeker",
	"io.ByteWriter",
	"bufio.Reader",
	"bufio.Writer",
	"bufio.ReadWriter",
	"bytes.Buffer",
	"context.Context",
	"http.Handler",
	"http.ResponseWriter",
	"net.Conn",
	"net.Listener",
	"fs.FS",
	"fs.ReadDirFile",
	"fs.StatFS",
	"hash.Hash",
	"hash.Hash32",
	"sort.Interface",
	"heap.Interface",
	"draw.Image",
	"image.Image",
	"ast.Node",
	"ast.Expr",
	"cipher.Block",
	"crypto.Signer",
	"flag.Value",
}

// Loc is a declaration's line.
type Loc struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// srcFile is one parsed .go file of the corpus.
type srcFile struct {
	rel      string // slash path relative to GOROOT/src
	dir      string
	pkgPath  string // import path of its directory
	pkgName  string
	test     bool // a _test.go file
	testdata bool // under a testdata directory
	f        *ast.File
	tf       *token.File
}

// decl is one package-level declaration.
type decl struct {
	file *srcFile
	recv string // base type name of a method's receiver
	name string
	line int
	spec *ast.TypeSpec // for a type
}

type corpus struct {
	src   string // GOROOT/src
	fset  *token.FileSet
	files []*srcFile
	decls map[string][]*decl // by name
	// types are the package-level types by directory, package name and
	// type name.
	types map[[3]string][]*decl
	// dirName is the package name of each directory's non-test files.
	dirName map[string]string
	lines   map[string][]string
	verbose bool
}

func main() {
	log.SetFlags(0)
	out := flag.String("o", "scripts/symbol-eval/labels/goroot.json", "output file")
	verbose := flag.Bool("v", false, "list the candidates behind every label on stderr")
	flag.Parse()

	build.Default.GOOS = "linux"
	build.Default.GOARCH = "amd64"
	build.Default.CgoEnabled = false
	c := &corpus{
		src:     filepath.Join(build.Default.GOROOT, "src"),
		fset:    token.NewFileSet(),
		decls:   map[string][]*decl{},
		types:   map[[3]string][]*decl{},
		dirName: map[string]string{},
		lines:   map[string][]string{},
		verbose: *verbose,
	}
	if err := c.scan(); err != nil {
		log.Fatal(err)
	}
	var entries []any
	for _, q := range defQueries {
		entries = append(entries, c.def(q[0], q[1]))
	}
	tc := newChecker(c)
	for _, q := range calleeQueries {
		entries = append(entries, c.callees(tc, q[0], q[1]))
	}
	for _, q := range callerQueries {
		entries = append(entries, c.callers(tc, q[0], q[1]))
	}
	for _, q := range hierarchyQueries {
		entries = append(entries, c.hierarchy(q))
	}
	data, err := encode(entries)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	var nd, nc, ncalls, nr, nsites, nh, nsub int
	for _, e := range entries {
		switch e := e.(type) {
		case defEntry:
			nd++
		case calleesEntry:
			nc++
			ncalls += len(e.Calls)
		case callersEntry:
			nr++
			nsites += len(e.Sites)
		case hierarchyEntry:
			nh++
			nsub += len(e.Subtypes)
		}
	}
	log.Printf("%s: %d def, %d callees (%d calls), %d callers (%d sites), %d hierarchy (%d subtypes)", *out, nd, nc, ncalls, nr, nsites, nh, nsub)
}

// scan parses every .go file under GOROOT/src and indexes its
// package-level declarations.
func (c *corpus) scan() error {
	err := filepath.WalkDir(c.src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(c.src, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// A testdata file may not parse; what it has parsed still counts.
		f, _ := parser.ParseFile(c.fset, p, data, parser.SkipObjectResolution)
		if f == nil || f.Name == nil {
			return nil
		}
		sf := &srcFile{
			rel:      rel,
			dir:      path.Dir(rel),
			pkgName:  f.Name.Name,
			test:     strings.HasSuffix(rel, "_test.go"),
			testdata: slices.Contains(strings.Split(rel, "/"), "testdata"),
			f:        f,
			tf:       c.fset.File(f.Pos()),
		}
		sf.pkgPath = importPath(sf.dir)
		c.files = append(c.files, sf)
		return nil
	})
	if err != nil {
		return err
	}
	// The package name of a directory: the most common one of its
	// non-test files (a directory may hold an ignored "package main").
	counts := map[string]map[string]int{}
	for _, f := range c.files {
		if f.test || f.testdata {
			continue
		}
		if counts[f.dir] == nil {
			counts[f.dir] = map[string]int{}
		}
		counts[f.dir][f.pkgName]++
	}
	for dir, m := range counts {
		best := ""
		for name, n := range m {
			if best == "" || n > m[best] || n == m[best] && name < best {
				best = name
			}
		}
		c.dirName[dir] = best
	}
	for _, f := range c.files {
		for _, d := range f.f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				dc := &decl{file: f, name: d.Name.Name, line: c.line(d.Type.Func)}
				if d.Recv != nil && len(d.Recv.List) > 0 {
					dc.recv = baseName(d.Recv.List[0].Type)
				}
				c.decls[dc.name] = append(c.decls[dc.name], dc)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						dc := &decl{file: f, name: s.Name.Name, line: c.line(s.Name.Pos()), spec: s}
						c.decls[dc.name] = append(c.decls[dc.name], dc)
						k := [3]string{f.dir, f.pkgName, dc.name}
						c.types[k] = append(c.types[k], dc)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							dc := &decl{file: f, name: n.Name, line: c.line(n.Pos())}
							c.decls[dc.name] = append(c.decls[dc.name], dc)
						}
					}
				}
			}
		}
	}
	return nil
}

// importPath is the import path of a directory under GOROOT/src.
func importPath(dir string) string {
	if rest, ok := strings.CutPrefix(dir, "vendor/"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(dir, "cmd/vendor/"); ok {
		return rest
	}
	return dir
}

// baseName is the type name of a receiver or embedded type expression
// (*T, T[P], pkg.T → T), or "".
func baseName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return baseName(e.X)
	case *ast.ParenExpr:
		return baseName(e.X)
	case *ast.IndexExpr:
		return baseName(e.X)
	case *ast.IndexListExpr:
		return baseName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func (c *corpus) line(p token.Pos) int { return c.fset.Position(p).Line }

// loc is the location of line in the file at rel.
func (c *corpus) loc(rel string, line int) Loc {
	lines, ok := c.lines[rel]
	if !ok {
		data, err := os.ReadFile(filepath.Join(c.src, filepath.FromSlash(rel)))
		if err != nil {
			log.Fatal(err)
		}
		lines = strings.Split(string(data), "\n")
		c.lines[rel] = lines
	}
	if line < 1 || line > len(lines) {
		log.Fatalf("%s has no line %d", rel, line)
	}
	return Loc{Path: rel, Line: line, Text: strings.TrimSpace(lines[line-1])}
}

func (c *corpus) declLoc(d *decl) Loc { return c.loc(d.file.rel, d.line) }

// posLoc is the location of a position in c.fset.
func (c *corpus) posLoc(p token.Pos) Loc {
	pos := c.fset.Position(p)
	rel, err := filepath.Rel(c.src, pos.Filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		log.Fatalf("%s is outside %s", pos.Filename, c.src)
	}
	return c.loc(filepath.ToSlash(rel), pos.Line)
}

// reading is one way to read a query: package pkg ("" any; a path when
// it has a slash), receiver type recv ("" a package-level name), name.
type reading struct{ pkg, recv, name string }

// readings returns the readings of a query (see the package doc).
func readings(q string) []reading {
	pkg, rest := "", q
	if i := strings.LastIndex(q, "/"); i >= 0 {
		j := strings.Index(q[i:], ".")
		if j < 0 {
			log.Fatalf("query %q: no name after the package path", q)
		}
		pkg, rest = q[:i+j], q[i+j+1:]
	} else if k := strings.Index(q, ".("); k > 0 {
		pkg, rest = q[:k], q[k+1:]
	}
	if strings.HasPrefix(rest, "(*") {
		t, m, ok := strings.Cut(rest[2:], ").")
		if !ok {
			log.Fatalf("query %q: want (*T).M", q)
		}
		if p, tn, ok := strings.Cut(t, "."); ok {
			if pkg != "" {
				log.Fatalf("query %q: two package qualifiers", q)
			}
			pkg, t = p, tn
		}
		return []reading{{pkg, t, m}}
	}
	parts := strings.Split(rest, ".")
	switch {
	case len(parts) == 1:
		return []reading{{pkg, "", parts[0]}}
	case len(parts) == 2 && pkg != "":
		return []reading{{pkg, parts[0], parts[1]}}
	case len(parts) == 2:
		return []reading{{parts[0], "", parts[1]}, {"", parts[0], parts[1]}}
	case len(parts) == 3 && pkg == "":
		return []reading{{parts[0], parts[1], parts[2]}}
	}
	log.Fatalf("query %q: unknown form", q)
	return nil
}

// pkgMatches reports whether a file is in the package a qualifier names.
func (c *corpus) pkgMatches(f *srcFile, pkg string) bool {
	if pkg == "" {
		return true
	}
	if strings.Contains(pkg, "/") || c.hasPath(pkg) {
		return f.pkgPath == pkg
	}
	return f.pkgName == pkg
}

func (c *corpus) hasPath(p string) bool {
	_, ok := c.dirName[p]
	return ok
}

// underHint reports whether rel is the hint or in its directory tree.
func underHint(rel, hint string) bool {
	hint = strings.TrimSuffix(hint, "/")
	return hint == "" || rel == hint || strings.HasPrefix(rel, hint+"/")
}

// resolve returns the declarations a query names in non-test files
// outside testdata, sorted; tests are the matches in test files.
func (c *corpus) resolve(q, hint string) (want, tests []*decl) {
	for _, r := range readings(q) {
		for _, d := range c.decls[r.name] {
			if d.recv != r.recv || !c.pkgMatches(d.file, r.pkg) || !underHint(d.file.rel, hint) {
				continue
			}
			if d.recv == "" && d.file.test && strings.HasSuffix(d.file.pkgName, "_test") {
				continue
			}
			if d.file.test || d.file.testdata {
				tests = append(tests, d)
			} else if !slices.Contains(want, d) {
				want = append(want, d)
			}
		}
	}
	sortDecls(want)
	sortDecls(tests)
	return want, tests
}

func sortDecls(ds []*decl) {
	slices.SortFunc(ds, func(a, b *decl) int {
		if a.file.rel != b.file.rel {
			return strings.Compare(a.file.rel, b.file.rel)
		}
		return a.line - b.line
	})
}

func (c *corpus) logf(format string, args ...any) {
	if c.verbose {
		log.Printf(format, args...)
	}
}

type defEntry struct {
	Corpus string `json:"corpus"`
	Kind   string `json:"kind"`
	Query  string `json:"query"`
	Hint   string `json:"hint"`
	Want   []Loc  `json:"want"`
}

func (c *corpus) def(q, hint string) defEntry {
	want, tests := c.resolve(q, hint)
	if len(want) == 0 {
		log.Fatalf("def %q (hint %q): no declaration", q, hint)
	}
	e := defEntry{Corpus: "goroot", Kind: "def", Query: q, Hint: hint}
	for _, d := range want {
		e.Want = append(e.Want, c.declLoc(d))
	}
	c.logf("def %q hint %q: %d answers, %d more in tests/testdata", q, hint, len(want), len(tests))
	for _, d := range want {
		c.logf("    %s:%d", d.file.rel, d.line)
	}
	for _, d := range tests {
		c.logf("    (test) %s:%d", d.file.rel, d.line)
	}
	return e
}

// only returns the one declaration a query names, or stops.
func (c *corpus) only(kind, q, hint string) *decl {
	want, _ := c.resolve(q, hint)
	if len(want) != 1 {
		var at []string
		for _, d := range want {
			at = append(at, fmt.Sprintf("%s:%d", d.file.rel, d.line))
		}
		log.Fatalf("%s %q (hint %q): %d declarations, want 1: %v", kind, q, hint, len(want), at)
	}
	return want[0]
}

// checker type-checks packages of the corpus from source.
type checker struct {
	c    *corpus
	imp  types.ImporterFrom
	pkgs map[string]*checked
}

type checked struct {
	files map[string]*ast.File // by path relative to GOROOT/src
	info  *types.Info
}

func newChecker(c *corpus) *checker {
	return &checker{c: c, imp: importer.ForCompiler(c.fset, "source", nil).(types.ImporterFrom), pkgs: map[string]*checked{}}
}

// check type-checks the package in dir (relative to GOROOT/src) as built
// for linux/amd64 without cgo; with tests its _test.go files of the same
// package too (not those of the external package pkg_test).
func (tc *checker) check(dir string, tests bool) *checked {
	key := dir
	if tests {
		key += " with tests"
	}
	if p := tc.pkgs[key]; p != nil {
		return p
	}
	abs := filepath.Join(tc.c.src, filepath.FromSlash(dir))
	bp, err := build.Default.ImportDir(abs, 0)
	if err != nil {
		log.Fatalf("%s: %v", dir, err)
	}
	p := &checked{files: map[string]*ast.File{}, info: &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
	}}
	names := bp.GoFiles
	if tests {
		names = append(slices.Clip(names), bp.TestGoFiles...)
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(tc.c.fset, filepath.Join(abs, name), nil, parser.SkipObjectResolution)
		if err != nil {
			log.Fatal(err)
		}
		files = append(files, f)
		p.files[path.Join(dir, name)] = f
	}
	var errs []error
	conf := types.Config{Importer: tc.imp, Error: func(err error) { errs = append(errs, err) }}
	if _, err := conf.Check(importPath(dir), tc.c.fset, files, p.info); err != nil {
		for _, e := range errs {
			log.Print(e)
		}
		log.Fatalf("%s does not type-check", key)
	}
	tc.pkgs[key] = p
	return p
}

// funcDecl is the function declaration d in the type-checked package p,
// or stops.
func (c *corpus) funcDecl(kind, q string, p *checked, d *decl) *ast.FuncDecl {
	f := p.files[d.file.rel]
	if f == nil {
		log.Fatalf("%s %q: %s is not built for linux/amd64", kind, q, d.file.rel)
	}
	var fd *ast.FuncDecl
	for _, x := range f.Decls {
		if x, ok := x.(*ast.FuncDecl); ok && c.line(x.Type.Func) == d.line && x.Name.Name == d.name {
			fd = x
		}
	}
	if fd == nil || fd.Body == nil {
		log.Fatalf("%s %q: no body at %s:%d", kind, q, d.file.rel, d.line)
	}
	return fd
}

type call struct {
	Line int    `json:"line"`
	Name string `json:"name"`
	Want *Loc   `json:"want"`
	col  int
}

type calleesEntry struct {
	Corpus string `json:"corpus"`
	Kind   string `json:"kind"`
	Query  string `json:"query"`
	Hint   string `json:"hint"`
	Caller Loc    `json:"caller"`
	Calls  []call `json:"calls"`
}

func (c *corpus) callees(tc *checker, q, hint string) calleesEntry {
	d := c.only("callees", q, hint)
	p := tc.check(d.file.dir, false)
	fd := c.funcDecl("callees", q, p, d)
	e := calleesEntry{Corpus: "goroot", Kind: "callees", Query: q, Hint: hint, Caller: c.declLoc(d)}
	info := p.info
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ce, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		at := c.fset.Position(ce.Pos())
		fun := ast.Unparen(ce.Fun)
		if tv, ok := info.Types[fun]; ok && tv.IsType() {
			return true // a conversion
		}
		// An instantiation f[T](x) calls f.
		switch x := fun.(type) {
		case *ast.IndexExpr:
			if _, ok := c.useOf(info, x.X).(*types.Func); ok {
				fun = x.X
			}
		case *ast.IndexListExpr:
			fun = x.X
		}
		var id *ast.Ident
		var obj types.Object
		switch x := fun.(type) {
		case *ast.Ident:
			id, obj = x, info.Uses[x]
		case *ast.SelectorExpr:
			id = x.Sel
			if s := info.Selections[x]; s != nil {
				obj = s.Obj()
			} else {
				obj = info.Uses[x.Sel]
			}
		default:
			log.Printf("callees %q: %s:%d: a call of a %T has no name; left out", q, d.file.rel, at.Line, fun)
			return true
		}
		cl := call{Line: c.line(id.Pos()), Name: id.Name, col: c.fset.Position(id.Pos()).Column}
		switch o := obj.(type) {
		case *types.Builtin:
			return true
		case *types.TypeName:
			return true
		case *types.Var:
			// A function value: no declaration to link.
		case *types.Func:
			o = o.Origin()
			var l Loc
			if o.Pos().IsValid() {
				l = c.posLoc(o.Pos())
			} else if o.Name() == "Error" && o.Pkg() == nil {
				l = c.builtinError()
			} else {
				log.Fatalf("callees %q: %s:%d: %s has no position", q, d.file.rel, cl.Line, o)
			}
			cl.Want = &l
			c.checkVariants(q, o, l)
		default:
			log.Fatalf("callees %q: %s:%d: %s resolves to %T", q, d.file.rel, cl.Line, id.Name, obj)
		}
		e.Calls = append(e.Calls, cl)
		return true
	})
	slices.SortStableFunc(e.Calls, func(a, b call) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.col - b.col
	})
	// The same name twice on a line is one label if both calls go to the
	// same place; two places cannot be told apart by line and name.
	var calls []call
	for _, cl := range e.Calls {
		if n := len(calls); n > 0 && calls[n-1].Line == cl.Line && calls[n-1].Name == cl.Name {
			if (calls[n-1].Want == nil) != (cl.Want == nil) || cl.Want != nil && *calls[n-1].Want != *cl.Want {
				log.Fatalf("callees %q: two %s calls on line %d go to different places", q, cl.Name, cl.Line)
			}
			continue
		}
		calls = append(calls, cl)
	}
	e.Calls = calls
	c.logf("callees %q hint %q: %s:%d, %d calls", q, hint, d.file.rel, d.line, len(calls))
	for _, cl := range calls {
		w := "null"
		if cl.Want != nil {
			w = fmt.Sprintf("%s:%d %s", cl.Want.Path, cl.Want.Line, cl.Want.Text)
		}
		c.logf("    %d %s -> %s", cl.Line, cl.Name, w)
	}
	return e
}

// useOf is the object an identifier or qualified identifier uses.
func (c *corpus) useOf(info *types.Info, e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.Ident:
		return info.Uses[e]
	case *ast.SelectorExpr:
		return info.Uses[e.Sel]
	}
	return nil
}

// builtinError is the line of Error in the error interface of
// builtin/builtin.go.
func (c *corpus) builtinError() Loc {
	for _, d := range c.decls["error"] {
		if d.file.rel != "builtin/builtin.go" || d.spec == nil {
			continue
		}
		if it, ok := d.spec.Type.(*ast.InterfaceType); ok {
			for _, m := range it.Methods.List {
				if len(m.Names) == 1 && m.Names[0].Name == "Error" {
					return c.loc(d.file.rel, c.line(m.Names[0].Pos()))
				}
			}
		}
	}
	log.Fatal("builtin/builtin.go declares no error.Error")
	return Loc{}
}

// checkVariants warns when a called function or method is declared more
// than once in its package (once per platform): the label is the
// linux/amd64 one.
func (c *corpus) checkVariants(q string, o *types.Func, l Loc) {
	recv := ""
	if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			recv = n.Obj().Name()
		} else {
			return // an interface method
		}
	}
	n := 0
	for _, d := range c.decls[o.Name()] {
		if d.recv == recv && d.file.dir == path.Dir(l.Path) && !d.file.test && d.file.pkgName == c.dirName[d.file.dir] {
			n++
		}
	}
	if n > 1 {
		log.Printf("callees %q: %s is declared %d times in %s; labelled %s:%d", q, o.Name(), n, path.Dir(l.Path), l.Path, l.Line)
	}
}

// site is a call's line and its caller, the top-level function around it.
type site struct {
	Loc
	Caller string `json:"caller"`
}

type callersEntry struct {
	Corpus string `json:"corpus"`
	Kind   string `json:"kind"`
	Query  string `json:"query"`
	Hint   string `json:"hint"`
	Callee Loc    `json:"callee"`
	Sites  []site `json:"sites"`
}

func (c *corpus) callers(tc *checker, q, hint string) callersEntry {
	d := c.only("callers", q, hint)
	if ast.IsExported(d.name) {
		log.Fatalf("callers %q: %s is exported; its callers may be in any package", q, d.name)
	}
	p := tc.check(d.file.dir, true)
	fd := c.funcDecl("callers", q, p, d)
	target, ok := p.info.Defs[fd.Name].(*types.Func)
	if !ok {
		log.Fatalf("callers %q: %s:%d defines no function", q, d.file.rel, d.line)
	}
	e := callersEntry{Corpus: "goroot", Kind: "callers", Query: q, Hint: hint, Callee: c.declLoc(d), Sites: []site{}}
	for _, rel := range slices.Sorted(maps.Keys(p.files)) {
		for _, x := range p.files[rel].Decls {
			ast.Inspect(x, func(n ast.Node) bool {
				ce, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				id := calledName(ce)
				if id == nil {
					return true
				}
				if o, ok := p.info.Uses[id].(*types.Func); !ok || o.Origin() != target {
					return true
				}
				line := c.line(id.Pos())
				fx, ok := x.(*ast.FuncDecl)
				if !ok {
					log.Fatalf("callers %q: %s:%d calls it outside a function", q, rel, line)
				}
				e.Sites = append(e.Sites, site{Loc: c.loc(rel, line), Caller: funcName(fx)})
				return true
			})
		}
	}
	if len(e.Sites) == 0 {
		log.Fatalf("callers %q: no call sites", q)
	}
	slices.SortFunc(e.Sites, func(a, b site) int {
		if a.Path != b.Path {
			return strings.Compare(a.Path, b.Path)
		}
		return a.Line - b.Line
	})
	// Two calls on a line are one site.
	e.Sites = slices.CompactFunc(e.Sites, func(a, b site) bool { return a.Path == b.Path && a.Line == b.Line })
	c.notBuilt(q, d, p)
	c.logf("callers %q hint %q: %s:%d, %d sites", q, hint, d.file.rel, d.line, len(e.Sites))
	for _, s := range e.Sites {
		c.logf("    %s:%d %s: %s", s.Path, s.Line, s.Caller, s.Text)
	}
	return e
}

// calledName is the identifier a call names (f in f(x), pkg.f(x), x.f(),
// f[T](x)), or nil for a call of anything else.
func calledName(ce *ast.CallExpr) *ast.Ident {
	fun := ast.Unparen(ce.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// funcName is a function's name, or (*T).Name or (T).Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := ast.Unparen(fd.Recv.List[0].Type)
	star := ""
	if _, ok := t.(*ast.StarExpr); ok {
		star = "*"
	}
	return "(" + star + baseName(t) + ")." + fd.Name.Name
}

// notBuilt reports on stderr the files of d's package (and its tests)
// that linux/amd64 does not build but that call something named like d:
// their calls are not labelled.
func (c *corpus) notBuilt(q string, d *decl, p *checked) {
	for _, f := range c.files {
		if f.dir != d.file.dir || f.testdata || p.files[f.rel] != nil || f.pkgName != d.file.pkgName {
			continue
		}
		ast.Inspect(f.f, func(n ast.Node) bool {
			ce, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id := calledName(ce); id != nil && id.Name == d.name {
				log.Printf("callers %q: %s:%d has a call named %s but is not built for linux/amd64; left out", q, f.rel, c.line(id.Pos()), d.name)
			}
			return true
		})
	}
}

type named struct {
	Name string `json:"name"`
	Loc
}

type hierarchyEntry struct {
	Corpus     string  `json:"corpus"`
	Kind       string  `json:"kind"`
	Query      string  `json:"query"`
	Type       Loc     `json:"type"`
	Supertypes []named `json:"supertypes"`
	Subtypes   []named `json:"subtypes"`
}

// embedded returns the type expressions a struct or interface type
// embeds.
func embedded(t ast.Expr) []ast.Expr {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return nil
	}
	var out []ast.Expr
	for _, f := range fields.List {
		if len(f.Names) > 0 {
			continue
		}
		switch f.Type.(type) {
		case *ast.FuncType, *ast.BinaryExpr, *ast.UnaryExpr:
			continue // not an embedding (a type-set element)
		}
		out = append(out, f.Type)
	}
	return out
}

// typeRef resolves an embedded type expression in file f to the
// package-level type declarations it names, aliases followed.
func (c *corpus) typeRef(f *srcFile, e ast.Expr, depth int) []*decl {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.IndexListExpr:
			e = x.X
			continue
		}
		break
	}
	var ds []*decl
	switch x := e.(type) {
	case *ast.Ident:
		ds = c.types[[3]string{f.dir, f.pkgName, x.Name}]
		if ds == nil {
			for _, im := range f.f.Imports {
				if im.Name != nil && im.Name.Name == "." {
					dir := c.importDir(f, im)
					ds = append(ds, c.types[[3]string{dir, c.dirName[dir], x.Name}]...)
				}
			}
		}
		if ds == nil {
			// A predeclared type (error) is declared in builtin/builtin.go.
			ds = c.types[[3]string{"builtin", "builtin", x.Name}]
		}
	case *ast.SelectorExpr:
		q, ok := x.X.(*ast.Ident)
		if !ok {
			return nil
		}
		for _, im := range f.f.Imports {
			dir := c.importDir(f, im)
			name := c.dirName[dir]
			if im.Name != nil {
				name = im.Name.Name
			}
			if name == q.Name && dir != "" {
				ds = append(ds, c.types[[3]string{dir, c.dirName[dir], x.Sel.Name}]...)
			}
		}
	}
	var out []*decl
	for _, d := range ds {
		if d.spec.Assign.IsValid() && depth < 8 {
			out = append(out, c.typeRef(d.file, d.spec.Type, depth+1)...)
		} else {
			out = append(out, d)
		}
	}
	return out
}

// importDir is the directory an import of file f resolves to, or "".
func (c *corpus) importDir(f *srcFile, im *ast.ImportSpec) string {
	p, err := strconv.Unquote(im.Path.Value)
	if err != nil {
		return ""
	}
	if strings.HasPrefix(f.dir, "cmd/") || f.dir == "cmd" {
		if c.hasPath("cmd/vendor/" + p) {
			return "cmd/vendor/" + p
		}
	}
	if c.hasPath("vendor/" + p) {
		return "vendor/" + p
	}
	if c.hasPath(p) {
		return p
	}
	return ""
}

func (c *corpus) hierarchy(q string) hierarchyEntry {
	d := c.only("hierarchy", q, "")
	if d.spec == nil {
		log.Fatalf("hierarchy %q: not a type", q)
	}
	e := hierarchyEntry{Corpus: "goroot", Kind: "hierarchy", Query: q, Type: c.declLoc(d), Supertypes: []named{}, Subtypes: []named{}}
	for _, x := range embedded(d.spec.Type) {
		ds := c.typeRef(d.file, x, 0)
		if len(ds) != 1 {
			log.Fatalf("hierarchy %q: embedded %s resolves to %d declarations", q, types.ExprString(x), len(ds))
		}
		e.Supertypes = append(e.Supertypes, named{Name: ds[0].name, Loc: c.declLoc(ds[0])})
	}
	for _, f := range c.files {
		ast.Inspect(f.f, func(n ast.Node) bool {
			s, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			for _, x := range embedded(s.Type) {
				if !slices.Contains(c.typeRef(f, x, 0), d) {
					continue
				}
				if f.testdata {
					log.Fatalf("hierarchy %q: testdata file %s:%d embeds it", q, f.rel, c.line(s.Name.Pos()))
				}
				e.Subtypes = append(e.Subtypes, named{Name: s.Name.Name, Loc: c.loc(f.rel, c.line(s.Name.Pos()))})
			}
			return true
		})
	}
	slices.SortFunc(e.Subtypes, func(a, b named) int {
		if a.Path != b.Path {
			return strings.Compare(a.Path, b.Path)
		}
		return a.Line - b.Line
	})
	e.Subtypes = slices.Compact(e.Subtypes)
	c.logf("hierarchy %q: %d supertypes, %d subtypes", q, len(e.Supertypes), len(e.Subtypes))
	for _, s := range e.Subtypes {
		c.logf("    %s:%d %s", s.Path, s.Line, s.Text)
	}
	return e
}

// encode writes the entries as a JSON array sorted by kind, query and
// hint: one field of an entry a line, one location or call a line.
func encode(entries []any) ([]byte, error) {
	kindOrder := map[string]int{"def": 0, "callees": 1, "callers": 2, "hierarchy": 3}
	key := func(e any) (int, string, string) {
		switch e := e.(type) {
		case defEntry:
			return kindOrder[e.Kind], e.Query, e.Hint
		case calleesEntry:
			return kindOrder[e.Kind], e.Query, e.Hint
		case callersEntry:
			return kindOrder[e.Kind], e.Query, e.Hint
		case hierarchyEntry:
			return kindOrder[e.Kind], e.Query, ""
		}
		return 0, "", ""
	}
	slices.SortStableFunc(entries, func(a, b any) int {
		ka, qa, ha := key(a)
		kb, qb, hb := key(b)
		if ka != kb {
			return ka - kb
		}
		if qa != qb {
			return strings.Compare(qa, qb)
		}
		return strings.Compare(ha, hb)
	})
	var b bytes.Buffer
	str := func(v any) string {
		var w bytes.Buffer
		enc := json.NewEncoder(&w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			log.Fatal(err)
		}
		return strings.TrimSuffix(w.String(), "\n")
	}
	// obj is a one-line object of name and value pairs.
	obj := func(kv ...string) string {
		var parts []string
		for i := 0; i < len(kv); i += 2 {
			parts = append(parts, str(kv[i])+": "+kv[i+1])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	loc := func(l Loc) string {
		return obj("path", str(l.Path), "line", strconv.Itoa(l.Line), "text", str(l.Text))
	}
	compact := func(v any) string {
		switch v := v.(type) {
		case Loc:
			return loc(v)
		case named:
			return obj("name", str(v.Name), "path", str(v.Path), "line", strconv.Itoa(v.Line), "text", str(v.Text))
		case site:
			return obj("path", str(v.Path), "line", strconv.Itoa(v.Line), "text", str(v.Text), "caller", str(v.Caller))
		case call:
			w := "null"
			if v.Want != nil {
				w = loc(*v.Want)
			}
			return obj("line", strconv.Itoa(v.Line), "name", str(v.Name), "want", w)
		}
		return str(v)
	}
	field := func(name string, v any, last bool) {
		fmt.Fprintf(&b, "    %s: %s", compact(name), compact(v))
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	list := func(name string, n int, item func(i int) any, last bool) {
		fmt.Fprintf(&b, "    %s: [", compact(name))
		if n == 0 {
			b.WriteString("]")
		}
		for i := range n {
			b.WriteString("\n      " + compact(item(i)))
			if i < n-1 {
				b.WriteString(",")
			} else {
				b.WriteString("\n    ]")
			}
		}
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("[\n")
	for i, e := range entries {
		b.WriteString("  {\n")
		switch e := e.(type) {
		case defEntry:
			field("corpus", e.Corpus, false)
			field("kind", e.Kind, false)
			field("query", e.Query, false)
			field("hint", e.Hint, false)
			list("want", len(e.Want), func(i int) any { return e.Want[i] }, true)
		case calleesEntry:
			field("corpus", e.Corpus, false)
			field("kind", e.Kind, false)
			field("query", e.Query, false)
			field("hint", e.Hint, false)
			field("caller", e.Caller, false)
			list("calls", len(e.Calls), func(i int) any { return e.Calls[i] }, true)
		case callersEntry:
			field("corpus", e.Corpus, false)
			field("kind", e.Kind, false)
			field("query", e.Query, false)
			field("hint", e.Hint, false)
			field("callee", e.Callee, false)
			list("sites", len(e.Sites), func(i int) any { return e.Sites[i] }, true)
		case hierarchyEntry:
			field("corpus", e.Corpus, false)
			field("kind", e.Kind, false)
			field("query", e.Query, false)
			field("type", e.Type, false)
			list("supertypes", len(e.Supertypes), func(i int) any { return e.Supertypes[i] }, false)
			list("subtypes", len(e.Subtypes), func(i int) any { return e.Subtypes[i] }, true)
		}
		b.WriteString("  }")
		if i < len(entries)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	var check []json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		return nil, fmt.Errorf("the output is not JSON: %v", err)
	}
	return b.Bytes(), nil
}
