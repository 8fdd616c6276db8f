// Package graph extracts the code graph ctx stores beside the chunks:
// import statements and, resolved against the repository's own files,
// which file or package directory each one names.
package graph

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Import is one import statement's target as written.
type Import struct {
	// Spec is the imported name as written: a Go import path
	// ("net/http"), a Python module ("pkg.mod", ".sibling", "..parent.x"),
	// a JavaScript/TypeScript specifier ("./util", "react"), a Java,
	// Kotlin or Scala name ("a.b.C", "a.b.*"), a Rust path
	// ("crate::a::B", "mod name", "extern crate name"), a C or C++
	// include with its delimiters (`"x.h"`, "<x.h>"), a C# namespace or
	// type ("A.B"), a Ruby require ("./x" for require_relative "x"), a PHP
	// name (`A\B`, `function A\f`) or require path ("__DIR__/x.php").
	// Groups are one Import per name; each reader's doc gives the rest.
	Spec string
	Line int // 1-based
}

// Imports returns the import statements of a file of the given language
// (discover.Lang* ids), in source order. Go is read with go/parser (the
// import block only), the others with line patterns that follow their
// import grammars; for Java, Kotlin, Scala, Rust, C, C++, C#, Ruby and
// PHP the patterns see only code, comments and strings that span lines
// blanked out by a small lexer. Other languages return nil. A file
// that does not parse returns what was read before the error.
func Imports(lang string, src []byte) []Import {
	switch lang {
	case discover.LangGo:
		return goImports(src)
	case discover.LangPython:
		return pythonImports(src)
	case discover.LangJavaScript, discover.LangTypeScript, discover.LangTSX:
		return jsImports(src)
	case discover.LangJava:
		return jvmImports(src, javaSyntax)
	case discover.LangKotlin:
		return jvmImports(src, kotlinSyntax)
	case discover.LangScala:
		return scalaImports(src)
	case discover.LangRust:
		return rustImports(src)
	case discover.LangC, discover.LangCPP:
		return includes(src)
	case discover.LangCSharp:
		return csharpUsings(src)
	case discover.LangRuby:
		return rubyRequires(src)
	case discover.LangPHP:
		return phpImports(src)
	}
	return nil
}

func goImports(src []byte) []Import {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	out := make([]Import, 0, len(f.Imports))
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil || p == "" {
			continue
		}
		out = append(out, Import{Spec: p, Line: fset.Position(is.Path.Pos()).Line})
	}
	return out
}

var (
	// pyImport: "import a.b as c, d" (the names after import).
	pyImport = lazyre.New(`^import\s+(.+)$`)
	// pyFrom: "from .a.b import (x, y)" (the module before import).
	pyFrom = lazyre.New(`^from\s+(\.*[\w.]*)\s+import\b`)
)

// pythonImports reads import and from-import statements at any
// indentation (imports inside functions and try blocks count), skipping
// strings that span lines so docstrings with "import" in them do not.
func pythonImports(src []byte) []Import {
	var out []Import
	inString := ""
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if inString != "" {
			if strings.Contains(t, inString) {
				inString = ""
			}
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(t, q)%2 == 1 {
				inString = q
			}
		}
		if inString != "" {
			continue
		}
		if m := pyFrom().FindStringSubmatch(t); m != nil {
			out = append(out, Import{Spec: m[1], Line: i + 1})
			continue
		}
		if m := pyImport().FindStringSubmatch(t); m != nil {
			for _, part := range strings.Split(m[1], ",") {
				name, _, _ := strings.Cut(strings.TrimSpace(part), " ")
				name = strings.Trim(name, "()\\ ")
				if name != "" && validPyModule(name) {
					out = append(out, Import{Spec: name, Line: i + 1})
				}
			}
		}
	}
	return out
}

var pyModule = lazyre.New(`^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$`)

func validPyModule(s string) bool { return pyModule().MatchString(s) }

var (
	// jsFrom: import/export ... from "spec" (the from may end a
	// multi-line import), and side-effect imports: import "spec".
	jsFrom = lazyre.New(`(?:^|[\s}*])from\s*["']([^"']+)["']|^import\s*["']([^"']+)["']`)
	// jsCall: require("spec"), import("spec").
	jsCall = lazyre.New(`\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)`)
)

// jsImports reads ES module imports and re-exports, CommonJS require and
// dynamic import() calls with literal specifiers.
func jsImports(src []byte) []Import {
	var out []Import
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") {
			continue
		}
		for _, m := range jsFrom().FindAllStringSubmatch(t, -1) {
			spec := m[1] + m[2]
			out = append(out, Import{Spec: spec, Line: i + 1})
		}
		for _, m := range jsCall().FindAllStringSubmatch(t, -1) {
			out = append(out, Import{Spec: m[1], Line: i + 1})
		}
	}
	return out
}
