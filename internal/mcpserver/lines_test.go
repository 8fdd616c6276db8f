package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineServer runs an MCP server on a LineTransport fed through a pipe and
// returns the input writer and a channel of output lines.
func lineServer(t testing.TB, max int) (io.WriteCloser, <-chan string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx, &LineTransport{In: inR, Out: outW, MaxLine: max})
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	return inW, lines
}

type reply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

func next(t testing.TB, lines <-chan string) reply {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the server stopped writing")
		}
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reply %q is not JSON: %v", l, err)
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no reply in 10 s")
	}
	return reply{}
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// Every kind of malformed line gets its JSON-RPC error answer, and the
// server goes on to answer the valid request after it.
func TestLineTransportAnswersMalformedLines(t *testing.T) {
	t.Parallel()
	in, lines := lineServer(t, 1<<10)
	io.WriteString(in, initLine)
	if r := next(t, lines); string(r.ID) != `"init"` || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"bad json", `{bad json`, codeParseError, "null"},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\xff\"}", codeParseError, "null"},
		{"empty array", `[]`, codeInvalidRequest, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, codeInvalidRequest, "null"},
		{"bare number", `42`, codeInvalidRequest, "null"},
		{"bare string", `"ping"`, codeInvalidRequest, "null"},
		{"empty object", `{}`, codeInvalidRequest, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, codeInvalidRequest, "5"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, codeInvalidRequest, "null"},
		{"no method", `{"jsonrpc":"2.0","id":"x"}`, codeInvalidRequest, `"x"`},
		{"deep nesting", strings.Repeat("[", 3000) + strings.Repeat("]", 3000), codeInvalidRequest, "null"},
		{"too long", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, codeInvalidRequest, "null"},
	} {
		io.WriteString(in, tc.line+"\n")
		r := next(t, lines)
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: reply %+v (error %+v), want code %d with id %s", tc.name, r, r.Error, tc.code, tc.id)
		}
		io.WriteString(in, `{"jsonrpc":"2.0","id":"after","method":"ping"}`+"\n")
		if r := next(t, lines); string(r.ID) != `"after"` || r.Error != nil {
			t.Errorf("%s: the ping after it got %+v", tc.name, r)
		}
	}
}

// FuzzLineTransport feeds arbitrary bytes to the stdio server: it never
// stops serving (a ping after them is answered), and everything it writes
// is one JSON object a line.
//
//	go test -run='^$' -fuzz=FuzzLineTransport ./internal/mcpserver
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{"{bad json", "[]", "\xff\xfe", `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, strings.Repeat("[", 100),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`, "\n\n\r\n", `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, lines := lineServer(t, 1<<12)
		io.WriteString(in, initLine)
		if r := next(t, lines); string(r.ID) != `"init"` {
			t.Fatalf("initialize: %+v", r)
		}
		// A line that is exactly a valid ping with our end id would end
		// the check early; it is the client's own business.
		data = bytes.ReplaceAll(data, []byte(`"fuzz-end"`), []byte(`"fuzz-other"`))
		in.Write(data)
		io.WriteString(in, "\n"+`{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}`+"\n")
		for {
			r := next(t, lines)
			if string(r.ID) == `"fuzz-end"` {
				if r.Error != nil {
					t.Fatalf("the closing ping failed: %+v", r.Error)
				}
				return
			}
		}
	})
}
