package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func httpSession(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), transport, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTP: both transports answer tool calls; the debugging endpoints
// work; a token guards everything but /healthz.
func TestHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ts := httptest.NewServer(e.srv.Handler(mcpserver.HTTPOptions{Token: "s3cret"}))
	t.Cleanup(ts.Close)

	if code, body := get(t, ts.URL+"/healthz", ""); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	for _, p := range []string{"/readyz", "/tools", "/mcp"} {
		if code, _ := get(t, ts.URL+p, ""); code != http.StatusUnauthorized {
			t.Errorf("%s without the token = %d, want 401", p, code)
		}
		if code, _ := get(t, ts.URL+p, "wrong"); code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token = %d, want 401", p, code)
		}
	}
	if code, body := get(t, ts.URL+"/readyz", "s3cret"); code != 200 {
		t.Errorf("/readyz = %d %q", code, body)
	}
	code, body := get(t, ts.URL+"/tools", "s3cret")
	var listed struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(body), &listed); code != 200 || err != nil || len(listed.Tools) != len(defaultTools) {
		t.Errorf("/tools = %d, %v, %d tools", code, err, len(listed.Tools))
	}
	for _, tool := range listed.Tools {
		if len(tool.InputSchema) < 10 || len(tool.OutputSchema) < 10 {
			t.Errorf("/tools: %s lacks its input or output schema", tool.Name)
		}
	}

	hc := &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}
	for name, tr := range map[string]mcp.Transport{
		"streamable": &mcp.StreamableClientTransport{Endpoint: ts.URL + mcpserver.PathMCP, HTTPClient: hc},
		"sse":        &mcp.SSEClientTransport{Endpoint: ts.URL + mcpserver.PathSSE, HTTPClient: hc},
	} {
		cs := httpSession(t, tr)
		var out mcpserver.RetrievalOutput
		mustCall(t, cs, "codebase_retrieval", map[string]any{"information_request": "sleep twice as long after each failed attempt"}, &out)
		if len(out.Segments) == 0 || out.Segments[0].Path != "retry/retry.go" {
			t.Errorf("%s: codebase_retrieval = %+v", name, out.Segments)
		}
	}
}

func TestReadyzUnindexed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noIndex: true})
	ts := httptest.NewServer(e.srv.Handler(mcpserver.HTTPOptions{}))
	t.Cleanup(ts.Close)
	if code, body := get(t, ts.URL+"/readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "ctx index") {
		t.Errorf("/readyz unindexed = %d %q", code, body)
	}
}

func TestCheckBind(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8765", "", true},
		{"localhost:8765", "", true},
		{"[::1]:0", "", true},
		{"0.0.0.0:8765", "", false},
		{"0.0.0.0:8765", "tok", true},
		{"192.168.1.5:80", "", false},
		{"nonsense", "", false},
	} {
		err := mcpserver.CheckBind(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckBind(%q, %q) = %v", tc.addr, tc.token, err)
		}
		if !tc.ok && tc.addr != "nonsense" && !errors.Is(err, mcpserver.ErrNeedToken) {
			t.Errorf("CheckBind(%q) = %v, want ErrNeedToken", tc.addr, err)
		}
	}
}

// TestConcurrency: 20 clients × 50 calls over streamable HTTP, spread
// over two servers on the same repository and cache (as two server
// processes would be), while the repository is edited and re-indexed
// again and again. No call may fail or come back empty.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	const clients, calls = 20, 50
	e := newEnv(t, envOptions{})
	second, err := mcpserver.New(mcpserver.Options{Root: e.root, Config: e.cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	var urls []string
	for _, s := range []*mcpserver.Server{e.srv, second} {
		ts := httptest.NewServer(s.Handler(mcpserver.HTTPOptions{}))
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL+mcpserver.PathMCP)
	}

	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var reindexes atomic.Int64
	indexDone := make(chan error, 1)
	go func() {
		eng, err := engine.Open(e.cfg, e.root, nil)
		if err != nil {
			indexDone <- err
			return
		}
		for i := 0; ctx.Err() == nil; i++ {
			src := fmt.Sprintf("package extra\n\n// Helper%d retries the order export.\nfunc Helper%d() {}\n", i, i)
			if err := os.WriteFile(filepath.Join(e.root, "server", "extra.go"), []byte(src), 0o644); err != nil {
				indexDone <- err
				return
			}
			if _, err := eng.Index(ctx, engine.IndexOptions{}); err != nil && ctx.Err() == nil {
				indexDone <- err
				return
			}
			reindexes.Add(1)
		}
		indexDone <- nil
	}()

	var failed atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("client-%d", c), Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: urls[c%2]}, nil)
			if err != nil {
				failed.Add(calls)
				firstErr.Do(func() { t.Errorf("client %d: connect: %v", c, err) })
				return
			}
			defer cs.Close()
			for i := range calls {
				var p mcp.CallToolParams
				switch i % 4 {
				case 0:
					p = mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": "retry the database with exponential backoff"}}
				case 1:
					p = mcp.CallToolParams{Name: "get_symbol_definition", Arguments: map[string]any{"symbol": "Backoff"}}
				case 2:
					p = mcp.CallToolParams{Name: "find_references", Arguments: map[string]any{"symbol": "Load"}}
				case 3:
					p = mcp.CallToolParams{Name: "list_files", Arguments: map[string]any{"glob": "*.go"}}
				}
				res, err := cs.CallTool(t.Context(), &p)
				if err == nil && res.IsError {
					err = fmt.Errorf("isError: %v", res.Content[0].(*mcp.TextContent).Text)
				}
				if err == nil && res.StructuredContent == nil {
					err = errors.New("no structured content")
				}
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("client %d call %d (%s): %v", c, i, p.Name, err) })
				}
			}
		})
	}
	wg.Wait()
	stop()
	if err := <-indexDone; err != nil {
		t.Errorf("re-indexing: %v", err)
	}
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of %d calls failed", n, clients*calls)
	}
	if reindexes.Load() == 0 {
		t.Errorf("no index run completed while the clients called")
	}
	t.Logf("%d calls, %d index runs during them", clients*calls, reindexes.Load())
}
