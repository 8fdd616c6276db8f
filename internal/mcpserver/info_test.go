package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

func TestInfoRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})

	var out mcpserver.InfoOutput
	text := mustCall(t, e.cs, "info_request", map[string]any{"info_request": "Backoff", "limit": 3}, &out)
	u := out.Understood
	if u == nil || u.Kind != "symbol" || u.Name != "Backoff" || u.Defined == nil || !*u.Defined || u.Definition == nil || u.Definition.Path != "retry/retry.go" {
		t.Fatalf("understood = %+v, want a symbol query for Backoff defined in retry/retry.go", u)
	}
	if len(out.Results) == 0 || out.Results[0].Path != "retry/retry.go" {
		t.Fatalf("results = %+v, want retry/retry.go first", out.Results)
	}
	h := out.Results[0]
	if !slices.Contains(h.Why, "lifted: defines the symbol asked for") || len(h.Channels) == 0 {
		t.Errorf("why = %q, channels %v; want the definition lift and the channel ranks", h.Why, h.Channels)
	}
	r := h.Relationships
	if r == nil {
		t.Fatal("no relationships")
	}
	if !slices.ContainsFunc(r.Callers, func(c engine.Related) bool {
		return c.Path == "server/server.go" && c.Symbol == "(*Server).handleOrders"
	}) {
		t.Errorf("callers = %+v, want server/server.go in handleOrders", r.Callers)
	}
	if !slices.ContainsFunc(r.Tests, func(c engine.Related) bool {
		return c.Path == "retry/retry_test.go" && c.Symbol == "TestBackoffGivesUp"
	}) {
		t.Errorf("tests = %+v, want TestBackoffGivesUp", r.Tests)
	}
	if !slices.ContainsFunc(r.Importers, func(c engine.Related) bool { return c.Path == "server/server.go" }) {
		t.Errorf("importers = %+v, want server/server.go", r.Importers)
	}
	if out.Confidence != engine.ConfidenceHigh || out.Stats.Basis == nil || out.Stats.Basis.Reason == "" {
		t.Errorf("confidence %q, basis %+v; want high with a reason", out.Confidence, out.Stats.Basis)
	}
	for _, want := range []string{"understood as: symbol query for Backoff", "Backoff is defined at retry/retry.go:", "confidence: high (",
		"1. retry/retry.go:", "why: lifted: defines the symbol asked for", "callers: server/server.go:", "tests: retry/retry_test.go:"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	// Without the explanation and the relationships: the results alone,
	// with the confidence.
	var bare mcpserver.InfoOutput
	mustCall(t, e.cs, "info_request", map[string]any{"info_request": "Backoff", "include_explanation": false, "include_relationships": false}, &bare)
	if bare.Understood != nil || len(bare.Results) == 0 || bare.Results[0].Why != nil || bare.Results[0].Relationships != nil || bare.Results[0].Channels != nil || bare.Confidence == "" {
		t.Errorf("bare info_request = %+v", bare)
	}
	// Relationships alone.
	var rel mcpserver.InfoOutput
	mustCall(t, e.cs, "info_request", map[string]any{"info_request": "Backoff", "include_explanation": false}, &rel)
	if rel.Understood != nil || len(rel.Results) == 0 || rel.Results[0].Why != nil || rel.Results[0].Relationships == nil {
		t.Errorf("relationships-only info_request = %+v", rel)
	}

	// Errors are tool results with the engine's codes.
	if text, isErr := call(t, e.cs, "info_request", map[string]any{"info_request": "  "}, nil); !isErr || !strings.Contains(text, "empty") {
		t.Errorf("an empty info_request: %q, isError %v", text, isErr)
	}
	if text, isErr := call(t, e.cs, "info_request", map[string]any{"info_request": "Backoff", "repo_path": t.TempDir()}, nil); !isErr || !strings.Contains(text, "outside") {
		t.Errorf("a repo_path outside the root: %q, isError %v", text, isErr)
	}
}
