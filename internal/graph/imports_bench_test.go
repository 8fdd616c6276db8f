// Benchmarks for import extraction, the per-file cost an index run pays:
//
//	go test -run='^$' -bench=Imports -benchmem ./internal/graph
package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
)

// benchSource writes a file of about lines lines in lang: a block of
// imports, then code with comments, strings and braces.
func benchSource(lang string, lines int) []byte {
	var head, body string
	switch lang {
	case discover.LangJava:
		head = "import com.example.pkg%d.Type%d;\n"
		body = "    // comment %d\n    String s%d = \"text /* not a comment */\"; if (x) { y('c'); }\n"
	case discover.LangRust:
		head = "use crate::module%d::{Type%d, other};\n"
		body = "    /* comment %d */ let s%d = \"text // no\"; if x { f::<'a>('c'); }\n"
	case discover.LangC:
		head = "#include \"dir%d/header%d.h\"\n"
		body = "    /* comment %d */ char *s%d = \"text // no\"; if (x) { y('c'); }\n"
	case discover.LangCSharp:
		head = "using Company.Product%d.Area%d;\n"
		body = "    // comment %d\n    var s%d = @\"verbatim \"\" text\"; if (x) { Y('c'); }\n"
	}
	var b strings.Builder
	b.WriteString("/* License header\n * spanning lines\n */\n")
	for i := range min(lines/10, 50) {
		fmt.Fprintf(&b, head, i, i)
	}
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, body, i, i)
	}
	return []byte(b.String())
}

func BenchmarkImports(b *testing.B) {
	for _, lang := range []string{discover.LangJava, discover.LangRust, discover.LangC, discover.LangCSharp} {
		for _, lines := range []int{100, 10000} {
			src := benchSource(lang, lines)
			b.Run(fmt.Sprintf("lang=%s/lines=%d", lang, lines), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(src)))
				var n int
				for b.Loop() {
					n = len(Imports(lang, src))
				}
				b.ReportMetric(float64(n), "imports/op")
			})
		}
	}
}
