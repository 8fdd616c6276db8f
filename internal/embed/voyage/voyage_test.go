package voyage_test

import (
	"cmp"
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

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/embed/voyage"
)

// request is the /embeddings body as Voyage reads it, plus the
// Authorization header; decoding with DisallowUnknownFields makes any
// extra field a test failure.
type request struct {
	Input           []string `json:"input"`
	Model           string   `json:"model"`
	InputType       *string  `json:"input_type"`
	Truncation      *bool    `json:"truncation"`
	OutputDimension *int     `json:"output_dimension"`

	Auth string `json:"-"`
}

// reply scripts one answer of the fake service; the last one repeats.
type reply struct {
	status  int
	header  map[string]string
	body    string // literal body; empty on a 200 means real embeddings
	dims    int    // dimensions of the embeddings; 0 means the request's or the server's
	reverse bool   // send data in reverse order (indexes still right)
	hang    bool   // hold the request until the client gives up
	edit    func(data []map[string]any) []map[string]any
}

// server is a fake Voyage embeddings endpoint at /v1/embeddings. A query
// text is embedded as "query: "+text, so the input type shows in the
// vectors.
type server struct {
	t       *testing.T
	dims    int
	replies []reply

	mu   sync.Mutex // guards reqs
	reqs []request
}

func newServer(t *testing.T, replies ...reply) (*server, string) {
	s := &server{t: t, dims: 8, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		s.t.Errorf("got %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
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
	rep := s.replies[min(n, len(s.replies)-1)]
	if rep.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.status != 0 || rep.body != "" {
		w.WriteHeader(cmp.Or(rep.status, http.StatusOK))
		fmt.Fprint(w, rep.body)
		return
	}
	dims := s.dims
	if req.OutputDimension != nil {
		dims = *req.OutputDimension
	}
	dims = cmp.Or(rep.dims, dims)
	kind := embed.Document
	if req.InputType != nil && *req.InputType == "query" {
		kind = embed.Query
	}
	vecs := serverVectors(s.t, dims, req.Input, kind)
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "embedding": v, "index": i}
	}
	if rep.reverse {
		slices.Reverse(data)
	}
	if rep.edit != nil {
		data = rep.edit(data)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"total_tokens": 3 * len(req.Input)},
	})
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// serverVectors is what the fake answers: embedtest vectors of the texts
// (prefixed "query: " for queries) scaled by 2, so normalisation shows.
func serverVectors(t *testing.T, dims int, inputs []string, kind embed.InputKind) [][]float32 {
	texts := embed.Prefixes{Query: "query: "}.Apply(inputs, kind)
	vecs, err := embedtest.New(dims).Embed(t.Context(), texts, embed.Document)
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

// unit is serverVectors normalised, as the client must return them.
func unit(t *testing.T, dims int, inputs []string, kind embed.InputKind) [][]float32 {
	vecs := serverVectors(t, dims, inputs, kind)
	for _, v := range vecs {
		embed.Normalize(v)
	}
	return vecs
}

const key = "pa-test-123"

func TestEmbed(t *testing.T) {
	t.Parallel()
	texts := []string{"func main()", "type Server struct", "parse config", "open file", "close file"}
	doc, query := "document", "query"
	req := func(inputType *string, inputs ...string) request {
		return request{Input: inputs, Model: voyage.DefaultModel, InputType: inputType, Truncation: new(true), Auth: "Bearer " + key}
	}
	eight := 8
	withDims := func(r request) request { r.OutputDimension = &eight; return r }
	many := make([]string, 130)
	for i := range many {
		many[i] = fmt.Sprintf("text %d", i)
	}
	tests := []struct {
		name     string
		opts     voyage.Options // BaseURL, HTTPClient, APIKey and backoff are filled in
		kind     embed.InputKind
		texts    []string
		replies  []reply
		want     [][]float32 // nil: an error is expected
		wantReqs []request
		wantErr  error  // matched with errors.Is
		wantText string // substring of the error
		wantDims int    // Model().Dims after the call
	}{
		{
			name:     "documents",
			texts:    texts,
			replies:  []reply{{}},
			want:     unit(t, 8, texts, embed.Document),
			wantReqs: []request{req(&doc, texts...)},
			wantDims: 8,
		},
		{
			name:     "queries",
			kind:     embed.Query,
			texts:    texts[:1],
			replies:  []reply{{}},
			want:     unit(t, 8, texts[:1], embed.Query),
			wantReqs: []request{req(&query, texts[0])},
			wantDims: 8,
		},
		{
			name:     "batches keep order",
			opts:     voyage.Options{BatchSize: 2},
			texts:    texts,
			replies:  []reply{{}},
			want:     unit(t, 8, texts, embed.Document),
			wantReqs: []request{req(&doc, texts[0], texts[1]), req(&doc, texts[2], texts[3]), req(&doc, texts[4])},
			wantDims: 8,
		},
		{
			name:     "batch size held to 128",
			opts:     voyage.Options{BatchSize: 1000},
			texts:    many,
			replies:  []reply{{}},
			want:     unit(t, 8, many, embed.Document),
			wantReqs: []request{req(&doc, many[:128]...), req(&doc, many[128:]...)},
			wantDims: 8,
		},
		{
			name:     "batches bounded by bytes; a long text goes alone",
			opts:     voyage.Options{MaxBatchBytes: 25},
			texts:    []string{"0123456789", "0123456789", "0123456789", strings.Repeat("x", 40), "y"},
			replies:  []reply{{}},
			want:     unit(t, 8, []string{"0123456789", "0123456789", "0123456789", strings.Repeat("x", 40), "y"}, embed.Document),
			wantReqs: []request{req(&doc, "0123456789", "0123456789"), req(&doc, "0123456789"), req(&doc, strings.Repeat("x", 40)), req(&doc, "y")},
			wantDims: 8,
		},
		{
			name:     "out of order data is put back by index",
			texts:    texts,
			replies:  []reply{{reverse: true}},
			want:     unit(t, 8, texts, embed.Document),
			wantReqs: []request{req(&doc, texts...)},
			wantDims: 8,
		},
		{
			name:     "output_dimension sent with SendDims",
			opts:     voyage.Options{Dims: 8, SendDims: true},
			texts:    texts[:2],
			replies:  []reply{{}},
			want:     unit(t, 8, texts[:2], embed.Document),
			wantReqs: []request{withDims(req(&doc, texts[:2]...))},
			wantDims: 8,
		},
		{
			name:     "configured dims not met",
			opts:     voyage.Options{Dims: 16},
			texts:    texts[:2],
			replies:  []reply{{}},
			wantReqs: []request{req(&doc, texts[:2]...)},
			wantErr:  embed.ErrDimension,
			wantText: "got 8, want 16",
			wantDims: 16,
		},
		{
			name:     "learned dims held in later batches",
			opts:     voyage.Options{BatchSize: 2},
			texts:    texts[:4],
			replies:  []reply{{}, {dims: 4}},
			wantReqs: []request{req(&doc, texts[0], texts[1]), req(&doc, texts[2], texts[3])},
			wantErr:  embed.ErrDimension,
			wantText: "embedding texts 2-3 with voyage-code-3",
			wantDims: 8,
		},
		{
			name:     "429 with Retry-After then success",
			texts:    texts[:1],
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"detail":"You have exceeded the rate limit"}`}, {}},
			want:     unit(t, 8, texts[:1], embed.Document),
			wantReqs: []request{req(&doc, texts[0]), req(&doc, texts[0])},
			wantDims: 8,
		},
		{
			name:     "429 past the retries",
			opts:     voyage.Options{MaxRetries: 1},
			texts:    texts[:1],
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"detail":"You have exceeded the rate limit"}`}},
			wantReqs: []request{req(&doc, texts[0]), req(&doc, texts[0])},
			wantErr:  embed.ErrRateLimited,
			wantText: "You have exceeded the rate limit",
		},
		{
			name:     "5xx then success",
			texts:    texts[:1],
			replies:  []reply{{status: 502, body: "<html>bad gateway</html>"}, {}},
			want:     unit(t, 8, texts[:1], embed.Document),
			wantReqs: []request{req(&doc, texts[0]), req(&doc, texts[0])},
			wantDims: 8,
		},
		{
			name:     "4xx message surfaced, not retried",
			texts:    texts[:1],
			replies:  []reply{{status: 400, body: `{"detail":"Request to model 'voyage-code-3' failed. The max allowed tokens per submitted batch is 120000."}`}},
			wantReqs: []request{req(&doc, texts[0])},
			wantText: "HTTP 400 Bad Request: Request to model 'voyage-code-3' failed. The max allowed tokens per submitted batch is 120000.",
		},
		{
			name:     "401 surfaced",
			texts:    texts[:1],
			replies:  []reply{{status: 401, body: `{"detail":"Provided API key is invalid."}`}},
			wantReqs: []request{req(&doc, texts[0])},
			wantText: "HTTP 401 Unauthorized: Provided API key is invalid.",
		},
		{
			name:     "slow server past the timeout",
			opts:     voyage.Options{Timeout: 50 * time.Millisecond},
			texts:    texts[:1],
			replies:  []reply{{hang: true}},
			wantReqs: []request{req(&doc, texts[0])},
			wantText: "sending request",
		},
		{
			name:     "malformed JSON",
			texts:    texts[:1],
			replies:  []reply{{body: `{"data": [{"embedding": [0.1,`}},
			wantReqs: []request{req(&doc, texts[0])},
			wantText: "decoding response",
		},
		{
			name:     "fewer embeddings than inputs",
			texts:    texts[:2],
			replies:  []reply{{edit: func(d []map[string]any) []map[string]any { return d[:1] }}},
			wantReqs: []request{req(&doc, texts[:2]...)},
			wantText: "1 embeddings for 2 inputs",
		},
		{
			name:     "index out of range",
			texts:    texts[:2],
			replies:  []reply{{edit: func(d []map[string]any) []map[string]any { d[1]["index"] = 2; return d }}},
			wantReqs: []request{req(&doc, texts[:2]...)},
			wantText: "index 2 out of range",
		},
		{
			name:     "index repeated",
			texts:    texts[:2],
			replies:  []reply{{edit: func(d []map[string]any) []map[string]any { d[1]["index"] = 0; return d }}},
			wantReqs: []request{req(&doc, texts[:2]...)},
			wantText: "index 0 repeated",
		},
		{
			name:     "index missing",
			texts:    texts[:2],
			replies:  []reply{{edit: func(d []map[string]any) []map[string]any { delete(d[0], "index"); return d }}},
			wantReqs: []request{req(&doc, texts[:2]...)},
			wantText: "no index",
		},
		{
			name:     "empty vector",
			texts:    texts[:1],
			replies:  []reply{{edit: func(d []map[string]any) []map[string]any { d[0]["embedding"] = []float32{}; return d }}},
			wantReqs: []request{req(&doc, texts[0])},
			wantErr:  embed.ErrDimension,
		},
		{
			name:    "no texts, no request",
			texts:   nil,
			replies: []reply{{}},
			want:    [][]float32{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, url := newServer(t, tt.replies...)
			opts := tt.opts
			opts.BaseURL = url
			opts.APIKey = key
			opts.Backoff = time.Millisecond
			opts.MaxBackoff = 5 * time.Millisecond
			c, err := voyage.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got, err := c.Embed(t.Context(), tt.texts, tt.kind)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Embed took %s", d)
			}
			if diff := gocmp.Diff(tt.wantReqs, s.requests(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if c.Model().Dims != tt.wantDims {
				t.Errorf("Model().Dims = %d, want %d", c.Model().Dims, tt.wantDims)
			}
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Embed: no error, got %d vectors", len(got))
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v does not match %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %q does not contain %q", err, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			var tokens int64
			for _, r := range s.requests() {
				if r.Auth != "Bearer "+key || r.Model != voyage.DefaultModel {
					t.Errorf("request auth %q model %q", r.Auth, r.Model)
				}
				tokens += 3 * int64(len(r.Input))
			}
			if tt.name != "429 with Retry-After then success" && tt.name != "5xx then success" && c.Tokens() != tokens {
				t.Errorf("Tokens() = %d, want %d", c.Tokens(), tokens)
			}
		})
	}
}

func TestQueryAndDocumentDiffer(t *testing.T) {
	t.Parallel()
	_, url := newServer(t, reply{})
	c, err := voyage.New(voyage.Options{BaseURL: url, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.Embed(t.Context(), []string{"open file"}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Embed(t.Context(), []string{"open file"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if gocmp.Equal(q, d) {
		t.Error("a query and a document of the same text got the same vector")
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     voyage.Options
		wantErr  string
		wantName string
		wantDims int
	}{
		{name: "defaults", wantName: "voyage-code-3"},
		{name: "model and dims", opts: voyage.Options{Model: "voyage-3.5-lite", Dims: 512}, wantName: "voyage-3.5-lite", wantDims: 512},
		{name: "SendDims without Dims", opts: voyage.Options{SendDims: true}, wantErr: "SendDims needs Dims"},
		{name: "negative dims", opts: voyage.Options{Dims: -1}, wantErr: "negative"},
		{name: "negative batch", opts: voyage.Options{BatchSize: -1}, wantErr: "negative"},
		{name: "URL without scheme", opts: voyage.Options{BaseURL: "api.voyageai.com/v1"}, wantErr: "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := voyage.New(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := embed.Model{Provider: "voyage", Name: tt.wantName, Dims: tt.wantDims}
			if c.Model() != want {
				t.Errorf("Model() = %v, want %v", c.Model(), want)
			}
		})
	}
}

func TestAssumeDims(t *testing.T) {
	t.Parallel()
	s, url := newServer(t, reply{dims: 4})
	c, err := voyage.New(voyage.Options{BaseURL: url, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	c.AssumeDims(8)
	if c.Model().Dims != 8 {
		t.Fatalf("Model().Dims = %d after AssumeDims(8)", c.Model().Dims)
	}
	if _, err := c.Embed(t.Context(), []string{"a"}, embed.Document); !errors.Is(err, embed.ErrDimension) {
		t.Errorf("error = %v, want ErrDimension", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
