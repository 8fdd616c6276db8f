package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		lang, src string
		want      []Name
	}{
		{discover.LangGo, "package p\n\nconst (\n\tA = iota\n\tB\n\t_\n\t// C is not a name\n)\n\nvar x = 1\n\nfunc f() {\n\tconst local = 2\n}\n",
			[]Name{{"A", "const", 4}, {"B", "const", 5}, {"x", "var", 10}}},
		{discover.LangPython, "\"\"\"Doc.\n\nX = not a name\n\"\"\"\nMAX = 3\nlog = get()\nT: int = 1\n\ndef f():\n    inner = 1\nif __name__ == \"__main__\":\n    pass\n",
			[]Name{{"MAX", "const", 5}, {"log", "var", 6}, {"T", "const", 7}}},
		{discover.LangTypeScript, "export const LIMIT = 10;\nlet count: number = 0;\nconst handler = (x) => x;\nfunction f() {\n  const inner = 1;\n}\n",
			[]Name{{"LIMIT", "const", 1}, {"count", "var", 2}}},
		// An import binding is not a definition.
		{discover.LangJavaScript, "var read = require('./read');\nconst { x } = require('y');\nconst m = await import('./m.js');\nvar limit = 10;\n",
			[]Name{{Name: "limit", Kind: "var", Line: 4}}},
		{discover.LangC, "#include \"x.h\"\n#define MAX 3\nstatic int debug = 0;\nstatic unsigned long grow_count;\nstatic const char *names[] = {\n  \"a\", \"b\",\n};\nstruct node;\nextern int other;\nint add(int a, int b);\nint add(int a, int b) {\n  int local = a;\n  return local + b;\n}\n",
			[]Name{{"debug", "var", 3}, {"grow_count", "var", 4}, {"names", "const", 5}}},
		{discover.LangCPP, "namespace geo {\nconstexpr double kEpsilon = 1e-9;\nclass Shape {\n  int x = 0;\n};\n}\n",
			[]Name{{"kEpsilon", "const", 2}}},
		{discover.LangRust, "const X: u32 = 1;", nil},
	} {
		if d := cmp.Diff(tc.want, Names(tc.lang, []byte(tc.src))); d != "" {
			t.Errorf("Names(%s) (-want +got):\n%s", tc.lang, d)
		}
	}
}
