package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/embed/openai"
)

// request is the /embeddings body as an OpenAI-compatible server reads it,
// plus the headers the test checks; decoding with DisallowUnknownFields
// makes any extra field a test failure.
type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     *int     `json:"dimensions"`

	Auth string `json:"-"` // the Authorization header
}

// reply scripts one answer of the fake server.
type reply struct {
	status  int               // 0 means 200
	header  map[string]string // extra response headers
	body    string            // literal body; empty on a 200 means real embeddings
	dims    int               // dimensions of generated embeddings; 0 means server default
	reverse bool              // send data in reverse order (indexes still right)
	noIndex bool              // omit "index", as some compatible servers do
}

// server is a fake OpenAI-compatible service that records requests and
// answers from a script; the last reply repeats.
type server struct {
	t       *testing.T
	dims    int
	replies []reply
	onReq   func() // called after each request is recorded, if set

	mu   sync.Mutex // guards reqs
	reqs []request
}

func newServer(t *testing.T, dims int, replies ...reply) (*server, *httptest.Server) {
	s := &server{t: t, dims: dims, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		s.t.Errorf("got %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req request
	if err := dec.Decode(&req); err != nil {
		s.t.Errorf("decoding request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	req.Auth = r.Header.Get("Authorization")
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.onReq != nil {
		s.onReq()
	}
	rep := s.replies[min(n, len(s.replies)-1)]
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.status != 0 && rep.status != http.StatusOK || rep.body != "" {
		w.WriteHeader(max(rep.status, http.StatusOK))
		fmt.Fprint(w, rep.body)
		return
	}
	dims := s.dims
	if req.Dimensions != nil {
		dims = *req.Dimensions
	}
	if rep.dims != 0 {
		dims = rep.dims
	}
	vecs := serverVectors(s.t, dims, req.Input)
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		if rep.noIndex {
			delete(data[i], "index")
		}
	}
	if rep.reverse {
		slices.Reverse(data)
	}
	body, _ := json.Marshal(map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": 5 * len(vecs), "total_tokens": 5 * len(vecs)},
	})
	w.Write(body)
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// serverVectors is what the fake server answers for inputs: the
// embedtest vectors scaled by 2, so the client's normalisation shows.
func serverVectors(t *testing.T, dims int, inputs []string) [][]float32 {
	vecs, err := embedtest.New(dims).Embed(t.Context(), inputs, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		for i := range v {
			v[i] *= 2
		}
	}
	return vecs
}

// unit returns serverVectors normalised, as the client must return them.
func unit(t *testing.T, dims int, inputs []string) [][]float32 {
	vecs := serverVectors(t, dims, inputs)
	for _, v := range vecs {
		embed.Normalize(v)
	}
	return vecs
}

const (
	model = "text-embedding-3-small"
	key   = "sk-test-123"
)

func TestEmbed(t *testing.T) {
	t.Parallel()
	texts := []string{"func main()", "type Server struct", "parse config", "open file", "close file"}
	req := func(inputs ...string) request {
		return request{Model: model, Input: inputs, EncodingFormat: "float", Auth: "Bearer " + key}
	}
	sixteen := 16
	tests := []struct {
		name        string
		opts        openai.Options // BaseURL, Model, HTTPClient and APIKey are filled in
		kind        embed.InputKind
		texts       []string
		replies     []reply
		want        [][]float32 // nil means no vectors are expected
		wantReqs    []request
		wantErr     error  // matched with errors.Is
		wantErrText string // substring of the error
		wantDims    int    // Model().Dims after the call
	}{
		{
			name:     "batches of two keep order",
			opts:     openai.Options{Dims: 8, BatchSize: 2},
			texts:    texts,
			replies:  []reply{{}},
			want:     unit(t, 8, texts),
			wantReqs: []request{req(texts[0], texts[1]), req(texts[2], texts[3]), req(texts[4])},
			wantDims: 8,
		},
		{
			name:     "out of order data is sorted by index",
			opts:     openai.Options{Dims: 8},
			texts:    texts,
			replies:  []reply{{reverse: true}},
			want:     unit(t, 8, texts),
			wantReqs: []request{req(texts...)},
			wantDims: 8,
		},
		{
			name:     "missing index means input order",
			opts:     openai.Options{Dims: 8},
			texts:    texts[:3],
			replies:  []reply{{noIndex: true}},
			want:     unit(t, 8, texts[:3]),
			wantReqs: []request{req(texts[:3]...)},
			wantDims: 8,
		},
		{
			name:     "dims learned from the first response",
			opts:     openai.Options{},
			texts:    texts[:2],
			replies:  []reply{{}},
			want:     unit(t, 8, texts[:2]),
			wantReqs: []request{req(texts[:2]...)},
			wantDims: 8,
		},
		{
			name:    "dimensions sent when asked",
			opts:    openai.Options{Dims: 16, SendDims: true},
			texts:   texts[:1],
			replies: []reply{{}},
			want:    unit(t, 16, texts[:1]),
			wantReqs: []request{{
				Model: model, Input: texts[:1], EncodingFormat: "float", Dimensions: &sixteen, Auth: "Bearer " + key,
			}},
			wantDims: 16,
		},
		{
			name:     "query prefix",
			opts:     openai.Options{Dims: 8, QueryPrefix: "query: ", DocumentPrefix: "passage: "},
			kind:     embed.Query,
			texts:    []string{"where is auth"},
			replies:  []reply{{}},
			want:     unit(t, 8, []string{"query: where is auth"}),
			wantReqs: []request{req("query: where is auth")},
			wantDims: 8,
		},
		{
			name:     "429 then success",
			opts:     openai.Options{Dims: 8},
			texts:    texts[:2],
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}, {}},
			want:     unit(t, 8, texts[:2]),
			wantReqs: []request{req(texts[:2]...), req(texts[:2]...)},
			wantDims: 8,
		},
		{
			name:     "429 with retry-after-ms",
			opts:     openai.Options{Dims: 8, Backoff: time.Hour, MaxBackoff: time.Hour},
			texts:    texts[:1],
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After-Ms": "1", "Retry-After": "3600"}}, {}},
			want:     unit(t, 8, texts[:1]),
			wantReqs: []request{req(texts[0]), req(texts[0])},
			wantDims: 8,
		},
		{
			name:        "429 forever is rate limited",
			opts:        openai.Options{Dims: 8, MaxRetries: 3},
			texts:       texts[:1],
			replies:     []reply{{status: 429, body: `{"error":{"message":"Rate limit reached for text-embedding-3-small","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}},
			wantReqs:    []request{req(texts[0]), req(texts[0]), req(texts[0]), req(texts[0])},
			wantErr:     embed.ErrRateLimited,
			wantErrText: "HTTP 429 Too Many Requests after 4 attempts: Rate limit reached for text-embedding-3-small (type requests, code rate_limit_exceeded)",
			wantDims:    8,
		},
		{
			name:     "500 then success",
			opts:     openai.Options{Dims: 8},
			texts:    texts[:1],
			replies:  []reply{{status: 500, body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`}, {}},
			want:     unit(t, 8, texts[:1]),
			wantReqs: []request{req(texts[0]), req(texts[0])},
			wantDims: 8,
		},
		{
			name:        "400 is not retried and its message surfaces",
			opts:        openai.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":null,"code":null}}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "HTTP 400 Bad Request: This model's maximum context length is 8192 tokens. (type invalid_request_error)",
			wantDims:    8,
		},
		{
			name:        "401 bad key",
			opts:        openai.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "HTTP 401 Unauthorized: Incorrect API key provided. (type invalid_request_error, code invalid_api_key)",
			wantDims:    8,
		},
		{
			name:        "TEI-style string error",
			opts:        openai.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 413, body: `{"error":"batch size 300 > maximum allowed batch size 256","error_type":"Validation"}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "HTTP 413 Request Entity Too Large: batch size 300 > maximum allowed batch size 256",
			wantDims:    8,
		},
		{
			name:        "vLLM-style top-level message with numeric code",
			opts:        openai.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 404, body: `{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":404}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "HTTP 404 Not Found: The model does not exist.",
			wantDims:    8,
		},
		{
			name:        "wrong dimension",
			opts:        openai.Options{Dims: 8},
			texts:       texts[:2],
			replies:     []reply{{dims: 4}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErr:     embed.ErrDimension,
			wantErrText: "got 4, want 8",
			wantDims:    8,
		},
		{
			name:        "learned dims are enforced",
			opts:        openai.Options{BatchSize: 1},
			texts:       texts[:2],
			replies:     []reply{{dims: 6}, {dims: 7}},
			wantReqs:    []request{req(texts[0]), req(texts[1])},
			wantErr:     embed.ErrDimension,
			wantErrText: "got 7, want 6",
			wantDims:    6,
		},
		{
			name:        "malformed JSON",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:1],
			replies:     []reply{{body: `{"object":"list","data":[{"index":0,"embedding":[0.6,0.8]}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "decoding response",
			wantDims:    2,
		},
		{
			name:        "base64 instead of floats",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:1],
			replies:     []reply{{body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAAEA="}],"model":"m"}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "decoding response",
			wantDims:    2,
		},
		{
			name:        "too few embeddings",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:2],
			replies:     []reply{{body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"model":"m"}`}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErrText: "service returned 1 embeddings for 2 inputs",
			wantDims:    2,
		},
		{
			name:        "index out of range",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:2],
			replies:     []reply{{body: `{"data":[{"index":0,"embedding":[0.6,0.8]},{"index":2,"embedding":[0.6,0.8]}]}`}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErrText: "embedding index 2 out of range for 2 inputs",
			wantDims:    2,
		},
		{
			name:        "index repeated",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:2],
			replies:     []reply{{body: `{"data":[{"index":1,"embedding":[0.6,0.8]},{"index":1,"embedding":[0.6,0.8]}]}`}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErrText: "embedding index 1 repeated",
			wantDims:    2,
		},
		{
			name:        "index on some entries only",
			opts:        openai.Options{Dims: 2},
			texts:       texts[:2],
			replies:     []reply{{body: `{"data":[{"embedding":[0.6,0.8]},{"index":0,"embedding":[0.6,0.8]}]}`}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErrText: "with and without an index",
			wantDims:    2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, 8, tc.replies...)
			opts := tc.opts
			opts.BaseURL = srv.URL + "/v1/" // the trailing slash is ignored
			opts.Model = model
			opts.APIKey = key
			opts.HTTPClient = srv.Client()
			if opts.Backoff == 0 {
				opts.Backoff = time.Millisecond
			}
			c, err := openai.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Embed(t.Context(), tc.texts, tc.kind)
			if tc.wantErr != nil || tc.wantErrText != "" {
				if err == nil {
					t.Fatalf("Embed succeeded, want error %v %q", tc.wantErr, tc.wantErrText)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("Embed error %q is not %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("Embed error %q does not contain %q", err, tc.wantErrText)
				}
			} else if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("vectors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReqs, s.requests()); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
			wantModel := embed.Model{Provider: "openai", Name: model, Dims: tc.wantDims}
			if diff := cmp.Diff(wantModel, c.Model()); diff != "" {
				t.Errorf("Model mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmbedHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m"}`)
	}))
	defer srv.Close()
	tests := []struct {
		name      string
		key       string
		header    http.Header
		wantAuth  string
		wantExtra string
	}{
		{"bearer key", "sk-abc", nil, "Bearer sk-abc", ""},
		{"no key no header", "", nil, "", ""},
		{"extra headers", "sk-abc", http.Header{"Openai-Organization": {"org-1"}}, "Bearer sk-abc", "org-1"},
	}
	for _, tc := range tests {
		// Not parallel: the subtests share the server's last-seen headers.
		t.Run(tc.name, func(t *testing.T) {
			c, err := openai.New(openai.Options{BaseURL: srv.URL, Model: "m", APIKey: tc.key, Header: tc.header, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Embed(t.Context(), []string{"x"}, embed.Document); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if a := got.Get("Authorization"); a != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", a, tc.wantAuth)
			}
			if o := got.Get("OpenAI-Organization"); o != tc.wantExtra {
				t.Errorf("OpenAI-Organization = %q, want %q", o, tc.wantExtra)
			}
		})
	}
}

func TestEmbedCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	s, srv := newServer(t, 8, reply{status: 429, header: map[string]string{"Retry-After": "60"}})
	s.onReq = func() { time.AfterFunc(20*time.Millisecond, cancel) }
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: model, HTTPClient: srv.Client(), MaxBackoff: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Embed(ctx, []string{"x"}, embed.Document)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed error = %v, want context.Canceled", err)
	}
	if errors.Is(err, embed.ErrRateLimited) {
		t.Errorf("Embed error %q claims a rate limit; it was canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Embed returned after %v, want soon after cancellation", d)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    openai.Options
		wantErr string
	}{
		{"defaults", openai.Options{Model: model}, ""},
		{"no model", openai.Options{}, "no model name"},
		{"negative dims", openai.Options{Model: "m", Dims: -1}, "negative dimensions"},
		{"send dims without dims", openai.Options{Model: "m", SendDims: true}, "SendDims needs Dims"},
		{"negative batch", openai.Options{Model: "m", BatchSize: -1}, "negative batch size"},
		{"relative URL", openai.Options{Model: "m", BaseURL: "api.openai.com/v1"}, "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := openai.New(tc.opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestNewDoesNotAliasHeader checks that New copies Options.Header before
// adding the Authorization header to it.
func TestNewDoesNotAliasHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{"X-Gateway": {"1"}}
	if _, err := openai.New(openai.Options{Model: "m", APIKey: "k", Header: h}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(http.Header{"X-Gateway": {"1"}}, h); diff != "" {
		t.Errorf("Options.Header changed (-want +got):\n%s", diff)
	}
}
