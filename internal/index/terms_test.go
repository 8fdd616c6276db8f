package index

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// goPieces returns a few files of the Go toolchain's source cut into
// pieces of about a chunk's size (2 kB), or skips.
func goPieces(tb testing.TB) []string {
	tb.Helper()
	var pieces []string
	for _, name := range []string{"net/http/server.go", "fmt/print.go", "strings/strings.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", name))
		if err != nil {
			tb.Skipf("the Go toolchain's source is not here: %v", err)
		}
		for len(src) > 0 {
			n := min(len(src), 2048)
			pieces = append(pieces, string(src[:n]))
			src = src[n:]
		}
	}
	return pieces
}

// TestCappedTerms checks cappedTerms against a plain count of each term
// (a fresh map per text) on small cases and on real Go code, one text
// after another, so counts left over from an earlier text would show.
func TestCappedTerms(t *testing.T) {
	reference := func(text string, max int) string {
		var out []string
		counts := map[string]int{}
		analyze.Terms(text, func(term string) {
			if counts[term] < max {
				counts[term]++
				out = append(out, term)
			}
		})
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		text string
		max  int
		want string
	}{
		{"Foo foo FOO foo bar", 3, "foo foo foo bar"},
		{"foo foo foo foo", 3, "foo foo foo"},
		{"foo foo foo foo", 1, "foo"},
		{"", 3, ""},
	} {
		if got := cappedTerms(tc.text, tc.max); got != tc.want {
			t.Errorf("cappedTerms(%q, %d) = %q, want %q", tc.text, tc.max, got, tc.want)
		}
	}
	for i, p := range goPieces(t) {
		if got, want := cappedTerms(p, tfCap), reference(p, tfCap); got != want {
			t.Fatalf("piece %d: cappedTerms differs from a plain count:\n got %.200q\nwant %.200q", i, got, want)
		}
	}
}

// BenchmarkCappedTerms analyzes the body column of real Go code.
func BenchmarkCappedTerms(b *testing.B) {
	pieces := goPieces(b)
	var size int64
	for _, p := range pieces {
		size += int64(len(p))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pieces {
			cappedTerms(p, tfCap)
		}
	}
}
