package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/embed/ollama"
)

// request is the /api/embed body as Ollama's server reads it; decoding
// with DisallowUnknownFields makes any extra field a test failure.
type request struct {
	Model     string   `json:"model"`
	Input     []string `json:"input"`
	Truncate  *bool    `json:"truncate"`
	KeepAlive string   `json:"keep_alive,omitempty"`
}

// reply scripts one answer of the fake server.
type reply struct {
	status int               // 0 means 200
	header map[string]string // extra response headers
	body   string            // literal body; empty on a 200 means real embeddings
	dims   int               // dimensions of generated embeddings; 0 means server default
}

// server is a fake Ollama that records requests and answers from a script;
// the last reply repeats.
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
	if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
		s.t.Errorf("got %s %s, want POST /api/embed", r.Method, r.URL.Path)
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
		fmt.Fprintf(w, `{"error":%q}`, err.Error())
		return
	}
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
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if rep.status != 0 && rep.status != http.StatusOK || rep.body != "" {
		w.WriteHeader(max(rep.status, http.StatusOK))
		fmt.Fprint(w, rep.body)
		return
	}
	dims := s.dims
	if rep.dims != 0 {
		dims = rep.dims
	}
	// Scale the fake's unit vectors so the client's normalisation shows.
	vecs := serverVectors(s.t, dims, req.Input)
	body, _ := json.Marshal(map[string]any{
		"model":             req.Model,
		"embeddings":        vecs,
		"total_duration":    14143917,
		"load_duration":     1019500,
		"prompt_eval_count": 8 * len(req.Input),
	})
	w.Write(body)
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// serverVectors is what the fake server answers for inputs: the
// embedtest vectors scaled by 3.
func serverVectors(t *testing.T, dims int, inputs []string) [][]float32 {
	vecs, err := embedtest.New(dims).Embed(t.Context(), inputs, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		for i := range v {
			v[i] *= 3
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

func TestEmbed(t *testing.T) {
	t.Parallel()
	texts := []string{"func main()", "type Server struct", "parse config", "open file", "close file"}
	yes := true
	req := func(inputs ...string) request {
		return request{Model: "nomic-embed-text", Input: inputs, Truncate: &yes}
	}
	tests := []struct {
		name        string
		opts        ollama.Options // BaseURL, Model and HTTPClient are filled in
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
			opts:     ollama.Options{Dims: 8, BatchSize: 2},
			texts:    texts,
			replies:  []reply{{}},
			want:     unit(t, 8, texts),
			wantReqs: []request{req(texts[0], texts[1]), req(texts[2], texts[3]), req(texts[4])},
			wantDims: 8,
		},
		{
			name:     "dims learned from the first response",
			opts:     ollama.Options{BatchSize: 10},
			texts:    texts[:3],
			replies:  []reply{{}},
			want:     unit(t, 8, texts[:3]),
			wantReqs: []request{req(texts[:3]...)},
			wantDims: 8,
		},
		{
			name:    "query prefix and keep_alive",
			opts:    ollama.Options{Dims: 8, QueryPrefix: "search_query: ", DocumentPrefix: "search_document: ", KeepAlive: "10m"},
			kind:    embed.Query,
			texts:   []string{"where is auth"},
			replies: []reply{{}},
			want:    unit(t, 8, []string{"search_query: where is auth"}),
			wantReqs: []request{{
				Model: "nomic-embed-text", Input: []string{"search_query: where is auth"}, Truncate: &yes, KeepAlive: "10m",
			}},
			wantDims: 8,
		},
		{
			name:     "document prefix",
			opts:     ollama.Options{Dims: 8, QueryPrefix: "search_query: ", DocumentPrefix: "search_document: "},
			kind:     embed.Document,
			texts:    []string{"func main()"},
			replies:  []reply{{}},
			want:     unit(t, 8, []string{"search_document: func main()"}),
			wantReqs: []request{req("search_document: func main()")},
			wantDims: 8,
		},
		{
			name:     "no texts no request",
			opts:     ollama.Options{Dims: 8},
			texts:    nil,
			replies:  []reply{{}},
			want:     [][]float32{},
			wantDims: 8,
		},
		{
			name:     "429 then success",
			opts:     ollama.Options{Dims: 8},
			texts:    texts[:2],
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":"too many requests"}`}, {}},
			want:     unit(t, 8, texts[:2]),
			wantReqs: []request{req(texts[:2]...), req(texts[:2]...)},
			wantDims: 8,
		},
		{
			name:        "429 forever is rate limited",
			opts:        ollama.Options{Dims: 8, MaxRetries: 2},
			texts:       texts[:1],
			replies:     []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`}},
			wantReqs:    []request{req(texts[0]), req(texts[0]), req(texts[0])},
			wantErr:     embed.ErrRateLimited,
			wantErrText: "HTTP 429 Too Many Requests after 3 attempts: server busy",
			wantDims:    8,
		},
		{
			name:     "500 then success",
			opts:     ollama.Options{Dims: 8},
			texts:    texts[:1],
			replies:  []reply{{status: 500, body: `{"error":"llama runner process has terminated"}`}, {}},
			want:     unit(t, 8, texts[:1]),
			wantReqs: []request{req(texts[0]), req(texts[0])},
			wantDims: 8,
		},
		{
			name:        "404 model not found is not retried",
			opts:        ollama.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 404, body: `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: `HTTP 404 Not Found: model "nomic-embed-text" not found, try pulling it first`,
			wantDims:    8,
		},
		{
			name:        "400 input too long is not retried",
			opts:        ollama.Options{Dims: 8},
			texts:       texts[:1],
			replies:     []reply{{status: 400, body: `{"error":"the input length exceeds the context length"}`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "HTTP 400 Bad Request: the input length exceeds the context length",
			wantDims:    8,
		},
		{
			name:        "wrong dimension",
			opts:        ollama.Options{Dims: 8},
			texts:       texts[:2],
			replies:     []reply{{dims: 4}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErr:     embed.ErrDimension,
			wantErrText: "got 4, want 8",
			wantDims:    8,
		},
		{
			name:        "learned dims are enforced",
			opts:        ollama.Options{BatchSize: 1},
			texts:       texts[:2],
			replies:     []reply{{dims: 6}, {dims: 7}},
			wantReqs:    []request{req(texts[0]), req(texts[1])},
			wantErr:     embed.ErrDimension,
			wantErrText: "got 7, want 6",
			wantDims:    6,
		},
		{
			name:        "too few embeddings",
			opts:        ollama.Options{Dims: 2},
			texts:       texts[:2],
			replies:     []reply{{body: `{"model":"nomic-embed-text","embeddings":[[0.6,0.8]]}`}},
			wantReqs:    []request{req(texts[:2]...)},
			wantErrText: "server returned 1 embeddings for 2 inputs",
			wantDims:    2,
		},
		{
			name:        "malformed JSON",
			opts:        ollama.Options{Dims: 2},
			texts:       texts[:1],
			replies:     []reply{{body: `{"model":"nomic-embed-text","embeddings":[[0.6,`}},
			wantReqs:    []request{req(texts[0])},
			wantErrText: "decoding response",
			wantDims:    2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := newServer(t, 8, tc.replies...)
			opts := tc.opts
			opts.BaseURL = srv.URL + "/" // the trailing slash is ignored
			opts.Model = "nomic-embed-text"
			opts.HTTPClient = srv.Client()
			if opts.Backoff == 0 {
				opts.Backoff = time.Millisecond
			}
			c, err := ollama.New(opts)
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
			wantModel := embed.Model{Provider: "ollama", Name: "nomic-embed-text", Dims: tc.wantDims}
			if diff := cmp.Diff(wantModel, c.Model()); diff != "" {
				t.Errorf("Model mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmbedCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	s, srv := newServer(t, 8, reply{status: 503, header: map[string]string{"Retry-After": "60"}, body: `{"error":"busy"}`})
	s.onReq = func() { time.AfterFunc(20*time.Millisecond, cancel) }
	c, err := ollama.New(ollama.Options{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client(), MaxBackoff: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Embed(ctx, []string{"x"}, embed.Document)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed error = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Embed returned after %v, want soon after cancellation", d)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestEmbedConcurrent checks that concurrent calls learn one dimension
// count and race on nothing (run with -race).
func TestEmbedConcurrent(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, 8, reply{})
	c, err := ollama.New(ollama.Options{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client(), BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := c.Embed(t.Context(), []string{fmt.Sprint("text ", i), "more"}, embed.Document); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := c.Model().Dims; got != 8 {
		t.Errorf("Model().Dims = %d, want 8", got)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    ollama.Options
		wantErr string
	}{
		{"defaults", ollama.Options{Model: "nomic-embed-text"}, ""},
		{"no model", ollama.Options{}, "no model name"},
		{"negative dims", ollama.Options{Model: "m", Dims: -1}, "negative dimensions"},
		{"negative batch", ollama.Options{Model: "m", BatchSize: -1}, "negative batch size"},
		{"relative URL", ollama.Options{Model: "m", BaseURL: "localhost:11434"}, "not an http(s) URL"},
		{"other scheme", ollama.Options{Model: "m", BaseURL: "ftp://host"}, "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ollama.New(tc.opts)
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
