package engine

import (
	"strings"
	"testing"
)

// TestRefKind: a name followed by "(" is a call unless the line
// declares it (a prototype, an abstract method, an overload signature).
func TestRefKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, lang, line, sym, want string
	}{
		{"c call", "c", "\thtab *t = htab_new(argc, NULL);", "htab_new", "call"},
		{"c prototype", "c", "htab *htab_new(size_t hint, htab_free_fn free_value);", "htab_new", "reference"},
		{"c return call", "c", "\treturn hash(key);", "hash", "call"},
		{"c statement call", "c", "\tgrow(t);", "grow", "call"},
		{"cpp qualified call", "cpp", "  gfx::scale(v, 2.0);", "scale", "call"},
		{"cpp prototype", "cpp", "int render(const ShapeList& shapes, Grid<double>& out, Fill fill);", "render", "reference"},
		{"java member call", "java", "        catalog.add(b);", "add", "call"},
		{"java abstract method", "java", "    String title();", "title", "reference"},
		{"java new", "java", "        return new Loan(isbn, member, due);", "Loan", "call"},
		{"csharp interface method", "csharp", "    Task<int> CountAsync(string sku, CancellationToken ct);", "CountAsync", "reference"},
		{"ts overload signature", "typescript", "export function split(path: string): string[];", "split", "reference"},
		{"python nested def", "python", "    def decorate(fn):", "decorate", "reference"},
		{"go generic call", "go", "\treturn ratelimit.Keys[string](m)", "Keys", "call"},
		{"go import", "go", "\t\"example.com/ratelimit/ratelimit\"", "ratelimit", "import"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := strings.Index(tt.line, tt.sym+"(")
			if start < 0 {
				start = strings.Index(tt.line, tt.sym+"[")
			}
			if start < 0 {
				start = strings.LastIndex(tt.line, tt.sym)
			}
			if got := refKind([]byte(tt.line), start, start+len(tt.sym), tt.lang); got != tt.want {
				t.Errorf("refKind(%q, %s) = %s, want %s", tt.line, tt.sym, got, tt.want)
			}
		})
	}
}
