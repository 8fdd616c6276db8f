package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

func TestMemoryTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})

	var m engine.Memory
	text := mustCall(t, e.cs, "memory_store", map[string]any{
		"text": "Failed attempts wait twice as long each time; the cap is five attempts because the payment API bans clients that retry faster.",
		"tags": []string{"Retry", "payments"}, "path": "retry/retry.go",
	}, &m)
	if m.ID != 1 || m.Kind != "explanation" || m.Path != "retry/retry.go" || strings.Join(m.Tags, ",") != "payments,retry" || !strings.Contains(text, "stored memory 1") {
		t.Fatalf("memory_store = %+v, %q", m, text)
	}
	mustCall(t, e.cs, "memory_store", map[string]any{"text": "Reports are generated nightly by tools/report.py.", "kind": "reference"}, &m)
	text = mustCall(t, e.cs, "memory_store", map[string]any{"text": "Reports are generated nightly by tools/report.py.", "kind": "reference"}, &m)
	if !m.Duplicate || m.ID != 2 || !strings.Contains(text, "already holds") {
		t.Errorf("storing the same memory again = %+v, %q", m, text)
	}

	var found mcpserver.MemoryFindOutput
	text = mustCall(t, e.cs, "memory_find", map[string]any{"query": "why is the number of retries capped"}, &found)
	if len(found.Results) == 0 || found.Results[0].ID != 1 || found.Stats.Memories != 2 || !strings.Contains(text, "[memory #1 explanation retry/retry.go tags:payments,retry]") {
		t.Errorf("memory_find = %+v\n%s", found, text)
	}
	mustCall(t, e.cs, "memory_find", map[string]any{"query": "reports", "kind": "explanation"}, &found)
	for _, h := range found.Results {
		if h.Kind != "explanation" {
			t.Errorf("memory_find with kind explanation returned %+v", h.Memory)
		}
	}
	mustCall(t, e.cs, "memory_find", map[string]any{"query": "retry", "tags": []string{"payments"}}, &found)
	if len(found.Results) != 1 || found.Results[0].ID != 1 {
		t.Errorf("memory_find with a tag = %+v", found.Results)
	}

	var ctxOut mcpserver.ContextSearchOutput
	text = mustCall(t, e.cs, "context_search", map[string]any{"query": "retry with backoff after a failed attempt", "limit": 6}, &ctxOut)
	sources := map[string]int{}
	for _, it := range ctxOut.Results {
		sources[it.Source]++
	}
	if sources["code"] == 0 || sources["memory"] == 0 || len(ctxOut.Results) > 6 || !strings.Contains(text, "[code] retry/retry.go") || !strings.Contains(text, "[memory #1") {
		t.Errorf("context_search = %v\n%s", sources, text)
	}
	mustCall(t, e.cs, "context_search", map[string]any{"query": "retry with backoff after a failed attempt", "include_memories": false}, &ctxOut)
	for _, it := range ctxOut.Results {
		if it.Source != "code" || it.Code == nil {
			t.Errorf("include_memories false returned %+v", it)
		}
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"memory_store", map[string]any{"text": "x", "kind": "todo"}, "kind"},
		{"memory_store", map[string]any{"text": "  "}, "text is empty"},
		{"memory_store", map[string]any{"text": "x", "path": "../../etc/passwd"}, "leaves the repository root"},
		{"memory_store", map[string]any{"text": strings.Repeat("a", mcpserver.MaxArgBytes+1)}, "argument text is"},
		{"memory_find", map[string]any{"query": " "}, "query is empty"},
		{"context_search", map[string]any{"query": ""}, "query is empty"},
	} {
		text, isErr := call(t, e.cs, tc.name, tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s(%v) = %q (isError %v), want an error saying %q", tc.name, tc.args, text, isErr, tc.want)
		}
	}
}

// TestContextSearchNotIndexed: memories answer before the code is
// indexed, with a warning that says how to get code results too.
func TestContextSearchNotIndexed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll, noIndex: true})
	mustCall(t, e.cs, "memory_store", map[string]any{"text": "The report job runs nightly at 02:00 UTC.", "tags": []string{"reports"}}, nil)
	var out mcpserver.ContextSearchOutput
	text := mustCall(t, e.cs, "context_search", map[string]any{"query": "when does the nightly report job run"}, &out)
	if len(out.Results) != 1 || out.Results[0].Source != "memory" || out.Stats.CodeUnavailable == "" || !strings.Contains(text, "warning: no code results") || !strings.Contains(text, "ctx index") {
		t.Errorf("context_search before indexing = %+v\n%s", out, text)
	}
	text, isErr := call(t, e.cs, "context_search", map[string]any{"query": "nightly report", "include_memories": false}, nil)
	if !isErr || !strings.Contains(text, "not indexed") {
		t.Errorf("context_search without memories before indexing = %q, %v", text, isErr)
	}
}
