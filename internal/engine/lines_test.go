package engine

import (
	"strings"
	"testing"
)

// TestLineBytes holds lineBytes to splitting the text into lines and
// joining the asked ones, for every line range of texts with and
// without a final line break.
func TestLineBytes(t *testing.T) {
	for _, src := range []string{"", "a", "a\n", "a\nbb\n", "a\nbb\nccc", "\n\n\n", "x\r\ny\n\nz"} {
		lines := strings.SplitAfter(src, "\n")
		for a := -1; a <= len(lines)+2; a++ {
			for b := a - 1; b <= len(lines)+2; b++ {
				lo, hi, ok := lineBytes([]byte(src), a, b)
				wantOK := a >= 1 && a <= len(lines)
				if ok != wantOK {
					t.Fatalf("lineBytes(%q, %d, %d) ok = %v, want %v", src, a, b, ok, wantOK)
				}
				if !ok {
					continue
				}
				want := ""
				if b >= a {
					want = strings.Join(lines[a-1:min(b, len(lines))], "")
				}
				if got := src[lo:hi]; got != want {
					t.Errorf("lineBytes(%q, %d, %d) = %q, want %q", src, a, b, got, want)
				}
			}
		}
	}
}
