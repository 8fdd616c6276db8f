package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/llm"
	_ "github.com/ctx-dev/ctx/internal/llm/anthropic"
)

// sse is one server-sent event: its name and its data.
type sse struct{ name, data string }

// reply scripts one answer of the fake server.
type reply struct {
	status  int               // 0 means 200
	header  map[string]string // extra response headers
	body    string            // a whole body, sent at once
	events  []sse             // else events, flushed one by one
	delay   time.Duration     // wait (or until the client hangs up) before answering
	stallAt int               // with events: hang after this many events (0: never)
}

// recorded is what the server saw of one request.
type recorded struct {
	Body    map[string]any
	Key     string
	Version string
}

// server is a fake Messages API answering from a script; the last reply
// repeats.
type server struct {
	t       *testing.T
	replies []reply

	mu   sync.Mutex // guards reqs
	reqs []recorded
}

func newServer(t *testing.T, replies ...reply) (*server, *httptest.Server) {
	t.Helper()
	s := &server{t: t, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.t.Errorf("got %s %s, want POST /v1/messages", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("decoding request: %v", err)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, recorded{Body: body, Key: r.Header.Get("X-Api-Key"), Version: r.Header.Get("Anthropic-Version")})
	rep := s.replies[min(len(s.reqs), len(s.replies))-1]
	s.mu.Unlock()
	if rep.delay > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(rep.delay):
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.events != nil {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(max(rep.status, 200))
	if rep.events == nil {
		io.WriteString(w, rep.body)
		return
	}
	for i, e := range rep.events {
		if rep.stallAt > 0 && i == rep.stallAt {
			<-r.Context().Done()
			return
		}
		io.WriteString(w, "event: "+e.name+"\r\ndata: "+e.data+"\r\n\r\n")
		w.(http.Flusher).Flush()
	}
}

func (s *server) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func newClient(t *testing.T, srv *httptest.Server, o llm.Options) llm.Client {
	t.Helper()
	o.URL = srv.URL + "/v1/"
	o.HTTPClient = srv.Client()
	if o.Backoff == 0 {
		o.Backoff = time.Millisecond
	}
	if o.APIKey == "" {
		o.APIKey = "sk-ant-secret"
	}
	c, err := llm.New("anthropic", o)
	if err != nil {
		t.Fatalf("llm.New(anthropic): %v", err)
	}
	return c
}

const okBody = `{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
  "content": [{"type": "text", "text": "Hello "}, {"type": "tool_use", "id": "t", "name": "x", "input": {}}, {"type": "text", "text": "there."}],
  "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 12, "output_tokens": 3}
}`

var okResponse = llm.Response{
	Text:       "Hello there.",
	Usage:      llm.Usage{InputTokens: 12, OutputTokens: 3},
	Model:      "claude-3-5-haiku-20241022",
	StopReason: "end_turn",
}

func hi() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}
}

func okStream() []sse {
	return []sse{
		{"message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-3-5-haiku-20241022","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"ping", `{"type": "ping"}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":15}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
}

// TestChatRequest: what the server gets for each kind of request, and the
// answer read from a plain response.
func TestChatRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     llm.Options
		req      llm.Request
		wantBody map[string]any
	}{
		{
			name: "plain",
			req:  hi(),
			wantBody: map[string]any{
				"model":      "claude-3-5-haiku-latest",
				"max_tokens": float64(1024),
				"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
			},
		},
		{
			name: "system prompt at the top, JSON mode ignored, output cap",
			opts: llm.Options{Model: "claude-sonnet-4-0", MaxTokens: 300},
			req: llm.Request{
				System: "Answer in JSON.",
				Messages: []llm.Message{
					{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "user", Content: "c"},
				},
				MaxTokens: 50,
				JSON:      true,
			},
			wantBody: map[string]any{
				"model":      "claude-sonnet-4-0",
				"max_tokens": float64(50),
				"system":     "Answer in JSON.",
				"messages": []any{
					map[string]any{"role": "user", "content": "a"},
					map[string]any{"role": "assistant", "content": "b"},
					map[string]any{"role": "user", "content": "c"},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, reply{body: okBody})
			c := newClient(t, srv, tc.opts)
			got, err := c.Chat(t.Context(), tc.req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if diff := cmp.Diff(okResponse, got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(tc.wantBody, reqs[0].Body); diff != "" {
				t.Errorf("request body mismatch (-want +got):\n%s", diff)
			}
			if reqs[0].Key != "sk-ant-secret" || reqs[0].Version != "2023-06-01" {
				t.Errorf("x-api-key, anthropic-version = %q, %q; want the key and 2023-06-01", reqs[0].Key, reqs[0].Version)
			}
		})
	}
}

func TestChatStream(t *testing.T) {
	t.Parallel()
	s, srv := newServer(t, reply{events: okStream()})
	c := newClient(t, srv, llm.Options{})
	var deltas []string
	req := hi()
	req.System = "Be brief."
	req.Stream = func(d string) { deltas = append(deltas, d) }
	got, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := llm.Response{Text: "Hello world", Usage: llm.Usage{InputTokens: 25, OutputTokens: 15}, Model: "claude-3-5-haiku-20241022", StopReason: "max_tokens"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Hello", " world"}, deltas); diff != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", diff)
	}
	wantBody := map[string]any{
		"model":      "claude-3-5-haiku-latest",
		"max_tokens": float64(1024),
		"system":     "Be brief.",
		"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
		"stream":     true,
	}
	if diff := cmp.Diff(wantBody, s.requests()[0].Body); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
}

// TestChatRetries: 429 (honouring Retry-After, capped by MaxBackoff), 5xx
// and 529 answers are retried, for plain and streaming requests alike.
func TestChatRetries(t *testing.T) {
	t.Parallel()
	limited := reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`}
	internal := reply{status: 500, body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`}
	overloaded := reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	for _, stream := range []bool{false, true} {
		for _, tc := range []struct {
			name    string
			first   reply
			minWait time.Duration
			cap     time.Duration
		}{
			{name: "429 Retry-After", first: limited, minWait: 150 * time.Millisecond, cap: 200 * time.Millisecond},
			{name: "500", first: internal},
			{name: "529 overloaded", first: overloaded},
		} {
			name := tc.name
			if stream {
				name += " stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ok := reply{body: okBody}
				if stream {
					ok = reply{events: okStream()}
				}
				s, srv := newServer(t, tc.first, ok)
				c := newClient(t, srv, llm.Options{MaxBackoff: tc.cap})
				req := hi()
				if stream {
					req.Stream = func(string) {}
				}
				start := time.Now()
				got, err := c.Chat(t.Context(), req)
				el := time.Since(start)
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				if got.Text == "" || got.Usage.InputTokens == 0 {
					t.Errorf("Chat = %+v, want the second answer", got)
				}
				if n := len(s.requests()); n != 2 {
					t.Errorf("server saw %d requests, want 2", n)
				}
				if el < tc.minWait || el > 5*time.Second {
					t.Errorf("Chat took %v, want within [%v, 5s]", el, tc.minWait)
				}
			})
		}
	}
}

// TestChatErrors: failures come back quickly, with the API's message and
// no key, and only rate limits wrap llm.ErrRateLimited.
func TestChatErrors(t *testing.T) {
	t.Parallel()
	start := okStream()[:2:2] // appends copy
	tests := []struct {
		name         string
		opts         llm.Options
		stream       bool
		replies      []reply
		wantErr      error
		wantErrText  string
		wantRequests int
		wantUsage    llm.Usage
	}{
		{
			name:         "401 not retried",
			replies:      []reply{{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}},
			wantErrText:  "anthropic: HTTP 401 Unauthorized: invalid x-api-key (authentication_error)",
			wantRequests: 1,
		},
		{
			name:         "401 not retried, streaming",
			stream:       true,
			replies:      []reply{{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}},
			wantErrText:  "anthropic: HTTP 401 Unauthorized: invalid x-api-key (authentication_error)",
			wantRequests: 1,
		},
		{
			name:         "529 outlasts the retries",
			opts:         llm.Options{MaxRetries: 2},
			replies:      []reply{{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}},
			wantErrText:  "HTTP 529 after 3 attempts: Overloaded (overloaded_error)",
			wantRequests: 3,
		},
		{
			name:         "429 outlasts the retries",
			opts:         llm.Options{MaxRetries: -1},
			replies:      []reply{{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}},
			wantErr:      llm.ErrRateLimited,
			wantErrText:  "HTTP 429 Too Many Requests: slow down (rate_limit_error)",
			wantRequests: 1,
		},
		{
			name:         "malformed body",
			replies:      []reply{{body: `{"content": [{"type": "text", "text": `}},
			wantErrText:  "anthropic: decoding response:",
			wantRequests: 1,
		},
		{
			name:         "no text blocks",
			replies:      []reply{{body: `{"type":"message","model":"m","content":[],"stop_reason":"max_tokens","usage":{"input_tokens":7,"output_tokens":0}}`}},
			wantErrText:  `empty completion: no text blocks in the answer (stop reason "max_tokens")`,
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 7},
		},
		{
			name:         "slow server",
			opts:         llm.Options{Timeout: 100 * time.Millisecond, MaxRetries: -1},
			replies:      []reply{{delay: time.Minute, body: okBody}},
			wantErrText:  "context deadline exceeded",
			wantRequests: 1,
		},
		{
			name:         "slow server, streaming",
			stream:       true,
			opts:         llm.Options{Timeout: 100 * time.Millisecond, MaxRetries: -1},
			replies:      []reply{{delay: time.Minute, events: okStream()}},
			wantErrText:  "no response within 100ms",
			wantRequests: 1,
		},
		{
			name:         "stream stalls",
			stream:       true,
			opts:         llm.Options{Timeout: 100 * time.Millisecond},
			replies:      []reply{{stallAt: 2, events: okStream()}},
			wantErrText:  "anthropic: reading stream: no data for 100ms",
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 25, OutputTokens: 1},
		},
		{
			name:         "malformed event",
			stream:       true,
			replies:      []reply{{events: append(start, sse{"content_block_delta", `{"type":"content_block_delta","delta":{`})}},
			wantErrText:  "anthropic: decoding content_block_delta event:",
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 25, OutputTokens: 1},
		},
		{
			name:   "error event mid-stream",
			stream: true,
			replies: []reply{{events: append(start,
				sse{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`},
				sse{"error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`},
			)}},
			wantErrText:  "anthropic: error in stream: Overloaded (overloaded_error)",
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 25, OutputTokens: 1},
		},
		{
			name:         "rate-limit event mid-stream",
			stream:       true,
			replies:      []reply{{events: []sse{{"error", `{"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}`}}}},
			wantErr:      llm.ErrRateLimited,
			wantErrText:  "slow down (rate_limit_error)",
			wantRequests: 1,
		},
		{
			name:         "stream cut short",
			stream:       true,
			replies:      []reply{{events: okStream()[:5]}},
			wantErrText:  "stream ended before message_stop",
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 25, OutputTokens: 1},
		},
		{
			name:   "stream without text",
			stream: true,
			replies: []reply{{events: []sse{
				okStream()[0],
				{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`},
				{"message_stop", `{"type":"message_stop"}`},
			}}},
			wantErrText:  `empty completion: no text blocks in the answer (stop reason "end_turn")`,
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 25, OutputTokens: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, tc.replies...)
			c := newClient(t, srv, tc.opts)
			req := hi()
			if tc.stream {
				req.Stream = func(string) {}
			}
			begin := time.Now()
			got, err := c.Chat(t.Context(), req)
			if err == nil {
				t.Fatalf("Chat = %+v, want error %q", got, tc.wantErrText)
			}
			if !strings.Contains(err.Error(), tc.wantErrText) {
				t.Errorf("Chat error %q does not contain %q", err, tc.wantErrText)
			}
			if strings.Contains(err.Error(), "sk-ant-secret") {
				t.Errorf("Chat error %q quotes the API key", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("Chat error %q is not %v", err, tc.wantErr)
			}
			if tc.wantErr == nil && errors.Is(err, llm.ErrRateLimited) {
				t.Errorf("Chat error %q is a rate limit", err)
			}
			if got.Usage != tc.wantUsage {
				t.Errorf("usage with the error = %+v, want %+v", got.Usage, tc.wantUsage)
			}
			if n := len(s.requests()); n != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", n, tc.wantRequests)
			}
			if el := time.Since(begin); el > 10*time.Second {
				t.Errorf("Chat took %v", el)
			}
		})
	}
}

// TestChatStreamCancel: cancelling the context ends a stream at once,
// with an error matching context.Canceled.
func TestChatStreamCancel(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, reply{stallAt: 4, events: okStream()})
	c := newClient(t, srv, llm.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req := hi()
	req.Stream = func(string) { cancel() }
	begin := time.Now()
	got, err := c.Chat(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Chat = %+v, %v; want context.Canceled", got, err)
	}
	if got.Text != "Hello" {
		t.Errorf("partial text = %q, want %q", got.Text, "Hello")
	}
	if el := time.Since(begin); el > 5*time.Second {
		t.Errorf("Chat took %v after cancel", el)
	}
}

func TestDefaultModel(t *testing.T) {
	t.Parallel()
	c, err := llm.New("anthropic", llm.Options{})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	if got := c.Model(); got != "claude-3-5-haiku-latest" {
		t.Errorf("Model() = %q, want claude-3-5-haiku-latest", got)
	}
}
