package mcpserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

func hitPaths(out mcpserver.SearchOutput) []string {
	var ps []string
	for _, h := range out.Results {
		ps = append(ps, h.Path)
	}
	return ps
}

func TestSearchTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	var out mcpserver.SearchOutput
	mustCall(t, e.cs, "search_code", map[string]any{"query": "monthly totals report", "limit": 3}, &out)
	if len(out.Results) == 0 || len(out.Results) > 3 || out.Results[0].Path != "tools/report.py" || out.Results[0].Code != "" {
		t.Errorf("search_code = %v", hitPaths(out))
	}
	mustCall(t, e.cs, "search_code", map[string]any{"query": "monthly totals report", "include_code": true, "path_globs": []string{"tools/**"}}, &out)
	if len(out.Results) == 0 || out.Results[0].Code == "" || slices.ContainsFunc(hitPaths(out), func(p string) bool { return !strings.HasPrefix(p, "tools/") }) {
		t.Errorf("search_code with code and globs = %v", hitPaths(out))
	}

	mustCall(t, e.cs, "search_tests_for", map[string]any{"query": "backoff gives up"}, &out)
	if got := hitPaths(out); len(got) == 0 || slices.ContainsFunc(got, func(p string) bool { return !strings.HasSuffix(p, "_test.go") }) {
		t.Errorf("search_tests_for = %v, want only test files", got)
	}
	mustCall(t, e.cs, "search_config_for", map[string]any{"query": "pool size retries"}, &out)
	if got := hitPaths(out); !slices.Contains(got, "deploy/app.yaml") || slices.Contains(got, "config/config.go") {
		t.Errorf("search_config_for = %v, want deploy/app.yaml and no code", got)
	}

	var sem mcpserver.SemanticOutput
	mustCall(t, e.cs, "semantic_code_search", map[string]any{"query": "wait longer after every failure", "top_k": 3}, &sem)
	if len(sem.Results) == 0 || len(sem.Results) > 3 {
		t.Fatalf("semantic_code_search = %+v", sem)
	}
	for i, h := range sem.Results {
		if i > 0 && h.Combined > sem.Results[i-1].Combined {
			t.Errorf("results not ordered by combined score")
		}
		if h.SemanticScore == 0 && h.KeywordScore == 0 {
			t.Errorf("%s: no score components", h.Path)
		}
	}
	var strict mcpserver.SemanticOutput
	mustCall(t, e.cs, "semantic_code_search", map[string]any{"query": "wait longer after every failure", "min_semantic_score": 0.99}, &strict)
	if len(strict.Results) != 0 || strict.Dropped == 0 {
		t.Errorf("min_semantic_score 0.99 kept %d results, dropped %d", len(strict.Results), strict.Dropped)
	}
	var loose, keyword mcpserver.SemanticOutput
	mustCall(t, e.cs, "semantic_code_search", map[string]any{"query": "orders", "top_k": 50}, &loose)
	mustCall(t, e.cs, "semantic_code_search", map[string]any{"query": "orders", "top_k": 50, "require_keyword_match": true}, &keyword)
	if len(keyword.Results) == 0 || len(keyword.Results) >= len(loose.Results) {
		t.Errorf("require_keyword_match kept %d of %d results", len(keyword.Results), len(loose.Results))
	}
	for _, h := range keyword.Results {
		lexical := false
		for name := range h.Channels {
			lexical = lexical || name != "dense" && name != "dense-rerank"
		}
		if !lexical {
			t.Errorf("require_keyword_match kept %s:%d, found by %v only", h.Path, h.StartLine, h.Channels)
		}
	}

	var g mcpserver.SymbolGraphOutput
	mustCall(t, e.cs, "search_callers_for", map[string]any{"symbol": "Load"}, &g)
	if got := refLocs(g.References); !slices.Equal(got, []string{"server/server.go:33 call"}) {
		t.Errorf("search_callers_for(Load) = %v", got)
	}
	mustCall(t, e.cs, "search_importers_for", map[string]any{"symbol": "config"}, &g)
	if got := refLocs(g.References); !slices.Equal(got, []string{"server/server.go:6 import"}) {
		t.Errorf("search_importers_for(config) = %v", got)
	}

	var ex mcpserver.ExpandOutput
	mustCall(t, e.cs, "expand_query", map[string]any{"query": "how are failed attempts retried"}, &ex)
	if ex.Kind != "natural" || len(ex.Terms) == 0 || !slices.Contains(ex.Related, "Backoff") || !strings.Contains(ex.Expanded, "Backoff") {
		t.Errorf("expand_query = %+v", ex)
	}
}

func TestIndexingTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll, noIndex: true})
	var st mcpserver.IndexingStatus
	mustCall(t, e.cs, "get_indexing_status", nil, &st)
	if st.Phase != "idle" {
		t.Errorf("before any run: phase %q", st.Phase)
	}
	mustCall(t, e.cs, "index_codebase", nil, &st)
	if st.Phase == "idle" || st.RepoPath != e.root {
		t.Errorf("index_codebase returned %+v", st)
	}
	st = waitIndexed(t, e.cs)
	if st.FilesDone != st.FilesTotal || st.FilesTotal == 0 || st.ChunksStored == 0 {
		t.Errorf("finished run: %+v", st)
	}
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "cart total discount"}, &out)
	if len(out.Segments) == 0 || out.Segments[0].Path != "web/cart.js" {
		t.Errorf("after index_codebase: %+v", out.Segments)
	}

	// A rebuild bumps the generation; queries see it.
	gen := out.Freshness.IndexGeneration
	mustCall(t, e.cs, "index_codebase", map[string]any{"rebuild": true}, &st)
	waitIndexed(t, e.cs)
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "cart total discount"}, &out)
	if out.Freshness.IndexGeneration <= gen {
		t.Errorf("generation %d after a rebuild, was %d", out.Freshness.IndexGeneration, gen)
	}

	var cl mcpserver.ClearIndexOutput
	mustCall(t, e.cs, "clear_index", nil, &cl)
	if cl.Cleared != e.root {
		t.Errorf("clear_index = %+v", cl)
	}
	if text, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "cart"}, nil); !isErr || !strings.Contains(text, "not indexed") {
		t.Errorf("after clear_index: isError %v, %q", isErr, text)
	}
}

func TestChangeHistory(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", e.root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var out mcpserver.HistoryOutput
	if text, isErr := call(t, e.cs, "change_history_for_path", map[string]any{"path": "retry/retry.go"}, nil); !isErr || !strings.Contains(text, "git") {
		t.Errorf("outside a git repository: isError %v, %q", isErr, text)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	if err := os.WriteFile(filepath.Join(e.root, "retry", "retry.go"), []byte("package retry\n\n// Backoff is gone.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "retry: remove Backoff")
	mustCall(t, e.cs, "change_history_for_path", map[string]any{"path": "retry/retry.go"}, &out)
	if len(out.Commits) != 2 || out.Commits[0].Subject != "retry: remove Backoff" || out.Commits[1].Subject != "first" || out.Commits[0].Author != "Ada" {
		t.Errorf("history of retry/retry.go = %+v", out.Commits)
	}
	mustCall(t, e.cs, "change_history_for_path", map[string]any{"path": "web", "max_commits": 5}, &out)
	if len(out.Commits) != 1 {
		t.Errorf("history of web/ = %+v", out.Commits)
	}
	for _, p := range []string{"../outside", "/etc/passwd", "no/such/file"} {
		if _, isErr := call(t, e.cs, "change_history_for_path", map[string]any{"path": p}, nil); !isErr {
			t.Errorf("change_history_for_path(%q) succeeded", p)
		}
	}
}

// TestRefreshOnStale: a retrieval that shows a changed file starts a
// background incremental index run on an auto-index server, and a later
// call sees the edit as fresh.
func TestRefreshOnStale(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll, autoIndex: true})
	src := "package retry\n\n// Backoff waits with jitter between attempts now.\nfunc Backoff(attempts int, f func() error) error { return f() }\n"
	if err := os.WriteFile(filepath.Join(e.root, "retry", "retry.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out mcpserver.RetrievalOutput
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "Backoff"}, &out)
	if out.Freshness.Fresh || !out.Freshness.Refreshing {
		t.Fatalf("after an edit: freshness %+v, want stale and refreshing", out.Freshness)
	}
	waitIndexed(t, e.cs)
	out = mcpserver.RetrievalOutput{}
	mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "Backoff waits with jitter"}, &out)
	edited := slices.ContainsFunc(out.Segments, func(sg mcpserver.Segment) bool {
		return sg.Path == "retry/retry.go" && strings.Contains(sg.Code, "jitter") && !sg.Stale
	})
	if !out.Freshness.Fresh || out.Freshness.Refreshing || !edited {
		t.Errorf("after the refresh: freshness %+v, the edited Backoff among the segments: %v", out.Freshness, edited)
	}
}
