package engine

import (
	"strings"
	"testing"
)

func TestBoostWords(t *testing.T) {
	t.Parallel()
	// Every label the ranking writes (internal/search/rank.go) has words.
	for _, b := range []string{"definition", "definition (qualified)", "definition (other owner)", "definition~", "mentioned-definition",
		"internal", "file-name×0.50", "file-is-symbol", "tiny", "superseded", "other-os", "test", "example", "vendored", "docs", "declarations", "prose"} {
		if w := boostWords(b); strings.HasPrefix(w, "adjusted: ") || !strings.HasPrefix(w, "lifted") && !strings.HasPrefix(w, "lowered") {
			t.Errorf("boostWords(%q) = %q, want a lift or a lowering in words", b, w)
		}
	}
	if got := boostWords("file-name×0.50"); !strings.Contains(got, "50%") {
		t.Errorf("boostWords(file-name×0.50) = %q, want 50%%", got)
	}
	if got := boostWords("new-label"); got != "adjusted: new-label" {
		t.Errorf("an unknown label = %q", got)
	}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
