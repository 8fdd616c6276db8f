package mcpserver_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestMessagesNameOfferedTools: what a client reads from a server (its
// instructions, every tool's description and schemas, and the messages of
// a first call on an unindexed repository, with and without automatic
// indexing) names only tools of the server's own set: an agent told to
// call a tool it does not have is stuck.
func TestMessagesNameOfferedTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set     mcpserver.ToolSet
		offered []string
	}{{mcpserver.ToolsDefault, defaultTools}, {mcpserver.ToolsAll, allTools}} {
		for _, auto := range []bool{false, true} {
			e := newEnv(t, envOptions{tools: tc.set, noIndex: true, autoIndex: auto})
			texts := map[string]string{"instructions": e.cs.InitializeResult().Instructions}
			res, err := e.cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				in, _ := json.Marshal(tool.InputSchema)
				out, _ := json.Marshal(tool.OutputSchema)
				texts[tool.Name+" description and schemas"] = tool.Description + "\n" + string(in) + "\n" + string(out)
			}
			texts["codebase_retrieval unindexed"], _ = call(t, e.cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
			texts["index_status unindexed"], _ = call(t, e.cs, "index_status", nil, nil)
			if !strings.Contains(texts["codebase_retrieval unindexed"], "index") {
				t.Fatalf("set %s: the unindexed call said %q", tc.set, texts["codebase_retrieval unindexed"])
			}
			for where, text := range texts {
				for _, name := range allTools {
					if !slices.Contains(tc.offered, name) && regexp.MustCompile(`\b`+name+`\b`).MatchString(text) {
						t.Errorf("set %s (auto-index %v): %s names %s, which the set does not offer:\n%s", tc.set, auto, where, name, text)
					}
				}
			}
		}
	}
}
