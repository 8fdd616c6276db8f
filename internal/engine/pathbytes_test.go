package engine_test

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestPathBytes: a valid path has no path_bytes; any other byte string
// round-trips through PathBytes and DecodePathBytes, padded or not.
func TestPathBytes(t *testing.T) {
	t.Parallel()
	if got := engine.PathBytes("net/http/server.go"); got != "" {
		t.Errorf("PathBytes of a valid path = %q, want empty", got)
	}
	for _, p := range []string{"sub/caf\xe9.go", "\xff", "a/\xc3(b.py", "x/\xed\xa0\x80.txt"} {
		pb := engine.PathBytes(p)
		if pb == "" {
			t.Errorf("PathBytes(%q) is empty", p)
			continue
		}
		for _, s := range []string{pb, trimPad(pb)} {
			got, err := engine.DecodePathBytes(s)
			if err != nil || got != p {
				t.Errorf("DecodePathBytes(%q) = %q, %v; want %q", s, got, err, p)
			}
		}
	}
	for _, bad := range []string{"", "not base64!", "%%%"} {
		if _, err := engine.DecodePathBytes(bad); err == nil {
			t.Errorf("DecodePathBytes(%q): no error", bad)
		}
	}
}

func trimPad(s string) string {
	for len(s) > 0 && s[len(s)-1] == '=' {
		s = s[:len(s)-1]
	}
	return s
}
