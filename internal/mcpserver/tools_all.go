package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
)

func (s *Server) addAllTools() {
	s.addIndexCodebase()
	s.addIndexingStatus()
	s.addClearIndex()
	s.addSearchCode()
	s.addSemanticSearch()
	s.addScopedSearch("search_tests_for", "Search tests", testGlobs,
		`Find the tests that exercise some code or behaviour: searches only test files (Go _test.go, Python test_*.py, JS/TS *.test.*/*.spec.*, Java/C# *Test(s), tests/ folders).
Use it before changing code, to find the tests to run or extend.
Example: {"query": "retry backoff", "limit": 10}`)
	s.addScopedSearch("search_config_for", "Search configuration", configGlobs,
		`Find configuration about a topic: searches only configuration and build files (JSON, YAML, TOML, INI, .properties, XML, Dockerfiles, Makefiles, go.mod, package.json, pyproject.toml, ...).
Use it to learn how a setting, dependency, port, feature flag or build step is configured.
Example: {"query": "database connection pool size"}`)
	s.addRelation("search_callers_for", "Search callers", "callers",
		`List the lines that call a function or method, with the enclosing function of each call.
Use it before changing a function's behaviour or signature. Same answer as symbol_graph with query_type callers.
Example: {"symbol": "ParseConfig", "limit": 30}`)
	s.addRelation("search_importers_for", "Search importers", "importers",
		`List the import/include/use/require statements that name a module, package or symbol.
Use it to see which files depend on a module before moving or changing it. Same answer as symbol_graph with query_type importers.
Example: {"symbol": "config", "limit": 30}`)
	s.addChangeHistory()
	s.addExpandQuery()
	// Opt-in: walks the symbol graph for every result, several times the
	// cost of a search.
	s.addInfoRequest()
	s.addMemoryStore()
	s.addMemoryFind()
	s.addContextSearch()
	s.addContextAnswer()
	s.addListWorkspaces()
	s.addWorkspaceInfo()
	s.addPatternSearch()
}

// IndexCodebaseInput is the index_codebase request.
type IndexCodebaseInput struct {
	Rebuild  bool   `json:"rebuild,omitempty" jsonschema:"discard the existing index and build it again (default: incremental, only changed files)"`
	RepoPath string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addIndexCodebase() {
	addTool(s, &mcp.Tool{
		Name:  "index_codebase",
		Title: "Index the codebase",
		Description: `Start indexing the repository in the background and return at once; queries keep answering from the previous index until the run commits. Incremental by default: only changed files are read again.
Use it after large edits, a branch switch, or when index_status reports changed files or a stale index. Follow it with get_indexing_status.
Example: {"rebuild": false}`,
		InputSchema: inputSchema[IndexCodebaseInput](nil),
		Annotations: &mcp.ToolAnnotations{Title: "Index the codebase", IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in IndexCodebaseInput) (*mcp.CallToolResult, IndexingStatus, error) {
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, IndexingStatus{}, err
		}
		j := s.startIndex(e, in.Rebuild)
		st := j.status()
		return textResult(fmt.Sprintf("indexing %s in the background (%s); call get_indexing_status to follow it", e.Root(), j.describe())), st, nil
	})
}

// RepoInput names a repository.
type RepoInput struct {
	RepoPath string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addIndexingStatus() {
	addTool(s, &mcp.Tool{
		Name:  "get_indexing_status",
		Title: "Indexing status",
		Description: `Report the background index run this server started for the repository: phase (idle, scanning, indexing, finished, failed, canceled), files done of total, percent, files per second, ETA in seconds, and the error of a failed run.
Use it after index_codebase, or when a tool said indexing started, to know when to retry.
Example: {}`,
		InputSchema: inputSchema[RepoInput](nil),
		Annotations: readOnly("Indexing status"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RepoInput) (*mcp.CallToolResult, IndexingStatus, error) {
		root, err := s.resolveRepo(in.RepoPath)
		if err != nil {
			return nil, IndexingStatus{}, err
		}
		j := s.job(root)
		if j == nil {
			st := IndexingStatus{RepoPath: root, Phase: "idle"}
			return textResult(fmt.Sprintf("no index run started by this server for %s; index_status shows the index itself", root)), st, nil
		}
		st := j.status()
		msg := fmt.Sprintf("%s: %s, %d/%d files (%.0f%%), %.1f files/s, ETA %.0fs", root, st.Phase, st.FilesDone, st.FilesTotal, st.Percent, st.FilesPerSec, st.ETASeconds)
		if st.Error != "" {
			msg += "; error: " + st.Error
		}
		return textResult(msg), st, nil
	})
}

// ClearIndexOutput is the clear_index result.
type ClearIndexOutput struct {
	Cleared string `json:"cleared" jsonschema:"the repository whose index was removed"`
}

func (s *Server) addClearIndex() {
	addTool(s, &mcp.Tool{
		Name:  "clear_index",
		Title: "Clear the index",
		Description: `Delete the repository's index (database and vector file; source files are never touched). Searches fail with "not indexed" until it is indexed again.
Use it only when the index is corrupt or you want to free the space; to refresh, use index_codebase instead.
Example: {}`,
		InputSchema: inputSchema[RepoInput](nil),
		Annotations: &mcp.ToolAnnotations{Title: "Clear the index", DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RepoInput) (*mcp.CallToolResult, ClearIndexOutput, error) {
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, ClearIndexOutput{}, err
		}
		if j := s.job(e.Root()); j != nil && !j.isFinished() {
			j.cancel()
			<-j.done
		}
		if err := e.Clear(ctx); err != nil {
			return nil, ClearIndexOutput{}, err
		}
		return textResult("removed the index of " + e.Root()), ClearIndexOutput{Cleared: e.Root()}, nil
	})
}

// SearchCodeInput is the search_code request.
type SearchCodeInput struct {
	Query       string   `json:"query" jsonschema:"natural language, identifiers or an error message"`
	Limit       int      `json:"limit,omitempty" jsonschema:"most results (default 10)"`
	Language    []string `json:"language,omitempty" jsonschema:"keep only these languages"`
	PathGlobs   []string `json:"path_globs,omitempty" jsonschema:"keep only paths matching one of these globs"`
	IncludeCode bool     `json:"include_code,omitempty" jsonschema:"attach each result's code (default: locations and summaries only)"`
	RepoPath    string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
	Workspace   string   `json:"workspace,omitempty" jsonschema:"search every repository of this workspace (list_workspaces) instead of one; each result then names its repo"`
}

// SearchOutput is the result of search_code and the scoped searches: the
// result JSON of ctx find.
type SearchOutput struct {
	Query    string           `json:"query"`
	Results  []engine.Hit     `json:"results" jsonschema:"ranked chunks: path, 1-based inclusive lines, score, kind, symbol, summary, per-channel ranks"`
	Stats    engine.FindStats `json:"stats"`
	Scope    string           `json:"scope,omitempty" jsonschema:"the files searched, for scoped searches"`
	ServerMS float64          `json:"server_ms"`
}

func (s *Server) addSearchCode() {
	addTool(s, &mcp.Tool{
		Name:  "search_code",
		Title: "Search code",
		Description: `Ranked search returning a list of code locations (path, lines, kind, symbol, one-line summary, score), without packing: the same results as "ctx find --json".
Use it for a quick list of candidate places; use codebase_retrieval when you want the code itself within a token budget.
Example: {"query": "gzip writer compression level", "limit": 10}`,
		InputSchema: inputSchema[SearchCodeInput](map[string]prop{"limit": {def: 10, min: 1, max: 100}}),
		Annotations: readOnly("Search code"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SearchCodeInput) (*mcp.CallToolResult, SearchOutput, error) {
		return s.search(ctx, in, "")
	})
}

func (s *Server) search(ctx context.Context, in SearchCodeInput, scope string) (*mcp.CallToolResult, SearchOutput, error) {
	start := time.Now()
	out := SearchOutput{Scope: scope}
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, badArg("query is empty")
	}
	for _, g := range in.PathGlobs {
		if !validGlob(g) {
			return nil, out, badArg("bad glob %q", g)
		}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	resp, sc, err := s.find(ctx, engine.FindRequest{Query: in.Query, Limit: limit, Languages: in.Language, PathGlobs: in.PathGlobs, Full: in.IncludeCode}, in.RepoPath, in.Workspace)
	if err != nil {
		return nil, out, err
	}
	if in.Workspace == "" {
		scope = sc
	}
	out.Query, out.Results, out.Stats = resp.Query, resp.Results, resp.Stats
	out.ServerMS = since(start)
	var b strings.Builder
	fmt.Fprintf(&b, "# %d results for %q", len(out.Results), out.Query)
	if scope != "" {
		fmt.Fprintf(&b, " in %s", scope)
	}
	b.WriteString("\n")
	for _, n := range resp.Stats.Notes() {
		fmt.Fprintf(&b, "warning: %s\n", n)
	}
	if len(out.Results) == 0 {
		b.WriteString("No code matched.\n")
	}
	for _, h := range out.Results {
		if h.Repo != "" {
			b.WriteString(h.Repo + ":")
		}
		fmt.Fprintf(&b, "%s:%d-%d %s %s (score %.3g) %s\n", h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, h.Score, h.Summary)
		if h.Code != "" {
			writeCode(&b, h.Language, h.Code)
		}
	}
	return textResult(b.String()), out, nil
}

// find runs req on the repository repoPath names (its scope, a folder
// inside it, narrows req's globs and comes back) or, when workspace is
// set, on every member of that workspace (repoPath must then be empty).
// Errors come back as tool errors with their fix.
func (s *Server) find(ctx context.Context, req engine.FindRequest, repoPath, workspace string) (*engine.FindResponse, string, error) {
	if workspace != "" {
		if repoPath != "" {
			return nil, "", badArg("workspace searches every member: leave repo_path out")
		}
		members, err := s.workspaceMembers(workspace)
		if err != nil {
			return nil, "", err
		}
		resp, err := engine.FindAcross(ctx, members, req)
		return resp, "", err
	}
	e, scope, err := s.repoScope(repoPath)
	if err != nil {
		return nil, "", err
	}
	if scope != "" {
		req.PathGlobs = scopeGlobs(scope, req.PathGlobs)
	}
	resp, err := e.Find(ctx, req)
	if err != nil {
		return nil, "", s.explain(e, err)
	}
	return resp, scope, nil
}

// testGlobs and configGlobs scope search_tests_for and search_config_for.
var (
	testGlobs = []string{"**/*_test.*", "**/test_*.*", "**/*.test.*", "**/*.spec.*", "**/*_spec.*", "**/*Test.*", "**/*Tests.*",
		"**/test/**", "**/tests/**", "**/__tests__/**", "**/spec/**", "**/testing/**"}
	configGlobs = []string{"**/*.json", "**/*.yaml", "**/*.yml", "**/*.toml", "**/*.ini", "**/*.cfg", "**/*.conf", "**/*.properties",
		"**/*.xml", "**/*.env.example", "**/Dockerfile*", "**/Makefile", "**/*.mk", "**/go.mod", "**/*.gradle", "**/*.gradle.kts", "**/Cargo.toml"}
)

// ScopedInput is the request of the scoped searches.
type ScopedInput struct {
	Query       string `json:"query" jsonschema:"what to look for"`
	Limit       int    `json:"limit,omitempty" jsonschema:"most results (default 10)"`
	IncludeCode bool   `json:"include_code,omitempty" jsonschema:"attach each result's code"`
	RepoPath    string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addScopedSearch(name, title string, globs []string, desc string) {
	scope := strings.TrimPrefix(name, "search_")
	scope = strings.TrimSuffix(scope, "_for") + " files"
	addTool(s, &mcp.Tool{
		Name: name, Title: title, Description: desc,
		InputSchema: inputSchema[ScopedInput](map[string]prop{"limit": {def: 10, min: 1, max: 100}}),
		Annotations: readOnly(title),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ScopedInput) (*mcp.CallToolResult, SearchOutput, error) {
		return s.search(ctx, SearchCodeInput{Query: in.Query, Limit: in.Limit, PathGlobs: globs, IncludeCode: in.IncludeCode, RepoPath: in.RepoPath}, scope)
	})
}

// RelationInput is the request of search_callers_for and
// search_importers_for.
type RelationInput struct {
	Symbol   string `json:"symbol" jsonschema:"the function, method, type, module or package name"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most results (default 20)"`
	RepoPath string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addRelation(name, title, queryType, desc string) {
	addTool(s, &mcp.Tool{
		Name: name, Title: title, Description: desc,
		InputSchema: inputSchema[RelationInput](map[string]prop{"limit": {def: 20, min: 1, max: 500}}),
		Annotations: readOnly(title),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RelationInput) (*mcp.CallToolResult, SymbolGraphOutput, error) {
		return s.symbolGraph(ctx, SymbolGraphInput{Symbol: in.Symbol, QueryType: queryType, Limit: in.Limit, RepoPath: in.RepoPath})
	})
}

// SemanticInput is the semantic_code_search request.
type SemanticInput struct {
	Query                string  `json:"query" jsonschema:"what the code does, in natural language"`
	TopK                 int     `json:"top_k,omitempty" jsonschema:"most results (default 10)"`
	SemanticWeight       float64 `json:"semantic_weight,omitempty" jsonschema:"weight of embedding similarity in the combined score (default 0.7)"`
	KeywordWeight        float64 `json:"keyword_weight,omitempty" jsonschema:"weight of the keyword (BM25) score, normalised to the best hit, in the combined score (default 0.3)"`
	MinSemanticScore     float64 `json:"min_semantic_score,omitempty" jsonschema:"drop results whose cosine similarity to the query is below this (-1..1)"`
	MinKeywordScore      float64 `json:"min_keyword_score,omitempty" jsonschema:"drop results whose normalised keyword score is below this (0..1)"`
	MinCombinedScore     float64 `json:"min_combined_score,omitempty" jsonschema:"drop results whose combined score is below this"`
	RequireKeywordMatch  bool    `json:"require_keyword_match,omitempty" jsonschema:"keep only results that a keyword channel found"`
	RequireSemanticMatch bool    `json:"require_semantic_match,omitempty" jsonschema:"keep only results that the embedding channel ranked among its nearest neighbours"`
	RepoPath             string  `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// SemanticHit is one semantic_code_search result.
type SemanticHit struct {
	engine.Hit
	SemanticScore float64 `json:"semantic_score" jsonschema:"cosine similarity of the chunk's embedding to the query's"`
	KeywordScore  float64 `json:"keyword_score" jsonschema:"BM25 score normalised to the best keyword hit (0..1); 0 when no keyword channel found it"`
	Combined      float64 `json:"combined_score" jsonschema:"semantic_weight x semantic_score + keyword_weight x keyword_score"`
}

// SemanticOutput is the semantic_code_search result.
type SemanticOutput struct {
	Query   string        `json:"query"`
	Results []SemanticHit `json:"results" jsonschema:"by combined score, best first"`
	Dropped int           `json:"dropped" jsonschema:"candidates removed by the thresholds and requirements"`
	// Degraded is set when the embedding provider failed: the results
	// then have keyword scores only.
	Degraded string  `json:"degraded,omitempty" jsonschema:"set when the embedding provider failed or did not answer in time: no result has a semantic score"`
	ServerMS float64 `json:"server_ms"`
}

func (s *Server) addSemanticSearch() {
	addTool(s, &mcp.Tool{
		Name:  "semantic_code_search",
		Title: "Semantic code search",
		Description: `Search by meaning with explicit control over how embedding similarity and keyword (BM25) scores combine, with thresholds and match requirements.
Use it when you want code that does something described in words but shares no identifiers with your description, or to filter out weak matches; codebase_retrieval is the better default.
Example: {"query": "wait longer after each failed attempt", "top_k": 10, "semantic_weight": 0.8, "keyword_weight": 0.2, "min_semantic_score": 0.3}`,
		InputSchema: inputSchema[SemanticInput](map[string]prop{
			"top_k":           {def: 10, min: 1, max: 100},
			"semantic_weight": {def: 0.7, min: 0, max: 1},
			"keyword_weight":  {def: 0.3, min: 0, max: 1},
		}),
		Annotations: readOnly("Semantic code search"),
	}, s.semanticSearch)
}

func (s *Server) semanticSearch(ctx context.Context, _ *mcp.CallToolRequest, in SemanticInput) (*mcp.CallToolResult, SemanticOutput, error) {
	start := time.Now()
	out := SemanticOutput{Results: []SemanticHit{}}
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, badArg("query is empty")
	}
	e, scope, err := s.repoScope(in.RepoPath)
	if err != nil {
		return nil, out, err
	}
	if !e.Semantic() {
		return nil, out, engine.Errorf(engine.ErrNotConfigured, "semantic search needs an embedding model, but this server runs lexical-only (CTX_EMBED_PROVIDER=none); unset it to use the built-in model, then run `ctx index`")
	}
	k := in.TopK
	if k <= 0 {
		k = 10
	}
	sw, kw := in.SemanticWeight, in.KeywordWeight
	if sw == 0 && kw == 0 {
		sw, kw = 0.7, 0.3
	}
	// One hybrid search with a wide candidate pool: every candidate gets
	// its cosine to the query ("dense-rerank"), and BM25 scores for those
	// the keyword channel found.
	var globs []string
	if scope != "" {
		globs = scopeGlobs(scope, nil)
	}
	resp, err := e.Find(ctx, engine.FindRequest{Query: in.Query, Limit: max(50, 5*k), PathGlobs: globs})
	if err != nil {
		return nil, out, s.explain(e, err)
	}
	out.Query, out.Degraded = resp.Query, resp.Stats.Degraded
	best := 0.0
	for _, h := range resp.Results {
		best = max(best, h.Channels["bm25"].Score)
	}
	for _, h := range resp.Results {
		sem, hasSem := semanticScore(h.Channels)
		kwScore := 0.0
		if b, ok := h.Channels["bm25"]; ok && best > 0 {
			kwScore = b.Score / best
		}
		keyword := hasKeyword(h.Channels)
		_, nearest := h.Channels["dense"]
		combined := sw*sem + kw*kwScore
		if in.RequireKeywordMatch && !keyword || in.RequireSemanticMatch && !nearest ||
			in.MinSemanticScore != 0 && (!hasSem || sem < in.MinSemanticScore) ||
			kwScore < in.MinKeywordScore || combined < in.MinCombinedScore {
			out.Dropped++
			continue
		}
		out.Results = append(out.Results, SemanticHit{Hit: h, SemanticScore: round3(sem), KeywordScore: round3(kwScore), Combined: round3(combined)})
	}
	slices.SortStableFunc(out.Results, func(a, b SemanticHit) int {
		switch {
		case a.Combined > b.Combined:
			return -1
		case a.Combined < b.Combined:
			return 1
		}
		return 0
	})
	if len(out.Results) > k {
		out.Dropped += len(out.Results) - k
		out.Results = out.Results[:k]
	}
	out.ServerMS = since(start)
	var b strings.Builder
	fmt.Fprintf(&b, "# %d results for %q (semantic %.2f, keyword %.2f; %d candidates dropped)\n", len(out.Results), out.Query, sw, kw, out.Dropped)
	for _, n := range resp.Stats.Notes() {
		fmt.Fprintf(&b, "warning: %s\n", n)
	}
	for _, h := range out.Results {
		fmt.Fprintf(&b, "%s:%d-%d %s %s combined %.3f (semantic %.3f, keyword %.3f) %s\n", h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, h.Combined, h.SemanticScore, h.KeywordScore, h.Summary)
	}
	return textResult(b.String()), out, nil
}

// semanticScore is a hit's cosine to the query: from the dense channel,
// else from the rerank step that scores every candidate.
func semanticScore(ch map[string]search.ChannelHit) (float64, bool) {
	if d, ok := ch["dense"]; ok {
		return d.Score, true
	}
	if d, ok := ch["dense-rerank"]; ok {
		return d.Score, true
	}
	return 0, false
}

func hasKeyword(ch map[string]search.ChannelHit) bool {
	for name := range ch {
		if name != "dense" && name != "dense-rerank" {
			return true
		}
	}
	return false
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// HistoryInput is the change_history_for_path request.
type HistoryInput struct {
	Path       string `json:"path" jsonschema:"file or directory, relative to the repository root"`
	MaxCommits int    `json:"max_commits,omitempty" jsonschema:"most commits returned, newest first (default 20)"`
	RepoPath   string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// Commit is one commit touching a path.
type Commit struct {
	Hash    string `json:"hash"`
	Author  string `json:"author"`
	Date    string `json:"date" jsonschema:"author date, RFC 3339"`
	Subject string `json:"subject"`
}

// HistoryOutput is the change_history_for_path result.
type HistoryOutput struct {
	Path     string   `json:"path"`
	Commits  []Commit `json:"commits"`
	ServerMS float64  `json:"server_ms"`
}

func (s *Server) addChangeHistory() {
	addTool(s, &mcp.Tool{
		Name:  "change_history_for_path",
		Title: "Change history",
		Description: `List the git commits that changed a file or directory, newest first: hash, author, date and subject (git log --follow for a file).
Use it to learn why code looks the way it does, or what changed recently around a bug.
Example: {"path": "net/http/server.go", "max_commits": 10}`,
		InputSchema: inputSchema[HistoryInput](map[string]prop{"max_commits": {def: 20, min: 1, max: 500}}),
		Annotations: readOnly("Change history"),
	}, s.changeHistory)
}

func (s *Server) changeHistory(ctx context.Context, _ *mcp.CallToolRequest, in HistoryInput) (*mcp.CallToolResult, HistoryOutput, error) {
	start := time.Now()
	out := HistoryOutput{Path: in.Path, Commits: []Commit{}}
	root, err := s.resolveRepo(in.RepoPath)
	if err != nil {
		return nil, out, err
	}
	if in.Path == "" {
		return nil, out, badArg("path is empty")
	}
	p := filepath.Join(root, filepath.FromSlash(in.Path))
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	} else if errors.Is(err, os.ErrNotExist) {
		return nil, out, engine.Errorf(engine.ErrNotFound, "path %q does not exist in %s", in.Path, root)
	}
	if !within(root, p) {
		return nil, out, fmt.Errorf("path %q is %w %s", in.Path, errOutsideRoot, root)
	}
	n := in.MaxCommits
	if n <= 0 {
		n = 20
	}
	args := []string{"-C", root, "log", "-n", strconv.Itoa(n), "--format=%H%x1f%an%x1f%aI%x1f%s"}
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		args = append(args, "--follow")
	}
	args = append(args, "--", p)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	b, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, out, fmt.Errorf("git log failed (is %s a git repository?): %s", root, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, out, fmt.Errorf("running git: %v (is git installed?)", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\x1f")
		if len(f) == 4 {
			out.Commits = append(out.Commits, Commit{Hash: f[0], Author: f[1], Date: f[2], Subject: f[3]})
		}
	}
	out.ServerMS = since(start)
	var t strings.Builder
	fmt.Fprintf(&t, "# %d commits changing %s\n", len(out.Commits), in.Path)
	if len(out.Commits) == 0 {
		t.WriteString("No commit touches this path (untracked, or history not available).\n")
	}
	for _, c := range out.Commits {
		fmt.Fprintf(&t, "%s %s %s: %s\n", c.Hash[:min(12, len(c.Hash))], c.Date, c.Author, c.Subject)
	}
	return textResult(t.String()), out, nil
}

// ExpandInput is the expand_query request.
type ExpandInput struct {
	Query    string `json:"query" jsonschema:"a search query to analyse"`
	RepoPath string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// ExpandOutput is how ctx reads a query, and identifiers from the index
// related to it.
type ExpandOutput struct {
	Query   string   `json:"query"`
	Kind    string   `json:"kind" jsonschema:"symbol, natural or long: decides channel weights"`
	Terms   []string `json:"terms" jsonschema:"analysed terms (identifier parts, stems), heaviest first"`
	Symbols []string `json:"symbols" jsonschema:"code-style identifiers found in the query"`
	Paths   []string `json:"paths" jsonschema:"path-like tokens found in the query"`
	// Related are defined names of the best-matching code: identifiers to
	// add as technical_terms or to look up.
	Related  []string `json:"related_identifiers" jsonschema:"symbols defined by the best-matching code, to use as technical_terms or look up"`
	Expanded string   `json:"expanded_query" jsonschema:"the query with the related identifiers appended"`
	ServerMS float64  `json:"server_ms"`
}

func (s *Server) addExpandQuery() {
	addTool(s, &mcp.Tool{
		Name:  "expand_query",
		Title: "Expand a query",
		Description: `Show how ctx reads a query (kind, analysed terms, identifiers, paths) and which identifiers the best-matching code defines, as an expanded query.
Use it when codebase_retrieval results are off-target, to learn the codebase's own vocabulary and rephrase with it.
Example: {"query": "how are retries delayed"}`,
		InputSchema: inputSchema[ExpandInput](nil),
		Annotations: readOnly("Expand a query"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ExpandInput) (*mcp.CallToolResult, ExpandOutput, error) {
		start := time.Now()
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, ExpandOutput{}, err
		}
		// Analyze what Find searches: the query cut to the limit.
		query, _ := e.CutQuery(in.Query)
		q := analyze.Analyze(query)
		// An issue-sized query names many identifiers: the first
		// MaxArgEntries of each are what technical_terms can take back.
		out := ExpandOutput{Kind: string(q.Kind), Terms: []string{}, Symbols: q.Symbols[:min(len(q.Symbols), MaxArgEntries)],
			Paths: q.Paths[:min(len(q.Paths), MaxArgEntries)], Related: []string{}}
		for _, t := range q.TopTerms(20) {
			out.Terms = append(out.Terms, t.Text)
		}
		if out.Symbols == nil {
			out.Symbols = []string{}
		}
		if out.Paths == nil {
			out.Paths = []string{}
		}
		resp, err := e.Find(ctx, engine.FindRequest{Query: query, Limit: 10})
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Query = resp.Query // at most engine.EchoBytes of it
		seen := map[string]bool{}
		for _, h := range resp.Results {
			name, _ := lastName(h.Symbol)
			if name != "" && !seen[name] && !strings.Contains(query, name) {
				seen[name] = true
				out.Related = append(out.Related, name)
			}
		}
		out.Expanded = strings.TrimSpace(out.Query + " " + strings.Join(out.Related, " "))
		out.ServerMS = since(start)
		text := fmt.Sprintf("kind: %s\nterms: %s\nsymbols: %s\npaths: %s\nrelated identifiers: %s\nexpanded query: %s\n",
			out.Kind, strings.Join(out.Terms, " "), strings.Join(out.Symbols, " "), strings.Join(out.Paths, " "), strings.Join(out.Related, " "), out.Expanded)
		return textResult(text), out, nil
	})
}

// lastName is the bare name at the end of a qualified symbol.
func lastName(symbol string) (string, bool) {
	i := strings.LastIndexAny(symbol, ".:)>")
	name := symbol[i+1:]
	return name, name != ""
}
