package graph

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// code runs scanLines and returns each line's code, trimmed, with the
// running brace depth after it.
func code(src string, syn *syntax) []string {
	var out []string
	depth := 0
	scanLines([]byte(src), syn, func(n int, c []byte, braces int) bool {
		depth += braces
		out = append(out, strings.TrimSpace(string(c))+"|"+string(rune('0'+depth)))
		return true
	})
	return out
}

func TestScanLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		syn  *syntax
		src  string
		want []string
	}{
		{"c comments", cSyntax, "a /* b\n c */ d // e\n\"/*\" f\n'\"' { g",
			[]string{"a|0", "d|0", `"/*" f|0`, `'"' { g|1`}},
		{"c unclosed string ends with its line", cSyntax, "\"abc\nx {",
			[]string{`"abc|0`, "x {|1"}},
		{"cpp raw string", cSyntax, "a R\"x(b\n#include \"no.h\"\n)x\" c",
			[]string{`a R"x(b|0`, "|0", "c|0"}},
		{"rust nested comments, lifetimes and chars", rustSyntax, "/* a /* b */\nuse no; */ fn f<'a>(x: &'a str) { '{' }\n",
			[]string{"|0", "fn f<'a>(x: &'a str) { '{' }|0"}},
		{"rust escaped quote chars", rustSyntax, "f('\\'', '\\\\', '\\u{7b}'); {",
			[]string{`f('\'', '\\', '\u{7b}'); {|1`}},
		{"byte order mark", javaSyntax, "\ufeffimport a.B;", []string{"import a.B;|0"}},
		{"rust multi-line and raw strings", rustSyntax, "let s = \"a\nuse no;\n\"; let r = r#\"\nmod no;\n\"#; {",
			[]string{`let s = "a|0`, "|0", "; let r = r#\"|0", "|0", "; {|1"}},
		{"java text block", javaSyntax, "String s = \"\"\"\nimport no;\n\"\"\";\nimport yes;",
			[]string{`String s = """|0`, "|0", ";|0", "import yes;|0"}},
		{"csharp verbatim", csSyntax, "var s = @\"a \"\" b\nusing No;\n\";\nusing Yes;",
			[]string{`var s = @"a "" b|0`, "|0", ";|0", "using Yes;|0"}},
		{"php hash comments and strings", phpSyntax, "# use No;\n$a = 'it''s'; // x\nuse Yes;",
			[]string{"|0", "$a = 'it''s';|0", "use Yes;|0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, code(tc.src, tc.syn)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestImportsJunk: every reader takes binary junk, unbalanced quotes and
// comments, and huge lines without panicking or reading a name twice.
func TestImportsJunk(t *testing.T) {
	t.Parallel()
	junk := []string{
		"\x00\xff\xfe#include \"\x00\"\n\x80use \x01;",
		strings.Repeat("/*", 10000) + "\nimport a.b.C;",
		"\"" + strings.Repeat("\\", 9999) + "\nuse crate::{{{{{{{{{{{{a}}}}}}}}}}}};",
		"use crate::" + strings.Repeat("{a,", 5000) + ";",
		"using " + strings.Repeat("A.", 100000) + "B;",
		"#include <" + strings.Repeat("x", 1<<20) + ">",
		"require_relative '" + strings.Repeat("'", 1000),
		"use A\\{" + strings.Repeat("B,", 10000),
		"import a.{" + strings.Repeat("b,", 10000),
		"r#\"" + strings.Repeat("\"#", 100) + "R\"(",
		"'", "\"", "/*", "*/", "@\"", "'\\", "#", "use", "mod", "extern crate", "import", "using", "#include",
	}
	for _, lang := range []string{"java", "kotlin", "scala", "rust", "c", "cpp", "csharp", "ruby", "php"} {
		for _, src := range junk {
			got := Imports(lang, []byte(src))
			for _, im := range got {
				if im.Line < 1 || im.Spec == "" {
					t.Errorf("Imports(%s, %.40q) = bad %+v", lang, src, im)
				}
			}
			if len(got) > maxUseLeaves+2 {
				t.Errorf("Imports(%s, %.40q): %d imports", lang, src, len(got))
			}
		}
	}
}
