package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// stdioRig is an MCP server on a [mcpserver.StdioTransport] over pipes:
// the test writes lines to in and reads the server's lines from out.
type stdioRig struct {
	in   *io.PipeWriter
	out  chan string   // the server's lines; closed when it stops writing
	done chan error    // Run's result
	gate chan struct{} // the "wait" tool returns once this is closed
	once sync.Once     // closes gate
}

// release lets the "wait" tool calls return.
func (r *stdioRig) release() { r.once.Do(func() { close(r.gate) }) }

// newStdioRig starts a bare SDK server with two tools, "echo" and
// "wait" (which blocks until the rig's gate opens), on a StdioTransport
// that takes lines of at most maxLine bytes.
func newStdioRig(t testing.TB, maxLine int) *stdioRig {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	r := &stdioRig{out: make(chan string, 1024), done: make(chan error, 1), gate: make(chan struct{})}
	type args struct {
		Text string `json:"text,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "waited"}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r.in = inW
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := srv.Run(ctx, &mcpserver.StdioTransport{Reader: inR, Writer: outW, MaxLineBytes: maxLine})
		outW.Close()
		r.done <- err
	}()
	go func() {
		defer close(r.out)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			r.out <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		r.release()
		inW.Close()
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Errorf("the server did not stop within 10s of its input closing")
		}
		for range r.out {
		}
	})
	return r
}

func (r *stdioRig) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.in, l+"\n"); err != nil {
			t.Fatalf("writing %.60q: %v", l, err)
		}
	}
}

// wireReply is one line the server wrote, as a JSON-RPC response.
type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next returns the server's next line, failing after 10s.
func (r *stdioRig) next(t testing.TB) wireReply {
	t.Helper()
	select {
	case l, ok := <-r.out:
		if !ok {
			t.Fatal("the server stopped writing")
		}
		return decodeReply(t, l)
	case <-time.After(10 * time.Second):
		t.Fatal("no reply within 10s")
	}
	panic("unreachable")
}

func decodeReply(t testing.TB, line string) wireReply {
	t.Helper()
	var w wireReply
	if err := json.Unmarshal([]byte(line), &w); err != nil || w.JSONRPC != "2.0" || len(w.ID) == 0 || (w.Error == nil) == (w.Result == nil) {
		t.Fatalf("the server wrote %q: not a JSON-RPC 2.0 response (%v)", line, err)
	}
	return w
}

const (
	initializeLine  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func (r *stdioRig) initialize(t testing.TB) {
	t.Helper()
	r.send(t, initializeLine, initializedLine)
	if w := r.next(t); string(w.ID) != `"init"` || w.Error != nil {
		t.Fatalf("initialize: %+v", w)
	}
}

// malformedLines are the kinds of line a client may get wrong, with the
// error code and id of the reply each must get.
var malformedLines = []struct {
	name, line string
	code       int64
	id         string
}{
	{"bad json", `{bad json`, -32700, "null"},
	{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xfflist\"}", -32700, "null"},
	{"bare number", `42`, -32600, "null"},
	{"empty array", `[]`, -32600, "null"},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, -32600, "null"},
	{"empty object", `{}`, -32600, "null"},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600, "5"},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600, "null"},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, "null"},
	{"fractional id", `{"jsonrpc":"2.0","id":2.5,"method":"tools/list"}`, -32600, "2.5"},
	{"no method", `{"jsonrpc":"2.0","id":"x"}`, -32600, `"x"`},
	{"deeply nested", `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, -32600, `"deep"`},
	{"nested past any parser", strings.Repeat("[", 200000) + strings.Repeat("]", 200000), -32700, "null"},
	{"too long", `{"jsonrpc":"2.0","id":"long","method":"tools/list","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`, -32600, "null"},
}

// TestStdioMalformedLines: each malformed line gets its JSON-RPC error
// reply and the server answers the valid request after it.
func TestStdioMalformedLines(t *testing.T) {
	t.Parallel()
	r := newStdioRig(t, 1<<20)
	r.initialize(t)
	for i, tc := range malformedLines {
		r.send(t, tc.line, `{"jsonrpc":"2.0","id":`+itoa(100+i)+`,"method":"tools/list"}`)
		w := r.next(t)
		if w.Error == nil || w.Error.Code != tc.code || string(w.ID) != tc.id {
			t.Errorf("%s: reply id %s error %+v, want code %d with id %s", tc.name, w.ID, w.Error, tc.code, tc.id)
		}
		if w := r.next(t); string(w.ID) != itoa(100+i) || w.Error != nil || !strings.Contains(string(w.Result), `"echo"`) {
			t.Errorf("%s: the tools/list after it got id %s error %+v", tc.name, w.ID, w.Error)
		}
	}
	// Blank lines get no reply.
	r.send(t, "", "  \t", "\r", `{"jsonrpc":"2.0","id":"after-blank","method":"ping"}`)
	if w := r.next(t); string(w.ID) != `"after-blank"` {
		t.Errorf("after blank lines: reply %+v, want the ping's", w)
	}
}

// TestStdioInFlight: a call in flight when a malformed line arrives is
// still answered; when stdin then closes, the server answers it before
// it ends; a second call with the id of the one in flight is refused.
func TestStdioInFlight(t *testing.T) {
	t.Parallel()
	r := newStdioRig(t, 0)
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	r.send(t, `{bad json`)
	if w := r.next(t); w.Error == nil || w.Error.Code != -32700 {
		t.Fatalf("bad json: %+v", w)
	}
	r.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"dup"}}}`)
	if w := r.next(t); w.Error == nil || w.Error.Code != -32600 || string(w.ID) != "null" {
		t.Fatalf("second call with id 7 while the first is in flight: %+v, want -32600 with id null", w)
	}
	r.in.Close()
	select {
	case err := <-r.done:
		t.Fatalf("the server ended (%v) with a call in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	r.release()
	w := r.next(t)
	if string(w.ID) != "7" || w.Error != nil || !strings.Contains(string(w.Result), "waited") {
		t.Fatalf("the call in flight got %+v, want its result", w)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Run = %v after the end of input, want nil", err)
		}
		r.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end after answering the last call")
	}
	if l, ok := <-r.out; ok {
		t.Errorf("the server wrote %q after the last reply", l)
	}
}

// TestStdioEndOfInput: a server whose input ends with no call in flight
// returns from Run without error, and a request just before the end is
// answered.
func TestStdioEndOfInput(t *testing.T) {
	t.Parallel()
	r := newStdioRig(t, 0)
	r.send(t, initializeLine, initializedLine, `{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"echo","arguments":{"text":"bye"}}}`)
	r.in.Close()
	if w := r.next(t); string(w.ID) != `"init"` {
		t.Fatalf("initialize: %+v", w)
	}
	if w := r.next(t); string(w.ID) != `"last"` || !strings.Contains(string(w.Result), "bye") {
		t.Fatalf("the last call got %+v", w)
	}
	select {
	case err := <-r.done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("Run = %v", err)
		}
		r.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end")
	}
}
