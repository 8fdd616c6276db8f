package graph

import (
	"path"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
)

// Resolution is what an import names inside the repository.
type Resolution struct {
	// Target is the slash path, relative to the root, of the file the
	// import names or of the package directory (Go, "." for the root's
	// own package; a Java wildcard; a C# namespace); "" when it does not
	// resolve inside the repository.
	Target string
	// Internal reports whether the import should resolve inside the
	// repository: a Go path under a module the repository holds (or the
	// standard library's own, or a vendored one), a relative Python or JS
	// import, a Python module whose top package the repository holds,
	// and for the other languages what each resolver's doc says. An
	// internal import with no Target is a broken or unresolvable one.
	Internal bool
}

// Resolver resolves imports against one repository's file list.
type Resolver struct {
	files map[string]bool // every indexed file
	dirs  map[string]bool // every directory holding an indexed file
	// goMods maps a go.mod's directory ("" for the root) to its module
	// path, longest directory first in goModDirs.
	goMods    map[string]string
	goModDirs []string
	// pyRoots are the directories Python absolute imports are looked up
	// from: the root, "src", and every directory that holds a top-level
	// package (a directory with __init__.py whose parent has none).
	pyRoots []string
	pyTop   map[string]bool // top-level package and module names
	more    lookups         // indexes for the other languages, built on first use
}

// NewResolver indexes the repository's files (slash paths relative to the
// root) and go.mod module paths (by the go.mod's directory, "" for the
// root; read by the caller from disk).
func NewResolver(files []string, goMods map[string]string) *Resolver {
	r := &Resolver{files: map[string]bool{}, dirs: map[string]bool{}, goMods: goMods, pyTop: map[string]bool{}}
	for _, f := range files {
		r.files[f] = true
		for d := path.Dir(f); ; d = path.Dir(d) {
			if d == "." {
				d = ""
			}
			if r.dirs[d] {
				break
			}
			r.dirs[d] = true
			if d == "" {
				break
			}
		}
	}
	for d := range goMods {
		r.goModDirs = append(r.goModDirs, d)
	}
	sort.Slice(r.goModDirs, func(i, j int) bool { return len(r.goModDirs[i]) > len(r.goModDirs[j]) })
	roots := map[string]bool{"": true, "src": true, "lib": true}
	for f := range r.files {
		if path.Base(f) != "__init__.py" {
			continue
		}
		pkg := path.Dir(f)
		parent := path.Dir(pkg)
		if parent == "." {
			parent = ""
		}
		if !r.files[join(parent, "__init__.py")] {
			roots[parent] = true
			r.pyTop[path.Base(pkg)] = true
		}
	}
	for d := range roots {
		r.pyRoots = append(r.pyRoots, d)
	}
	sort.Strings(r.pyRoots)
	for f := range r.files {
		if strings.HasSuffix(f, ".py") {
			for _, root := range r.pyRoots {
				if rel, ok := under(root, f); ok && !strings.Contains(rel, "/") {
					r.pyTop[strings.TrimSuffix(rel, ".py")] = true
				}
			}
		}
	}
	return r
}

// Resolve resolves one import of the file from (a slash path relative to
// the root) written in lang.
func (r *Resolver) Resolve(from, lang, spec string) Resolution {
	switch lang {
	case discover.LangGo:
		return r.resolveGo(from, spec)
	case discover.LangPython:
		return r.resolvePython(from, spec)
	case discover.LangJavaScript, discover.LangTypeScript, discover.LangTSX:
		return r.resolveJS(from, spec)
	case discover.LangJava, discover.LangKotlin, discover.LangScala:
		return r.resolveJVM(from, lang, spec)
	case discover.LangRust:
		return r.resolveRust(from, spec)
	case discover.LangC, discover.LangCPP:
		return r.resolveInclude(from, spec)
	case discover.LangCSharp:
		return r.resolveCSharp(from, spec)
	case discover.LangRuby:
		return r.resolveRuby(from, spec)
	case discover.LangPHP:
		return r.resolvePHP(from, spec)
	}
	return Resolution{}
}

// resolveGo maps an import path to a package directory: through the
// go.mod that holds the importing file (its module path, its vendor
// directory), then through every other module in the repository. A
// module named "std" or "cmd" (the Go source tree) holds every path
// that is a directory below it.
func (r *Resolver) resolveGo(from, spec string) Resolution {
	if spec == "C" {
		return Resolution{}
	}
	home, hasHome := r.goModOf(from)
	if hasHome {
		if d := join(join(home, "vendor"), spec); r.dirs[d] {
			return Resolution{Target: d, Internal: true}
		}
	}
	for _, d := range r.goModDirs {
		mod := r.goMods[d]
		switch {
		case spec == mod:
			if d == "" {
				d = "." // the root package
			}
			return Resolution{Target: d, Internal: true}
		case hasDirPrefix(spec, mod):
			t := join(d, strings.TrimPrefix(spec, mod+"/"))
			return Resolution{Target: dirOrEmpty(r, t), Internal: true}
		case mod == "std" || mod == "cmd":
			if t := join(d, spec); r.dirs[t] && (mod == "std" || strings.HasPrefix(spec, "cmd/")) {
				return Resolution{Target: t, Internal: true}
			}
		}
	}
	if hasHome && r.goMods[home] == "std" && !strings.Contains(strings.SplitN(spec, "/", 2)[0], ".") {
		// A standard-library path the tree does not hold.
		return Resolution{Internal: true}
	}
	return Resolution{}
}

func dirOrEmpty(r *Resolver, d string) string {
	if r.dirs[d] {
		return d
	}
	return ""
}

// goModOf returns the directory of the go.mod that holds file.
func (r *Resolver) goModOf(file string) (string, bool) {
	// The innermost go.mod directory above file, found by walking up
	// its directories: a scan of every go.mod directory with a string
	// built for each was O(imports × modules), 2.6 s of the import
	// resolution of ten copies of the Go standard library (200 go.mod
	// files, 250k imports).
	for d := file; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			break
		}
		d = d[:i]
		if _, ok := r.goMods[d]; ok {
			return d, true
		}
	}
	_, ok := r.goMods[""]
	return "", ok
}

// hasDirPrefix reports whether the slash path p lies below dir
// (strings.HasPrefix(p, dir+"/") without building the string).
func hasDirPrefix(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// resolvePython maps a module to a file: relative imports from the
// importing file's package, absolute ones from each Python root; a
// module is mod.py or mod/__init__.py. "from pkg import name" may name a
// submodule, which the statement's module resolution cannot see, so
// only the module itself is resolved.
func (r *Resolver) resolvePython(from, spec string) Resolution {
	if strings.HasPrefix(spec, ".") {
		dots := len(spec) - len(strings.TrimLeft(spec, "."))
		base := path.Dir(from)
		if base == "." {
			base = ""
		}
		for range dots - 1 {
			base = path.Dir(base)
			if base == "." {
				base = ""
			}
		}
		rest := strings.TrimLeft(spec, ".")
		return Resolution{Target: r.pyModule(base, rest), Internal: true}
	}
	top, _, _ := strings.Cut(spec, ".")
	internal := r.pyTop[top]
	for _, root := range r.pyRoots {
		if t := r.pyModule(root, spec); t != "" {
			return Resolution{Target: t, Internal: true}
		}
	}
	return Resolution{Internal: internal}
}

// pyModule finds module (dotted, possibly empty) below dir.
func (r *Resolver) pyModule(dir, module string) string {
	p := join(dir, strings.ReplaceAll(module, ".", "/"))
	if module != "" && r.files[p+".py"] {
		return p + ".py"
	}
	if r.files[join(p, "__init__.py")] {
		return join(p, "__init__.py")
	}
	if module != "" && r.files[p+".pyi"] {
		return p + ".pyi"
	}
	return ""
}

// besideFile resolves rel against the importing file's directory: to the
// file when the repository has it; otherwise the import is still internal
// (a relative path names the project's own code) but resolves to nothing,
// as when it leaves the repository.
func (r *Resolver) besideFile(from, rel string) Resolution {
	t := path.Join(path.Dir(from), rel)
	if strings.HasPrefix(t, "../") || !r.files[t] {
		return Resolution{Internal: true}
	}
	return Resolution{Target: t, Internal: true}
}

// jsExts are tried, in order, after a relative specifier without a
// known extension, and as index files of a directory.
var jsExts = []string{".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// resolveJS maps a relative specifier to a file: as written, with each
// extension, with a .js written for a .ts source, or as a directory's
// index file. Bare specifiers (packages) are outside the repository.
func (r *Resolver) resolveJS(from, spec string) Resolution {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return Resolution{}
	}
	p := path.Join(path.Dir(from), spec)
	if strings.HasPrefix(p, "../") || p == ".." {
		return Resolution{Internal: true}
	}
	if p == "." {
		p = ""
	}
	if r.files[p] {
		return Resolution{Target: p, Internal: true}
	}
	stem := p
	for _, js := range []string{".js", ".jsx", ".mjs", ".cjs"} {
		if s, ok := strings.CutSuffix(p, js); ok {
			stem = s
		}
	}
	for _, ext := range jsExts {
		if r.files[stem+ext] {
			return Resolution{Target: stem + ext, Internal: true}
		}
	}
	for _, ext := range jsExts {
		if f := join(p, "index"+ext); r.files[f] {
			return Resolution{Target: f, Internal: true}
		}
	}
	return Resolution{Internal: true}
}

func join(dir, rel string) string {
	if dir == "" {
		return rel
	}
	if rel == "" {
		return dir
	}
	return dir + "/" + rel
}

// under reports whether p lies below dir ("" is the root) and returns
// its path relative to dir.
func under(dir, p string) (string, bool) {
	if dir == "" {
		return p, true
	}
	return strings.CutPrefix(p, dir+"/")
}

// ModulePath returns the module path a go.mod declares ("" when it
// declares none): the argument of its module directive, unquoted.
func ModulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}
