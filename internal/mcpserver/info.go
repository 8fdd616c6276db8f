package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// InfoInput is the info_request request.
type InfoInput struct {
	InfoRequest          string   `json:"info_request" jsonschema:"what you want found and explained: a symbol (ReadMIMEHeader, (*Server).Shutdown), a question, or an error message"`
	Limit                int      `json:"limit,omitempty" jsonschema:"most results (default 5)"`
	IncludeExplanation   *bool    `json:"include_explanation,omitempty" jsonschema:"say how the query was understood and, per result, why it ranked: channel ranks, matched terms, ranking lifts (default true)"`
	IncludeRelationships *bool    `json:"include_relationships,omitempty" jsonschema:"add each result's definition, callers, importers and tests from the symbol and import graphs (default true; false is faster)"`
	Language             []string `json:"language,omitempty" jsonschema:"keep only these languages"`
	PathGlobs            []string `json:"path_globs,omitempty" jsonschema:"keep only paths matching one of these globs, relative to the repository root"`
	RepoPath             string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
	Workspace            string   `json:"workspace,omitempty" jsonschema:"search every repository of this workspace (list_workspaces) instead of one; each result then names its repo"`
}

// InfoOutput is the info_request result: the result JSON of
// `ctx find --explain --json`, and the server's time.
type InfoOutput struct {
	Query      string             `json:"query"`
	Understood *engine.Understood `json:"understood,omitempty" jsonschema:"how the query was read: kind, name asked for and whether the index defines it, identifiers, paths, phrases, weighted terms, terms missing from the index"`
	Results    []engine.Hit       `json:"results" jsonschema:"ranked chunks: path, 1-based inclusive lines, kind, symbol, summary; why (reasons in words), channels (per-channel ranks), boosts, relationships (definition, callers, importers, tests: path and 1-based line, at most 5 each with a count of the rest)"`
	Confidence engine.Confidence  `json:"confidence" jsonschema:"high, medium or low: how likely the results hold what was asked; stats.confidence_basis says why"`
	Stats      engine.FindStats   `json:"stats"`
	Scope      string             `json:"scope,omitempty" jsonschema:"the folder searched, when repo_path names one inside a repository"`
	ServerMS   float64            `json:"server_ms"`
}

func (s *Server) addInfoRequest() {
	addTool(s, &mcp.Tool{
		Name:  "info_request",
		Title: "Explain a search",
		Description: `Find code and explain the answer: how the query was understood (kind, identifiers, paths, phrases, weighted terms, words the index lacks), why each result ranked (channel ranks, matched terms, lifts and penalties in words), each result's relationships (definition, callers, importers, tests that mention it) and the confidence with its basis.
Use it when you must judge results rather than just read them: before trusting a surprising hit, when codebase_retrieval's answers look off, or to get the callers and tests of what you found in one call. Slower than search_code (it walks the symbol graph per result); set include_relationships to false for the explanation alone.
Example: {"info_request": "how does the server close idle connections", "limit": 5}`,
		InputSchema: inputSchema[InfoInput](map[string]prop{"limit": {def: 5, min: 1, max: 50}, "include_explanation": {def: true}, "include_relationships": {def: true}}),
		Annotations: readOnly("Explain a search"),
	}, s.infoRequest)
}

func (s *Server) infoRequest(ctx context.Context, _ *mcp.CallToolRequest, in InfoInput) (*mcp.CallToolResult, InfoOutput, error) {
	start := time.Now()
	out := InfoOutput{Results: []engine.Hit{}}
	if strings.TrimSpace(in.InfoRequest) == "" {
		return nil, out, badArg("info_request is empty")
	}
	for _, g := range in.PathGlobs {
		if !validGlob(g) {
			return nil, out, badArg("bad glob %q", g)
		}
	}
	explain := in.IncludeExplanation == nil || *in.IncludeExplanation
	relations := in.IncludeRelationships == nil || *in.IncludeRelationships
	req := engine.FindRequest{Query: in.InfoRequest, Limit: in.Limit, Languages: in.Language, PathGlobs: in.PathGlobs,
		Explain: explain || relations, NoRelationships: !relations}
	if req.Limit <= 0 {
		req.Limit = 5
	}
	resp, scope, err := s.find(ctx, req, in.RepoPath, in.Workspace)
	if err != nil {
		return nil, out, err
	}
	out.Scope = scope
	if !explain {
		resp.Understood, resp.Stats.Basis = nil, nil
		for i := range resp.Results {
			resp.Results[i].Why, resp.Results[i].Channels, resp.Results[i].Boosts = nil, nil, nil
		}
	}
	out.Query, out.Understood, out.Results, out.Confidence, out.Stats = resp.Query, resp.Understood, resp.Results, resp.Confidence, resp.Stats
	out.ServerMS = since(start)
	return textResult(renderInfo(out)), out, nil
}

// renderInfo is info_request's text: the understood query, the
// confidence, then per result its location, why-lines and relationships,
// one line each.
func renderInfo(out InfoOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %d results for %q", len(out.Results), out.Query)
	if out.Scope != "" {
		fmt.Fprintf(&b, " in %s", out.Scope)
	}
	b.WriteString("\n")
	for _, n := range out.Stats.Notes() {
		fmt.Fprintf(&b, "warning: %s\n", n)
	}
	if u := out.Understood; u != nil {
		fmt.Fprintf(&b, "understood as: %s query", u.Kind)
		if u.Name != "" {
			fmt.Fprintf(&b, " for %s", u.Name)
		}
		for _, l := range []struct {
			label string
			xs    []string
		}{{"symbols", u.Symbols}, {"paths", u.Paths}, {"phrases", u.Phrases}} {
			if len(l.xs) > 0 {
				fmt.Fprintf(&b, "; %s: %s", l.label, strings.Join(l.xs, ", "))
			}
		}
		b.WriteString("\n")
		if u.Defined != nil {
			if d := u.Definition; d != nil {
				fmt.Fprintf(&b, "%s is defined at %s:%d-%d\n", u.Name, d.Path, d.Line, d.EndLine)
			} else {
				fmt.Fprintf(&b, "%s is not defined in this index\n", u.Name)
			}
		}
		if len(u.Missing) > 0 {
			fmt.Fprintf(&b, "not in the index: %s\n", strings.Join(u.Missing, ", "))
		}
	}
	fmt.Fprintf(&b, "confidence: %s", out.Confidence)
	if out.Stats.Basis != nil {
		fmt.Fprintf(&b, " (%s)", out.Stats.Basis.Reason)
	}
	b.WriteString("\n")
	if len(out.Results) == 0 {
		b.WriteString("No code matched.\n")
	}
	for i, h := range out.Results {
		b.WriteString("\n")
		if h.Repo != "" {
			b.WriteString(h.Repo + ":")
		}
		fmt.Fprintf(&b, "%d. %s:%d-%d %s %s — %s\n", i+1, h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, h.Summary)
		for _, w := range h.Why {
			fmt.Fprintf(&b, "   why: %s\n", w)
		}
		if r := h.Relationships; r != nil {
			if d := r.Definition; d != nil {
				fmt.Fprintf(&b, "   definition: %s:%d-%d %s\n", d.Path, d.Line, d.EndLine, d.Symbol)
			}
			relatedLine(&b, "callers", r.Callers, r.CallersMore)
			relatedLine(&b, "importers", r.Importers, r.ImportersMore)
			relatedLine(&b, "tests", r.Tests, r.TestsMore)
		}
	}
	return b.String()
}

// relatedLine writes one relationship list as "label: path:line (symbol),
// … +N more"; nothing when it is empty.
func relatedLine(b *strings.Builder, label string, rs []engine.Related, more int) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(b, "   %s: ", label)
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s:%d", r.Path, r.Line)
		if r.Symbol != "" {
			fmt.Fprintf(b, " (%s)", r.Symbol)
		}
	}
	if more > 0 {
		fmt.Fprintf(b, " +%d more", more)
	}
	b.WriteString("\n")
}
