package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/cite"
	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/rerank"
	"github.com/ctx-dev/ctx/internal/spend"
)

// fakeLLM answers with reply(req) and records every request.
type fakeLLM struct {
	mu    sync.Mutex
	reqs  []llm.Request
	reply func(llm.Request) string
	model string
}

func (f *fakeLLM) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	text := f.reply(req)
	if req.Stream != nil {
		for _, w := range strings.SplitAfter(text, " ") {
			req.Stream(w)
		}
	}
	return llm.Response{Text: text, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50}, Model: f.Model()}, nil
}

func (f *fakeLLM) Model() string {
	if f.model != "" {
		return f.model
	}
	return "fake-model"
}

func (f *fakeLLM) calls() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// fakeReranker scores docs by score(doc); with block set it waits for the
// context to end.
type fakeReranker struct {
	score func(doc string) float64
	block bool
	n     int
}

func (f *fakeReranker) Rerank(ctx context.Context, query string, docs []string) ([]rerank.Result, rerank.Usage, error) {
	f.n++
	if f.block {
		<-ctx.Done()
		return nil, rerank.Usage{}, ctx.Err()
	}
	out := make([]rerank.Result, len(docs))
	for i, d := range docs {
		out[i] = rerank.Result{Index: i, Score: f.score(d)}
	}
	slices.SortStableFunc(out, func(a, b rerank.Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out, rerank.Usage{Requests: 1}, nil
}

func (f *fakeReranker) Model() string { return "fake-rerank" }

// llmConfig is testConfig with a remote LLM configured (its client is the
// fake passed to Open).
func llmConfig(t *testing.T) config.Config {
	cfg := testConfig(t)
	cfg.LLM = config.LLM{Provider: "openai", Model: "fake-model", MaxTokens: 512, Timeout: time.Second}
	cfg.Rerank = config.Rerank{TopN: 50, Timeout: 200 * time.Millisecond}
	return cfg
}

func openModels(t *testing.T, cfg config.Config, root string, l llm.Client, r rerank.Reranker) *engine.Engine {
	t.Helper()
	e, err := engine.Open(cfg, root, &engine.Options{LLM: l, Reranker: r})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAnswerCitations: the answer keeps the citation of code it was shown
// and removes, and counts, the one it invented.
func TestAnswerCitations(t *testing.T) {
	t.Parallel()
	root := repo(t)
	f := &fakeLLM{reply: func(req llm.Request) string {
		return "ParseConfig reads the file (config/config.go:L10-L14) and checks a token in auth/token.go:L3-L9."
	}}
	e := openModels(t, llmConfig(t), root, f, nil)
	index(t, e, engine.IndexOptions{})
	var streamed strings.Builder
	resp, err := e.Answer(t.Context(), engine.AnswerRequest{Question: "how is the configuration file parsed", Stream: func(s string) { streamed.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Citations) != 1 || resp.Citations[0] != (cite.Citation{Path: "config/config.go", StartLine: 10, EndLine: 14, Text: resp.Citations[0].Text}) {
		t.Errorf("citations = %+v, want config/config.go:L10-L14 only", resp.Citations)
	}
	if resp.DroppedCitations != 1 || strings.Contains(resp.Answer, "auth/token.go") || !strings.Contains(resp.Answer, cite.Removed) {
		t.Errorf("dropped %d, answer %q: want the invented citation removed and counted", resp.DroppedCitations, resp.Answer)
	}
	if !slices.ContainsFunc(resp.Context, func(s cite.Span) bool { return s.Path == "config/config.go" }) {
		t.Errorf("context %+v lacks config/config.go", resp.Context)
	}
	calls := f.calls()
	if len(calls) != 1 || !strings.Contains(calls[0].Messages[0].Content, "### config/config.go:L") || !strings.Contains(calls[0].Messages[0].Content, "how is the configuration file parsed") {
		t.Fatalf("the model was not shown the packed code and the question: %+v", calls)
	}
	if streamed.String() == "" {
		t.Error("the stream callback got nothing")
	}
	if u := resp.Usage; u.Requests != 1 || u.InputTokens != 1000 || u.OutputTokens != 50 || u.PackTokens == 0 || u.Model != "fake-model" {
		t.Errorf("usage = %+v", u)
	}
	// An unknown model has no price: cost 0, said so.
	if !resp.Usage.PriceUnknown || resp.CostUSD != 0 {
		t.Errorf("price unknown %v, cost %v", resp.Usage.PriceUnknown, resp.CostUSD)
	}
	if !strings.Contains(engine.Footer(len(resp.Context), resp.Usage.IndexMS, &resp.Usage.LLMUsage, nil), "ms LLM · 1,050 tokens · $0.0000 (price unknown") {
		t.Errorf("footer = %q", engine.Footer(len(resp.Context), resp.Usage.IndexMS, &resp.Usage.LLMUsage, nil))
	}
}

// TestAnswerNothingRetrieved: with no code to show, the model is not asked.
func TestAnswerNothingRetrieved(t *testing.T) {
	t.Parallel()
	f := &fakeLLM{reply: func(llm.Request) string { return "invented" }}
	e := openModels(t, llmConfig(t), repo(t), f, nil)
	index(t, e, engine.IndexOptions{})
	resp, err := e.Answer(t.Context(), engine.AnswerRequest{Question: "zzqxv wqpzz"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls()) != 0 || len(resp.Citations) != 0 || !strings.Contains(resp.Answer, "not asked") {
		t.Errorf("calls %d, answer %q", len(f.calls()), resp.Answer)
	}
}

// TestNoLLM: commands that need the LLM say how to configure one; a
// plain find is untouched.
func TestNoLLM(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil)
	index(t, e, engine.IndexOptions{})
	if _, err := e.Answer(t.Context(), engine.AnswerRequest{Question: "config"}); !errors.Is(err, engine.ErrNoLLM) || !strings.Contains(err.Error(), "CTX_LLM_PROVIDER") {
		t.Errorf("Answer without an LLM: %v", err)
	}
	if _, err := e.Find(t.Context(), engine.FindRequest{Query: "config", ExplainResults: true}); !errors.Is(err, engine.ErrNoLLM) {
		t.Errorf("Find --explain-results without an LLM: %v", err)
	}
	resp := find(t, e, engine.FindRequest{Query: "how does the client retry failed calls with exponential backoff between attempts"})
	if resp.Stats.LLM != nil || resp.Stats.SubQueries != nil || resp.Stats.Rerank != nil {
		t.Errorf("the model layer ran without configuration: %+v", resp.Stats)
	}
}

// TestSecretsMaskedBeforeRemoteLLM: even with CTX_INCLUDE_SECRETS, what a
// remote LLM receives has the secret masked.
func TestSecretsMaskedBeforeRemoteLLM(t *testing.T) {
	t.Parallel()
	root := repo(t)
	const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	writeFile(t, root, "client/token.go", "package client\n\n// deployToken authorises the deploy client.\nvar deployToken = \""+secret+"\"\n")
	cfg := llmConfig(t)
	cfg.IncludeSecrets = true
	f := &fakeLLM{reply: func(llm.Request) string { return "See client/token.go." }}
	e := openModels(t, cfg, root, f, nil)
	index(t, e, engine.IndexOptions{})
	resp, err := e.Answer(t.Context(), engine.AnswerRequest{Question: "deploy token " + secret})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range f.calls() {
		if strings.Contains(c.System+c.Messages[0].Content, secret[4:20]) {
			t.Fatal("the secret reached the remote LLM")
		}
	}
	if resp.Usage.SecretsMasked == 0 {
		t.Error("no masked secret counted")
	}
}

// TestLLMSpendCap: a request whose worst case passes the run cap is not
// sent, and the error names the setting.
func TestLLMSpendCap(t *testing.T) {
	t.Parallel()
	cfg := llmConfig(t)
	cfg.Spend = config.Spend{Prices: map[string]config.Price{"fake-model": {InPerMTok: 1000, OutPerMTok: 1000}}, LLMRun: 0.01}
	f := &fakeLLM{reply: func(llm.Request) string { return "x" }}
	e := openModels(t, cfg, repo(t), f, nil)
	index(t, e, engine.IndexOptions{})
	_, err := e.Answer(t.Context(), engine.AnswerRequest{Question: "how is the configuration file parsed"})
	if !errors.Is(err, spend.ErrCapExceeded) || !strings.Contains(err.Error(), "CTX_SPEND_LLM_RUN") {
		t.Errorf("err = %v, want the run cap named", err)
	}
	if len(f.calls()) != 0 {
		t.Errorf("%d requests sent past the cap", len(f.calls()))
	}
}

// TestDecompose: a complex question is split; each sub-query is searched
// and fused with the question's own results.
func TestDecompose(t *testing.T) {
	t.Parallel()
	f := &fakeLLM{reply: func(req llm.Request) string {
		return `{"queries": ["renderTemplate placeholders", "load_settings"]}`
	}}
	e := openModels(t, llmConfig(t), repo(t), f, nil)
	index(t, e, engine.IndexOptions{})
	q := "how does the client retry failed calls and how are the templates of the web pages filled in"
	resp := find(t, e, engine.FindRequest{Query: q, Limit: 10})
	if diff := slices.Compare(resp.Stats.SubQueries, []string{"renderTemplate placeholders", "load_settings"}); diff != 0 {
		t.Errorf("sub-queries = %q", resp.Stats.SubQueries)
	}
	paths := hitPaths(resp)
	if !slices.Contains(paths, "web/render.js") || !slices.Contains(paths, "scripts/settings.py") || !slices.Contains(paths, "client/retry.go") {
		t.Errorf("fused results %v lack a sub-query's file or the question's own", paths)
	}
	for i := 1; i < len(resp.Results); i++ {
		if resp.Results[i].Score > resp.Results[i-1].Score {
			t.Errorf("scores do not descend: %v", resp.Results)
		}
	}
	if resp.Stats.LLM == nil || resp.Stats.LLM.Requests != 1 {
		t.Errorf("llm stats = %+v", resp.Stats.LLM)
	}
	// Short questions and --decompose off make no request.
	find(t, e, engine.FindRequest{Query: "Retry"})
	find(t, e, engine.FindRequest{Query: q, Decompose: engine.DecomposeOff})
	if n := len(f.calls()); n != 1 {
		t.Errorf("%d LLM requests, want 1", n)
	}
}

// TestDecomposeFailureFallsBack: a reply with no query leaves the search
// as it was, with a note.
func TestDecomposeFailureFallsBack(t *testing.T) {
	t.Parallel()
	f := &fakeLLM{reply: func(llm.Request) string { return "" }}
	e := openModels(t, llmConfig(t), repo(t), f, nil)
	index(t, e, engine.IndexOptions{})
	resp := find(t, e, engine.FindRequest{Query: "how does the client retry failed calls with exponential backoff between attempts"})
	if resp.Stats.Steering == "" || len(resp.Results) == 0 || resp.Results[0].Path != "client/retry.go" {
		t.Errorf("steering %q, results %v", resp.Stats.Steering, hitPaths(resp))
	}
}

// TestExplainResults: each result gets the LLM's line; a second search
// reads them from the cache without a request.
func TestExplainResults(t *testing.T) {
	t.Parallel()
	f := &fakeLLM{}
	f.reply = func(req llm.Request) string {
		n := strings.Count(req.Messages[0].Content, "Excerpt ")
		lines := make([]string, n)
		for i := range lines {
			lines[i] = `"summary line"`
		}
		return `{"summaries": [` + strings.Join(lines, ",") + `]}`
	}
	e := openModels(t, llmConfig(t), repo(t), f, nil)
	index(t, e, engine.IndexOptions{})
	req := engine.FindRequest{Query: "ParseConfig", Limit: 3, ExplainResults: true}
	resp := find(t, e, req)
	if len(resp.Results) == 0 || slices.ContainsFunc(resp.Results, func(h engine.Hit) bool { return h.Explanation != "summary line" }) {
		t.Fatalf("results %+v lack explanations", resp.Results)
	}
	resp = find(t, e, req)
	if n := len(f.calls()); n != 1 {
		t.Errorf("%d LLM requests for two identical searches, want 1 (the second from the cache)", n)
	}
	if resp.Results[0].Explanation != "summary line" {
		t.Errorf("cached explanation = %q", resp.Results[0].Explanation)
	}
}

// TestRerank: the reranker's order replaces the search's over the top
// results, with scores still descending; a reranker that does not answer
// in time leaves the search's order, and says so.
func TestRerank(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Rerank = config.Rerank{Provider: "tei", URL: "http://127.0.0.1:1", TopN: 50, Timeout: 100 * time.Millisecond}
	var lift string // the path the fake reranker puts first
	r := &fakeReranker{score: func(doc string) float64 {
		if strings.HasPrefix(doc, lift+"\n") {
			return 10
		}
		return 0
	}}
	e := openModels(t, cfg, root, nil, r)
	index(t, e, engine.IndexOptions{})
	plain := find(t, e, engine.FindRequest{Query: "settings configuration file", Limit: 5, NoRerank: true})
	if len(plain.Results) < 2 || r.n != 0 {
		t.Fatalf("search without rerank: %v, %d rerank calls", hitPaths(plain), r.n)
	}
	lift = plain.Results[len(plain.Results)-1].Path
	resp := find(t, e, engine.FindRequest{Query: "settings configuration file", Limit: 5})
	if resp.Stats.Rerank == nil || resp.Stats.Rerank.Skipped != "" || resp.Stats.Rerank.Reranked < 2 {
		t.Fatalf("rerank stats = %+v", resp.Stats.Rerank)
	}
	if resp.Results[0].Path != lift {
		t.Errorf("reranked order %v, want %s first", hitPaths(resp), lift)
	}
	for i := 1; i < len(resp.Results); i++ {
		if resp.Results[i].Score > resp.Results[i-1].Score {
			t.Errorf("reranked scores do not descend: %v", resp.Results)
		}
	}
	if _, ok := resp.Results[0].Channels["rerank"]; !ok {
		t.Error("no rerank channel on the first result")
	}
	r.block = true
	resp = find(t, e, engine.FindRequest{Query: "settings configuration file", Limit: 5})
	if resp.Stats.Rerank == nil || !strings.Contains(resp.Stats.Rerank.Skipped, "CTX_RERANK_TIMEOUT") {
		t.Fatalf("rerank stats after a timeout = %+v", resp.Stats.Rerank)
	}
	if diff := slices.Compare(hitPaths(resp), hitPaths(plain)); diff != 0 {
		t.Errorf("order after a timeout %v, want the search's %v", hitPaths(resp), hitPaths(plain))
	}
	if !slices.ContainsFunc(resp.Stats.Notes(), func(n string) bool { return strings.HasPrefix(n, "not reranked") }) {
		t.Errorf("notes %q do not say the results were not reranked", resp.Stats.Notes())
	}
}
