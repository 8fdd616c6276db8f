package mcpserver_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestArgLimits: every string argument but the query is capped at 4 KiB
// and every array argument at 64 entries, in every tool; an argument over
// its limit is an isError result naming it and the limit, and one at the
// limit passes the check.
func TestArgLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	checked := 0
	for _, tool := range e.srv.Tools() {
		props, required := schemaProps(t, tool)
		for name, p := range props {
			if len(p.Enum) > 0 || name == "query" || name == "information_request" {
				continue
			}
			var over, at any
			var want string
			switch {
			case p.is("string"):
				over, at = strings.Repeat("a", mcpserver.MaxArgBytes+1), strings.Repeat("a", mcpserver.MaxArgBytes)
				want = fmt.Sprintf("argument %s is %d bytes; the limit is %d bytes", name, mcpserver.MaxArgBytes+1, mcpserver.MaxArgBytes)
			case p.is("array"):
				over, at = slices.Repeat([]string{"go"}, mcpserver.MaxArgEntries+1), slices.Repeat([]string{"go"}, mcpserver.MaxArgEntries)
				want = fmt.Sprintf("argument %s has %d entries; the limit is %d entries", name, mcpserver.MaxArgEntries+1, mcpserver.MaxArgEntries)
			default:
				continue
			}
			t.Run(tool.Name+"/"+name, func(t *testing.T) {
				args := validArgs(required, props)
				args[name] = over
				text, isErr := call(t, e.cs, tool.Name, args, nil)
				if !isErr || !strings.Contains(text, want) {
					t.Errorf("%s over the limit: isError %v, %q; want an error with %q", name, isErr, text, want)
				}
				args[name] = at
				if text, _ := call(t, e.cs, tool.Name, args, nil); strings.Contains(text, "the limit is") {
					t.Errorf("%s at the limit: %q", name, text)
				}
			})
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d arguments, want every string and array argument of every tool", checked)
	}

	// An array's entries are capped too.
	text, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry", "include_globs": []string{"**", strings.Repeat("x", mcpserver.MaxArgBytes+1)}}, nil)
	if !isErr || !strings.Contains(text, "argument include_globs[1] is 4097 bytes; the limit is 4096 bytes") {
		t.Errorf("a long array entry: isError %v, %q", isErr, text)
	}
	// The limits are documented where an agent meets them.
	for _, tool := range e.srv.Tools() {
		if tool.Name != "codebase_retrieval" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		for _, s := range []string{"at most 32 KiB is searched", "at most 64 entries"} {
			if !strings.Contains(string(b), s) {
				t.Errorf("codebase_retrieval's input schema does not say %q", s)
			}
		}
	}
}

type schemaProp struct {
	Type any   `json:"type"`
	Enum []any `json:"enum"`
}

// is reports whether the property's type is (or includes) typ.
func (p schemaProp) is(typ string) bool {
	switch x := p.Type.(type) {
	case string:
		return x == typ
	case []any:
		return slices.Contains(x, any(typ))
	}
	return false
}

func schemaProps(t *testing.T, tool *mcp.Tool) (map[string]schemaProp, []string) {
	t.Helper()
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties, s.Required
}

// validArgs fills the required arguments with values the schema accepts.
func validArgs(required []string, props map[string]schemaProp) map[string]any {
	args := map[string]any{}
	for _, name := range required {
		switch p := props[name]; {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.is("array"):
			args[name] = []string{"x"}
		case p.is("string"):
			args[name] = "Retry"
		}
	}
	return args
}

// TestRetrievalLongQuery: a 10 MB request is searched by its first 32
// KiB; the answer is small, echoes at most a 200-byte prefix of the query
// (text and structured output), and says the query was cut.
func TestRetrievalLongQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	query := "retry with exponential backoff " + strings.Repeat("lorem ipsum dolor sit amet ", 10<<20/27)
	var out mcpserver.RetrievalOutput
	res, err := e.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": query}})
	if err != nil || res.IsError {
		t.Fatalf("codebase_retrieval with a 10 MB request: %v, %v", err, res)
	}
	b, _ := json.Marshal(res)
	sb, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sb, &out); err != nil {
		t.Fatal(err)
	}
	if len(b) > 200<<10 {
		t.Errorf("answer is %d bytes", len(b))
	}
	if len(out.Query) > engine.EchoBytes+len("…") || !strings.HasPrefix(query, strings.TrimSuffix(out.Query, "…")) {
		t.Errorf("structured query is %d bytes, want a prefix of at most %d", len(out.Query), engine.EchoBytes)
	}
	if n := len(strings.TrimSpace(query)); !out.Stats.QueryTruncated || out.Stats.QueryBytes != n {
		t.Errorf("stats = %+v, want the query reported cut from %d bytes", out.Stats, n)
	}
	var tb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tb.WriteString(tc.Text)
		}
	}
	text := tb.String()
	if !strings.Contains(text, "> warning: the query is") || !strings.Contains(text, "CTX_MAX_QUERY_BYTES") {
		t.Errorf("text does not warn that the query was cut:\n%.600s", text)
	}
	if strings.Count(text, "lorem ipsum") > 10 {
		t.Errorf("text echoes the query %d times", strings.Count(text, "lorem ipsum"))
	}
	if len(out.Segments) == 0 {
		t.Error("no segments")
	}

	// search_code and semantic_code_search echo no more either.
	var so mcpserver.SearchOutput
	text = mustCall(t, e.cs, "search_code", map[string]any{"query": query}, &so)
	if len(so.Query) > engine.EchoBytes+len("…") || !so.Stats.QueryTruncated || len(text) > 64<<10 || !strings.Contains(text, "CTX_MAX_QUERY_BYTES") {
		t.Errorf("search_code: query %d bytes, truncated %v, text %d bytes", len(so.Query), so.Stats.QueryTruncated, len(text))
	}
	var sem mcpserver.SemanticOutput
	text = mustCall(t, e.cs, "semantic_code_search", map[string]any{"query": query}, &sem)
	if len(sem.Query) > engine.EchoBytes+len("…") || len(text) > 64<<10 {
		t.Errorf("semantic_code_search: query %d bytes, text %d bytes", len(sem.Query), len(text))
	}
	var ex mcpserver.ExpandOutput
	text = mustCall(t, e.cs, "expand_query", map[string]any{"query": query}, &ex)
	if len(ex.Query) > engine.EchoBytes+len("…") || len(text) > 64<<10 || len(ex.Symbols) > mcpserver.MaxArgEntries {
		t.Errorf("expand_query: query %d bytes, text %d bytes, %d symbols", len(ex.Query), len(text), len(ex.Symbols))
	}
}

// TestProviderDown: with the embedding service failing, codebase_retrieval
// answers from the lexical channels and says so (stats.degraded, a
// warning in the text naming the fix), and the lookup tools and
// index_status answer without one request reaching the service; with no
// service listening at all, the same.
func TestProviderDown(t *testing.T) {
	t.Parallel()
	svc := embedtest.NewServer(t, "openai", 16)
	root := fixture(t)
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "openai", Model: "test-embed", BaseURL: svc.BaseURL(), BatchSize: 64, QueryTimeout: time.Second}
	index(t, cfg, root)
	svc.SetReply(embedtest.Reply{Status: 503, RetryAfter: "30", Message: "the model is overloaded"})

	for _, tc := range []struct {
		name, url, cause string
	}{
		{"503", svc.BaseURL(), "HTTP 503 Service Unavailable: the model is overloaded"},
		{"refused", embedtest.ClosedURL(t) + "/v1", "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cfg
			cfg.Embed.BaseURL = tc.url
			srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg, Tools: mcpserver.ToolsAll})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			cs := connect(t, srv)
			svc.ResetRequests()
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"get_symbol_definition", map[string]any{"symbol": "Backoff"}},
				{"find_references", map[string]any{"symbol": "Backoff"}},
				{"symbol_graph", map[string]any{"symbol": "Backoff", "query_type": "callers"}},
				{"symbol_graph", map[string]any{"symbol": "Backoff", "query_type": "callees"}},
				{"symbol_graph", map[string]any{"symbol": "Backoff", "query_type": "definition"}},
				{"symbol_graph", map[string]any{"symbol": "retry", "query_type": "importers"}},
				{"symbol_graph", map[string]any{"symbol": "Config", "query_type": "subtypes"}},
				{"list_files", map[string]any{}},
				{"index_status", map[string]any{}},
			} {
				if text, isErr := call(t, cs, c.tool, c.args, nil); isErr {
					t.Errorf("%s(%v) with the provider down: %s", c.tool, c.args, text)
				}
			}
			if n := svc.Requests(); n != 0 {
				t.Errorf("lookups and index_status made %d requests to the embedding service, want none", n)
			}

			var out mcpserver.RetrievalOutput
			text := mustCall(t, cs, "codebase_retrieval", map[string]any{"information_request": "retry with exponential backoff"}, &out)
			if !strings.Contains(out.Stats.Degraded, "dense channel unavailable") || !strings.Contains(out.Stats.Degraded, tc.cause) {
				t.Errorf("stats.degraded = %q, want the dense channel unavailable because %q", out.Stats.Degraded, tc.cause)
			}
			if !strings.Contains(text, "> warning: dense channel unavailable") || !strings.Contains(text, "CTX_EMBED_PROVIDER") {
				t.Errorf("text does not warn about the degraded search:\n%.800s", text)
			}
			if len(out.Segments) == 0 || !strings.HasPrefix(out.Segments[0].Path, "retry/") {
				t.Errorf("segments = %v, want the lexical answer (retry/ first)", out.Segments)
			}
			var so mcpserver.SearchOutput
			mustCall(t, cs, "search_code", map[string]any{"query": "retry with exponential backoff"}, &so)
			if so.Stats.Degraded == "" || len(so.Results) == 0 {
				t.Errorf("search_code: degraded %q, %d results", so.Stats.Degraded, len(so.Results))
			}
		})
	}
}

// TestPathBytesMCP: a file whose name is not valid UTF-8 carries
// path_bytes (base64 of its raw name) in list_files, codebase_retrieval,
// search_code and get_symbol_definition structured results.
func TestPathBytesMCP(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	bad := "retry/caf\xe9.go"
	src := "package retry\n\n// Zanzibar frobnicates the widget.\nfunc Zanzibar() int {\n\treturn 42\n}\n"
	if err := os.WriteFile(filepath.Join(root, bad), []byte(src), 0o644); err != nil {
		t.Skipf("this file system does not take the name %q: %v", bad, err)
	}
	cfg := testConfig(t)
	index(t, cfg, root)
	srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg, Tools: mcpserver.ToolsAll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs := connect(t, srv)
	want := base64.StdEncoding.EncodeToString([]byte(bad))
	shown := "retry/caf\uFFFD.go"

	var files mcpserver.ListFilesOutput
	mustCall(t, cs, "list_files", map[string]any{"glob": "retry/**"}, &files)
	i := slices.IndexFunc(files.Files, func(f engine.FileEntry) bool { return f.Path == shown })
	if i < 0 || files.Files[i].PathBytes != want {
		t.Errorf("list_files = %+v, want %s with path_bytes %s", files.Files, shown, want)
	}
	for _, f := range files.Files {
		if f.Path != shown && f.PathBytes != "" {
			t.Errorf("%s has path_bytes %q", f.Path, f.PathBytes)
		}
	}
	var out mcpserver.RetrievalOutput
	mustCall(t, cs, "codebase_retrieval", map[string]any{"information_request": "Zanzibar frobnicates the widget"}, &out)
	if len(out.Segments) == 0 || out.Segments[0].Path != shown || out.Segments[0].PathBytes != want {
		t.Errorf("codebase_retrieval segments = %+v, want %s first with path_bytes", out.Segments, shown)
	}
	var so mcpserver.SearchOutput
	mustCall(t, cs, "search_code", map[string]any{"query": "Zanzibar"}, &so)
	if len(so.Results) == 0 || so.Results[0].PathBytes != want {
		t.Errorf("search_code results = %+v, want path_bytes on the first", so.Results)
	}
	var defs mcpserver.DefinitionOutput
	mustCall(t, cs, "get_symbol_definition", map[string]any{"symbol": "Zanzibar"}, &defs)
	if len(defs.Definitions) == 0 || defs.Definitions[0].PathBytes != want {
		t.Errorf("get_symbol_definition = %+v, want path_bytes", defs.Definitions)
	}
	got, err := engine.DecodePathBytes(want)
	if err != nil || got != bad {
		t.Errorf("DecodePathBytes(path_bytes) = %q, %v; want the raw name", got, err)
	}
}
