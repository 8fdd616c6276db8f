package openai_test

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
	_ "github.com/ctx-dev/ctx/internal/llm/openai"
)

// reply scripts one answer of the fake server.
type reply struct {
	status  int               // 0 means 200
	header  map[string]string // extra response headers
	body    string            // a whole body, sent at once
	events  []string          // else SSE data payloads, flushed one by one
	raw     string            // else a raw stream, sent as is
	delay   time.Duration     // wait (or until the client hangs up) before answering
	stallAt int               // with events: hang after this many events (0: never)
}

// recorded is what the server saw of one request.
type recorded struct {
	Body   map[string]any
	Auth   string
	Accept string
}

// server is a fake chat-completions service answering from a script; the
// last reply repeats.
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
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.t.Errorf("got %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("decoding request: %v", err)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, recorded{Body: body, Auth: r.Header.Get("Authorization"), Accept: r.Header.Get("Accept")})
	rep := s.replies[min(len(s.reqs), len(s.replies))-1]
	s.mu.Unlock()
	if !sleepCtx(r.Context(), rep.delay) {
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.events != nil || rep.raw != "" {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(max(rep.status, 200))
	switch {
	case rep.events != nil:
		for i, e := range rep.events {
			if rep.stallAt > 0 && i == rep.stallAt {
				<-r.Context().Done()
				return
			}
			io.WriteString(w, "data: "+e+"\n\n")
			w.(http.Flusher).Flush()
		}
	case rep.raw != "":
		io.WriteString(w, rep.raw)
	default:
		io.WriteString(w, rep.body)
	}
}

func (s *server) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func newClient(t *testing.T, provider string, srv *httptest.Server, o llm.Options) llm.Client {
	t.Helper()
	o.URL = srv.URL + "/v1"
	o.HTTPClient = srv.Client()
	if o.Backoff == 0 {
		o.Backoff = time.Millisecond
	}
	c, err := llm.New(provider, o)
	if err != nil {
		t.Fatalf("llm.New(%s): %v", provider, err)
	}
	return c
}

const okBody = `{
  "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello there.", "refusal": null}, "logprobs": null, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
}`

var okResponse = llm.Response{
	Text:       "Hello there.",
	Usage:      llm.Usage{InputTokens: 12, OutputTokens: 3},
	Model:      "gpt-4o-mini-2024-07-18",
	StopReason: "stop",
}

func hi() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}
}

// TestChatRequest: what the server gets for each kind of request, and the
// answer read from a plain response.
func TestChatRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider string
		opts     llm.Options
		req      llm.Request
		wantBody map[string]any
		wantAuth string
	}{
		{
			name:     "plain",
			provider: "openai",
			opts:     llm.Options{APIKey: "sk-test"},
			req:      hi(),
			wantBody: map[string]any{
				"model":      "gpt-4o-mini",
				"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
				"max_tokens": float64(1024),
			},
			wantAuth: "Bearer sk-test",
		},
		{
			name:     "system prompt, JSON mode, conversation and output cap",
			provider: "openai",
			opts:     llm.Options{APIKey: "sk-test", Model: "gpt-4.1", MaxTokens: 300},
			req: llm.Request{
				System: "Answer in JSON.",
				Messages: []llm.Message{
					{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "user", Content: "c"},
				},
				MaxTokens: 50,
				JSON:      true,
			},
			wantBody: map[string]any{
				"model": "gpt-4.1",
				"messages": []any{
					map[string]any{"role": "system", "content": "Answer in JSON."},
					map[string]any{"role": "user", "content": "a"},
					map[string]any{"role": "assistant", "content": "b"},
					map[string]any{"role": "user", "content": "c"},
				},
				"max_tokens":      float64(50),
				"response_format": map[string]any{"type": "json_object"},
			},
			wantAuth: "Bearer sk-test",
		},
		{
			name:     "options' output cap",
			provider: "openai",
			opts:     llm.Options{MaxTokens: 300},
			req:      hi(),
			wantBody: map[string]any{
				"model":      "gpt-4o-mini",
				"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
				"max_tokens": float64(300),
			},
		},
		{
			name:     "ollama without a key",
			provider: "ollama",
			req:      hi(),
			wantBody: map[string]any{
				"model":      "llama3.2",
				"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
				"max_tokens": float64(1024),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, reply{body: okBody})
			c := newClient(t, tc.provider, srv, tc.opts)
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
			if reqs[0].Auth != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", reqs[0].Auth, tc.wantAuth)
			}
		})
	}
}

func TestChatStream(t *testing.T) {
	t.Parallel()
	s, srv := newServer(t, reply{events: []string{
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"lo "},"finish_reason":null}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"world"},"finish_reason":null}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`,
		`[DONE]`,
	}})
	c := newClient(t, "openai", srv, llm.Options{APIKey: "k"})
	var deltas []string
	req := hi()
	req.Stream = func(d string) { deltas = append(deltas, d) }
	got, err := c.Chat(t.Context(), req)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := llm.Response{Text: "Hello world", Usage: llm.Usage{InputTokens: 9, OutputTokens: 3}, Model: "gpt-4o-mini-2024-07-18", StopReason: "length"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Hel", "lo ", "world"}, deltas); diff != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", diff)
	}
	reqs := s.requests()
	wantBody := map[string]any{
		"model":          "gpt-4o-mini",
		"messages":       []any{map[string]any{"role": "user", "content": "hi"}},
		"max_tokens":     float64(1024),
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
	}
	if diff := cmp.Diff(wantBody, reqs[0].Body); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
	if reqs[0].Accept != "text/event-stream" {
		t.Errorf("Accept = %q, want text/event-stream", reqs[0].Accept)
	}
}

// TestChatRetries: 429 (honouring Retry-After, capped by MaxBackoff) and
// 5xx answers are retried, for plain and streaming requests alike.
func TestChatRetries(t *testing.T) {
	t.Parallel()
	streamOK := reply{events: []string{
		`{"model":"m","choices":[{"index":0,"delta":{"content":"Hello there."},"finish_reason":"stop"}]}`,
		`{"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}`,
		`[DONE]`,
	}}
	limited := reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}
	busy := reply{status: 503, body: `{"error":{"message":"The server is overloaded","type":"server_error","code":null}}`}
	for _, stream := range []bool{false, true} {
		for _, tc := range []struct {
			name     string
			first    reply
			minWait  time.Duration
			maxWait  time.Duration
			backoff  time.Duration
			capAfter time.Duration
		}{
			{name: "429 Retry-After", first: limited, minWait: 150 * time.Millisecond, maxWait: 5 * time.Second, capAfter: 200 * time.Millisecond},
			{name: "503", first: busy, maxWait: 5 * time.Second},
		} {
			name := tc.name
			if stream {
				name += " stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ok := reply{body: okBody}
				if stream {
					ok = streamOK
				}
				s, srv := newServer(t, tc.first, ok)
				c := newClient(t, "openai", srv, llm.Options{MaxBackoff: tc.capAfter})
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
				if got.Text != "Hello there." || got.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 3}) {
					t.Errorf("Chat = %+v, want the second answer", got)
				}
				if n := len(s.requests()); n != 2 {
					t.Errorf("server saw %d requests, want 2", n)
				}
				if el < tc.minWait || el > tc.maxWait {
					t.Errorf("Chat took %v, want within [%v, %v]", el, tc.minWait, tc.maxWait)
				}
			})
		}
	}
}

// TestChatErrors: failures come back quickly, with the server's message
// and no key, and only 429s wrap llm.ErrRateLimited.
func TestChatErrors(t *testing.T) {
	t.Parallel()
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
			replies:      []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-te****.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}},
			wantErrText:  "openai: HTTP 401 Unauthorized: Incorrect API key provided: sk-te****. (type invalid_request_error, code invalid_api_key)",
			wantRequests: 1,
		},
		{
			name:         "401 not retried, streaming",
			stream:       true,
			replies:      []reply{{status: 401, body: `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`}},
			wantErrText:  "HTTP 401 Unauthorized: bad key",
			wantRequests: 1,
		},
		{
			name:         "429 outlasts the retries",
			opts:         llm.Options{MaxRetries: 1},
			replies:      []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}},
			wantErr:      llm.ErrRateLimited,
			wantErrText:  "HTTP 429 Too Many Requests after 2 attempts: Rate limit reached",
			wantRequests: 2,
		},
		{
			name:         "malformed body",
			replies:      []reply{{body: `{"choices": [`}},
			wantErrText:  "openai: decoding response:",
			wantRequests: 1,
		},
		{
			name:         "no choices",
			replies:      []reply{{body: `{"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0}}`}},
			wantErrText:  "empty completion: the answer has no choices",
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 5},
		},
		{
			name:         "null content",
			replies:      []reply{{body: `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"length"}]}`}},
			wantErrText:  `empty completion (finish reason "length")`,
			wantRequests: 1,
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
			replies:      []reply{{delay: time.Minute, events: []string{`[DONE]`}}},
			wantErrText:  "no response within 100ms",
			wantRequests: 1,
		},
		{
			name:   "stream stalls",
			stream: true,
			opts:   llm.Options{Timeout: 100 * time.Millisecond},
			replies: []reply{{stallAt: 1, events: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`, `[DONE]`,
			}}},
			wantErrText:  "openai: reading stream: no data for 100ms",
			wantRequests: 1,
		},
		{
			name:   "malformed chunk",
			stream: true,
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`, `{"choices":[{`, `[DONE]`,
			}}},
			wantErrText:  "openai: decoding stream chunk:",
			wantRequests: 1,
		},
		{
			name:   "error chunk mid-stream",
			stream: true,
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
				`{"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}`,
			}}},
			wantErrText:  "openai: error in stream: The server had an error while processing your request. (type server_error)",
			wantRequests: 1,
		},
		{
			name:   "rate-limit chunk mid-stream",
			stream: true,
			replies: []reply{{events: []string{
				`{"error":{"message":"slow down","type":"tokens","code":"rate_limit_exceeded"}}`,
			}}},
			wantErr:      llm.ErrRateLimited,
			wantErrText:  "slow down",
			wantRequests: 1,
		},
		{
			name:   "stream cut short",
			stream: true,
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
			}}},
			wantErrText:  "stream ended before the answer was complete",
			wantRequests: 1,
		},
		{
			name:   "empty stream",
			stream: true,
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":0}}`,
				`[DONE]`,
			}}},
			wantErrText:  `empty completion (finish reason "stop")`,
			wantRequests: 1,
			wantUsage:    llm.Usage{InputTokens: 4},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, tc.replies...)
			tc.opts.APIKey = "sk-secret-key"
			c := newClient(t, "openai", srv, tc.opts)
			req := hi()
			if tc.stream {
				req.Stream = func(string) {}
			}
			start := time.Now()
			got, err := c.Chat(t.Context(), req)
			if err == nil {
				t.Fatalf("Chat = %+v, want error %q", got, tc.wantErrText)
			}
			if !strings.Contains(err.Error(), tc.wantErrText) {
				t.Errorf("Chat error %q does not contain %q", err, tc.wantErrText)
			}
			if strings.Contains(err.Error(), "sk-secret-key") {
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
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("Chat took %v", el)
			}
		})
	}
}

// TestChatStreamCancel: cancelling the context ends a stream at once,
// with an error matching context.Canceled.
func TestChatStreamCancel(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, reply{stallAt: 1, events: []string{
		`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`, `[DONE]`,
	}})
	c := newClient(t, "openai", srv, llm.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req := hi()
	req.Stream = func(string) { cancel() } // the first delta hangs up
	start := time.Now()
	got, err := c.Chat(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Chat = %+v, %v; want context.Canceled", got, err)
	}
	if got.Text != "Hel" {
		t.Errorf("partial text = %q, want %q", got.Text, "Hel")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Chat took %v after cancel", el)
	}
}

func TestChatInvalidRequest(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, reply{body: okBody})
	c := newClient(t, "openai", srv, llm.Options{})
	for _, req := range []llm.Request{
		{},
		{Messages: []llm.Message{{Role: "system", Content: "x"}}},
		{Messages: []llm.Message{{Role: "user", Content: "x"}}, MaxTokens: -1},
	} {
		if _, err := c.Chat(t.Context(), req); err == nil {
			t.Errorf("Chat(%+v) succeeded, want an error", req)
		}
	}
}
