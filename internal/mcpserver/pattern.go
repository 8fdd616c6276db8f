package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// PatternSearchInput is the pattern_search request: a snippet given as
// code (with its language) or as lines of a file.
type PatternSearchInput struct {
	Code      string   `json:"code,omitempty" jsonschema:"the snippet's code (whole statements or definitions; common indentation is removed); give language with it"`
	Path      string   `json:"path,omitempty" jsonschema:"instead of code: the file holding the snippet, relative to the repository root"`
	StartLine int      `json:"start_line,omitempty" jsonschema:"with path: the snippet's first line, 1-based"`
	EndLine   int      `json:"end_line,omitempty" jsonschema:"with path: the snippet's last line, 1-based and inclusive (default: the indexed chunk holding start_line)"`
	Language  []string `json:"language,omitempty" jsonschema:"only results in these languages (go, python, typescript, ...); the first is the language of code"`
	Limit     int      `json:"limit,omitempty" jsonschema:"maximum results"`
	RepoPath  string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// PatternSearchOutput is the pattern_search answer: search_code's shape,
// each result with its similarity breakdown.
type PatternSearchOutput struct {
	Query    string           `json:"query"`
	Results  []engine.Hit     `json:"results" jsonschema:"ranked chunks: path, 1-based inclusive lines, score, kind, symbol, summary, similarity (structure, dense)"`
	Stats    engine.LikeStats `json:"stats"`
	ServerMS float64          `json:"server_ms"`
}

func (s *Server) addPatternSearch() {
	addTool(s, &mcp.Tool{
		Name:  "pattern_search",
		Title: "Pattern search",
		Description: `Find code structurally similar to a snippet, in any language: the same shape of syntax with other names and constants, or with small edits (near-duplicates, copy-pasted logic, other implementations of one idiom). Scores combine the syntax-tree similarity (identifiers and literals ignored) with the embedding similarity; the snippet's own lines are never a result.
Use it before refactoring duplicated code, to find every copy of a bug pattern, or to find how the codebase already writes something you are about to write. Give either code with its language, or path with start_line (and end_line).
Example: {"path": "client/retry.go", "start_line": 12, "end_line": 30, "limit": 5}`,
		InputSchema: inputSchema[PatternSearchInput](map[string]prop{"limit": {def: 10, min: 1, max: 100}}),
		Annotations: readOnly("Pattern search"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in PatternSearchInput) (*mcp.CallToolResult, PatternSearchOutput, error) {
		start := time.Now()
		var out PatternSearchOutput
		req := engine.LikeRequest{Languages: in.Language, Limit: in.Limit}
		switch {
		case in.Path != "" && in.Code != "":
			return nil, out, badArg("give code or path, not both")
		case in.Path != "":
			if in.StartLine < 1 {
				return nil, out, badArg("path needs start_line (1-based)")
			}
			req.Path, req.StartLine, req.EndLine = in.Path, in.StartLine, in.EndLine
		case strings.TrimSpace(in.Code) == "":
			return nil, out, badArg("give code (with language) or path and start_line")
		default:
			if len(in.Language) == 0 {
				return nil, out, badArg("code needs its language, e.g. {\"language\": [\"go\"]}")
			}
			req.Code, req.Language = in.Code, in.Language[0]
		}
		if req.Limit <= 0 {
			req.Limit = 10
		}
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		resp, err := e.Like(ctx, req)
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Query, out.Results, out.Stats = resp.Query, resp.Results, resp.Stats
		out.ServerMS = since(start)
		var b strings.Builder
		fmt.Fprintf(&b, "# %d results shaped like %s\n", len(out.Results), out.Query)
		if out.Stats.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", out.Stats.Note)
		}
		if len(out.Results) == 0 {
			b.WriteString("No similar code found.\n")
		}
		for _, h := range out.Results {
			fmt.Fprintf(&b, "%s:%d-%d %s %s (score %.3g: structure %.2f, dense %.2f) %s\n", h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol,
				h.Score, h.Similarity.Structure, h.Similarity.Dense, h.Summary)
		}
		return textResult(b.String()), out, nil
	})
}
