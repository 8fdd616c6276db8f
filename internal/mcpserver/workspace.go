package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/workspace"
)

// workspaceMembers returns an engine for each member of the named
// workspace, declared in the user file or the server root's
// .ctx/config.toml. Members may lie outside the server root: the
// workspace is the user's own configuration, never a client's argument.
func (s *Server) workspaceMembers(name string) ([]engine.Member, error) {
	ws, err := workspace.Get(name, s.root)
	if err != nil {
		return nil, err
	}
	if len(ws.Members) == 0 {
		return nil, fmt.Errorf("workspace %s has no repositories; add one with `ctx workspace add %s PATH`", name, name)
	}
	out := make([]engine.Member, 0, len(ws.Members))
	for _, m := range ws.Members {
		e, err := s.engine(m.Root)
		if err != nil {
			return nil, fmt.Errorf("workspace %s, member %s: %w", name, m.Name, err)
		}
		s.watchMember(m.Root)
		out = append(out, engine.Member{Name: m.Name, Engine: e, Names: workspace.Identity(m.Root)})
	}
	return out, nil
}

// WorkspaceSummary is one workspace in list_workspaces.
type WorkspaceSummary struct {
	Name    string             `json:"name"`
	File    string             `json:"file" jsonschema:"the configuration file that declares it"`
	Members []workspace.Member `json:"members" jsonschema:"its repositories: name (the repo field of results) and absolute root"`
}

// ListWorkspacesOutput is list_workspaces' result.
type ListWorkspacesOutput struct {
	Workspaces []WorkspaceSummary `json:"workspaces"`
}

// NoInput is the request of a tool without arguments.
type NoInput struct{}

func (s *Server) addListWorkspaces() {
	addTool(s, &mcp.Tool{
		Name:  "list_workspaces",
		Title: "List workspaces",
		Description: `Lists the workspaces: named sets of repositories searched as one (pass a name as the workspace argument of codebase_retrieval or search_code). They are declared with "ctx workspace add NAME PATH…" or in the repository's .ctx/config.toml.
Use it to learn which workspaces exist before searching several repositories at once.
Example: {}`,
		InputSchema: inputSchema[NoInput](nil),
		Annotations: readOnly("List workspaces"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, ListWorkspacesOutput, error) {
		out := ListWorkspacesOutput{Workspaces: []WorkspaceSummary{}}
		all, err := workspace.Load(s.root)
		if err != nil {
			return nil, out, err
		}
		var b strings.Builder
		if len(all) == 0 {
			b.WriteString("No workspaces. Create one with: ctx workspace add NAME PATH…\n")
		}
		for _, w := range all {
			out.Workspaces = append(out.Workspaces, WorkspaceSummary{Name: w.Name, File: w.File, Members: w.Members})
			fmt.Fprintf(&b, "%s (%d repositories, %s)\n", w.Name, len(w.Members), w.File)
			for _, m := range w.Members {
				fmt.Fprintf(&b, "  %s  %s\n", m.Name, m.Root)
			}
		}
		return textResult(b.String()), out, nil
	})
}

// WorkspaceInfoInput names a workspace.
type WorkspaceInfoInput struct {
	Workspace string `json:"workspace" jsonschema:"the workspace's name (list_workspaces)"`
}

// MemberInfo is one repository of workspace_info.
type MemberInfo struct {
	Name       string              `json:"name"`
	Root       string              `json:"root"`
	Indexed    bool                `json:"indexed"`
	Fresh      bool                `json:"fresh" jsonschema:"indexed and no file changed since"`
	Files      int                 `json:"files,omitempty"`
	Chunks     int                 `json:"chunks,omitempty"`
	Generation int64               `json:"generation,omitempty"`
	Packages   []workspace.Package `json:"packages,omitempty" jsonschema:"the Go modules, npm packages and Python packages it publishes: imports of these from other members resolve into it"`
	Names      []string            `json:"names,omitempty" jsonschema:"what a question may call it by, lower case (its directory and project names): a query that writes one weighs this member double"`
	Note       string              `json:"note,omitempty" jsonschema:"why it is not indexed or not fresh, with the fix"`
}

// WorkspaceInfoOutput is workspace_info's result.
type WorkspaceInfoOutput struct {
	Name     string       `json:"name"`
	File     string       `json:"file"`
	Members  []MemberInfo `json:"members"`
	ServerMS float64      `json:"server_ms"`
}

func (s *Server) addWorkspaceInfo() {
	addTool(s, &mcp.Tool{
		Name:  "workspace_info",
		Title: "Workspace info",
		Description: `Describes one workspace: each repository's root, whether it is indexed and fresh (with the fix when not), its size, and the packages it publishes (Go module paths, npm and Python package names).
Use it before a workspace search to see whether every member is indexed and fresh.
Example: {"workspace": "backend"}`,
		InputSchema: inputSchema[WorkspaceInfoInput](nil),
		Annotations: readOnly("Workspace info"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in WorkspaceInfoInput) (*mcp.CallToolResult, WorkspaceInfoOutput, error) {
		start := time.Now()
		var out WorkspaceInfoOutput
		ws, err := workspace.Get(in.Workspace, s.root)
		if err != nil {
			return nil, out, err
		}
		out.Name, out.File, out.Members = ws.Name, ws.File, make([]MemberInfo, len(ws.Members))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(4)
		for i, m := range ws.Members {
			g.Go(func() error {
				out.Members[i] = s.memberInfo(gctx, m)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, out, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "workspace %s (%s)\n", out.Name, out.File)
		for _, m := range out.Members {
			state := "fresh"
			switch {
			case !m.Indexed:
				state = "not indexed"
			case !m.Fresh:
				state = "stale"
			}
			fmt.Fprintf(&b, "  %s  %s  %s  %d files", m.Name, m.Root, state, m.Files)
			for _, p := range m.Packages {
				fmt.Fprintf(&b, "  %s:%s", p.Kind, p.Name)
			}
			if m.Note != "" {
				fmt.Fprintf(&b, "  (%s)", m.Note)
			}
			b.WriteString("\n")
		}
		out.ServerMS = since(start)
		return textResult(b.String()), out, nil
	})
}

// memberInfo reads one member's index state and packages; problems
// become its Note.
func (s *Server) memberInfo(ctx context.Context, m workspace.Member) MemberInfo {
	mi := MemberInfo{Name: m.Name, Root: m.Root, Names: workspace.Identity(m.Root)}
	if pkgs, err := workspace.Packages(m.Root); err == nil {
		mi.Packages = pkgs
	}
	e, err := s.engine(m.Root)
	if err != nil {
		mi.Note = err.Error()
		return mi
	}
	st, err := e.Status(ctx)
	if errors.Is(err, engine.ErrNotIndexed) {
		mi.Note = "not indexed (run `ctx index --repo " + m.Root + "`)"
		return mi
	}
	if err != nil {
		mi.Note = err.Error()
		return mi
	}
	mi.Indexed = true
	mi.Files, mi.Chunks, mi.Generation = st.Files, st.Chunks, st.Generation
	mi.Fresh, mi.Note = st.Freshness()
	return mi
}

// retrieveWorkspace answers codebase_retrieval for a workspace: every
// member searched (engine.FindAcross), the merged hits packed into the
// page budget with each member's code (engine.PackAcross), one page.
func (s *Server) retrieveWorkspace(ctx context.Context, in RetrievalInput, mp modeParams, budget int, format, lowConf string, start time.Time) (*mcp.CallToolResult, RetrievalOutput, error) {
	var out RetrievalOutput
	members, err := s.workspaceMembers(in.Workspace)
	if err != nil {
		return nil, out, err
	}
	query := strings.TrimSpace(strings.TrimSpace(in.InformationRequest) + " " + strings.Join(in.TechnicalTerms, " "))
	resp, err := engine.FindAcross(ctx, members, engine.FindRequest{Query: query, Limit: mp.limit, Languages: in.Language, PathGlobs: in.IncludeGlobs, Expand: mp.Expand, Grouped: true})
	if err != nil {
		return nil, out, err
	}
	out.Query, out.MaxTokens = resp.Query, budget
	out.Method = "hybrid retrieval in every workspace member, merged by each member's evidence for the query, grouped by file"
	out.notes = resp.Stats.Notes()
	for _, m := range resp.Stats.Members {
		if m.Error != "" {
			out.notes = append(out.notes, m.Repo+" did not answer: "+m.Error)
		}
	}
	out.Freshness = Freshness{Fresh: resp.Stats.Fresh, Stale: resp.Stats.Stale}
	out.Stats = RetrievalStats{SearchMS: resp.Stats.SearchMS, QueryKind: resp.Stats.QueryKind, Files: resp.Stats.FilesConsidered, Degraded: resp.Stats.Degraded,
		Partial: resp.Stats.Partial, PartialReason: resp.Stats.PartialReason}
	hits := make([]engine.Hit, 0, len(resp.Results))
	for _, h := range resp.Results {
		if !excluded(in.ExcludeGlobs, h.Path) {
			hits = append(hits, h)
		}
	}
	out.Confidence = answerConfidence(resp, hits)
	if out.Confidence == "low" && lowConf == "return_empty" {
		hits = nil
		out.Warning = "the best match was weak, so nothing is returned (low_confidence_behavior=return_empty)"
	} else if out.Confidence == "low" {
		out.Warning = "low confidence: nothing in the index matches the request well; these segments are the closest matches, not answers. Rephrase with identifiers you expect in the code"
	}
	engines := make(map[string]*engine.Engine, len(members))
	for _, m := range members {
		engines[m.Name] = m.Engine
	}
	packed, _, left := engine.PackAcross(engines, hits, budget, func(h engine.Hit) int {
		sg := Segment{Repo: h.Repo, Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Kind: h.Kind, Symbol: h.Symbol, Code: h.Code}
		return sg.markdownTokens()
	})
	if lowConf == "return_top1" && out.Confidence == "low" {
		packed = packed[:min(1, len(packed))]
	}
	for _, h := range packed {
		out.Segments = append(out.Segments, Segment{Repo: h.Repo, Path: h.Path, PathBytes: h.PathBytes, StartLine: h.StartLine, EndLine: h.EndLine,
			Score: h.Score, Language: h.Language, Kind: h.Kind, Symbol: h.Symbol, Summary: h.Summary, Code: h.Code, Stale: h.Stale, Context: h.Context,
			ScoreComponents: h.Channels})
		if out.Segments[len(out.Segments)-1].ScoreComponents == nil {
			out.Segments[len(out.Segments)-1].ScoreComponents = map[string]search.ChannelHit{}
		}
	}
	if len(out.Segments) == 0 && out.Warning == "" {
		out.Warning = "no code matched the request in any member"
	}
	out.Truncated, out.Remaining = left > 0, left
	res := &mcp.CallToolResult{Content: fitPage(&out, format, budget, func(dropped int) {
		out.Truncated, out.Remaining = true, out.Remaining+dropped
	})}
	out.Stats.ServerMS = since(start)
	return res, out, nil
}
