package tei_test

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

	"github.com/ctx-dev/ctx/internal/rerank"
	"github.com/ctx-dev/ctx/internal/rerank/tei"
)

// request is TEI's /rerank body; decoding with DisallowUnknownFields makes
// any extra field a test failure.
type request struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

// reply scripts one answer of the fake server; the last one repeats.
type reply struct {
	status int
	header map[string]string
	body   string // literal body; empty on a 200 means a real answer
	hang   bool
	edit   func(ranks []map[string]any) []map[string]any
}

// server is a fake TEI: it scores a text by its length in bytes / 100,
// answers sorted by score as TEI does, and refuses more than 32 texts as
// TEI's default --max-client-batch-size does.
type server struct {
	t       *testing.T
	replies []reply

	mu   sync.Mutex // guards reqs, auth
	reqs []request
	auth []string
}

func newServer(t *testing.T, replies ...reply) (*server, string) {
	s := &server{t: t, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/rerank" {
		s.t.Errorf("got %s %s, want POST /rerank", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req request
	if err := dec.Decode(&req); err != nil {
		s.t.Errorf("decoding request: %v", err)
		w.WriteHeader(http.StatusUnprocessableEntity)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
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
	if len(req.Texts) > 32 {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		fmt.Fprintf(w, `{"error":"batch size %d > maximum allowed batch size 32","error_type":"Validation"}`, len(req.Texts))
		return
	}
	ranks := make([]map[string]any, len(req.Texts))
	for i, text := range req.Texts {
		ranks[i] = map[string]any{"index": i, "score": score(text)}
	}
	slices.SortStableFunc(ranks, func(a, b map[string]any) int {
		return cmp.Compare(b["score"].(float64), a["score"].(float64))
	})
	if rep.edit != nil {
		ranks = rep.edit(ranks)
	}
	json.NewEncoder(w).Encode(ranks)
}

func score(text string) float64 { return float64(len(text)) / 100 }

func (s *server) requests() ([]request, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs), slices.Clone(s.auth)
}

func newClient(t *testing.T, url string, o rerank.Options) rerank.Reranker {
	t.Helper()
	o.URL = url
	o.APIKey = "tei-key"
	o.Backoff = cmp.Or(o.Backoff, time.Millisecond)
	o.MaxBackoff = cmp.Or(o.MaxBackoff, 5*time.Millisecond)
	r, err := rerank.New("tei", o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// docsOfLengths returns documents of the given lengths, so their scores
// and order are known.
func docsOfLengths(lengths ...int) []string {
	docs := make([]string, len(lengths))
	for i, n := range lengths {
		docs[i] = strings.Repeat("x", n)
	}
	return docs
}

func TestRerank(t *testing.T) {
	t.Parallel()
	const query = "open a database connection"
	docs := docsOfLengths(5, 40, 5, 12)
	// 70 documents of lengths 70, 69, ..., 1: three batches; the order is
	// by index since longer is earlier.
	many := make([]int, 70)
	for i := range many {
		many[i] = 70 - i
	}
	var manyOrder []int
	for i := range 70 {
		manyOrder = append(manyOrder, i)
	}
	tests := []struct {
		name      string
		opts      rerank.Options
		docs      []string
		replies   []reply
		wantOrder []int
		wantReqs  int
		wantSent  [][]string // texts of each request, in any order; nil means [docs]
		wantErr   error
		wantText  string
		wantUsage rerank.Usage
	}{
		{name: "happy path, ties by index", docs: docs, replies: []reply{{}}, wantOrder: []int{1, 3, 0, 2}, wantReqs: 1, wantUsage: rerank.Usage{Requests: 1}},
		{
			name:      "answer order is not trusted",
			docs:      docs,
			replies:   []reply{{edit: func(r []map[string]any) []map[string]any { slices.Reverse(r); return r }}},
			wantOrder: []int{1, 3, 0, 2},
			wantReqs:  1,
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:      "batches of 32",
			docs:      docsOfLengths(many...),
			replies:   []reply{{}},
			wantOrder: manyOrder,
			wantReqs:  3,
			wantSent:  [][]string{docsOfLengths(many[:32]...), docsOfLengths(many[32:64]...), docsOfLengths(many[64:]...)},
			wantUsage: rerank.Usage{Requests: 3},
		},
		{
			name:      "long documents cut at a rune boundary",
			opts:      rerank.Options{MaxDocBytes: 4},
			docs:      []string{"ab€", "abcdefgh", "a"},
			replies:   []reply{{}},
			wantOrder: []int{1, 0, 2},
			wantReqs:  1,
			wantSent:  [][]string{{"ab", "abcd", "a"}},
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:      "429 with Retry-After then success",
			docs:      docs,
			replies:   []reply{{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":"Model is overloaded","error_type":"Overloaded"}`}, {}},
			wantOrder: []int{1, 3, 0, 2},
			wantReqs:  2,
			wantSent:  [][]string{docs, docs},
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:     "429 past the retries",
			opts:     rerank.Options{MaxRetries: -1},
			docs:     docs,
			replies:  []reply{{status: 429, body: `{"error":"Model is overloaded","error_type":"Overloaded"}`}},
			wantReqs: 1,
			wantErr:  rerank.ErrRateLimited,
			wantText: "Model is overloaded (Overloaded)",
		},
		{
			name:      "5xx then success",
			docs:      docs,
			replies:   []reply{{status: 500, body: `{"error":"CUDA out of memory","error_type":"Backend"}`}, {}},
			wantOrder: []int{1, 3, 0, 2},
			wantReqs:  2,
			wantSent:  [][]string{docs, docs},
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:     "4xx message surfaced, not retried",
			docs:     docs,
			replies:  []reply{{status: 422, body: `{"error":"Input validation error: texts cannot be empty","error_type":"Validation"}`}},
			wantReqs: 1,
			wantText: "HTTP 422 Unprocessable Entity: Input validation error: texts cannot be empty (Validation)",
		},
		{
			name:     "slow server past the timeout",
			opts:     rerank.Options{Timeout: 50 * time.Millisecond},
			docs:     docs,
			replies:  []reply{{hang: true}},
			wantReqs: 1,
			wantText: "sending request",
		},
		{name: "malformed JSON", docs: docs, replies: []reply{{body: `[{"index":0,"score":`}}, wantReqs: 1, wantText: "decoding response", wantUsage: rerank.Usage{}},
		{name: "not a list", docs: docs, replies: []reply{{body: `{"index":0,"score":1}`}}, wantReqs: 1, wantText: "decoding response"},
		{
			name:      "index out of range",
			docs:      docs,
			replies:   []reply{{edit: func(r []map[string]any) []map[string]any { r[0]["index"] = 4; return r }}},
			wantReqs:  1,
			wantText:  "index 4 out of range",
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:      "index repeated",
			docs:      docs,
			replies:   []reply{{edit: func(r []map[string]any) []map[string]any { r[0]["index"] = r[1]["index"]; return r }}},
			wantReqs:  1,
			wantText:  "repeated",
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:      "fewer scores than texts",
			docs:      docs,
			replies:   []reply{{edit: func(r []map[string]any) []map[string]any { return r[:3] }}},
			wantReqs:  1,
			wantText:  "3 scores for 4 texts",
			wantUsage: rerank.Usage{Requests: 1},
		},
		{
			name:      "score missing",
			docs:      docs,
			replies:   []reply{{edit: func(r []map[string]any) []map[string]any { delete(r[2], "score"); return r }}},
			wantReqs:  1,
			wantText:  "no index or score",
			wantUsage: rerank.Usage{Requests: 1},
		},
		{name: "no documents, no request", docs: nil, replies: []reply{{}}, wantOrder: []int{}, wantReqs: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, url := newServer(t, tt.replies...)
			r := newClient(t, url, tt.opts)
			start := time.Now()
			got, usage, err := r.Rerank(t.Context(), query, tt.docs)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Rerank took %s", d)
			}
			reqs, auth := s.requests()
			if len(reqs) != tt.wantReqs {
				t.Errorf("server saw %d requests, want %d", len(reqs), tt.wantReqs)
			}
			for i, a := range auth {
				if a != "Bearer tei-key" {
					t.Errorf("request %d Authorization = %q", i, a)
				}
			}
			wantSent := tt.wantSent
			if wantSent == nil && tt.wantReqs > 0 {
				wantSent = [][]string{tt.docs}
			}
			var sent [][]string
			for _, req := range reqs {
				if req.Query != query || !req.Truncate {
					t.Errorf("request query %q truncate %v, want %q true", req.Query, req.Truncate, query)
				}
				sent = append(sent, req.Texts)
			}
			// Batches go concurrently: compare them in a fixed order.
			byFirst := func(a, b []string) int { return cmp.Compare(len(b[0]), len(a[0])) }
			slices.SortStableFunc(sent, byFirst)
			slices.SortStableFunc(wantSent, byFirst)
			if diff := gocmp.Diff(wantSent, sent); diff != "" {
				t.Errorf("texts sent (-want +got):\n%s", diff)
			}
			if usage != tt.wantUsage {
				t.Errorf("usage = %+v, want %+v", usage, tt.wantUsage)
			}
			if tt.wantErr != nil || tt.wantText != "" {
				if err == nil {
					t.Fatalf("Rerank: no error, got %v", got)
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
			order := make([]int, len(got))
			for i, res := range got {
				order[i] = res.Index
				if want := score(rerank.Truncate(tt.docs[res.Index], cmp.Or(tt.opts.MaxDocBytes, rerank.DefaultMaxDocBytes))); res.Score != want {
					t.Errorf("document %d score %v, want %v", res.Index, res.Score, want)
				}
			}
			if diff := gocmp.Diff(tt.wantOrder, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := tei.New(rerank.Options{}); err == nil {
		t.Error("New without a URL: no error")
	}
	if _, err := rerank.New("tei", rerank.Options{URL: "localhost:8080"}); err == nil {
		t.Error("New with a URL without scheme: no error")
	}
	c, err := tei.New(rerank.Options{URL: "http://127.0.0.1:8080/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model() != "tei" {
		t.Errorf("Model() = %q, want tei", c.Model())
	}
	c, err = tei.New(rerank.Options{URL: "http://127.0.0.1:8080", Model: "BAAI/bge-reranker-base"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model() != "BAAI/bge-reranker-base" {
		t.Errorf("Model() = %q", c.Model())
	}
}

func TestBatchFailure(t *testing.T) {
	t.Parallel()
	// The second batch fails for good; the first one's request is still
	// counted, as TEI served it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.Texts) < 32 {
			// Fail after the first batch has surely been answered, so
			// that the failure does not cancel it.
			time.Sleep(200 * time.Millisecond)
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"tokenizer failed","error_type":"Tokenizer"}`)
			return
		}
		ranks := make([]map[string]any, len(req.Texts))
		for i := range ranks {
			ranks[i] = map[string]any{"index": i, "score": 0.5}
		}
		json.NewEncoder(w).Encode(ranks)
	}))
	t.Cleanup(srv.Close)
	r := newClient(t, srv.URL, rerank.Options{})
	_, usage, err := r.Rerank(t.Context(), "q", docsOfLengths(make([]int, 40)...))
	if err == nil || !strings.Contains(err.Error(), "documents 32-39") || !strings.Contains(err.Error(), "tokenizer failed (Tokenizer)") {
		t.Errorf("error = %v", err)
	}
	if usage.Requests != 1 {
		t.Errorf("usage.Requests = %d, want 1", usage.Requests)
	}
}
