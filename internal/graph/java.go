package graph

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// jvmImport: "import [static] a.b.C[.*]" with an optional ";" (Java)
	// or " as Alias" (Kotlin) after it.
	jvmImport = lazyre.New(`^import\s+(?:static\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)(\s*\.\s*\*)?\s*(?:;|\bas\b|$)`)
	// scalaImport: "import a.b.C", "import a.b._", "import a.b.{C, D => E}",
	// several of them comma-separated.
	scalaImport = lazyre.New(`^import\s+(.+)$`)
)

// jvmImports reads the import statements of a Java or Kotlin file.
// Both languages put them before the first declaration, so reading
// stops at the first line that is not a package, import or annotation.
func jvmImports(src []byte, syn *syntax) []Import {
	var out []Import
	scanLines(src, syn, func(n int, code []byte, _ int) bool {
		t := bytes.TrimSpace(code)
		switch {
		case len(t) == 0 || t[0] == ';' || t[0] == '@' || n == 1 && bytes.HasPrefix(t, []byte("#!")):
			return true
		case bytes.HasPrefix(t, []byte("package")):
			return true
		case !bytes.HasPrefix(t, []byte("import")):
			return false
		}
		t = bytes.ReplaceAll(t, []byte("`"), nil) // Kotlin's quoted names
		if m := jvmImport().FindSubmatch(t); m != nil {
			spec := stripSpace(string(m[1]))
			if len(m[2]) > 0 {
				spec += ".*"
			}
			out = append(out, Import{Spec: spec, Line: n})
		}
		return true
	})
	return out
}

// scalaImports reads Scala imports, which may appear anywhere (in
// classes and blocks too) and group names in braces; each name in a
// group is one Import, renames and wildcards ("_", "*", "given") name
// the package.
func scalaImports(src []byte) []Import {
	var out []Import
	var pending []byte // an import whose braces close on a later line
	start := 0
	emit := func(s []byte, n int) {
		for _, spec := range scalaSpecs(stripSpace(strings.ReplaceAll(string(s), "`", ""))) {
			out = append(out, Import{Spec: spec, Line: n})
		}
	}
	scanLines(src, kotlinSyntax, func(n int, code []byte, _ int) bool {
		t := bytes.TrimSpace(code)
		if pending != nil {
			pending = append(append(pending, ' '), t...)
			if bytes.Count(pending, []byte("{")) <= bytes.Count(pending, []byte("}")) {
				emit(pending, start)
				pending = nil
			} else if len(pending) > maxStatement {
				pending = nil
			}
			return true
		}
		if !bytes.HasPrefix(t, []byte("import")) {
			return true
		}
		m := scalaImport().FindSubmatch(t)
		if m == nil {
			return true
		}
		if bytes.Count(m[1], []byte("{")) > bytes.Count(m[1], []byte("}")) {
			pending, start = append([]byte(nil), m[1]...), n
			return true
		}
		emit(m[1], n)
		return true
	})
	return out
}

// scalaSpecs expands "a.b.{C, D => E, _}, x.Y" (spaces removed) into
// dotted names, "a.b.*" for a wildcard; anything else is dropped.
func scalaSpecs(s string) []string {
	var out []string
	for _, part := range splitTop(s, ',') {
		prefix, group, ok := strings.Cut(part, "{")
		if !ok {
			prefix, group = part, ""
		} else {
			group = strings.TrimSuffix(group, "}")
		}
		prefix = strings.TrimSuffix(prefix, ".")
		if group == "" {
			if name := scalaName(prefix); name != "" {
				out = append(out, name)
			}
			continue
		}
		for _, g := range strings.Split(group, ",") {
			g, _, _ = strings.Cut(g, "=>")
			if name := scalaName(prefix + "." + g); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

var scalaDotted = lazyre.New(`^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$`)

// scalaName normalises one imported name: a trailing "._", ".*" or
// ".given" becomes ".*".
func scalaName(s string) string {
	for _, w := range []string{"._", ".*", ".given"} {
		if p, ok := strings.CutSuffix(s, w); ok {
			if scalaDotted().MatchString(p) {
				return p + ".*"
			}
			return ""
		}
	}
	if scalaDotted().MatchString(s) {
		return s
	}
	return ""
}

// resolveJVM maps a Java, Kotlin or Scala import to a file or a package
// directory by the source-root convention: a.b.C is a/b/C.java (or .kt,
// .scala) below any directory, the candidate nearest the importing file
// winning. A static import or a nested class (a.b.C.m, a.b.C.Inner)
// resolves to the longest prefix that names a class file, and a
// wildcard to the package directory. Kotlin and Scala files need not be
// named after a class, so their imports that name no class file
// resolve to the package directory. The import is internal when the
// repository holds a source directory that ends in the first three
// (or all, when fewer) segments of the imported package.
func (r *Resolver) resolveJVM(from, lang, spec string) Resolution {
	r.jvm()
	wild := strings.HasSuffix(spec, ".*")
	segs := strings.Split(strings.TrimSuffix(spec, ".*"), ".")
	if wild {
		if d := r.jvmDir(from, segs); d != "" {
			return Resolution{Target: d, Internal: true}
		}
	}
	exts := []string{".java", ".kt", ".scala"}
	switch lang {
	case discover.LangKotlin:
		exts = []string{".kt", ".java"}
	case discover.LangScala:
		exts = []string{".scala", ".java"}
	}
	for k := len(segs); k >= 2; k-- {
		if k < len(segs) && !startsUpper(segs[k-1]) {
			break // a.b.c.D names no class a/b/c.java
		}
		rel := strings.Join(segs[:k], "/")
		for _, ext := range exts {
			if f := closest(from, r.suffixFiles(rel+ext)); f != "" {
				return Resolution{Target: f, Internal: true}
			}
		}
	}
	if lang != discover.LangJava && !wild && len(segs) > 1 {
		if d := r.jvmDir(from, segs[:len(segs)-1]); d != "" {
			return Resolution{Target: d, Internal: true}
		}
	}
	pkg := segs
	for i, s := range segs {
		if startsUpper(s) {
			pkg = segs[:i]
			break
		}
	}
	if !wild && len(pkg) == len(segs) {
		pkg = segs[:len(segs)-1] // a.b.function
	}
	pkg = pkg[:min(3, len(pkg))]
	return Resolution{Internal: len(pkg) > 0 && r.jvmDir(from, pkg) != ""}
}

// jvmDir returns the source directory nearest from whose path ends in
// the package segs.
func (r *Resolver) jvmDir(from string, segs []string) string {
	return closest(from, r.suffixDirs(strings.Join(segs, "/"), func(d string) bool { return r.more.jvmDirs[d] }))
}

func (r *Resolver) jvm() {
	r.more.jvmOnce.Do(func() {
		r.more.jvmDirs = map[string]bool{}
		for f := range r.files {
			switch path.Ext(f) {
			case ".java", ".kt", ".scala":
			default:
				continue
			}
			for d := parentDir(f); d != "" && !r.more.jvmDirs[d]; d = parentDir(d) {
				r.more.jvmDirs[d] = true
			}
		}
	})
}

func startsUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// stripSpace removes ASCII white space.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\r") {
		return s
	}
	return strings.Map(func(c rune) rune {
		if c == ' ' || c == '\t' || c == '\r' {
			return -1
		}
		return c
	}, s)
}

// splitTop splits s at sep outside brackets of any kind.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
