package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeSection(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(section, "\n", "\r\n")
	tests := []struct {
		name, head, in, out, err string
	}{{
		name: "new file",
		out:  section,
	}, {
		name: "new file with a head",
		head: "---\nalwaysApply: true\n---\n\n",
		out:  "---\nalwaysApply: true\n---\n\n" + section,
	}, {
		name: "appended after the user's text",
		in:   "# Project\n\nUse tabs.",
		out:  "# Project\n\nUse tabs.\n\n" + section,
	}, {
		name: "replaced in place",
		in:   "# Project\n\n<!-- ctx:begin -->\nold advice\n<!-- ctx:end -->\n\n## More\nkept\n",
		out:  "# Project\n\n" + section + "\n## More\nkept\n",
	}, {
		name: "end marker on the last line",
		in:   "a\n<!-- ctx:begin -->\nold\n<!-- ctx:end -->",
		out:  "a\n" + section,
	}, {
		name: "CRLF",
		in:   "a\r\n",
		out:  "a\r\n\r\n" + crlf,
	}, {
		name: "no end marker",
		in:   "a\n<!-- ctx:begin -->\nold\n",
		err:  "begins at line 2 has no <!-- ctx:end -->",
	}, {
		name: "two sections",
		in:   "<!-- ctx:begin -->\n<!-- ctx:end -->\n<!-- ctx:begin -->\n<!-- ctx:end -->\n",
		err:  "more than one ctx section",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mergeSection([]byte(tt.in), tt.head)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.out, string(got)); diff != "" {
				t.Errorf("merge (-want +got):\n%s", diff)
			}
			again, err := mergeSection(got, tt.head)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("second merge changed the result (-first +second):\n%s", diff)
			}
		})
	}
}

// TestSectionNamesTheTools keeps the instructions in step with the MCP tool
// names agents see (../shared/DESIGN.md, MCP tools).
func TestSectionNamesTheTools(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"codebase_retrieval", "get_symbol_definition", "find_references", "symbol_graph", "index_status"} {
		if !strings.Contains(section, "`"+tool+"`") {
			t.Errorf("section does not mention %s", tool)
		}
	}
}
