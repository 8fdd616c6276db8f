package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeJSONServer(t *testing.T) {
	t.Parallel()
	plain := []jsonField{{"command", jsonValue("/bin/ctx")}, {"args", jsonValue([]string{"mcp"})}}
	typed := append([]jsonField{{"type", jsonValue("stdio")}}, plain...)
	tests := []struct {
		name string
		key  string
		want []jsonField
		in   string
		out  string // "" means unchanged
		err  string
	}{{
		name: "new file",
		key:  "mcpServers", want: plain,
		in: "",
		out: `{
  "mcpServers": {
    "ctx": {
      "command": "/bin/ctx",
      "args": [
        "mcp"
      ]
    }
  }
}
`,
	}, {
		name: "other servers and keys, four-space indent",
		key:  "mcpServers", want: plain,
		in: `{
    "theme": "dark",
    "mcpServers": {
        "git": {"command": "uvx", "args": ["mcp-server-git"]}
    },
    "zeta": [1, 2.50, {"b": 1, "a": 2}]
}
`,
		out: `{
    "theme": "dark",
    "mcpServers": {
        "git": {"command": "uvx", "args": ["mcp-server-git"]},
        "ctx": {
            "command": "/bin/ctx",
            "args": [
                "mcp"
            ]
        }
    },
    "zeta": [1, 2.50, {"b": 1, "a": 2}]
}
`,
	}, {
		name: "no servers object yet",
		key:  "servers", want: typed,
		in: "{\n\t\"inputs\": []\n}",
		out: `{
	"inputs": [],
	"servers": {
		"ctx": {
			"type": "stdio",
			"command": "/bin/ctx",
			"args": [
				"mcp"
			]
		}
	}
}`,
	}, {
		name: "empty servers object",
		key:  "mcpServers", want: plain,
		in: "{\n  \"mcpServers\": {}\n}\n",
		out: `{
  "mcpServers": {
    "ctx": {
      "command": "/bin/ctx",
      "args": [
        "mcp"
      ]
    }
  }
}
`,
	}, {
		name: "existing entry keeps its other keys and drops another transport",
		key:  "mcpServers", want: plain,
		in: `{
  "mcpServers": {
    "ctx": {
      "env": {"CTX_LOG_LEVEL": "debug"},
      "type": "http",
      "url": "http://127.0.0.1:8765/mcp",
      "args": ["serve"],
      "timeout": 30000
    },
    "other": {"command": "x"}
  }
}
`,
		out: `{
  "mcpServers": {
    "ctx": {
      "env": {
        "CTX_LOG_LEVEL": "debug"
      },
      "type": "stdio",
      "args": [
        "mcp"
      ],
      "timeout": 30000,
      "command": "/bin/ctx"
    },
    "other": {"command": "x"}
  }
}
`,
	}, {
		name: "entry already right in another layout",
		key:  "mcpServers", want: plain,
		in: `{"mcpServers":{"ctx":{"args":["mcp"],"command":"/bin/ctx","env":{}}}}`,
	}, {
		name: "CRLF line endings",
		key:  "mcpServers", want: plain,
		in:  "{\r\n  \"mcpServers\": {\r\n    \"a\": {}\r\n  }\r\n}\r\n",
		out: "{\r\n  \"mcpServers\": {\r\n    \"a\": {},\r\n    \"ctx\": {\r\n      \"command\": \"/bin/ctx\",\r\n      \"args\": [\r\n        \"mcp\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n",
	}, {
		name: "byte order mark",
		key:  "mcpServers", want: plain,
		in:  "\uFEFF{}",
		out: "\uFEFF{\n  \"mcpServers\": {\n    \"ctx\": {\n      \"command\": \"/bin/ctx\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}",
	}, {
		name: "trailing comma",
		key:  "mcpServers", want: plain,
		in:  "{\n  \"mcpServers\": {},\n}\n",
		err: "not valid JSON at line 3, column 1",
	}, {
		name: "comment",
		key:  "servers", want: typed,
		in:  "// mine\n{}\n",
		err: "not valid JSON at line 1, column 1",
	}, {
		name: "array",
		key:  "mcpServers", want: plain,
		in:  "[]",
		err: "not a JSON object",
	}, {
		name: "servers not an object",
		key:  "mcpServers", want: plain,
		in:  `{"mcpServers": null}`,
		err: `"mcpServers" is not a JSON object`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mergeJSONServer([]byte(tt.in), tt.key, "ctx", tt.want)
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
			again, err := mergeJSONServer(got, tt.key, "ctx", tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("second merge changed the result (-first +second):\n%s", diff)
			}
		})
	}
}

func TestJSONValueKeepsAmpersands(t *testing.T) {
	t.Parallel()
	if got, want := string(jsonValue(`C:\a&b<c>`)), `"C:\\a&b<c>"`; got != want {
		t.Errorf("jsonValue = %s, want %s", got, want)
	}
}
