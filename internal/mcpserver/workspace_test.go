package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/mcpserver"
	"github.com/ctx-dev/ctx/internal/workspace"
)

// TestWorkspaceTools: list_workspaces and workspace_info describe a
// workspace, and search_code and codebase_retrieval search all of its
// members, each result naming its repo.
func TestWorkspaceTools(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	other := filepath.Join(t.TempDir(), "billing")
	if err := os.MkdirAll(filepath.Join(other, "invoice"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/billing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "invoice", "vat.go"), []byte("package invoice\n\n// VATRate returns the value added tax rate of a country's invoices.\nfunc VATRate(country string) float64 { return 0.2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	index(t, e.cfg, other)
	if _, err := workspace.Add("team", []string{e.root, other}); err != nil {
		t.Fatal(err)
	}

	var list mcpserver.ListWorkspacesOutput
	mustCall(t, e.cs, "list_workspaces", map[string]any{}, &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].Name != "team" || len(list.Workspaces[0].Members) != 2 {
		t.Fatalf("list_workspaces = %+v", list)
	}

	var info mcpserver.WorkspaceInfoOutput
	mustCall(t, e.cs, "workspace_info", map[string]any{"workspace": "team"}, &info)
	if len(info.Members) != 2 {
		t.Fatalf("workspace_info = %+v", info)
	}
	for _, m := range info.Members {
		if !m.Indexed || !m.Fresh || m.Files == 0 {
			t.Errorf("member %+v, want indexed and fresh", m)
		}
	}
	if b := info.Members[1]; len(b.Packages) != 1 || b.Packages[0].Name != "example.com/billing" {
		t.Errorf("billing packages = %+v", b.Packages)
	}

	var out mcpserver.SearchOutput
	mustCall(t, e.cs, "search_code", map[string]any{"query": "value added tax rate of invoices", "workspace": "team"}, &out)
	if len(out.Results) == 0 || out.Results[0].Repo != "billing" || out.Results[0].Path != "invoice/vat.go" {
		t.Errorf("search_code in the workspace = %+v", out.Results)
	}

	var ret mcpserver.RetrievalOutput
	text := mustCall(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "value added tax rate of invoices", "workspace": "team", "mode": "quick"}, &ret)
	if len(ret.Segments) == 0 || ret.Segments[0].Repo != "billing" || !strings.Contains(ret.Segments[0].Code, "VATRate") {
		t.Errorf("codebase_retrieval in the workspace = %+v", ret.Segments)
	}
	if !strings.Contains(text, "## billing:invoice/vat.go:") {
		t.Errorf("markdown does not name the repo:\n%s", text)
	}

	// An unknown workspace is a tool error naming the fix.
	msg, isErr := call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "tax", "workspace": "nope"}, nil)
	if !isErr || !strings.Contains(msg, "no such workspace") {
		t.Errorf("unknown workspace: %v %q", isErr, msg)
	}
}

// TestWorkspaceMemberWatched: with the server watching, a workspace
// member a tool searched keeps its own index fresh: an edit there is
// found by a later call without anyone running ctx index.
func TestWorkspaceMemberWatched(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	other := filepath.Join(t.TempDir(), "billing")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "vat.go"), []byte("package billing\n\n// VATRate returns the tax rate.\nfunc VATRate() float64 { return 0.2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	index(t, e.cfg, other)
	if _, err := workspace.Add("team", []string{e.root, other}); err != nil {
		t.Fatal(err)
	}
	e.srv.Watch(t.Context())
	var out mcpserver.SearchOutput
	mustCall(t, e.cs, "search_code", map[string]any{"query": "tax rate", "workspace": "team"}, &out)
	if err := os.WriteFile(filepath.Join(other, "refund.go"), []byte("package billing\n\n// RefundWindowDays is how long a customer may ask for a refund.\nfunc RefundWindowDays() int { return 30 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		mustCall(t, e.cs, "search_code", map[string]any{"query": "refund window days", "workspace": "team"}, &out)
		if len(out.Results) > 0 && out.Results[0].Path == "refund.go" && out.Results[0].Repo == "billing" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member's new file was not found within 15s: %+v", out.Results)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
