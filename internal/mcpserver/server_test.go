package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
	"github.com/ctx-dev/ctx/internal/store"
)

// fixture extracts testdata/repo.txtar into a new temporary directory.
func fixture(t *testing.T) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(a, dir); err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}

// testConfig uses the built-in embedding model, a private cache and a
// home directory no test indexes.
func testConfig(t *testing.T) config.Config {
	t.Helper()
	return config.Config{
		CacheDir:     t.TempDir(),
		Home:         t.TempDir(),
		MaxFileBytes: 1 << 20,
		Embed:        config.Embed{Provider: "builtin", BatchSize: 64},
		LogLevel:     "warn",
	}
}

type env struct {
	root string
	cfg  config.Config
	srv  *mcpserver.Server
	cs   *mcp.ClientSession
}

type envOptions struct {
	tools     mcpserver.ToolSet
	noIndex   bool // leave the fixture unindexed
	autoIndex bool
	llmURL    string // an OpenAI-compatible chat server the server's LLM settings point at
}

// newEnv indexes the fixture (unless noIndex), starts a server on it and
// connects a client over the SDK's in-memory transport.
func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := &env{root: fixture(t), cfg: testConfig(t)}
	if !o.noIndex {
		index(t, e.cfg, e.root)
	}
	if o.llmURL != "" {
		e.cfg.LLM = config.LLM{Provider: "openai", URL: o.llmURL, Model: "local-model", Timeout: 5 * time.Second, MaxTokens: 256}
	}
	srv, err := mcpserver.New(mcpserver.Options{Root: e.root, Config: e.cfg, Tools: o.tools, AutoIndex: o.autoIndex})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.srv = srv
	e.cs = connect(t, srv)
	return e
}

func index(t *testing.T, cfg config.Config, root string) {
	t.Helper()
	eng, err := engine.Open(cfg, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Index(t.Context(), engine.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
}

func connect(t *testing.T, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured output into out (when not
// nil). It returns the result's text content and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (string, bool) {
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
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text.String(), res.IsError
}

// mustCall is call that fails the test on an isError result.
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	text, isErr := call(t, cs, name, args, out)
	if isErr {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	return text
}

var defaultTools = []string{"codebase_retrieval", "get_symbol_definition", "find_references", "symbol_graph", "list_files", "index_status"}

var allTools = append(slices.Clone(defaultTools), "index_codebase", "get_indexing_status", "clear_index", "search_code",
	"semantic_code_search", "search_tests_for", "search_config_for", "search_callers_for", "search_importers_for",
	"change_history_for_path", "expand_query", "info_request", "memory_store", "memory_find", "context_search", "context_answer",
	"list_workspaces", "workspace_info", "pattern_search")

// TestListTools: each tool set lists exactly its tools, and every tool
// says when to use it, gives an example call, and describes every input
// field.
func TestListTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set  mcpserver.ToolSet
		want []string
	}{{mcpserver.ToolsDefault, defaultTools}, {mcpserver.ToolsAll, allTools}} {
		e := newEnv(t, envOptions{tools: tc.set})
		res, err := e.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if !strings.Contains(tool.Description, "Use it") || !strings.Contains(tool.Description, "Example: {") {
				t.Errorf("%s: description does not say when to use it with an example:\n%s", tool.Name, tool.Description)
			}
			b, _ := json.Marshal(tool.InputSchema)
			var sch struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(b, &sch); err != nil {
				t.Fatal(err)
			}
			for name, p := range sch.Properties {
				if p.Description == "" {
					t.Errorf("%s: input field %s has no description", tool.Name, name)
				}
			}
			if tool.OutputSchema == nil {
				t.Errorf("%s: no output schema", tool.Name)
			}
		}
		if !slices.Equal(names, tc.want) && !equalSets(names, tc.want) {
			t.Errorf("tools of set %s = %v, want %v", tc.set, names, tc.want)
		}
		if got := len(e.srv.Tools()); got != len(tc.want) {
			t.Errorf("Server.Tools() has %d tools, want %d", got, len(tc.want))
		}
	}
}

func equalSets(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestRetrieval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var out mcpserver.RetrievalOutput
	text := mustCall(t, e.cs, "codebase_retrieval", map[string]any{
		"information_request": "sleep twice as long after each failed attempt",
	}, &out)
	if len(out.Segments) == 0 {
		t.Fatalf("no segments:\n%s", text)
	}
	top := out.Segments[0]
	if top.Path != "retry/retry.go" || top.StartLine > 5 || top.EndLine < 17 {
		t.Errorf("first segment %s:%d-%d, want retry/retry.go covering Backoff (5-17)", top.Path, top.StartLine, top.EndLine)
	}
	if !strings.Contains(top.Code, "delay *= 2") || len(top.ScoreComponents) == 0 || top.Summary == "" || top.Tokens == 0 {
		t.Errorf("first segment lacks code, score components, summary or tokens: %+v", top)
	}
	if !strings.Contains(text, "## retry/retry.go:") || !strings.Contains(text, "delay *= 2") {
		t.Errorf("markdown lacks the segment heading or code:\n%s", text)
	}
	if out.Tokens == 0 || out.Tokens > out.MaxTokens || out.MaxTokens != mcpserver.DefaultMaxTokens {
		t.Errorf("tokens %d of max %d, want 0 < tokens <= %d", out.Tokens, out.MaxTokens, mcpserver.DefaultMaxTokens)
	}
	if !out.Freshness.Fresh || out.Freshness.IndexGeneration == 0 || out.Stats.ServerMS <= 0 {
		t.Errorf("freshness %+v, stats %+v", out.Freshness, out.Stats)
	}
	// Segments come grouped by file, lines ascending within a file.
	seen := map[string]bool{}
	for i, sg := range out.Segments {
		if i > 0 && sg.Path != out.Segments[i-1].Path && seen[sg.Path] {
			t.Errorf("file %s appears in two groups", sg.Path)
		}
		if i > 0 && sg.Path == out.Segments[i-1].Path && sg.StartLine < out.Segments[i-1].StartLine {
			t.Errorf("segments of %s out of line order", sg.Path)
		}
		seen[sg.Path] = true
	}
}

// TestRetrievalPaging: a small budget truncates with a cursor; following
// the cursors returns every segment of the unbounded answer once, each
// page within its budget.
func TestRetrievalPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	args := map[string]any{"information_request": "configuration retries orders server", "mode": "deep"}
	var whole mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", args, &whole)
	if whole.Truncated || len(whole.Segments) < 3 {
		t.Fatalf("the unbounded answer has %d segments (truncated %v); the test needs at least 3 in one page", len(whole.Segments), whole.Truncated)
	}
	args["max_tokens"] = 300
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatal("more than 20 pages")
		}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var out mcpserver.RetrievalOutput
		text := mustCall(t, e.cs, "codebase_retrieval", args, &out)
		if out.MaxTokens != 300 || out.Tokens > 300 && !(len(out.Segments) == 1 && out.Segments[0].Clipped) {
			t.Errorf("page %d: %d tokens of max %d", page, out.Tokens, out.MaxTokens)
		}
		if len(out.Segments) == 0 {
			t.Fatalf("page %d is empty:\n%s", page, text)
		}
		for _, sg := range out.Segments {
			got = append(got, sg.Path+":"+itoa(sg.StartLine))
		}
		if !out.Truncated {
			break
		}
		if out.Cursor == "" || !strings.Contains(text, out.Cursor) {
			t.Fatalf("page %d truncated without a cursor in the output", page)
		}
		cursor = out.Cursor
	}
	var want []string
	for _, sg := range whole.Segments {
		want = append(want, sg.Path+":"+itoa(sg.StartLine))
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages returned %v, want the unbounded answer %v", got, want)
	}

	// A cursor is only good for the request that issued it.
	args["information_request"] = "something else"
	if text, isErr := call(t, e.cs, "codebase_retrieval", args, nil); !isErr || !strings.Contains(text, "cursor") {
		t.Errorf("a cursor with other arguments: isError %v, %q", isErr, text)
	}
	args["cursor"] = "not-a-cursor"
	if _, isErr := call(t, e.cs, "codebase_retrieval", args, nil); !isErr {
		t.Errorf("a malformed cursor was accepted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRetrievalFiltersAndFormats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	paths := func(args map[string]any) []string {
		t.Helper()
		var out mcpserver.RetrievalOutput
		mustCall(t, e.cs, "codebase_retrieval", args, &out)
		var ps []string
		for _, sg := range out.Segments {
			if !slices.Contains(ps, sg.Path) {
				ps = append(ps, sg.Path)
			}
		}
		return ps
	}
	if got := paths(map[string]any{"information_request": "total", "include_globs": []string{"**/*.py"}}); !slices.Equal(got, []string{"tools/report.py"}) {
		t.Errorf("include_globs **/*.py: %v", got)
	}
	if got := paths(map[string]any{"information_request": "retry backoff attempts", "exclude_globs": []string{"retry/**"}}); slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, "retry/") }) {
		t.Errorf("exclude_globs retry/**: %v", got)
	}
	if got := paths(map[string]any{"information_request": "total price of items", "language": []string{"javascript"}}); !slices.Equal(got, []string{"web/cart.js"}) {
		t.Errorf("language javascript: %v", got)
	}
	if got := paths(map[string]any{"information_request": "load settings", "max_files": 1}); len(got) != 1 {
		t.Errorf("max_files 1: %v", got)
	}

	var small mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "load configuration", "max_tokens": 50}, &small)
	if small.MaxTokens != 256 {
		t.Errorf("max_tokens 50: budget %d, want it raised to 256", small.MaxTokens)
	}

	res, err := e.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": "load configuration", "output_format": "json"}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("json format: %v %+v", err, res)
	}
	var out mcpserver.RetrievalOutput
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || len(out.Segments) == 0 {
		t.Errorf("json format text is not the output JSON: %v", err)
	}
	res, err = e.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": "load configuration", "output_format": "both"}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Errorf("both format: %v, %d contents", err, len(res.Content))
	}

	for _, bad := range []map[string]any{
		{"information_request": ""},
		{"information_request": "x", "mode": "fast"},
		{"information_request": "x", "output_format": "xml"},
		{"information_request": "x", "include_globs": []string{"["}},
		{"information_request": "x", "max_tokens": 50000},
	} {
		if _, isErr := call(t, e.cs, "codebase_retrieval", bad, nil); !isErr {
			// Schema violations may also come back as protocol errors;
			// call fails the test on those, so reaching here means the
			// call succeeded.
			t.Errorf("codebase_retrieval(%v) succeeded", bad)
		}
	}
}

func TestRetrievalLowConfidence(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "qqzx vvwk", "low_confidence_behavior": "return_empty"}, &out)
	if out.Confidence != "low" || len(out.Segments) != 0 || out.Warning == "" {
		t.Errorf("nonsense query with return_empty: confidence %s, %d segments, warning %q", out.Confidence, len(out.Segments), out.Warning)
	}
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "qqzx vvwk", "low_confidence_behavior": "return_top1"}, &out)
	if len(out.Segments) > 1 {
		t.Errorf("return_top1 returned %d segments", len(out.Segments))
	}
	out = mcpserver.RetrievalOutput{}
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "Backoff"}, &out)
	if out.Confidence != "high" || out.Warning != "" {
		t.Errorf("exact symbol query: confidence %s, warning %q", out.Confidence, out.Warning)
	}
}

// TestIndexProblems: a missing or stale index is an isError result that
// names the command that fixes it, never an empty list.
func TestIndexProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noIndex: true})
	text, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
	if !isErr || !strings.Contains(text, "not indexed") || !strings.Contains(text, "ctx index") {
		t.Errorf("unindexed: isError %v, %q", isErr, text)
	}
	for _, tool := range []string{"get_symbol_definition", "find_references"} {
		if text, isErr := call(t, e.cs, tool, map[string]any{"symbol": "Backoff"}, nil); !isErr || !strings.Contains(text, "ctx index") {
			t.Errorf("%s unindexed: isError %v, %q", tool, isErr, text)
		}
	}
	var st mcpserver.IndexStatusOutput
	mustCall(t, e.cs, "index_status", nil, &st)
	if st.Indexed || len(st.Health) != 1 || !strings.Contains(st.Health[0].Fix, "ctx index") {
		t.Errorf("index_status unindexed: %+v", st)
	}

	index(t, e.cfg, e.root)
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)

	// Another build's identity: stale.
	setIdentity(t, e.cfg, e.root, "0123456789abcdef")
	text, isErr = call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
	if !isErr || !strings.Contains(text, "another ctx build") || !strings.Contains(text, "ctx index") {
		t.Errorf("stale: isError %v, %q", isErr, text)
	}
	mustCall(t, e.cs, "index_status", nil, &st)
	if len(st.Health) == 0 || !strings.Contains(st.Health[0].Problem, "another ctx build") {
		t.Errorf("index_status stale: health %+v", st.Health)
	}
}

func setIdentity(t *testing.T, cfg config.Config, root, id string) {
	t.Helper()
	eng, err := engine.Open(cfg, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := eng.DBPath()
	// The engine offers no identity override; write it as an old build
	// would have, through SQLite.
	writeMeta(t, db, "identity", id)
}

// TestAutoIndex: the first call on an unindexed repository starts a
// background run and says so; the run finishes and the call then works.
func TestAutoIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noIndex: true, autoIndex: true, tools: mcpserver.ToolsAll})
	text, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
	if !isErr || !strings.Contains(text, "started indexing") {
		t.Fatalf("first call: isError %v, %q", isErr, text)
	}
	waitIndexed(t, e.cs)
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "exponential backoff"}, &out)
	if len(out.Segments) == 0 {
		t.Errorf("no segments after the background run")
	}
}

func waitIndexed(t *testing.T, cs *mcp.ClientSession) mcpserver.IndexingStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var st mcpserver.IndexingStatus
		mustCall(t, cs, "get_indexing_status", nil, &st)
		switch st.Phase {
		case "finished":
			if st.Percent != 100 || st.Generation == 0 {
				t.Errorf("finished run: %+v", st)
			}
			return st
		case "failed", "canceled", "idle":
			t.Fatalf("background run: %+v", st)
		}
		if time.Now().After(deadline) {
			t.Fatalf("background run not finished after 60s: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRepoPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	outside := t.TempDir()
	for _, p := range []string{"..", outside, "../" + filepath.Base(e.root) + "x", "server/../../"} {
		text, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry", "repo_path": p}, nil)
		if !isErr || !strings.Contains(text, "outside the server root") && !strings.Contains(text, "does not exist") {
			t.Errorf("repo_path %q: isError %v, %q", p, isErr, text)
		}
	}
	// A symlink inside the root that points out of it is outside too.
	if err := os.Symlink(outside, filepath.Join(e.root, "escape")); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, e.cs, "list_files", map[string]any{"repo_path": "escape"}, nil); !isErr || !strings.Contains(text, "outside the server root") {
		t.Errorf("repo_path through a symlink out of the root: isError %v, %q", isErr, text)
	}
	// A folder of the indexed repository narrows the search to it, from
	// the repository's index: no second index is started.
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry with backoff", "repo_path": "server"}, &out)
	if len(out.Segments) == 0 {
		t.Errorf("repo_path server: no segments")
	}
	for _, sg := range out.Segments {
		if !strings.HasPrefix(sg.Path, "server/") {
			t.Errorf("repo_path server returned %s", sg.Path)
		}
	}
	var sub mcpserver.ListFilesOutput
	mustCall(t, e.cs, "list_files", map[string]any{"repo_path": "retry", "glob": "*_test.go"}, &sub)
	if sub.Total != 1 || sub.Files[0].Path != "retry/retry_test.go" {
		t.Errorf("list_files in retry/: %+v", sub)
	}
	var refs mcpserver.ReferencesOutput
	mustCall(t, e.cs, "find_references", map[string]any{"symbol": "Backoff", "repo_path": "server"}, &refs)
	if got := refLocs(refs.References); !slices.Equal(got, []string{"server/server.go:25 call"}) {
		t.Errorf("find_references in server/: %v", got)
	}
	entries, _ := os.ReadDir(e.cfg.CacheDir)
	var dbs []string
	for _, en := range entries {
		if strings.HasSuffix(en.Name(), ".db") {
			dbs = append(dbs, en.Name())
		}
	}
	if len(dbs) != 1 {
		t.Errorf("scoped calls created another index: %v", dbs)
	}
	// The root itself, by absolute path, is the default repository.
	var files mcpserver.ListFilesOutput
	mustCall(t, e.cs, "list_files", map[string]any{"repo_path": e.root}, &files)
	if files.Total == 0 {
		t.Errorf("list_files at the root by absolute path found nothing")
	}
}

func TestSymbolTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var def mcpserver.DefinitionOutput
	text := mustCall(t, e.cs, "get_symbol_definition", map[string]any{"symbol": "retry.Backoff"}, &def)
	if len(def.Definitions) != 1 || def.Definitions[0].Path != "retry/retry.go" || !strings.Contains(def.Definitions[0].Code, "func Backoff") {
		t.Errorf("get_symbol_definition(retry.Backoff) = %+v", def.Definitions)
	}
	if !strings.Contains(text, "scope-resolved") || !strings.Contains(def.Method, "no type checker") {
		t.Errorf("the answer does not say how it was resolved: %q", def.Method)
	}
	if d := def.Definitions; len(d) == 1 && (d[0].Resolution != "exact" || d[0].Confidence != 1 || !strings.Contains(text, "exact")) {
		t.Errorf("get_symbol_definition(retry.Backoff): resolution %q confidence %v, want exact 1", d[0].Resolution, d[0].Confidence)
	}
	mustCall(t, e.cs, "get_symbol_definition", map[string]any{"symbol": "Load", "hint_path": "config/"}, &def)
	if len(def.Definitions) == 0 || def.Definitions[0].Path != "config/config.go" {
		t.Errorf("get_symbol_definition(Load) = %+v", def.Definitions)
	}
	if text, isErr := call(t, e.cs, "get_symbol_definition", map[string]any{"symbol": "NoSuchThing"}, nil); !isErr || !strings.Contains(text, "no definition") {
		t.Errorf("unknown symbol: isError %v, %q", isErr, text)
	}

	var refs mcpserver.ReferencesOutput
	mustCall(t, e.cs, "find_references", map[string]any{"symbol": "Backoff"}, &refs)
	locs := refLocs(refs.References)
	for _, want := range []string{"retry/retry.go:7 definition", "retry/retry_test.go:10 call", "server/server.go:25 call"} {
		if !slices.Contains(locs, want) {
			t.Errorf("find_references(Backoff) = %v, lacks %s", locs, want)
		}
	}
	mustCall(t, e.cs, "find_references", map[string]any{"symbol": "Backoff", "exclude_definition": true, "max_results": 1}, &refs)
	if len(refs.References) != 1 || refs.References[0].Kind == "definition" || !refs.Truncated {
		t.Errorf("exclude_definition, max 1: %+v truncated %v", refs.References, refs.Truncated)
	}

	var g mcpserver.SymbolGraphOutput
	mustCall(t, e.cs, "symbol_graph", map[string]any{"symbol": "Backoff", "query_type": "callers"}, &g)
	if got := refLocs(g.References); !slices.Equal(got, []string{"retry/retry_test.go:10 call", "server/server.go:25 call"}) {
		t.Errorf("callers of Backoff = %v", got)
	}
	if g.References[1].Enclosing != "(*Server).handleOrders" && !strings.Contains(g.References[1].Enclosing, "handleOrders") {
		t.Errorf("caller's enclosing function = %q", g.References[1].Enclosing)
	}
	mustCall(t, e.cs, "symbol_graph", map[string]any{"symbol": "retry", "query_type": "importers"}, &g)
	if got := refLocs(g.References); !slices.Equal(got, []string{"server/server.go:7 import"}) {
		t.Errorf("importers of retry = %v", got)
	}
	if !strings.Contains(g.Method, "import graph") {
		t.Errorf("importers answered by %q, want the import graph", g.Method)
	}
	mustCall(t, e.cs, "symbol_graph", map[string]any{"symbol": "Config", "query_type": "definition"}, &g)
	if len(g.Definitions) == 0 || g.Definitions[0].Path != "config/config.go" {
		t.Errorf("definition of Config = %+v", g.Definitions)
	}
	g = mcpserver.SymbolGraphOutput{}
	mustCall(t, e.cs, "symbol_graph", map[string]any{"symbol": "handleOrders", "query_type": "callees"}, &g)
	callees := map[string]string{}
	for _, c := range g.Callees {
		callees[c.Name] = c.Definition
	}
	if callees["Backoff"] != "retry/retry.go:5" || callees["Error"] != "" {
		t.Errorf("callees of handleOrders = %+v", g.Callees)
	}
	mustCall(t, e.cs, "symbol_graph", map[string]any{"symbol": "Server", "query_type": "subtypes"}, &g)
	if len(g.Types) != 0 {
		t.Errorf("subtypes of Server = %+v, want none", g.Types)
	}
	if _, isErr := call(t, e.cs, "symbol_graph", map[string]any{"symbol": "Config", "query_type": "siblings"}, nil); !isErr {
		t.Errorf("an unknown query_type was accepted")
	}
}

func refLocs(refs []engine.Reference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Path+":"+itoa(r.Line)+" "+r.Kind)
	}
	return out
}

func TestListFilesAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var files mcpserver.ListFilesOutput
	mustCall(t, e.cs, "list_files", map[string]any{"glob": "*.go"}, &files)
	if files.Total != 4 || len(files.Files) != 4 || files.Files[0].Path != "config/config.go" {
		t.Errorf("list_files(*.go) = %+v", files)
	}
	mustCall(t, e.cs, "list_files", map[string]any{"language": []string{"python"}}, &files)
	if files.Total != 1 || files.Files[0].Path != "tools/report.py" {
		t.Errorf("list_files(python) = %+v", files)
	}
	mustCall(t, e.cs, "list_files", map[string]any{"max_results": 2}, &files)
	if len(files.Files) != 2 || !files.Truncated {
		t.Errorf("list_files(max 2) = %+v", files)
	}

	var st mcpserver.IndexStatusOutput
	mustCall(t, e.cs, "index_status", nil, &st)
	if !st.Indexed || !st.Fresh || len(st.Health) != 0 || st.Status.Files == 0 || st.Status.Vectors == 0 {
		t.Errorf("index_status = %+v", st)
	}
	if err := os.WriteFile(filepath.Join(e.root, "retry", "retry.go"), []byte("package retry\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCall(t, e.cs, "index_status", nil, &st)
	if st.Fresh || len(st.Health) != 1 || !strings.Contains(st.Health[0].Problem, "1 files changed") || !strings.Contains(st.Health[0].Fix, "ctx index") {
		t.Errorf("index_status after an edit = fresh %v, health %+v", st.Fresh, st.Health)
	}
	// Results from the changed file are flagged stale.
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "exponential backoff"}, &out)
	if out.Freshness.Fresh || !slices.Contains(out.Freshness.StaleFiles, "retry/retry.go") {
		t.Errorf("freshness after an edit = %+v", out.Freshness)
	}
}

func writeMeta(t *testing.T, dbPath, key, value string) {
	t.Helper()
	db, err := store.Open(t.Context(), dbPath, &store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMeta(t.Context(), map[string]string{key: value}); err != nil {
		t.Fatal(err)
	}
}

// TestRetrievalCached: a repeated call is answered from the server's cache
// with the same page, and index_status counts the hit; a call with other
// arguments is not.
func TestRetrievalCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	args := map[string]any{"information_request": "sleep twice as long after each failed attempt"}
	var first, second, other mcpserver.RetrievalOutput
	t1 := mustCall(t, e.cs, "codebase_retrieval", args, &first)
	t2 := mustCall(t, e.cs, "codebase_retrieval", args, &second)
	if first.Stats.Cached || !second.Stats.Cached {
		t.Fatalf("cached: first %v, second %v; want false, true", first.Stats.Cached, second.Stats.Cached)
	}
	if t1 != t2 || len(first.Segments) != len(second.Segments) || first.Segments[0].Code != second.Segments[0].Code {
		t.Errorf("the cached answer differs from the first:\n%s\n---\n%s", t1, t2)
	}
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "sleep twice as long after each failed attempt", "mode": "quick"}, &other)
	if other.Stats.Cached {
		t.Error("a call in another mode was answered from the cache")
	}
	var st mcpserver.IndexStatusOutput
	mustCall(t, e.cs, "index_status", map[string]any{}, &st)
	if c := st.Status.QueryCache; c == nil || c.Hits != 1 || c.Misses != 2 {
		t.Errorf("index_status query_cache = %+v; want 1 hit, 2 misses", c)
	}
}
