package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeTOMLServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		out  string // "" means unchanged
		err  string
	}{{
		name: "new file",
		in:   "",
		out:  "[mcp_servers.ctx]\ncommand = \"/bin/ctx\"\nargs = [\"mcp\"]\n",
	}, {
		name: "appended after other settings, comments kept",
		in: `# my settings
model = "o3" # fast

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "3000"]

[profiles.deep]
model_reasoning_effort = "high"
`,
		out: `# my settings
model = "o3" # fast

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "3000"]

[profiles.deep]
model_reasoning_effort = "high"

[mcp_servers.ctx]
command = "/bin/ctx"
args = ["mcp"]
`,
	}, {
		name: "existing table: values replaced, comments and other keys kept, url removed",
		in: `[mcp_servers.ctx]
# the index server
command = "/old/ctx"   # moved since
url = "http://127.0.0.1:8765/mcp"
startup_timeout_sec = 30
env = { CTX_LOG_LEVEL = "debug" }

[mcp_servers.ctx.tools.codebase_retrieval]
approval_mode = "approve"

[mcp_servers.other]
command = "x"
`,
		out: `[mcp_servers.ctx]
# the index server
command = "/bin/ctx"   # moved since
args = ["mcp"]
startup_timeout_sec = 30
env = { CTX_LOG_LEVEL = "debug" }

[mcp_servers.ctx.tools.codebase_retrieval]
approval_mode = "approve"

[mcp_servers.other]
command = "x"
`,
	}, {
		name: "multi-line args without command",
		in: `[mcp_servers."ctx"]
args = [
  "serve", # old
  "--http",
]
enabled = true
`,
		out: `[mcp_servers."ctx"]
command = "/bin/ctx"
args = ["mcp"]
enabled = true
`,
	}, {
		name: "header on the last line without a line ending",
		in:   "a = 1\n[mcp_servers.ctx]",
		out:  "a = 1\n[mcp_servers.ctx]\ncommand = \"/bin/ctx\"\nargs = [\"mcp\"]\n",
	}, {
		name: "already set",
		in:   "[mcp_servers . ctx]\nargs = [ \"mcp\" ]\ncommand = '/bin/ctx'\n",
	}, {
		name: "strings that look like headers",
		in: `notes = """
[mcp_servers.ctx]
command = "fake"
"""
raw = '''
[x]'''
when = 1979-05-27 07:32:00Z
`,
		out: `notes = """
[mcp_servers.ctx]
command = "fake"
"""
raw = '''
[x]'''
when = 1979-05-27 07:32:00Z

[mcp_servers.ctx]
command = "/bin/ctx"
args = ["mcp"]
`,
	}, {
		name: "CRLF line endings",
		in:   "[mcp_servers.ctx]\r\ncommand = \"old\"\r\n",
		out:  "[mcp_servers.ctx]\r\ncommand = \"/bin/ctx\"\r\nargs = [\"mcp\"]\r\n",
	}, {
		name: "dotted keys",
		in:   "mcp_servers.ctx.command = \"x\"\n",
		err:  "without a [mcp_servers.ctx] header",
	}, {
		name: "inline server table",
		in:   "[mcp_servers]\nctx = { command = \"x\" }\n",
		err:  "without a [mcp_servers.ctx] header",
	}, {
		name: "inline servers table",
		in:   "mcp_servers = { docs = { command = \"d\" } }\n",
		err:  "inline table",
	}, {
		name: "invalid TOML",
		in:   "[mcp_servers.ctx\ncommand = 1\n",
		err:  "not valid TOML",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mergeTOMLServer([]byte(tt.in), "ctx", "/bin/ctx", []string{"mcp"})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.out
			if want == "" {
				want = tt.in
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("merge (-want +got):\n%s", diff)
			}
			again, err := mergeTOMLServer(got, "ctx", "/bin/ctx", []string{"mcp"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("second merge changed the result (-first +second):\n%s", diff)
			}
		})
	}
}
