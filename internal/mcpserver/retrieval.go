package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/pack"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// Token budgets of codebase_retrieval, in o200k_base tokens of the text
// content returned.
const (
	// DefaultMaxTokens is the budget of a balanced call without max_tokens
	// (engine.Modes["balanced"]).
	DefaultMaxTokens = 8000
	// MaxMaxTokens caps any call: larger outputs are refused or cut by
	// common clients (25k in Claude Code), and an agent reads a page at a
	// time better than a wall.
	MaxMaxTokens = 20000
	// minMaxTokens keeps a page big enough for one useful segment.
	minMaxTokens = 256
)

// RetrievalInput is the codebase_retrieval request.
type RetrievalInput struct {
	InformationRequest string   `json:"information_request" jsonschema:"what you need to know or find, in natural language or as a symbol, error message or issue text, e.g. 'where are HTTP/2 idle connections closed'"`
	TechnicalTerms     []string `json:"technical_terms,omitempty" jsonschema:"identifiers, file names or exact phrases you already know that the answer likely contains, e.g. ['closeIdleConns', 'http2']; they add recall, they do not filter"`
	Mode               string   `json:"mode,omitempty" jsonschema:"quick (top few segments, 4k tokens), balanced (default, 8k tokens) or deep (more candidates and files, 16k tokens)"`
	IncludeGlobs       []string `json:"include_globs,omitempty" jsonschema:"keep only paths matching one of these globs, relative to the repository root, e.g. ['src/**', '*.go']"`
	ExcludeGlobs       []string `json:"exclude_globs,omitempty" jsonschema:"drop paths matching any of these globs, e.g. ['**/*_test.go', 'vendor/**']"`
	Language           []string `json:"language,omitempty" jsonschema:"keep only these languages (go, python, javascript, typescript, java, rust, c, cpp, csharp, ruby, php, ...)"`
	MaxTokens          int      `json:"max_tokens,omitempty" jsonschema:"token budget of this page (o200k_base tokens of the text returned); default from mode, at most 20000; values under 256 are raised to 256"`
	MaxFiles           int      `json:"max_files,omitempty" jsonschema:"most distinct files over all pages (default: quick 5, balanced 10, deep 20)"`
	MaxSegmentsPerFile int      `json:"max_segments_per_file,omitempty" jsonschema:"most found segments from one file (default 3); the context pieces added around them (their type, what they call) are not counted"`
	OutputFormat       string   `json:"output_format,omitempty" jsonschema:"markdown (default: fenced code under path:lines headings), json, or both"`
	ReturnDebug        bool     `json:"return_debug,omitempty" jsonschema:"add each segment's per-channel ranks and ranking boosts, and the search statistics"`
	LowConfidence      string   `json:"low_confidence_behavior,omitempty" jsonschema:"what to return when the best match is weak: return_with_warning (default: everything, with a warning), return_top1 (only the best segment), return_empty (nothing, with the reason)"`
	Cursor             string   `json:"cursor,omitempty" jsonschema:"the cursor of a truncated previous result, to get its next page; repeat every other argument unchanged"`
	Decompose          string   `json:"decompose,omitempty" jsonschema:"with an LLM configured on the server (CTX_LLM_PROVIDER): auto (default: split a complex question into up to 3 sub-queries and fuse their results), on, or off; without one, auto and off do nothing"`
	ExplainResults     bool     `json:"explain_results,omitempty" jsonschema:"add a one-line summary of what each segment does, written by the server's LLM (cached by the code's hash); needs CTX_LLM_PROVIDER on the server"`
	Workspace          string   `json:"workspace,omitempty" jsonschema:"search every repository of this workspace (a name that ctx workspace ls lists) instead of one; each segment then names its repo. Not combined with repo_path or cursor: the page holds the best segments of all members within max_tokens"`
	RepoPath           string   `json:"repo_path,omitempty" jsonschema:"repository or folder to search, absolute or relative to the server root (default: the server root); must be inside the server root. A folder inside an indexed repository narrows the search to it; globs are then relative to the folder, result paths stay relative to the repository root"`
}

// Segment is one returned piece of code.
type Segment struct {
	Repo string `json:"repo,omitempty" jsonschema:"the workspace member it comes from (workspace searches only); path is relative to that member's root"`
	Path string `json:"path" jsonschema:"file path relative to the repository root, with forward slashes"`
	// PathBytes names a file whose name is not valid UTF-8 (Path then
	// shows U+FFFD for the bytes JSON cannot carry).
	PathBytes string  `json:"path_bytes,omitempty" jsonschema:"set only when the file name is not valid UTF-8: the base64 of its raw bytes (path shows U+FFFD for the invalid bytes)"`
	StartLine int     `json:"start_line" jsonschema:"first line, 1-based, inclusive"`
	EndLine   int     `json:"end_line" jsonschema:"last line, 1-based, inclusive"`
	Score     float64 `json:"score" jsonschema:"final ranking score; higher is better, comparable within one call only"`
	Language  string  `json:"language"`
	Kind      string  `json:"kind" jsonschema:"function, method, class, type, block, section, ..."`
	Symbol    string  `json:"symbol,omitempty" jsonschema:"the defined name with its qualifiers, when the segment defines one"`
	Summary   string  `json:"summary" jsonschema:"one line: what this code is"`
	Code      string  `json:"code" jsonschema:"the text of the lines"`
	// ScoreComponents gives, per recall channel that found the segment,
	// its rank there and the channel's own score.
	ScoreComponents map[string]search.ChannelHit `json:"score_components" jsonschema:"per recall channel that found it (bm25, code, title, phrase, symbol, path, mention, bm25-file, dense, dense-rerank): rank (1-based) and that channel's score"`
	Boosts          []string                     `json:"boosts,omitempty" jsonschema:"ranking adjustments applied (debug only)"`
	Stale           bool                         `json:"stale,omitempty" jsonschema:"the file changed on disk since it was indexed; code is read from the current file"`
	Clipped         bool                         `json:"clipped,omitempty" jsonschema:"the segment alone exceeded the page budget and was cut to fit; read the rest from the file"`
	Merged          int                          `json:"merged,omitempty" jsonschema:"how many ranked hits were joined into this segment because they overlap or touch (their fields are the best one's)"`
	Explanation     string                       `json:"explanation,omitempty" jsonschema:"the LLM's one-line summary of what the code does (explain_results only)"`
	Context         string                       `json:"context,omitempty" jsonschema:"set on context added around the best hits rather than found by the search: why (definition of the enclosing type, a function the hit calls, a caller)"`
	Tokens          int                          `json:"tokens" jsonschema:"o200k_base tokens this segment adds to the text"`

	md   int    // o200k_base tokens of its markdown rendering, when mdOf is set
	mdOf string // the rendering md counts
	js   int    // o200k_base tokens of its JSON, when jsOf is set
	jsOf string // the JSON js counts (its tokens field as it was then)
}

// jsonTokens returns the o200k_base tokens of the segment's JSON, counted
// once per text.
func (sg *Segment) jsonTokens() int {
	b, _ := json.Marshal(sg)
	if string(b) != sg.jsOf {
		sg.js, sg.jsOf = tokens.Count(string(b)), string(b)
	}
	return sg.js
}

// markdownTokens returns the o200k_base tokens of the segment's markdown
// rendering, counted once per rendering.
func (sg *Segment) markdownTokens() int {
	r := renderSegment(sg)
	if r != sg.mdOf {
		sg.md, sg.mdOf = tokens.Count(r), r
	}
	return sg.md
}

// Freshness says how current the answer is.
type Freshness struct {
	IndexGeneration int64    `json:"index_generation" jsonschema:"generation of the index the answer came from; grows with every changing index run"`
	Fresh           bool     `json:"fresh" jsonschema:"true when the index held every edit made under the repository before this call (with the server's watcher); false when a returned file changed since it was indexed, files were added or removed since, or the index is being built"`
	StaleFiles      []string `json:"stale_files,omitempty" jsonschema:"returned files that changed since indexing; run ctx index to refresh"`
	// Stale says why the answer is not fresh when the returned files are
	// not the reason (files added, removed or still being indexed).
	Stale string `json:"stale,omitempty" jsonschema:"why the answer may miss recent changes (files added or removed since the index, or edits the watcher is still indexing) and what to do"`
	// Refreshing is set when this call found changed files and started a
	// background incremental index run (auto-index servers only).
	Refreshing bool `json:"refreshing,omitempty" jsonschema:"a background index run started to pick up the changed files; later calls see it once it commits"`
}

// RetrievalStats reports the call's cost.
type RetrievalStats struct {
	ServerMS  float64 `json:"server_ms" jsonschema:"time in the server for this call, milliseconds"`
	SearchMS  float64 `json:"search_ms" jsonschema:"of which retrieval and ranking, milliseconds"`
	QueryKind string  `json:"query_kind" jsonschema:"how the query was read: symbol, natural or long"`
	Files     int     `json:"files_considered" jsonschema:"distinct files among the ranked candidates"`
	// DenseQuery is set when the semantic channel embedded the query
	// without words most of the index holds (the project's name).
	DenseQuery string `json:"dense_query,omitempty" jsonschema:"the text the semantic channel embedded, when it left out words most of the code holds (such as the project's name)"`
	// QueryTruncated and QueryBytes say the query was over the limit and
	// only its first 32 KiB were searched.
	QueryTruncated bool `json:"query_truncated,omitempty" jsonschema:"the query was longer than the limit (CTX_MAX_QUERY_BYTES, 32 KiB): only its first part was searched"`
	QueryBytes     int  `json:"query_bytes,omitempty" jsonschema:"the query's length in bytes, when it was truncated"`
	// Degraded says a channel could not run: the embedding provider
	// failed or did not answer in time, so the lexical channels answered.
	Degraded string `json:"degraded,omitempty" jsonschema:"set when the search ran without a channel, e.g. 'dense channel unavailable: <cause>': the embedding provider failed and the results come from the lexical channels"`
	// Cached is set when the answer came from the server's query cache.
	Cached bool `json:"cached,omitempty" jsonschema:"the same call against the same index state was answered before: this answer is that one, from the server's cache"`
	// The optional model layer's work on this call.
	SubQueries []string            `json:"sub_queries,omitempty" jsonschema:"the sub-queries the LLM split the request into, each searched and fused with the request's own results"`
	Steering   string              `json:"steering,omitempty" jsonschema:"why an LLM step did not happen (the LLM failed, a spend cap), with the fix"`
	LLM        *engine.LLMUsage    `json:"llm,omitempty" jsonschema:"what the LLM did: model, requests, tokens, milliseconds, cost in USD"`
	Rerank     *engine.RerankStats `json:"rerank,omitempty" jsonschema:"the rerank stage: model, how many segments it reordered, milliseconds, cost, or why it was skipped"`
	// Partial and PartialReason say the answer is incomplete: the first
	// index is still being built, or the request deadline came first.
	Partial       bool   `json:"partial,omitempty" jsonschema:"the answer is incomplete: the first index is still being built, or the request deadline (limits.request_timeout) came before part of the search finished"`
	PartialReason string `json:"partial_reason,omitempty" jsonschema:"what the answer is missing and why"`
}

// RetrievalOutput is the codebase_retrieval result.
type RetrievalOutput struct {
	Query      string    `json:"query"`
	Segments   []Segment `json:"segments" jsonschema:"this page's segments, grouped by file (files by relevance), lines ascending within a file"`
	Files      int       `json:"files" jsonschema:"distinct files on this page"`
	Tokens     int       `json:"tokens" jsonschema:"o200k_base tokens of this page's text content"`
	MaxTokens  int       `json:"max_tokens" jsonschema:"the page budget applied"`
	Truncated  bool      `json:"truncated" jsonschema:"more segments remain; call again with cursor"`
	Cursor     string    `json:"cursor,omitempty" jsonschema:"pass as cursor, with the same other arguments, for the next page"`
	Remaining  int       `json:"remaining,omitempty" jsonschema:"segments left after this page"`
	Confidence string    `json:"confidence" jsonschema:"high, medium or low: how likely the segments are to hold what was asked (low: nothing in the index matches the request well; the segments are the closest matches, not answers)"`
	Warning    string    `json:"warning,omitempty"`
	Freshness  Freshness `json:"freshness"`
	// Method says how the answer was produced.
	Method string         `json:"method" jsonschema:"how the segments were found"`
	Stats  RetrievalStats `json:"stats"`

	notes []string // lines on how the search differed from the request (engine.FindStats.Notes)
}

// modeParams are a mode's defaults: its engine preset (budget and
// context expansion), candidates and files.
type modeParams struct {
	engine.Mode
	limit, files int
}

var modes = map[string]modeParams{
	"quick":    {Mode: engine.Modes["quick"], limit: 10, files: 5},
	"balanced": {Mode: engine.Modes["balanced"], limit: 24, files: 10},
	"deep":     {Mode: engine.Modes["deep"], limit: 48, files: 20},
}

// cursor is the decoded continuation token of a truncated page.
type cursor struct {
	Offset int    `json:"o"` // segments already returned
	Gen    int64  `json:"g"` // index generation of the first page
	Key    string `json:"k"` // hash of the request's other arguments
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Offset < 0 || c.Key == "" {
		return c, badArg("cursor %q is not one this server issued; repeat the call without cursor", s)
	}
	return c, nil
}

// requestKey hashes every argument that shapes the page sequence, so a
// cursor is only accepted for the request that issued it.
func requestKey(root string, in RetrievalInput) string {
	in.Cursor, in.ReturnDebug = "", false
	b, _ := json.Marshal(struct {
		Root string
		In   RetrievalInput
	}{root, in})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

const retrievalDescription = `Search this codebase and return the exact code that answers a question: file paths, line ranges and the code itself, ranked and packed to a token budget.
Use it FIRST, instead of grep, find or reading whole files, whenever you need to know where or how something is done, what implements a feature, where an error comes from, or which code an issue or stack trace is about. It understands natural language, identifiers and pasted errors (hybrid BM25 + embeddings + symbol and path signals).
Results are grouped by file with line numbers; a truncated result carries a cursor for the next page. Follow up on a named symbol with get_symbol_definition or find_references.
Example: {"information_request": "where are idle HTTP keep-alive connections closed", "technical_terms": ["closeIdleConns"], "mode": "balanced"}`

func (s *Server) addRetrieval() {
	tool := &mcp.Tool{
		Name:        "codebase_retrieval",
		Title:       "Codebase retrieval",
		Description: retrievalDescription,
		InputSchema: inputSchema[RetrievalInput](map[string]prop{
			"mode":                    {enum: []any{"quick", "balanced", "deep"}, def: "balanced"},
			"output_format":           {enum: []any{"markdown", "json", "both"}, def: "markdown"},
			"low_confidence_behavior": {enum: []any{"return_with_warning", "return_top1", "return_empty"}, def: "return_with_warning"},
			"max_tokens":              {min: 1, max: MaxMaxTokens},
			"max_files":               {min: 1, max: 100},
			"max_segments_per_file":   {min: 1, max: 20},
		}),
		Annotations: readOnly("Codebase retrieval"),
	}
	addTool(s, tool, s.retrieve)
}

// retrieve answers codebase_retrieval.
func (s *Server) retrieve(ctx context.Context, req *mcp.CallToolRequest, in RetrievalInput) (*mcp.CallToolResult, RetrievalOutput, error) {
	start := time.Now()
	var out RetrievalOutput
	if strings.TrimSpace(in.InformationRequest) == "" && len(in.TechnicalTerms) == 0 {
		return nil, out, badArg("information_request is empty; say what you are looking for")
	}
	mode := in.Mode
	if mode == "" {
		mode = "balanced"
	}
	mp, ok := modes[mode]
	if !ok {
		return nil, out, badArg("mode %q: want quick, balanced or deep", in.Mode)
	}
	format := in.OutputFormat
	if format == "" {
		format = "markdown"
	}
	if format != "markdown" && format != "json" && format != "both" {
		return nil, out, badArg("output_format %q: want markdown, json or both", in.OutputFormat)
	}
	lowConf := in.LowConfidence
	if lowConf == "" {
		lowConf = "return_with_warning"
	}
	if !slices.Contains([]string{"return_with_warning", "return_top1", "return_empty"}, lowConf) {
		return nil, out, badArg("low_confidence_behavior %q: want return_with_warning, return_top1 or return_empty", in.LowConfidence)
	}
	budget := mp.Budget
	if in.MaxTokens > 0 {
		budget = in.MaxTokens
	}
	budget = min(max(budget, minMaxTokens), MaxMaxTokens)
	maxFiles := mp.files
	if in.MaxFiles > 0 {
		maxFiles = in.MaxFiles
	}
	perFile := 3
	if in.MaxSegmentsPerFile > 0 {
		perFile = in.MaxSegmentsPerFile
	}
	for _, g := range append(slices.Clone(in.IncludeGlobs), in.ExcludeGlobs...) {
		if !validGlob(g) {
			return nil, out, badArg("bad glob %q", g)
		}
	}
	if in.Workspace != "" {
		if in.RepoPath != "" || in.Cursor != "" {
			return nil, out, badArg("workspace searches every member: leave repo_path and cursor out")
		}
		return s.retrieveWorkspace(ctx, in, mp, budget, format, lowConf, start)
	}
	e, scope, err := s.repoScope(in.RepoPath)
	if err != nil {
		return nil, out, err
	}
	key := requestKey(e.Root(), in)
	var cur cursor
	if in.Cursor != "" {
		if cur, err = decodeCursor(in.Cursor); err != nil {
			return nil, out, err
		}
		if cur.Key != key {
			return nil, out, badArg("this cursor belongs to a call with other arguments; repeat the original call's arguments with it, or call again without cursor")
		}
	}

	query := strings.TrimSpace(in.InformationRequest)
	if len(in.TechnicalTerms) > 0 {
		query = strings.TrimSpace(query + " " + strings.Join(in.TechnicalTerms, " "))
	}
	limit := mp.limit
	if len(in.ExcludeGlobs) > 0 {
		limit *= 3
	}
	var dec engine.Decompose
	switch in.Decompose {
	case "", "auto":
	case "on":
		dec = engine.DecomposeOn
	case "off":
		dec = engine.DecomposeOff
	default:
		return nil, out, badArg("decompose %q: want auto, on or off", in.Decompose)
	}
	resp, err := e.Find(ctx, engine.FindRequest{Query: query, Limit: limit, Languages: in.Language, PathGlobs: scopeGlobs(scope, in.IncludeGlobs), Expand: mp.Expand, Grouped: true,
		Decompose: dec, ExplainResults: in.ExplainResults})
	if err != nil {
		return nil, out, s.explain(e, err)
	}
	// The engine answered from its cache: the same request against the
	// same index state gives the same page, kept from last time.
	pkey := fmt.Sprintf("%s|%s|%d|%s|%v", key, in.Cursor, resp.Stats.IndexGeneration, in.OutputFormat, in.ReturnDebug)
	if resp.Stats.Cached {
		if p, ok := s.pages.Get(pkey); ok {
			out = p.out
			out.Stats.Cached = true
			out.Stats.ServerMS = since(start)
			return &mcp.CallToolResult{Content: p.content}, out, nil
		}
	}
	if in.Cursor != "" && cur.Gen != resp.Stats.IndexGeneration {
		return nil, out, badArg("the index changed since this cursor was issued (generation %d, now %d), so its pages no longer line up; repeat the call without cursor", cur.Gen, resp.Stats.IndexGeneration)
	}
	out.Query = resp.Query // at most engine.EchoBytes of it
	out.Method = "hybrid retrieval (BM25 + embeddings + symbol, path and mention channels, RRF fusion, ranking), grouped by file"
	if resp.Stats.Degraded != "" {
		out.Method = "lexical retrieval (BM25 + symbol, path and mention channels, RRF fusion, ranking; the embedding channel was unavailable), grouped by file"
	}
	out.notes = resp.Stats.Notes()
	out.MaxTokens = budget
	out.Freshness = Freshness{IndexGeneration: resp.Stats.IndexGeneration, Fresh: resp.Stats.Fresh}
	switch {
	case !resp.Stats.Fresh && s.watching(e.Root()):
		// The watcher is already bringing the index up to date.
		out.Freshness.Refreshing = true
	case !resp.Stats.Fresh && s.opts.AutoIndex:
		// Files the answer shows changed on disk: bring the index up to
		// date in the background (incremental: only changed files are
		// read), so the agent's next call sees its own edits.
		s.startIndex(e, false)
		out.Freshness.Refreshing = true
	}
	out.Freshness.Stale = resp.Stats.Stale
	out.Stats = RetrievalStats{SearchMS: resp.Stats.SearchMS, Cached: resp.Stats.Cached, QueryKind: resp.Stats.QueryKind, Files: resp.Stats.FilesConsidered, DenseQuery: resp.Stats.DenseQuery,
		QueryTruncated: resp.Stats.QueryTruncated, QueryBytes: resp.Stats.QueryBytes, Degraded: resp.Stats.Degraded,
		SubQueries: resp.Stats.SubQueries, Steering: resp.Stats.Steering, LLM: resp.Stats.LLM, Rerank: resp.Stats.Rerank,
		Partial: resp.Stats.Partial, PartialReason: resp.Stats.PartialReason}

	exclude := in.ExcludeGlobs
	if len(exclude) > 0 {
		exclude = scopeGlobs(scope, exclude)
	}
	hits := make([]engine.Hit, 0, len(resp.Results))
	for _, h := range resp.Results {
		if excluded(exclude, h.Path) {
			continue
		}
		hits = append(hits, h)
	}
	out.Confidence = answerConfidence(resp, hits)
	if out.Confidence == "low" {
		switch lowConf {
		case "return_empty":
			hits = nil
			out.Warning = "the best match was weak, so nothing is returned (low_confidence_behavior=return_empty); rephrase with identifiers you expect in the code, or widen include_globs/language"
		case "return_top1":
			hits = hits[:min(1, len(hits))]
			out.Warning = "the best match was weak; only it is returned (low_confidence_behavior=return_top1)"
		default:
			out.Warning = "low confidence: nothing in the index matches the request well; these segments are the closest matches, not answers. Rephrase with identifiers you expect in the code"
		}
	}
	if len(hits) == 0 && out.Warning == "" {
		out.Warning = "no code matched the request"
		if len(in.IncludeGlobs)+len(in.ExcludeGlobs)+len(in.Language) > 0 {
			out.Warning += " within the given globs and languages; try without them"
		}
	}
	psegs := make([]pack.Segment, len(hits))
	for i, h := range hits {
		psegs[i] = pack.Segment{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, StartByte: h.StartByte, EndByte: h.EndByte, Score: h.Score, Context: h.Expanded()}
	}
	segs := pack.Select(psegs, pack.SelectOptions{MaxFiles: maxFiles, PerFile: perFile})
	if cur.Offset > len(segs) {
		return nil, out, badArg("cursor is past the end of the results; repeat the call without cursor")
	}
	page := s.paginate(e, hits, segs[cur.Offset:], budget, format, in.ReturnDebug, &out)
	out.Segments = page
	next := cur.Offset + len(page)
	if next < len(segs) {
		out.Truncated = true
		out.Remaining = len(segs) - next
		out.Cursor = cursor{Offset: next, Gen: resp.Stats.IndexGeneration, Key: key}.encode()
	}
	res := &mcp.CallToolResult{Content: fitPage(&out, format, budget, func(dropped int) {
		next -= dropped
		out.Truncated, out.Remaining = true, len(segs)-next
		out.Cursor = cursor{Offset: next, Gen: resp.Stats.IndexGeneration, Key: key}.encode()
	})}
	out.Stats.ServerMS = since(start)
	if resp.Stats.Fresh && resp.Stats.Degraded == "" && !resp.Stats.Partial {
		s.pages.Add(pkey, &cachedPage{out: out, content: res.Content})
	}
	return res, out, nil
}

// cachedPage is a codebase_retrieval answer kept for a repeated call.
type cachedPage struct {
	out     RetrievalOutput
	content []mcp.Content
}

// fitPage renders the page in format and counts its tokens exactly. The
// page was filled by segment counts, so the header and footer estimate
// can overshoot by a few tokens: while the whole text exceeds budget it
// drops the last segment (keeping at least one) and calls truncate(1)
// for it, so the caller moves the cursor back to what is shown.
func fitPage(out *RetrievalOutput, format string, budget int, truncate func(dropped int)) []mcp.Content {
	for {
		summarize(out)
		var parts []string
		switch format {
		case "markdown":
			parts = []string{renderMarkdown(out)}
		case "json":
			parts = []string{mustJSON(out)}
		case "both":
			parts = []string{renderMarkdown(out), mustJSON(out)}
		}
		out.Tokens = 0
		for i, p := range parts {
			if i == 0 && format != "json" {
				out.Tokens += markdownTokens(out)
				continue
			}
			out.Tokens += jsonPageTokens(p, out.Segments)
		}
		if out.Tokens <= budget || len(out.Segments) <= 1 {
			content := make([]mcp.Content, len(parts))
			for i, p := range parts {
				content[i] = &mcp.TextContent{Text: p}
			}
			return content
		}
		out.Segments = out.Segments[:len(out.Segments)-1]
		truncate(1)
	}
}

// summarize fills the page's file count and stale files from its
// segments.
func summarize(out *RetrievalOutput) {
	files := map[string]bool{}
	out.Freshness.StaleFiles = nil
	for _, sg := range out.Segments {
		if sg.Stale && !files[sg.Path] {
			out.Freshness.StaleFiles = append(out.Freshness.StaleFiles, sg.Path)
		}
		files[sg.Path] = true
	}
	out.Files = len(files)
}

// paginate takes segments from the front of segs while their rendering
// fits in budget tokens (counting the page header), and clips a first
// segment that alone does not fit. A segment shows the fields of the best
// hit merged into it, and the code of its whole span.
func (s *Server) paginate(e *engine.Engine, hits []engine.Hit, segs []pack.Segment, budget int, format string, debug bool, out *RetrievalOutput) []Segment {
	fixed := tokens.Count(renderHeader(out, 0, 0)) + tokens.Count(out.Warning) + footerTokens
	for _, n := range out.notes {
		fixed += tokens.Count(noteLine(n))
	}
	if format != "markdown" {
		fixed += jsonOverhead
	}
	page := make([]Segment, len(segs))
	build := func(i int) {
		ps := segs[i]
		h := hits[ps.Hits[0]]
		stale := false
		for _, j := range ps.Hits {
			stale = stale || hits[j].Stale
		}
		sg := Segment{Path: ps.Path, PathBytes: h.PathBytes, StartLine: ps.StartLine, EndLine: ps.EndLine, Score: ps.Score, Language: h.Language, Kind: h.Kind,
			Symbol: h.Symbol, Summary: h.Summary, Explanation: h.Explanation, ScoreComponents: h.Channels, Stale: stale,
			Code: e.CodeSpan(ps.Path, ps.StartByte, ps.EndByte, ps.StartLine, ps.EndLine, stale)}
		if debug {
			sg.Boosts = h.Boosts
		}
		if sg.ScoreComponents == nil {
			sg.ScoreComponents = map[string]search.ChannelHit{}
		}
		if len(ps.Hits) > 1 {
			sg.Merged = len(ps.Hits)
		}
		sg.Context = h.Context
		sg.Tokens = segmentTokens(&sg, format)
		page[i] = sg
	}
	// Segments are built ahead of Fill on every core; Fill stops at the
	// first that does not fit, so at most one per goroutine besides it
	// is built for nothing (Fill alone already built that one).
	a := runAhead(len(segs), build)
	defer a.close()
	cost := func(i int) int {
		a.wait(i)
		return page[i].Tokens
	}
	shrink := func(i, avail int) int {
		clip(&page[i], avail, format)
		return page[i].Tokens
	}
	n, used := pack.Fill(len(segs), budget, fixed, cost, shrink)
	out.Tokens = used
	return page[:n]
}

// footerTokens reserves room for the truncation footer and cursor, and
// jsonOverhead for the JSON text's fields around the segments (stats,
// freshness, method: about 150 tokens measured).
const (
	footerTokens = 60
	jsonOverhead = 200
)

// segmentTokens counts what a segment adds to the text content.
func segmentTokens(sg *Segment, format string) int {
	n := 0
	if format != "json" {
		n += sg.markdownTokens()
	}
	if format != "markdown" {
		n += sg.jsonTokens()
	}
	return n
}

// clip cuts a segment's code at a line boundary until it fits avail
// tokens (keeping at least its first line), and marks it clipped.
func clip(sg *Segment, avail int, format string) {
	lines := strings.SplitAfter(sg.Code, "\n")
	lo, hi := 1, len(lines)
	full := sg.Code
	for lo < hi {
		mid := (lo + hi + 1) / 2
		sg.Code = strings.Join(lines[:mid], "")
		if segmentTokens(sg, format) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < len(lines) || segmentTokens(sg, format) > avail {
		sg.Code = strings.Join(lines[:lo], "")
		sg.EndLine = sg.StartLine + strings.Count(strings.TrimSuffix(sg.Code, "\n"), "\n")
		sg.Clipped = sg.Code != full
	}
	sg.Tokens = segmentTokens(sg, format)
}

// renderHeader is the page's first line.
func renderHeader(out *RetrievalOutput, segs, files int) string {
	return fmt.Sprintf("# ctx: %d segments from %d files for %q (confidence %s, index generation %d)\n\n", segs, files, out.Query, out.Confidence, out.Freshness.IndexGeneration)
}

// writeCode writes code as a fenced markdown block tagged lang, its
// fence longer than any run of backticks in the code, ending in a newline.
func writeCode(b *strings.Builder, lang, code string) {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	b.WriteString(fence + lang + "\n" + code)
	if !strings.HasSuffix(code, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
}

// renderSegment is one segment in markdown.
func renderSegment(sg *Segment) string {
	var b strings.Builder
	b.WriteString("## ")
	if sg.Repo != "" {
		b.WriteString(sg.Repo + ":")
	}
	fmt.Fprintf(&b, "%s:%d-%d", sg.Path, sg.StartLine, sg.EndLine)
	if sg.Symbol != "" {
		fmt.Fprintf(&b, " · %s %s", sg.Kind, sg.Symbol)
	} else if sg.Kind != "" {
		fmt.Fprintf(&b, " · %s", sg.Kind)
	}
	fmt.Fprintf(&b, " · score %.3g", sg.Score)
	if sg.Stale {
		b.WriteString(" · STALE: file changed since indexing")
	}
	if sg.Clipped {
		b.WriteString(" · clipped to the budget")
	}
	if sg.Context != "" {
		b.WriteString(" · context: " + sg.Context)
	}
	b.WriteString("\n")
	writeCode(&b, fenceLang(sg.Language, sg.Path), sg.Code)
	b.WriteString("\n")
	return b.String()
}

func fenceLang(lang, p string) string {
	if lang != "" && lang != "text" {
		return lang
	}
	return strings.TrimPrefix(path.Ext(p), ".")
}

// renderMarkdown is the whole page as markdown: its head, each segment,
// then its tail.
func renderMarkdown(out *RetrievalOutput) string {
	var b strings.Builder
	b.WriteString(renderHead(out))
	for i := range out.Segments {
		b.WriteString(renderSegment(&out.Segments[i]))
	}
	b.WriteString(renderTail(out))
	return b.String()
}

// markdownTokens counts the o200k_base tokens of renderMarkdown(out)
// from the parts' counts, which the segments carry: o200k's
// pre-tokenizer never joins text across the parts' boundaries (the head
// ends with a blank line, each segment with a closing fence and a blank
// line, and each segment and the tail start with "#" or ">"), so the
// text's count is their sum. TestMarkdownTokensAdditive checks it
// against counting the whole text.
func markdownTokens(out *RetrievalOutput) int {
	n := tokens.Count(renderHead(out)) + tokens.Count(renderTail(out))
	for i := range out.Segments {
		n += out.Segments[i].markdownTokens()
	}
	return n
}

// jsonPageTokens counts the o200k_base tokens of text, a page's JSON
// (mustJSON of a [RetrievalOutput] holding segs), from its segments'
// counts (their jsonTokens) and a count of the text around them, when
// text lays the segments out as their counted JSON does apart from their
// tokens field; otherwise it counts text.
//
// The sum holds because o200k's pre-tokenizer never joins text across
// the cuts: each segment's JSON starts with the punctuation run `{"` and
// ends with a number and `}`, so cutting text after each segment's `{"`
// and before its `}` splits it where the pre-tokenizer does (the runs
// `[{"`, `},{"` and `}],"` are whole pieces, and the digits of a number
// are split in threes from its start whatever follows). A segment's
// count is then its counted JSON's, less the `{"` and `}` now counted
// with the text around it, with its tokens field's digits as they are in
// text. TestJSONPageTokens checks it against counting the whole text.
func jsonPageTokens(text string, segs []Segment) int {
	const open = `,"segments":[`
	at := strings.Index(text, open)
	if len(segs) == 0 || at < 0 {
		return tokens.Count(text)
	}
	at += len(open)
	first := at
	n := 0
	for k := range segs {
		sg := &segs[k]
		old, body, ok := splitTokensField(sg.jsOf)
		if !ok || sg.jsOf == "" {
			return tokens.Count(text)
		}
		digits := strconv.Itoa(sg.Tokens)
		if !strings.HasPrefix(text[at:], body) || !strings.HasPrefix(text[at+len(body):], digits+"}") {
			return tokens.Count(text)
		}
		at += len(body) + len(digits) + 1
		if k < len(segs)-1 {
			if !strings.HasPrefix(text[at:], ",") {
				return tokens.Count(text)
			}
			at++
		}
		n += sg.js - tokens.Count(old) + tokens.Count(digits)
	}
	if !strings.HasPrefix(text[at:], "]") {
		return tokens.Count(text)
	}
	ends, between := jsonJoinTokens()
	n -= len(segs) * ends
	n += (len(segs) - 1) * between
	return n + tokens.Count(text[:first+2]) + tokens.Count(text[at-1:])
}

// jsonJoinTokens returns the o200k_base tokens of a segment's own `{"`
// and `}` together, and of the `},{"` between two segments: constants,
// counted once.
var jsonJoinTokens = sync.OnceValues(func() (int, int) {
	return tokens.Count(`{"`) + tokens.Count("}"), tokens.Count(`},{"`)
})

// splitTokensField splits a segment's JSON before the digits of its
// tokens field, its last: body ends with `"tokens":`, digits are the
// field's value and the JSON's closing brace follows them.
func splitTokensField(js string) (digits, body string, ok bool) {
	const field = `,"tokens":`
	i := strings.LastIndex(js, field)
	if i < 0 || !strings.HasSuffix(js, "}") {
		return "", "", false
	}
	body, digits = js[:i+len(field)], js[i+len(field):len(js)-1]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", "", false
	}
	return digits, body, true
}

func renderHead(out *RetrievalOutput) string {
	var b strings.Builder
	b.WriteString(renderHeader(out, len(out.Segments), out.Files))
	if out.Warning != "" {
		fmt.Fprintf(&b, "> warning: %s\n\n", out.Warning)
	}
	for _, n := range out.notes {
		b.WriteString(noteLine(n))
	}
	return b.String()
}

// noteLine renders a line of engine.FindStats.Notes in the page head.
func noteLine(n string) string { return "> warning: " + n + "\n\n" }

func renderTail(out *RetrievalOutput) string {
	var b strings.Builder
	if len(out.Freshness.StaleFiles) > 0 {
		fix := "run `ctx index` to refresh"
		if out.Freshness.Refreshing {
			fix = "the index is being refreshed in the background"
		}
		fmt.Fprintf(&b, "> stale: %s changed since indexing (code shown is the current file's); %s.\n", strings.Join(out.Freshness.StaleFiles, ", "), fix)
	}
	if out.Freshness.Stale != "" {
		fmt.Fprintf(&b, "> stale: %s.\n", out.Freshness.Stale)
	}
	if out.Truncated {
		fmt.Fprintf(&b, "> truncated at %d tokens: %d more segments. Call again with the same arguments and cursor=%q.\n", out.MaxTokens, out.Remaining, out.Cursor)
	}
	return b.String()
}

// answerConfidence is the grade of an answer whose kept results are hits
// (see [engine.Confidence]): low when none are left.
func answerConfidence(resp *engine.FindResponse, hits []engine.Hit) string {
	if len(hits) == 0 {
		return string(engine.ConfidenceLow)
	}
	return string(resp.Confidence)
}

func excluded(globs []string, p string) bool {
	for _, g := range globs {
		if engine.MatchGlob(g, p) {
			return true
		}
	}
	return false
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("{\"error\": %q}", err.Error())
	}
	return string(b)
}
