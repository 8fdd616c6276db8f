package graph

import (
	"bytes"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// rustItem: the start of a use, mod or extern crate item, after
	// outer attributes and a visibility.
	rustItem = lazyre.New(`^(?:#!?\[[^\]]*\]\s*)*(?:pub\s*(?:\([^)]*\)\s*)?)?(use|mod|extern\s+crate)\s+`)
	// rustPathAttr: a line holding only #[path = "file.rs"].
	rustPathAttr = lazyre.New(`^#\[\s*path\s*=\s*"([^"\\]+)"\s*\]$`)
	rustAttr     = lazyre.New(`^#!?\[`)
	rustModDecl  = lazyre.New(`^(?:r#)?([A-Za-z_]\w*)\s*([;{])`)
	rustCrateRef = lazyre.New(`^(?:r#)?([A-Za-z_]\w*)\s*(?:as\s+\w+\s*)?;`)
	rustAs       = lazyre.New(`\s+as\s+(?:r#)?\w+`)
	rustSegment  = lazyre.New(`^(?:r#)?[A-Za-z_]\w*$`)
)

// rustImports reads use declarations (a group such as
// "use crate::a::{b, c::d};" is one Import per name, a rename keeps the
// path, a glob keeps its "::*"), file module declarations (Spec
// "mod name", or `mod "file.rs"` under a #[path] attribute) and extern
// crate items (Spec "extern crate name"). Items inside an inline
// "mod m { ... }" are rewritten relative to the file's own module, so
// that a test module's "use super::*" reads "self::*" and its
// "mod helper;" reads "mod m::helper". Only items that start a line
// are read.
func rustImports(src []byte) []Import {
	var (
		out     []Import
		depth   int // brace depth after the previous line
		mods    []rustInline
		attr    string // a #[path] attribute on the line before
		pending []byte // a use item whose ";" is on a later line
		pendAt  int
		pendIn  []string
	)
	emitUse := func(tree []byte, n int, in []string) {
		for _, spec := range rustUseSpecs(string(tree)) {
			out = append(out, Import{Spec: rustRebase(spec, in), Line: n})
		}
	}
	scanLines(src, rustSyntax, func(n int, code []byte, braces int) bool {
		t := bytes.TrimSpace(code)
		switch {
		case pending != nil:
			pending = append(append(pending, ' '), t...)
			if i := bytes.IndexByte(pending, ';'); i >= 0 {
				emitUse(pending[:i], pendAt, pendIn)
				pending = nil
			} else if len(pending) > maxStatement {
				pending = nil
			}
		case len(t) == 0:
		case bytes.HasPrefix(t, []byte("#[path")) && rustPathAttr().Match(t):
			attr = string(rustPathAttr().FindSubmatch(t)[1])
		default:
			var loc []int
			if strings.IndexByte("#pume", t[0]) >= 0 { // the letters items start with
				loc = rustItem().FindSubmatchIndex(t)
			}
			if loc == nil {
				if !rustAttr().Match(t) {
					attr = ""
				}
				break
			}
			kind, rest := string(t[loc[2]:loc[3]]), t[loc[1]:]
			in := inlineNames(mods)
			switch {
			case kind == "use":
				if i := bytes.IndexByte(rest, ';'); i >= 0 {
					emitUse(rest[:i], n, in)
				} else {
					pending, pendAt, pendIn = append([]byte(nil), rest...), n, in
				}
			case kind == "mod":
				m := rustModDecl().FindSubmatch(rest)
				if m == nil {
					break
				}
				name := string(m[1])
				switch {
				case m[2][0] == '{':
					mods = append(mods, rustInline{name: name, depth: depth + 1})
				case attr != "" && len(in) == 0:
					out = append(out, Import{Spec: "mod " + strconv.Quote(attr), Line: n})
				default:
					out = append(out, Import{Spec: "mod " + strings.Join(append(in, name), "::"), Line: n})
				}
			default: // extern crate
				if m := rustCrateRef().FindSubmatch(rest); m != nil && string(m[1]) != "self" {
					out = append(out, Import{Spec: "extern crate " + string(m[1]), Line: n})
				}
			}
			attr = ""
		}
		depth += braces
		for len(mods) > 0 && depth < mods[len(mods)-1].depth {
			mods = mods[:len(mods)-1]
		}
		return true
	})
	return out
}

// rustInline is an open inline module: its name and the brace depth of
// its body.
type rustInline struct {
	name  string
	depth int
}

func inlineNames(mods []rustInline) []string {
	if len(mods) == 0 {
		return nil
	}
	out := make([]string, len(mods))
	for i, m := range mods {
		out[i] = m.name
	}
	return out
}

// rustRebase rewrites a self:: or super:: path written inside the inline
// modules in (outermost first) relative to the file's module.
func rustRebase(spec string, in []string) string {
	if len(in) == 0 {
		return spec
	}
	segs := strings.Split(spec, "::")
	switch segs[0] {
	case "self":
		return strings.Join(append(append([]string{"self"}, in...), segs[1:]...), "::")
	case "super":
		s := 0
		for s < len(segs) && segs[s] == "super" {
			s++
		}
		if s > len(in) {
			return strings.Join(segs[len(in):], "::")
		}
		return strings.Join(append(append([]string{"self"}, in[:len(in)-s]...), segs[s:]...), "::")
	}
	return spec
}

// rustUseSpecs expands a use tree (the text between "use" and ";") into
// the paths it names.
func rustUseSpecs(tree string) []string {
	tree = stripSpace(rustAs().ReplaceAllString(tree, ""))
	var out []string
	seen := map[string]bool{}
	var expand func(prefix, t string, depth int)
	expand = func(prefix, t string, depth int) {
		if t == "" || depth > 8 || len(out) >= maxUseLeaves {
			return
		}
		i := strings.IndexByte(t, '{')
		if i < 0 {
			if p := prefix + t; validRustPath(p) && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return
		}
		if !strings.HasSuffix(t, "}") {
			return
		}
		head := t[:i]
		if head != "" && !strings.HasSuffix(head, "::") {
			return
		}
		base := prefix + strings.TrimSuffix(head, "::")
		for _, part := range splitTop(t[i+1:len(t)-1], ',') {
			switch {
			case part == "self":
				if validRustPath(base) && !seen[base] {
					seen[base] = true
					out = append(out, base)
				}
			case base == "":
				expand("", part, depth+1)
			default:
				expand(base+"::", part, depth+1)
			}
		}
	}
	expand("", tree, 0)
	return out
}

// validRustPath accepts a::b, ::a::b and a::*; $crate paths (macros) and
// anything unparsed fail.
func validRustPath(p string) bool {
	p = strings.TrimPrefix(p, "::")
	segs := strings.Split(p, "::")
	for i, s := range segs {
		if s == "*" && i == len(segs)-1 && i > 0 {
			continue
		}
		if !rustSegment().MatchString(s) {
			return false
		}
	}
	return true
}

// rustMod places a file in its crate's module tree.
type rustMod struct {
	base string   // the directory module paths start from
	root string   // the crate root file; "" when it is not known
	path []string // the file's module path from the crate root
}

// rustSpecialRoots are directories, relative to a crate's, whose .rs
// files are each a crate root (binaries, tests, examples, benchmarks).
var rustSpecialRoots = []string{"src/bin", "tests", "examples", "benches"}

// rustModOf finds file's crate root by Cargo's layout conventions: the
// crate is the nearest directory holding a Cargo.toml; lib.rs or
// main.rs in the nearest directory up to it that holds one is the root
// (src/ in the default layout), and every file directly in src/bin,
// tests, examples or benches (or such a directory's main.rs) is a root
// of its own. A crate's Cargo.toml is not read, so custom [lib] paths
// are seen only when they keep to these names.
func (r *Resolver) rustModOf(file string) rustMod {
	crate := ""
	for d := parentDir(file); ; d = parentDir(d) {
		if r.more.cargoDirs[d] {
			crate = d
			break
		}
		if d == "" {
			break
		}
	}
	dir := parentDir(file)
	rel, _ := under(crate, dir)
	if crate == "" {
		rel = dir
	}
	base := path.Base(file)
	isRoot := func(b string) rustMod { return rustMod{base: b, root: file} }
	for _, sr := range rustSpecialRoots {
		if rel == sr {
			return isRoot(dir)
		}
		if sub, ok := under(sr, rel); ok {
			top := join(join(crate, sr), strings.SplitN(sub, "/", 2)[0])
			if dir == top && base == "main.rs" {
				return isRoot(dir)
			}
			// A binary's own directory, or modules of the directory's
			// crate roots (tests/common/mod.rs): their root is not known.
			m := rustMod{base: join(crate, sr)}
			if r.files[join(top, "main.rs")] {
				m.base, m.root = top, join(top, "main.rs")
			}
			m.path = rustModPath(m.base, file)
			return m
		}
	}
	if rel == "" && base == "build.rs" {
		return isRoot(dir)
	}
	m := rustMod{base: join(crate, "src")}
	for d := dir; ; d = parentDir(d) {
		lib, main := r.files[join(d, "lib.rs")], r.files[join(d, "main.rs")]
		if lib || main {
			if file == join(d, "lib.rs") || file == join(d, "main.rs") {
				return isRoot(d)
			}
			m.base, m.root = d, join(d, "main.rs")
			if lib {
				m.root = join(d, "lib.rs")
			}
			break
		}
		if d == crate || d == "" {
			break
		}
	}
	if _, ok := under(m.base, file); !ok {
		m.base = dir
	}
	m.path = rustModPath(m.base, file)
	return m
}

// rustModPath is the module path of file below base: a/b.rs and
// a/b/mod.rs are [a b].
func rustModPath(base, file string) []string {
	rel, _ := under(base, file)
	rel = strings.TrimSuffix(rel, ".rs")
	if rel == "mod" {
		return nil
	}
	rel = strings.TrimSuffix(rel, "/mod")
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

// file returns the file holding module segs of m: a.rs or a/mod.rs, the
// crate root for the empty path, "" for none.
func (r *Resolver) rustFile(m rustMod, segs []string) string {
	if len(segs) == 0 {
		return m.root
	}
	p := join(m.base, strings.Join(segs, "/"))
	if r.files[p+".rs"] {
		return p + ".rs"
	}
	if r.files[p+"/mod.rs"] {
		return p + "/mod.rs"
	}
	return ""
}

// rustLongest resolves module path segs to the file of its longest
// prefix (at least min segments long) that is a file: what follows the
// module is an item defined in it.
func (r *Resolver) rustLongest(m rustMod, segs []string, min int) Resolution {
	for k := len(segs); k >= min; k-- {
		if f := r.rustFile(m, segs[:k]); f != "" {
			return Resolution{Target: f, Internal: true}
		}
	}
	return Resolution{Internal: true}
}

// resolveRust maps a use path, a module declaration or an extern crate
// to the file of the module it names (the nearest enclosing module that
// is a file when the path goes on to an item or an inline module).
// crate::, self:: and super:: paths, and "mod" declarations, are
// internal. Any other path starts with a crate name or (Rust 2018) a
// child module of the importing one: a child module file resolves,
// and a crate name is internal when a directory in the repository
// holding a Cargo.toml has that name: the one [Resolver.SetCrateNames]
// gave, else the directory's ("-" read as "_"). Rust 2015
// crate-relative use paths are not followed, nor paths through names
// in scope that are not crates or module files (a local enum's
// variants, an inline module's items).
func (r *Resolver) resolveRust(from, spec string) Resolution {
	r.rust()
	m := r.rustModOf(from)
	if rest, ok := strings.CutPrefix(spec, "mod "); ok {
		if p, err := strconv.Unquote(rest); err == nil {
			return r.besideFile(from, p)
		}
		full := append(append([]string(nil), m.path...), strings.Split(rest, "::")...)
		return Resolution{Target: r.rustFile(m, full), Internal: true}
	}
	if name, ok := strings.CutPrefix(spec, "extern crate "); ok {
		return r.rustCrate(name, nil)
	}
	segs := strings.Split(strings.TrimSuffix(spec, "::*"), "::")
	if segs[0] == "" { // ::name, a crate
		return r.rustCrate(segs[1], segs[2:])
	}
	switch segs[0] {
	case "crate":
		return r.rustLongest(m, segs[1:], 0)
	case "self":
		return r.rustLongest(m, append(append([]string(nil), m.path...), segs[1:]...), len(m.path))
	case "super":
		s := 0
		for s < len(segs) && segs[s] == "super" {
			s++
		}
		if s > len(m.path) {
			return Resolution{Internal: true}
		}
		up := m.path[:len(m.path)-s]
		return r.rustLongest(m, append(append([]string(nil), up...), segs[s:]...), len(up))
	}
	child := append(append([]string(nil), m.path...), segs...)
	if r.rustFile(m, child[:len(m.path)+1]) != "" {
		return r.rustLongest(m, child, len(m.path)+1)
	}
	return r.rustCrate(segs[0], segs[1:])
}

// rustCrate resolves a path into the library of the repository's crate
// named name; not internal when there is none.
func (r *Resolver) rustCrate(name string, rest []string) Resolution {
	dir, ok := r.more.rustCrates[name]
	if !ok {
		return Resolution{}
	}
	m := rustMod{base: join(dir, "src")}
	for _, root := range []string{join(dir, "src/lib.rs"), join(dir, "lib.rs")} {
		if r.files[root] {
			m.root, m.base = root, parentDir(root)
			break
		}
	}
	return r.rustLongest(m, rest, 0)
}

// SetCrateNames gives the library crate names the repository's
// Cargo.toml files declare (see [CrateName]), by the manifest's
// directory ("" for the root). Call it before the first Resolve.
// Without it, a crate is known by its directory's name, and a root one
// not at all.
func (r *Resolver) SetCrateNames(names map[string]string) {
	r.more.crateNames = names
}

func (r *Resolver) rust() {
	r.more.rustOnce.Do(func() {
		m := &r.more
		m.cargoDirs = map[string]bool{}
		m.rustCrates = map[string]string{}
		var dirs []string
		for f := range r.files {
			if path.Base(f) == "Cargo.toml" {
				d := parentDir(f)
				m.cargoDirs[d] = true
				dirs = append(dirs, d)
			}
		}
		sort.Strings(dirs) // the first directory of a name wins
		for _, d := range dirs {
			name := m.crateNames[d]
			if m.crateNames == nil && d != "" {
				name = path.Base(d)
			}
			name = strings.ReplaceAll(name, "-", "_")
			if _, dup := m.rustCrates[name]; name != "" && !dup {
				m.rustCrates[name] = d
			}
		}
	})
}

// CrateName returns the name the library of a Cargo.toml is used by in
// Rust paths: its [lib] name, else its [package] name, with "-" read
// as "_"; "" for a manifest without either (a virtual workspace).
func CrateName(cargoToml []byte) string {
	section, pkg, lib := "", "", ""
	for _, line := range strings.Split(string(cargoToml), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "name" {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch section {
		case "package":
			pkg = v
		case "lib":
			lib = v
		}
	}
	if lib == "" {
		lib = pkg
	}
	lib = strings.ReplaceAll(lib, "-", "_")
	if !rustSegment().MatchString(lib) {
		return ""
	}
	return lib
}
