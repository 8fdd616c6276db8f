package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

// bareServer is a Server around a bare SDK server with two tools: "echo"
// and "wait", which blocks until gate is closed. Its handler is the real
// one; only the tools differ.
type bareServer struct {
	*Server
	gate    chan struct{}
	once    sync.Once
	waiting atomic.Int64 // "wait" calls in progress
}

func (b *bareServer) release() { b.once.Do(func() { close(b.gate) }) }

func newBareServer(t *testing.T) *bareServer {
	t.Helper()
	b := &bareServer{gate: make(chan struct{})}
	m := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	type args struct {
		Text string `json:"text,omitempty"`
	}
	mcp.AddTool(m, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(m, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		b.waiting.Add(1)
		defer b.waiting.Add(-1)
		select {
		case <-b.gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "waited"}}}, nil, nil
	})
	b.Server = &Server{mcp: m, log: slog.New(slog.DiscardHandler), root: t.TempDir(), opts: Options{Config: config.Config{CacheDir: t.TempDir()}},
		engines: map[string]*engine.Engine{}, jobs: map[string]*indexJob{}}
	t.Cleanup(func() { b.Server.Close() })
	t.Cleanup(b.release)
	return b
}

// serveHTTP serves b's handler with opts on a loopback test server.
func (b *bareServer) serveHTTP(t *testing.T, opts HTTPOptions) string {
	t.Helper()
	ts := httptest.NewServer(b.Handler(opts))
	t.Cleanup(ts.Close)
	return ts.URL
}

// liveSessions counts the server's sessions.
func (b *bareServer) liveSessions() int {
	n := 0
	for range b.mcp.Sessions() {
		n++
	}
	return n
}

// postMCP posts body to /mcp as a streamable HTTP client does.
func postMCP(t *testing.T, base, session, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+PathMCP, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(sessionHeader, session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// openRaw initializes a session with raw HTTP and returns its id.
func openRaw(t *testing.T, base string) string {
	t.Helper()
	resp, body := postMCP(t, base, "", initializeBody)
	id := resp.Header.Get(sessionHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	if resp, body := postMCP(t, base, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s %s", resp.Status, body)
	}
	return id
}

// ping sends a ping on a session and returns the HTTP status.
func ping(t *testing.T, base, session string) int {
	t.Helper()
	resp, _ := postMCP(t, base, session, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	return resp.StatusCode
}

type jsonrpcError struct {
	ID    json.RawMessage `json:"id"`
	Error struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestHTTPMalformedBody: a POST to /mcp whose body is not one JSON-RPC
// message gets a JSON-RPC error object, and the session goes on.
func TestHTTPMalformedBody(t *testing.T) {
	t.Parallel()
	b := newBareServer(t)
	base := b.serveHTTP(t, HTTPOptions{MaxBodyBytes: 1 << 16})
	session := openRaw(t, base)
	for _, tc := range []struct {
		name, body string
		status     int
		code       int64
		id         string
	}{
		{"bad json", `{bad json`, 400, -32700, "null"},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", 400, -32700, "null"},
		{"empty body", ``, 400, -32700, "null"},
		{"bare number", `7`, 400, -32600, "null"},
		{"empty array", `[]`, 400, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600, "null"},
		{"empty object", `{}`, 400, -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v","method":"ping"}`, 400, -32600, `"v"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, 400, -32600, "null"},
		{"deeply nested", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}}`, 400, -32600, "4"},
		{"too large", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<16) + `"}}`, 413, -32600, "null"},
	} {
		for _, sid := range []string{"", session} {
			resp, body := postMCP(t, base, sid, tc.body)
			var e jsonrpcError
			if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
				e.Error.Code != tc.code || string(e.ID) != tc.id {
				t.Errorf("%s (session %q): %s %s %s, want %d with a JSON-RPC error %d id %s", tc.name, sid, resp.Status, resp.Header.Get("Content-Type"), body, tc.status, tc.code, tc.id)
			}
		}
	}
	if code := ping(t, base, session); code != http.StatusOK {
		t.Errorf("ping on the session after the malformed bodies: %d", code)
	}
}

// TestSessionIdle: a session with no request for SessionIdle is closed,
// and its client gets 404; a session in use is kept.
func TestSessionIdle(t *testing.T) {
	t.Parallel()
	b := newBareServer(t)
	// The session in use is pinged every idle/20: a loaded machine
	// (the race detector, other packages' tests) must stall a ping for
	// two whole seconds before the test could mistake it for idle.
	const idle = 2 * time.Second
	base := b.serveHTTP(t, HTTPOptions{SessionIdle: idle})
	idleID, usedID := openRaw(t, base), openRaw(t, base)
	for end := time.Now().Add(3 * idle); time.Now().Before(end); time.Sleep(idle / 20) {
		if code := ping(t, base, usedID); code != http.StatusOK {
			t.Fatalf("ping on a session in use: %d", code)
		}
	}
	if code := ping(t, base, idleID); code != http.StatusNotFound {
		t.Errorf("ping on a session idle for %v = %d, want 404", 3*idle, code)
	}
	if n := b.liveSessions(); n != 1 {
		t.Errorf("%d sessions open, want 1", n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b.liveSessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open 10s after their last request", b.liveSessions())
		}
		time.Sleep(idle / 4)
	}
}

// TestSessionCap: over MaxSessions, a new session closes the one idle
// longest; the others keep working, and the count never passes the cap.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	b := newBareServer(t)
	const max = 3
	base := b.serveHTTP(t, HTTPOptions{MaxSessions: max, SessionIdle: -1})
	var ids []string
	for range 5 {
		ids = append(ids, openRaw(t, base))
		if n := b.liveSessions(); n > max {
			t.Fatalf("%d sessions open, cap %d", n, max)
		}
	}
	want := map[string]int{ids[0]: 404, ids[1]: 404, ids[2]: 200, ids[3]: 200, ids[4]: 200}
	// Of the open sessions, 3 is pinged first: it is then the one idle
	// longest, though 2 was opened before it.
	for _, i := range []int{0, 1, 3, 4, 2} {
		if code := ping(t, base, ids[i]); code != want[ids[i]] {
			t.Errorf("session %d: ping = %d, want %d", i, code, want[ids[i]])
		}
	}
	ids = append(ids, openRaw(t, base))
	for i, code := range map[int]int{2: 200, 3: 404, 4: 200, 5: 200} {
		if got := ping(t, base, ids[i]); got != code {
			t.Errorf("after a sixth session: session %d: ping = %d, want %d", i, got, code)
		}
	}
	if n := b.liveSessions(); n != max {
		t.Errorf("%d sessions open, want %d", n, max)
	}

	// The SDK's client works under the cap too.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + PathMCP}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Errorf("a call on a new client: %v", err)
	}
}

// TestSessionCapBusy: when every session has a request in progress, a
// new session is refused with 503 and a JSON-RPC error; it is taken once
// one is idle again.
func TestSessionCapBusy(t *testing.T) {
	t.Parallel()
	b := newBareServer(t)
	base := b.serveHTTP(t, HTTPOptions{MaxSessions: 2})
	var wg sync.WaitGroup
	for range 2 {
		id := openRaw(t, base)
		wg.Go(func() {
			resp, body := postMCP(t, base, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
			if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("waited")) {
				t.Errorf("wait: %s %s", resp.Status, body)
			}
		})
	}
	// Both calls must be in progress before the third session comes.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the wait calls did not start")
		}
		if b.waiting.Load() == 2 {
			break
		}
	}
	resp, body := postMCP(t, base, "", initializeBody)
	var e jsonrpcError
	if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != http.StatusServiceUnavailable || e.Error.Code != codeServerBusy || string(e.ID) != "1" {
		t.Errorf("a third session while both are busy: %s %s, want 503 with JSON-RPC error %d for id 1", resp.Status, body, codeServerBusy)
	}
	if n := b.liveSessions(); n != 2 {
		t.Errorf("%d sessions open, want 2", n)
	}
	b.release()
	wg.Wait()
	openRaw(t, base)
	if n := b.liveSessions(); n != 2 {
		t.Errorf("%d sessions open after the third, want 2", n)
	}
}

// TestLoopbackHost: without a token, every path refuses a request on a
// loopback address whose Host is not a loopback name; with a token the
// token guards instead.
func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	b := newBareServer(t)
	open := b.serveHTTP(t, HTTPOptions{})
	guarded := b.serveHTTP(t, HTTPOptions{Token: "tok"})
	get := func(base, path, host string) int {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	port := open[strings.LastIndex(open, ":"):]
	for _, path := range []string{PathHealthz, PathReadyz, PathTools, PathMCP, PathSSE, "/no/such/path"} {
		for _, host := range []string{"evil.example" + port, "evil.example", "127.0.0.1.evil.example", "localhost.evil.example" + port, "[::2]" + port} {
			if code := get(open, path, host); code != http.StatusForbidden {
				t.Errorf("GET %s with Host %s = %d, want 403", path, host, code)
			}
		}
		for _, host := range []string{"", "localhost" + port, "127.0.0.1", "127.0.0.2" + port, "[::1]" + port} {
			if code := get(open, path, host); code == http.StatusForbidden {
				t.Errorf("GET %s with Host %q = 403, want it served", path, host)
			}
		}
	}
	if code := get(open, PathHealthz, "LocalHost"+port); code != http.StatusOK {
		t.Errorf("GET /healthz with a loopback Host = %d", code)
	}
	if code := get(guarded, PathHealthz, "evil.example"); code != http.StatusOK {
		t.Errorf("GET /healthz with a token and any Host = %d, want 200", code)
	}
	if code := get(guarded, PathTools, "evil.example"); code != http.StatusUnauthorized {
		t.Errorf("GET /tools with a token, none sent = %d, want 401", code)
	}
}

// TestCheckBindToken: a token that is blank or has whitespace around it
// is refused for any address.
func TestCheckBindToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:8765", "0.0.0.0:8765"} {
		for _, tok := range []string{" ", "   ", "\t", "\n", " tok", "tok\n"} {
			if err := CheckBind(addr, tok); !errors.Is(err, ErrBadToken) {
				t.Errorf("CheckBind(%q, %q) = %v, want ErrBadToken", addr, tok, err)
			}
		}
		if err := CheckBind(addr, "t o k"); err != nil {
			t.Errorf("CheckBind(%q, a token with inner spaces) = %v", addr, err)
		}
	}
}
