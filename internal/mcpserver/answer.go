package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// AnswerInput is the context_answer request.
type AnswerInput struct {
	Question     string   `json:"question" jsonschema:"the question about this codebase, in natural language"`
	MaxTokens    int      `json:"max_tokens,omitempty" jsonschema:"o200k_base tokens of code shown to the LLM (default 8000)"`
	IncludeGlobs []string `json:"include_globs,omitempty" jsonschema:"only code under paths matching one of these globs"`
	Language     []string `json:"language,omitempty" jsonschema:"only these languages"`
	RepoPath     string   `json:"repo_path,omitempty" jsonschema:"repository to ask about, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addContextAnswer() {
	addTool(s, &mcp.Tool{
		Name:  "context_answer",
		Title: "Answer from the code",
		Description: `Answer a question about this codebase with the server's LLM, from code retrieved for it, with citations (path, start_line, end_line) that were checked against the code the LLM was shown; citations it invented are removed and counted in dropped_citations.
Use it for a direct explanation with sources; use codebase_retrieval when you want the code itself. Needs an LLM configured on the server (CTX_LLM_PROVIDER); costs LLM tokens (usage and cost_usd say how many).
Example: {"question": "how does the server close idle connections?"}`,
		InputSchema: inputSchema[AnswerInput](map[string]prop{"max_tokens": {def: engine.DefaultAnswerBudget, min: 256, max: MaxMaxTokens}}),
		Annotations: &mcp.ToolAnnotations{Title: "Answer from the code", ReadOnlyHint: true, OpenWorldHint: new(true)},
	}, s.contextAnswer)
}

func (s *Server) contextAnswer(ctx context.Context, _ *mcp.CallToolRequest, in AnswerInput) (*mcp.CallToolResult, engine.AnswerResponse, error) {
	if strings.TrimSpace(in.Question) == "" {
		return nil, engine.AnswerResponse{}, badArg("question is empty; say what you want to know")
	}
	for _, g := range in.IncludeGlobs {
		if !validGlob(g) {
			return nil, engine.AnswerResponse{}, badArg("bad glob %q", g)
		}
	}
	e, scope, err := s.repoScope(in.RepoPath)
	if err != nil {
		return nil, engine.AnswerResponse{}, err
	}
	resp, err := e.Answer(ctx, engine.AnswerRequest{Question: in.Question, Budget: in.MaxTokens, Languages: in.Language, PathGlobs: scopeGlobs(scope, in.IncludeGlobs)})
	if err != nil {
		return nil, engine.AnswerResponse{}, s.explain(e, err)
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(resp.Answer) + "\n")
	if len(resp.Citations) > 0 {
		b.WriteString("\nCitations:\n")
		for _, c := range resp.Citations {
			fmt.Fprintf(&b, "- %s:L%d-L%d\n", c.Path, c.StartLine, c.EndLine)
		}
	}
	if resp.DroppedCitations > 0 {
		fmt.Fprintf(&b, "\n%d citation(s) named code the model was not shown and were removed.\n", resp.DroppedCitations)
	}
	for _, n := range resp.Stats.Notes() {
		b.WriteString("\nnote: " + n + "\n")
	}
	b.WriteString("\n" + engine.Footer(len(resp.Context), resp.Usage.IndexMS, &resp.Usage.LLMUsage, resp.Stats.Rerank) + "\n")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, *resp, nil
}
