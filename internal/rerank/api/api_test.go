package api_test

import (
	"cmp"
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

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/rerank"
	"github.com/ctx-dev/ctx/internal/rerank/api"
)

const key = "test-key-123"

// reply scripts one answer of the fake service; the last one repeats.
type reply struct {
	status int               // 0 means 200
	header map[string]string // extra response headers
	body   string            // literal body; empty on a 200 means a real answer
	hang   bool              // hold the request until the client gives up
	// edit changes a real answer's items (index, relevance_score) before
	// it is sent.
	edit func(items []map[string]any) []map[string]any
}

// server is a fake Cohere, Jina or Voyage /rerank endpoint under /base. It
// scores a document by its length in bytes / 1000 (so longer is more
// relevant) and answers in score order, as the services do.
type server struct {
	t        *testing.T
	provider string
	replies  []reply

	mu   sync.Mutex // guards reqs, auth
	reqs []map[string]any
	auth []string
}

func newServer(t *testing.T, provider string, replies ...reply) (*server, string) {
	s := &server{t: t, provider: provider, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/base"
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/base/rerank" {
		s.t.Errorf("got %s %s, want POST /base/rerank", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.t.Errorf("decoding request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
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
	docs, _ := req["documents"].([]any)
	items := make([]map[string]any, len(docs))
	for i, d := range docs {
		items[i] = map[string]any{"index": i, "relevance_score": float64(len(d.(string))) / 1000}
	}
	slices.SortStableFunc(items, func(a, b map[string]any) int {
		return cmp.Compare(b["relevance_score"].(float64), a["relevance_score"].(float64))
	})
	if rep.edit != nil {
		items = rep.edit(items)
	}
	var body map[string]any
	switch s.provider {
	case "cohere":
		body = map[string]any{"id": "req-1", "results": items,
			"meta": map[string]any{"api_version": map[string]any{"version": "2"}, "billed_units": map[string]any{"search_units": 1}}}
	case "jina":
		body = map[string]any{"model": req["model"], "results": items, "usage": map[string]any{"total_tokens": 10 * len(docs)}}
	case "voyage":
		body = map[string]any{"object": "list", "data": items, "model": req["model"], "usage": map[string]any{"total_tokens": 10 * len(docs)}}
	}
	json.NewEncoder(w).Encode(body)
}

func (s *server) requests() ([]map[string]any, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs), slices.Clone(s.auth)
}

// wantRequest is the body each service documents for docs.
func wantRequest(provider, model, query string, docs []string) map[string]any {
	ds := make([]any, len(docs))
	for i, d := range docs {
		ds[i] = d
	}
	m := map[string]any{"model": model, "query": query, "documents": ds}
	n := float64(len(docs))
	switch provider {
	case "cohere":
		m["top_n"] = n
	case "jina":
		m["top_n"] = n
		m["return_documents"] = false
	case "voyage":
		m["top_k"] = n
		m["return_documents"] = false
		m["truncation"] = true
	}
	return m
}

// errorBody is each service's error body for msg.
func errorBody(provider, msg string) string {
	if provider == "cohere" {
		return fmt.Sprintf(`{"id":"e1","message":%q}`, msg)
	}
	return fmt.Sprintf(`{"detail":%q}`, msg)
}

var providers = []struct {
	name, model string
	usage       rerank.Usage // for the three docs of TestRerank's happy path
}{
	{"cohere", "rerank-v3.5", rerank.Usage{SearchUnits: 1, Requests: 1}},
	{"jina", "jina-reranker-v2-base-multilingual", rerank.Usage{Tokens: 30, Requests: 1}},
	{"voyage", "rerank-2", rerank.Usage{Tokens: 30, Requests: 1}},
}

func newClient(t *testing.T, provider, url string, o rerank.Options) rerank.Reranker {
	t.Helper()
	o.URL = url
	o.APIKey = key
	o.Backoff = cmp.Or(o.Backoff, time.Millisecond)
	o.MaxBackoff = cmp.Or(o.MaxBackoff, 5*time.Millisecond)
	r, err := rerank.New(provider, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRerank(t *testing.T) {
	t.Parallel()
	const query = "where is the HTTP server started"
	docs := []string{"func a()", "func ListenAndServe(addr string) error", "type Server", "x"}
	// By length: 1 (37), 2 (11), 0 (8), 3 (1).
	wantOrder := []int{1, 2, 0, 3}
	tests := []struct {
		name      string
		opts      rerank.Options
		docs      []string
		replies   []reply
		wantOrder []int
		wantReqs  int      // requests the server sees
		wantSent  []string // documents sent; nil means docs
		wantErr   error    // matched with errors.Is
		wantText  string   // substring of the error
		missing   []int    // indices expected with MissingScore
	}{
		{name: "happy path", docs: docs, replies: []reply{{}}, wantOrder: wantOrder, wantReqs: 1},
		{
			name:      "answer order is not trusted",
			docs:      docs,
			replies:   []reply{{edit: func(it []map[string]any) []map[string]any { slices.Reverse(it); return it }}},
			wantOrder: wantOrder,
			wantReqs:  1,
		},
		{
			name:      "long documents cut at a rune boundary",
			opts:      rerank.Options{MaxDocBytes: 9},
			docs:      []string{"abcdefgh€€", "short", strings.Repeat("z", 100)},
			replies:   []reply{{}},
			wantSent:  []string{"abcdefgh", "short", "zzzzzzzzz"},
			wantOrder: []int{2, 0, 1},
			wantReqs:  1,
		},
		{
			name:      "429 with Retry-After then success",
			docs:      docs,
			replies:   []reply{{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"detail":"slow down"}`}, {}},
			wantOrder: wantOrder,
			wantReqs:  2,
		},
		{
			name:     "429 past the retries",
			opts:     rerank.Options{MaxRetries: 1},
			docs:     docs,
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"message":"too many requests"}`}},
			wantReqs: 2,
			wantErr:  rerank.ErrRateLimited,
			wantText: "too many requests",
		},
		{
			name:      "5xx then success",
			docs:      docs,
			replies:   []reply{{status: 503, body: "upstream unavailable"}, {status: 500, body: "{}"}, {}},
			wantOrder: wantOrder,
			wantReqs:  3,
		},
		{
			name:     "4xx message surfaced, not retried",
			docs:     docs,
			replies:  []reply{{status: 400}}, // body set per provider below
			wantReqs: 1,
			wantText: "HTTP 400 Bad Request: model not found",
		},
		{
			name:     "slow server past the timeout",
			opts:     rerank.Options{Timeout: 50 * time.Millisecond},
			docs:     docs,
			replies:  []reply{{hang: true}},
			wantReqs: 1,
			wantText: "sending request",
		},
		{name: "malformed JSON", docs: docs, replies: []reply{{body: `{"results": [{"index": 0,`}}, wantReqs: 1, wantText: "decoding response"},
		{
			name: "index out of range",
			docs: docs,
			replies: []reply{{edit: func(it []map[string]any) []map[string]any {
				it[0]["index"] = 4
				return it
			}}},
			wantReqs: 1,
			wantText: "index 4 out of range",
		},
		{
			name: "index repeated",
			docs: docs,
			replies: []reply{{edit: func(it []map[string]any) []map[string]any {
				it[1]["index"] = it[0]["index"]
				return it
			}}},
			wantReqs: 1,
			wantText: "repeated",
		},
		{
			name: "score missing",
			docs: docs,
			replies: []reply{{edit: func(it []map[string]any) []map[string]any {
				delete(it[0], "relevance_score")
				return it
			}}},
			wantReqs: 1,
			wantText: "no index or relevance_score",
		},
		{
			name:     "no results",
			docs:     docs,
			replies:  []reply{{edit: func([]map[string]any) []map[string]any { return nil }}},
			wantReqs: 1,
			wantText: "no results",
		},
		{
			name:      "missing results come last in original order",
			docs:      docs,
			replies:   []reply{{edit: func(it []map[string]any) []map[string]any { return it[:1] }}},
			wantOrder: []int{1, 0, 2, 3},
			missing:   []int{0, 2, 3},
			wantReqs:  1,
		},
		{name: "no documents, no request", docs: nil, replies: []reply{{}}, wantOrder: []int{}, wantReqs: 0},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				replies := slices.Clone(tt.replies)
				if tt.name == "4xx message surfaced, not retried" {
					replies[0].body = errorBody(p.name, "model not found")
				}
				s, url := newServer(t, p.name, replies...)
				r := newClient(t, p.name, url, tt.opts)
				if r.Model() != p.model {
					t.Errorf("Model() = %q, want the default %q", r.Model(), p.model)
				}
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
					if a != "Bearer "+key {
						t.Errorf("request %d Authorization = %q", i, a)
					}
				}
				if len(reqs) > 0 {
					sent := tt.wantSent
					if sent == nil {
						sent = tt.docs
					}
					if diff := gocmp.Diff(wantRequest(p.name, p.model, query, sent), reqs[0]); diff != "" {
						t.Errorf("request body (-want +got):\n%s", diff)
					}
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
				sent := tt.wantSent
				if sent == nil {
					sent = tt.docs
				}
				order := make([]int, len(got))
				for i, res := range got {
					order[i] = res.Index
					missing := slices.Contains(tt.missing, res.Index)
					if (res.Score == rerank.MissingScore) != missing {
						t.Errorf("result %d score %v, missing %v", res.Index, res.Score, missing)
					}
					if !missing {
						if want := float64(len(sent[res.Index])) / 1000; res.Score != want {
							t.Errorf("result %d score %v, want %v", res.Index, res.Score, want)
						}
					}
				}
				if diff := gocmp.Diff(tt.wantOrder, order); diff != "" {
					t.Errorf("order (-want +got):\n%s", diff)
				}
				if tt.wantReqs == 0 {
					if usage != (rerank.Usage{}) {
						t.Errorf("usage %+v without a request", usage)
					}
					return
				}
				if tt.name == "happy path" || tt.name == "answer order is not trusted" {
					want := p.usage
					if want.Tokens > 0 {
						want.Tokens = 10 * len(tt.docs)
					}
					if usage != want {
						t.Errorf("usage = %+v, want %+v", usage, want)
					}
				} else if usage.Requests != 1 {
					t.Errorf("usage.Requests = %d, want 1", usage.Requests)
				}
			})
		}
	}
}

func TestRerankCanceled(t *testing.T) {
	t.Parallel()
	_, url := newServer(t, "voyage", reply{status: 503, header: map[string]string{"Retry-After": "30"}})
	r := newClient(t, "voyage", url, rerank.Options{MaxBackoff: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, _, err := r.Rerank(ctx, "q", []string{"a"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	s, url := newServer(t, "cohere", reply{})
	r := newClient(t, "cohere", url, rerank.Options{Model: "rerank-english-v3.0"})
	if r.Model() != "rerank-english-v3.0" {
		t.Errorf("Model() = %q", r.Model())
	}
	if _, _, err := r.Rerank(t.Context(), "q", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	reqs, _ := s.requests()
	if reqs[0]["model"] != "rerank-english-v3.0" {
		t.Errorf("model sent = %v", reqs[0]["model"])
	}

	if _, err := rerank.New("jina", rerank.Options{URL: "api.jina.ai/v1"}); err == nil {
		t.Error("New with a URL without scheme: no error")
	}
	if _, err := api.New("mixedbread", rerank.Options{}); err == nil {
		t.Error("api.New(unknown provider): no error")
	}
	noKey, err := api.New("jina", rerank.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	// A Jina answer to a Cohere-shaped fake still has "results".
	if _, _, err := noKey.Rerank(t.Context(), "q", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, auth := s.requests(); auth[1] != "" {
		t.Errorf("Authorization without a key = %q, want none", auth[1])
	}
}
