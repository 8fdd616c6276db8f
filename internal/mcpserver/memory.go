package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/memory"
)

// The memory tools (--tools all): memory_store, memory_find and
// context_search. Memories need no code index.

// memoryTextMax is the most of one memory's text a tool's text answer
// shows (the structured output has all of it).
const memoryTextMax = 2000

// MemoryStoreInput is the memory_store request.
type MemoryStoreInput struct {
	Text     string   `json:"text" jsonschema:"the note to keep: why something is done, a command that works, a convention, a pointer to a document"`
	Kind     string   `json:"kind,omitempty" jsonschema:"what the note is (default explanation)"`
	Tags     []string `json:"tags,omitempty" jsonschema:"tags to find it by, such as retry or deploy"`
	Path     string   `json:"path,omitempty" jsonschema:"the file or directory the note is about, relative to the repository root"`
	Priority int      `json:"priority,omitempty" jsonschema:"higher ranks first among similar hits (default 0)"`
	RepoPath string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

func (s *Server) addMemoryStore() {
	kinds := make([]any, len(memory.Kinds))
	for i, k := range memory.Kinds {
		kinds[i] = k
	}
	addTool(s, &mcp.Tool{
		Name:  "memory_store",
		Title: "Store a memory",
		Description: `Keep a note about this repository for later sessions: a decision and its reason, a command that works, a convention, a gotcha, a pointer to a document. Notes are searched with the code by context_search and on their own by memory_find, and survive re-indexing. Storing the same text (same kind and path) again returns the stored note.
Use it when you learned something about the codebase that is not written in the code and would save the next session time. Text is at most 4 KiB here.
Example: {"text": "Retries are capped at 5 because the upstream rate-limits at 10/s", "kind": "explanation", "tags": ["retry"], "path": "client/retry.go"}`,
		InputSchema: inputSchema[MemoryStoreInput](map[string]prop{"kind": {enum: kinds, def: memory.DefaultKind}}),
		Annotations: &mcp.ToolAnnotations{Title: "Store a memory", IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in MemoryStoreInput) (*mcp.CallToolResult, engine.Memory, error) {
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, engine.Memory{}, err
		}
		m, err := e.AddMemory(ctx, engine.MemoryInput{Text: in.Text, Kind: in.Kind, Tags: in.Tags, Path: in.Path, Priority: in.Priority})
		if err != nil {
			return nil, engine.Memory{}, err
		}
		msg := fmt.Sprintf("stored memory %d (%s)", m.ID, m.Kind)
		if m.Duplicate {
			msg = fmt.Sprintf("memory %d already holds this text; nothing stored", m.ID)
		}
		return textResult(msg), m, nil
	})
}

// MemoryFindInput is the memory_find request.
type MemoryFindInput struct {
	Query    string   `json:"query" jsonschema:"what you want to know, in words or identifiers"`
	Limit    int      `json:"limit,omitempty" jsonschema:"most memories (default 10)"`
	Kind     string   `json:"kind,omitempty" jsonschema:"keep only memories of this kind"`
	Tags     []string `json:"tags,omitempty" jsonschema:"keep only memories holding all of these tags"`
	RepoPath string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// MemoryFindOutput is the memory_find result.
type MemoryFindOutput struct {
	Query    string             `json:"query"`
	Results  []engine.MemoryHit `json:"results" jsonschema:"memories, best first, with score and per-channel ranks"`
	Stats    memory.Stats       `json:"stats"`
	ServerMS float64            `json:"server_ms" jsonschema:"time in the server, milliseconds"`
}

func (s *Server) addMemoryFind() {
	addTool(s, &mcp.Tool{
		Name:  "memory_find",
		Title: "Find memories",
		Description: `Search the notes kept with memory_store (decisions, conventions, commands, pointers) by meaning and words; returns them best first.
Use it before changing unfamiliar code or when a question may have been answered in an earlier session; use context_search to get code and notes in one list.
Example: {"query": "why are retries capped", "limit": 5}`,
		InputSchema: inputSchema[MemoryFindInput](map[string]prop{"limit": {def: 10, min: 1, max: 50}}),
		Annotations: readOnly("Find memories"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in MemoryFindInput) (*mcp.CallToolResult, MemoryFindOutput, error) {
		start := time.Now()
		out := MemoryFindOutput{Results: []engine.MemoryHit{}}
		if strings.TrimSpace(in.Query) == "" {
			return nil, out, badArg("query is empty")
		}
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		resp, err := e.SearchMemories(ctx, engine.MemoryQuery{Text: in.Query, Limit: in.Limit, Filter: engine.MemoryFilter{Kind: in.Kind, Tags: in.Tags}})
		if err != nil {
			return nil, out, err
		}
		out.Query, out.Results, out.Stats, out.ServerMS = resp.Query, resp.Results, resp.Stats, since(start)
		var b strings.Builder
		fmt.Fprintf(&b, "# %d memories for %q\n", len(out.Results), out.Query)
		if out.Stats.Degraded != "" {
			fmt.Fprintf(&b, "warning: %s; results come from BM25 alone\n", out.Stats.Degraded)
		}
		if len(out.Results) == 0 {
			if out.Stats.Memories == 0 {
				b.WriteString("This repository has no memories yet (memory_store adds them).\n")
			} else {
				b.WriteString("No memory matched.\n")
			}
		}
		for _, h := range out.Results {
			writeMemory(&b, h.Memory)
		}
		return textResult(b.String()), out, nil
	})
}

// writeMemory writes one memory for a text answer: a header line
// "[memory #ID kind path tags]" and its text, cut to memoryTextMax.
func writeMemory(b *strings.Builder, m engine.Memory) {
	fmt.Fprintf(b, "[memory #%d %s", m.ID, m.Kind)
	if m.Path != "" {
		b.WriteString(" " + m.Path)
	}
	if len(m.Tags) > 0 {
		b.WriteString(" tags:" + strings.Join(m.Tags, ","))
	}
	b.WriteString("]\n")
	text := strings.TrimSpace(m.Text)
	if len(text) > memoryTextMax {
		text = engine.EchoQuery(text[:memoryTextMax]) + " …"
	}
	b.WriteString(text + "\n")
}

// ContextSearchInput is the context_search request.
type ContextSearchInput struct {
	Query           string `json:"query" jsonschema:"natural language, identifiers or an error message"`
	Limit           int    `json:"limit,omitempty" jsonschema:"most results, code and memories together (default 10)"`
	IncludeMemories *bool  `json:"include_memories,omitempty" jsonschema:"blend in the notes kept with memory_store (default true)"`
	RepoPath        string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// ContextSearchOutput is the context_search result: code results and
// memories in one ranked list, each item naming its source.
type ContextSearchOutput struct {
	Query    string               `json:"query"`
	Results  []engine.ContextItem `json:"results"`
	Stats    engine.ContextStats  `json:"stats"`
	ServerMS float64              `json:"server_ms" jsonschema:"time in the server, milliseconds"`
}

// contextSearchSchema is the output schema of context_search: the one
// inferred from its struct, with each result described as the JSON
// [engine.ContextItem] writes (a code result's or a memory's fields beside
// source and score), which inference cannot see.
func contextSearchSchema() *jsonschema.Schema {
	sch, err := jsonschema.For[ContextSearchOutput](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of context_search: %v", err))
	}
	sch.Properties["results"] = &jsonschema.Schema{
		Type:        "array",
		Description: `best first; {"source": "code", "score", path, start_line, end_line, kind, symbol, summary, …} or {"source": "memory", "score", id, kind, text, tags, path, priority}`,
		Items: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"source": {Type: "string", Enum: []any{"code", "memory"}},
				"score":  {Type: "number", Description: "fused RRF score, comparable across sources"},
			},
			Required: []string{"source", "score"},
		},
	}
	return sch
}

func (s *Server) addContextSearch() {
	addTool(s, &mcp.Tool{
		Name:  "context_search",
		Title: "Search code and memories",
		Description: `Search the code and the notes kept with memory_store together, in one ranked list (reciprocal rank fusion); each item says whether it is code (path, lines, symbol, summary) or a memory (its text). A note only appears when it matches the query.
Use it as a first look at a task when earlier sessions may have left notes about the area; use codebase_retrieval for code packed to a token budget.
Example: {"query": "how are failed webhook deliveries retried", "limit": 10}`,
		InputSchema:  inputSchema[ContextSearchInput](map[string]prop{"limit": {def: 10, min: 1, max: 100}, "include_memories": {def: true}}),
		OutputSchema: contextSearchSchema(),
		Annotations:  readOnly("Search code and memories"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ContextSearchInput) (*mcp.CallToolResult, ContextSearchOutput, error) {
		start := time.Now()
		out := ContextSearchOutput{Results: []engine.ContextItem{}}
		if strings.TrimSpace(in.Query) == "" {
			return nil, out, badArg("query is empty")
		}
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		noMem := in.IncludeMemories != nil && !*in.IncludeMemories
		resp, err := e.ContextSearch(ctx, engine.ContextRequest{Query: in.Query, Limit: in.Limit, NoMemories: noMem})
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Query, out.Results, out.Stats, out.ServerMS = resp.Query, resp.Results, resp.Stats, since(start)
		var b strings.Builder
		fmt.Fprintf(&b, "# %d results for %q\n", len(out.Results), out.Query)
		if resp.CodeErr != nil {
			// Only memories answered; the explanation may start an index
			// run (AutoIndex).
			fmt.Fprintf(&b, "warning: no code results: %v\n", s.explain(e, resp.CodeErr))
		}
		if c := resp.Stats.Code; c != nil {
			for _, n := range c.Notes() {
				fmt.Fprintf(&b, "warning: %s\n", n)
			}
		}
		if m := resp.Stats.Memory; m != nil && m.Degraded != "" {
			fmt.Fprintf(&b, "warning: memories: %s\n", m.Degraded)
		}
		if len(out.Results) == 0 {
			b.WriteString("Nothing matched.\n")
		}
		for _, it := range out.Results {
			switch {
			case it.Code != nil:
				h := it.Code
				fmt.Fprintf(&b, "[code] %s:%d-%d %s %s (score %.3g) %s\n", h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, it.Score, h.Summary)
			case it.Memory != nil:
				writeMemory(&b, it.Memory.Memory)
			}
		}
		return textResult(b.String()), out, nil
	})
}
