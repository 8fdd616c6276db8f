package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestPatternSearch: pattern_search answers a snippet given as code and
// as lines of a file, never returns the snippet's own lines, and turns
// bad requests into isError results that say what to pass.
func TestPatternSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	var out mcpserver.PatternSearchOutput
	// Backoff's loop, renamed: the structure channel finds Backoff.
	text := mustCall(t, e.cs, "pattern_search", map[string]any{"language": []string{"go"}, "limit": 3, "code": `
	func Again(n int, g func() error) error {
		var e error
		wait := 5 * time.Second
		for k := 0; k < n; k++ {
			if e = g(); e == nil {
				return nil
			}
			time.Sleep(wait)
			wait *= 3
		}
		return e
	}`}, &out)
	if len(out.Results) == 0 || out.Results[0].Path != "retry/retry.go" || out.Results[0].Similarity == nil || out.Results[0].Similarity.Structure < 0.9 {
		t.Errorf("pattern_search with code = %+v", out.Results)
	}
	if !strings.Contains(text, "retry/retry.go:") || !strings.Contains(text, "structure") {
		t.Errorf("pattern_search text = %q", text)
	}
	mustCall(t, e.cs, "pattern_search", map[string]any{"path": "retry/retry.go", "start_line": 7, "end_line": 18}, &out)
	for _, h := range out.Results {
		if h.Path == "retry/retry.go" && h.StartLine <= 18 && h.EndLine >= 7 {
			t.Errorf("pattern_search returned the snippet's own lines: %+v", h)
		}
	}
	if out.Query != "retry/retry.go:7-18" || out.Stats.Language != "go" {
		t.Errorf("pattern_search with path: query %q, stats %+v", out.Query, out.Stats)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "give code"},
		{map[string]any{"code": "x := 1"}, "language"},
		{map[string]any{"code": "x := 1", "path": "retry/retry.go", "start_line": 1}, "not both"},
		{map[string]any{"path": "retry/retry.go"}, "start_line"},
		{map[string]any{"path": "retry/retry.go", "start_line": 7, "end_line": 9999}, "outside"},
		{map[string]any{"path": "../etc/passwd", "start_line": 1, "end_line": 2}, "outside"},
	} {
		if text, isErr := call(t, e.cs, "pattern_search", tc.args, nil); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("pattern_search %v: isError %v, %q; want an error saying %q", tc.args, isErr, text, tc.want)
		}
	}
}
