package mcpserver_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/e2etest"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the tool argument table in README.md from the tools' schemas")

// The tool argument table in README.md lies between these lines.
const (
	toolTableBegin = "<!-- tool arguments: generated from the tools' input schemas by `go test ./internal/mcpserver -run TestREADMEToolArguments -update` -->"
	toolTableEnd   = "<!-- end of tool arguments -->"
)

// TestREADMEToolArguments: README.md lists every tool's argument names,
// required and optional, as the registered tools' input schemas have
// them; it fails when they drift apart (-update rewrites the table).
func TestREADMEToolArguments(t *testing.T) {
	t.Parallel()
	sets := map[mcpserver.ToolSet][]*mcp.Tool{}
	for _, set := range []mcpserver.ToolSet{mcpserver.ToolsDefault, mcpserver.ToolsAll} {
		srv, err := mcpserver.New(mcpserver.Options{Root: t.TempDir(), Config: testConfig(t), Tools: set})
		if err != nil {
			t.Fatal(err)
		}
		sets[set] = srv.Tools()
		srv.Close()
	}
	table := toolTable(t, sets[mcpserver.ToolsDefault], sets[mcpserver.ToolsAll])
	if !strings.Contains(table, "| `codebase_retrieval` | default | `information_request` |") {
		t.Errorf("codebase_retrieval's row does not start with information_request:\n%s", table)
	}

	file := filepath.Join(e2etest.ModuleRoot(t), "README.md")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	before, rest, ok1 := strings.Cut(readme, toolTableBegin+"\n")
	old, after, ok2 := strings.Cut(rest, toolTableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no tool argument table between\n%s\nand\n%s", toolTableBegin, toolTableEnd)
	}
	if old == table {
		return
	}
	if *update {
		if err := os.WriteFile(file, []byte(before+toolTableBegin+"\n"+table+toolTableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the tool argument table in %s", file)
		return
	}
	t.Errorf("README.md's tool argument table differs from the tools' schemas; rewrite it with go test ./internal/mcpserver -run TestREADMEToolArguments -update\n--- README.md\n%s--- schemas\n%s", old, table)
}

// toolTable renders one row per tool of all (in registration order): its
// name, its set, its required arguments and its optional ones, each in
// the order of its input struct's fields.
func toolTable(t *testing.T, defaults, all []*mcp.Tool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("| tool | set | required arguments | optional arguments |\n|---|---|---|---|\n")
	names := func(ns []string) string {
		if len(ns) == 0 {
			return "—"
		}
		return "`" + strings.Join(ns, "`, `") + "`"
	}
	for _, tool := range all {
		sch, ok := tool.InputSchema.(*jsonschema.Schema)
		if !ok {
			t.Fatalf("%s: input schema is a %T, not a *jsonschema.Schema", tool.Name, tool.InputSchema)
		}
		order := slices.Clone(sch.PropertyOrder)
		var rest []string
		for name := range sch.Properties {
			if !slices.Contains(order, name) {
				rest = append(rest, name)
			}
		}
		slices.Sort(rest)
		order = append(order, rest...)
		var req, opt []string
		for _, name := range order {
			if slices.Contains(sch.Required, name) {
				req = append(req, name)
			} else {
				opt = append(opt, name)
			}
		}
		set := "all"
		if slices.ContainsFunc(defaults, func(d *mcp.Tool) bool { return d.Name == tool.Name }) {
			set = "default"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", tool.Name, set, names(req), names(opt))
	}
	return b.String()
}
