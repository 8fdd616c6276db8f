package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCheckMessage: each kind of malformed message gets its code and the
// id it may echo; valid requests, notifications and responses decode.
func TestCheckMessage(t *testing.T) {
	t.Parallel()
	deep := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":` + strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting) + `}}`
	for _, tc := range []struct {
		name, in string
		code     int64 // 0: valid
		id       string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ""},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, 0, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, 0, ""},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, 0, ""},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, 0, ""},
		{"integral float id", `{"jsonrpc":"2.0","id":2.0,"method":"ping"}`, 0, ""},
		{"nested as deep as allowed", `{"jsonrpc":"2.0","id":3,"method":"ping","params":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`, 0, ""},

		{"bad json", `{bad json`, jsonrpc.CodeParseError, "null"},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", jsonrpc.CodeParseError, "null"},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, jsonrpc.CodeParseError, "null"},
		{"empty", ``, jsonrpc.CodeParseError, "null"},
		{"nested past the JSON parser", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), jsonrpc.CodeParseError, "null"},

		{"empty array", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{"bare number", `42`, jsonrpc.CodeInvalidRequest, "null"},
		{"bare string", `"ping"`, jsonrpc.CodeInvalidRequest, "null"},
		{"null", `null`, jsonrpc.CodeInvalidRequest, "null"},
		{"empty object", `{}`, jsonrpc.CodeInvalidRequest, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "5"},
		{"no jsonrpc", `{"id":"q","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"q"`},
		{"jsonrpc in capitals", `{"JSONRPC":"2.0","id":5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "5"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "1.5"},
		{"huge id", `{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "1e300"},
		{"method not a string", `{"jsonrpc":"2.0","id":6,"method":7}`, jsonrpc.CodeInvalidRequest, "6"},
		{"null method", `{"jsonrpc":"2.0","id":6,"method":null}`, jsonrpc.CodeInvalidRequest, "6"},
		{"string params", `{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, "6"},
		{"no method", `{"jsonrpc":"2.0","id":"x"}`, jsonrpc.CodeInvalidRequest, `"x"`},
		{"result and error", `{"jsonrpc":"2.0","id":8,"result":{},"error":{"code":1,"message":"m"}}`, jsonrpc.CodeInvalidRequest, "8"},
		{"string error", `{"jsonrpc":"2.0","id":8,"error":"boom"}`, jsonrpc.CodeInvalidRequest, "8"},
		{"fractional error code", `{"jsonrpc":"2.0","id":8,"error":{"code":1.5,"message":"m"}}`, jsonrpc.CodeInvalidRequest, "8"},
		{"member twice", `{"jsonrpc":"2.0","id":9,"method":"ping","jsonrpc":"1.0"}`, jsonrpc.CodeInvalidRequest, "9"},
		{"id twice", `{"jsonrpc":"2.0","id":9,"method":"ping","id":10}`, jsonrpc.CodeInvalidRequest, "null"},
		{"nested too deep", deep, jsonrpc.CodeInvalidRequest, "3"},
		{"nested deep in a batch", strings.Repeat("[", 3000) + strings.Repeat("]", 3000), jsonrpc.CodeInvalidRequest, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, rej := checkMessage([]byte(tc.in))
			if tc.code == 0 {
				if rej != nil || msg == nil {
					t.Fatalf("checkMessage(%.80s) refused it: %v", tc.in, rej)
				}
				return
			}
			if rej == nil {
				t.Fatalf("checkMessage(%.80s) = %#v, want error %d", tc.in, msg, tc.code)
			}
			id := "null"
			if rej.id != nil {
				id = string(rej.id)
			}
			if rej.code != tc.code || id != tc.id {
				t.Errorf("checkMessage(%.80s) = code %d id %s (%s), want code %d id %s", tc.in, rej.code, id, rej.msg, tc.code, tc.id)
			}
			want := `{"jsonrpc":"2.0","id":` + tc.id + `,"error":{"code":`
			if got := string(rej.reply()); !strings.HasPrefix(got, want) {
				t.Errorf("reply %s, want it to start %s", got, want)
			}
		})
	}
}
