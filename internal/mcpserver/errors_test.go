package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// failure calls a tool that must fail and returns its text and the
// failure in its structured content, {"error": {...}}, which must
// validate against the tool's output schema: the TypeScript SDK's client
// validates an isError result's structured content too.
func failure(t *testing.T, srv *mcpserver.Server, cs *mcp.ClientSession, name string, args map[string]any) (string, engine.Failure) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded: %s", name, args, text.String())
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Error engine.Failure `json:"error"`
	}
	if err := json.Unmarshal(b, &sc); err != nil || sc.Error.Code == "" {
		t.Fatalf("%s: structured content %s (%v); want {\"error\": {\"code\", …}}", name, b, err)
	}
	var v any
	json.Unmarshal(b, &v)
	for _, tool := range srv.Tools() {
		if tool.Name != name {
			continue
		}
		r, err := tool.OutputSchema.(*jsonschema.Schema).Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Validate(v); err != nil {
			t.Errorf("%s: the error's structured content %s does not fit the output schema: %v", name, b, err)
		}
	}
	if !strings.Contains(text.String(), sc.Error.Message) {
		t.Errorf("%s: text %q does not hold the message %q", name, text.String(), sc.Error.Message)
	}
	return text.String(), sc.Error
}

// TestToolErrorCodes: every isError result carries the error table's
// code, the same the CLI prints with --json, with the human text kept.
func TestToolErrorCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll, noIndex: true})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       engine.Code
		text, fix  string
	}{
		{"not indexed", "codebase_retrieval", map[string]any{"information_request": "retry with backoff"}, engine.CodeNotIndexed, "is not indexed", "ctx index --repo " + e.root},
		{"not indexed lookup", "get_symbol_definition", map[string]any{"symbol": "Retry"}, engine.CodeNotIndexed, "is not indexed", "ctx index --repo " + e.root},
		{"outside root", "codebase_retrieval", map[string]any{"information_request": "retry", "repo_path": filepath.Dir(e.root)}, engine.CodeOutsideRoot, "outside the server root", ""},
		{"no such repo_path", "list_files", map[string]any{"repo_path": "nope"}, engine.CodeNotFound, "does not exist", ""},
		{"argument over its limit", "get_symbol_definition", map[string]any{"symbol": strings.Repeat("a", mcpserver.MaxArgBytes+1)}, engine.CodeInvalidArgument, "the limit is 4096 bytes", ""},
		{"bad value", "codebase_retrieval", map[string]any{"information_request": "retry", "include_globs": []string{"[bad"}}, engine.CodeInvalidArgument, "bad glob", ""},
		// The SDK refuses arguments that do not fit the input schema
		// before the tool runs.
		{"not in the schema", "codebase_retrieval", map[string]any{"information_request": "retry", "mode": "bogus"}, engine.CodeInvalidArgument, "mode", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text, f := failure(t, e.srv, e.cs, tc.tool, tc.args)
			if f.Code != tc.code || !strings.Contains(text, tc.text) || tc.fix != "" && !strings.HasPrefix(f.Fix, tc.fix) {
				t.Errorf("%s(%v): %q, failure %+v; want code %s, text with %q, fix %q", tc.tool, tc.args, text, f, tc.code, tc.text, tc.fix)
			}
		})
	}
}

// TestToolErrorStale: a search of an index built by another embedding
// model is the stale error, fixed by rebuilding it.
func TestToolErrorStale(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	cfg := testConfig(t)
	lexical := cfg
	lexical.Embed.Provider = "none"
	index(t, lexical, root)
	srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs := connect(t, srv)
	for _, tool := range []string{"codebase_retrieval", "get_symbol_definition"} {
		args := map[string]any{"information_request": "retry with backoff"}
		if tool == "get_symbol_definition" {
			args = map[string]any{"symbol": "Retry"}
		}
		text, f := failure(t, srv, cs, tool, args)
		if f.Code != engine.CodeStale || f.Fix != "ctx index --repo "+root || !strings.Contains(text, "built by another ctx build or embedding model") {
			t.Errorf("%s on a stale index: %q, failure %+v; want stale, fixed by ctx index --repo", tool, text, f)
		}
	}
}

// hangingQueries is a provider that embeds documents as its Fake does
// and never answers a query.
type hangingQueries struct{ *embedtest.Fake }

func (h hangingQueries) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	if kind == embed.Query {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.Fake.Embed(ctx, texts, kind)
}

// TestToolDeadline: a tool call never outlasts the request deadline. A
// search whose dense channel does not answer in time answers from the
// others, marked partial with the reason; a call with nothing to answer
// by the deadline is the timeout error with its fix.
func TestToolDeadline(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	cfg := testConfig(t)
	fake := embedtest.New(16)
	eng, err := engine.Open(cfg, root, &engine.Options{Embedder: fake})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Index(t.Context(), engine.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	serve := func(cfg config.Config) (*mcpserver.Server, *mcp.ClientSession) {
		srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg, Embedder: hangingQueries{fake}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv, connect(t, srv)
	}

	slow := cfg
	slow.RequestTimeout = 5 * time.Second // the lexical channels answer well within it
	slow.Embed.QueryTimeout = time.Hour
	_, cs := serve(slow)
	var out mcpserver.RetrievalOutput
	if text, isErr := call(t, cs, "codebase_retrieval", map[string]any{"information_request": "retry with exponential backoff"}, &out); isErr {
		t.Fatalf("codebase_retrieval with a hanging embedding provider: %s", text)
	}
	if !out.Stats.Partial || !strings.Contains(out.Stats.PartialReason, "dense channel") || len(out.Segments) == 0 {
		t.Errorf("stats %+v, %d segments; want a partial answer from the lexical channels, naming the dense channel", out.Stats, len(out.Segments))
	}

	// A deadline already past: nothing can be answered.
	past := cfg
	past.RequestTimeout = time.Nanosecond
	srv, cs := serve(past)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"codebase_retrieval", map[string]any{"information_request": "retry with exponential backoff"}},
		{"get_symbol_definition", map[string]any{"symbol": "Retry"}},
	} {
		text, f := failure(t, srv, cs, tc.tool, tc.args)
		if f.Code != engine.CodeTimeout || f.Fix != engine.FixTimeout || !strings.Contains(text, "limits.request_timeout") {
			t.Errorf("%s past the deadline: %q, failure %+v; want timeout with its fix", tc.tool, text, f)
		}
	}
}
