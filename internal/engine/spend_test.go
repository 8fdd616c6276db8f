package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// embeddingsServer is a fake OpenAI embeddings service (POST
// /v1/embeddings) that counts, with o200k_base, the tokens of every
// input it receives.
type embeddingsServer struct {
	*httptest.Server
	dims int

	mu       sync.Mutex // guards the counts
	requests int
	inputs   int
	tokens   int
}

func newEmbeddingsServer(t *testing.T, dims int) *embeddingsServer {
	t.Helper()
	s := &embeddingsServer{dims: dims}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *embeddingsServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || req.EncodingFormat != "float" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"bad request: %v","type":"invalid_request_error"}}`, err)
		return
	}
	n := 0
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]datum, len(req.Input))
	for i, in := range req.Input {
		n += tokens.Count(in)
		sum := sha256.Sum256([]byte(in))
		v := make([]float32, s.dims)
		for j := range v {
			v[j] = float32(sum[j%len(sum)]) - 127.5
		}
		data[i] = datum{Object: "embedding", Index: i, Embedding: v}
	}
	s.mu.Lock()
	s.requests++
	s.inputs += len(req.Input)
	s.tokens += n
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}})
}

func (s *embeddingsServer) counts() (requests, inputs, tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.inputs, s.tokens
}

// remoteLoopback makes loopback embedding servers count as remote for
// the rest of the test, so their spend is metered. Tests that call it
// are not parallel; localURL is read by parallel ones only after.
func remoteLoopback(t *testing.T) {
	old := localURL
	localURL = func(string) bool { return false }
	t.Cleanup(func() { localURL = old })
}

// spendRepo extracts testdata/repo.txtar and, for volume, copies this
// repository's index pipeline sources under pipeline/.
func spendRepo(t *testing.T) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(a, dir); err != nil {
		t.Fatal(err)
	}
	srcs, err := filepath.Glob(filepath.Join("..", "index", "*.go"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no sources to copy: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pipeline"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pipeline", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openaiConfig(t *testing.T, url string) config.Config {
	t.Helper()
	return config.Config{
		CacheDir:     t.TempDir(),
		Home:         t.TempDir(),
		MaxFileBytes: 1 << 20,
		LogLevel:     "warn",
		Embed:        config.Embed{Provider: "openai", BaseURL: url + "/v1", Model: "text-embedding-3-small", Dims: 8, BatchSize: 16},
	}
}

func openEngine(t *testing.T, cfg config.Config, root string) *Engine {
	t.Helper()
	e, err := Open(cfg, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDryRunMatchesIndex measures the dry run's token estimate against
// the tokens a real index run sends to an OpenAI-compatible server.
func TestDryRunMatchesIndex(t *testing.T) {
	remoteLoopback(t)
	srv := newEmbeddingsServer(t, 8)
	root := spendRepo(t)
	cfg := openaiConfig(t, srv.URL)
	e := openEngine(t, cfg, root)
	ctx := t.Context()

	dry, err := e.DryRun(ctx, DryRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if req, _, _ := srv.counts(); req != 0 {
		t.Fatalf("the dry run sent %d requests, want none", req)
	}
	if left, _ := os.ReadDir(cfg.CacheDir); len(left) != 0 {
		t.Fatalf("the dry run wrote %v into the cache directory", left)
	}
	if dry.Local || dry.Provider != "openai" || dry.Model != "text-embedding-3-small" || !dry.Rebuild {
		t.Errorf("dry run = %+v, want a remote openai text-embedding-3-small rebuild", dry)
	}
	if dry.Price != (DryRunPrice{InPerMTok: 0.02, Source: spend.SourceBuiltin}) {
		t.Errorf("price = %+v, want the built-in 0.02", dry.Price)
	}
	if want := spend.Cost(config.Price{InPerMTok: 0.02}, dry.Tokens, 0, dry.Requests); dry.EstimatedUSD != want || want == 0 {
		t.Errorf("estimated_usd = %v, want %v", dry.EstimatedUSD, want)
	}

	rep, err := e.Index(ctx, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requests, inputs, sent := srv.counts()
	t.Logf("dry run: %d files, %d chunks, %d texts, %d requests, %d tokens ($%.6f); server received %d texts in %d requests, %d tokens",
		dry.Files.ToIndex, dry.Chunks, dry.TextsToEmbed, dry.Requests, dry.Tokens, dry.EstimatedUSD, inputs, requests, sent)
	if diff := math.Abs(float64(dry.Tokens-sent)) / float64(sent); diff > 0.02 {
		t.Errorf("dry run estimated %d tokens, the server received %d (%.2f%% off, want within 2%%)", dry.Tokens, sent, 100*diff)
	}
	if dry.TextsToEmbed != inputs || dry.TextsToEmbed != rep.Stats.Embedded || dry.Requests != requests {
		t.Errorf("dry run: %d texts in %d requests; run embedded %d, server received %d in %d requests",
			dry.TextsToEmbed, dry.Requests, rep.Stats.Embedded, inputs, requests)
	}
	if dry.Files.ToIndex != rep.Stats.Added || dry.Chunks != rep.Stats.Chunks || dry.Files.Skipped != len(rep.Stats.Skips) {
		t.Errorf("dry run: %d files to index, %d chunks, %d skipped; run: %d added, %d chunks, %d skipped",
			dry.Files.ToIndex, dry.Chunks, dry.Files.Skipped, rep.Stats.Added, rep.Stats.Chunks, len(rep.Stats.Skips))
	}
	// The run recorded what it sent in the day ledger.
	today, err := spend.NewMeter(cfg.Spend, cfg.CacheDir).Today(ctx, spend.Embed)
	if err != nil {
		t.Fatal(err)
	}
	if today.InTokens != sent || today.Requests != requests || math.Abs(today.USD-dry.EstimatedUSD) > 1e-12 {
		t.Errorf("ledger today = %+v, want %d tokens in %d requests, $%v", today, sent, requests, dry.EstimatedUSD)
	}

	// Up to date: nothing to send. An edit sends only its new texts, and
	// the dry run says which.
	again, err := e.DryRun(ctx, DryRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Rebuild || again.Files.ToIndex != 0 || again.TextsToEmbed != 0 || again.Tokens != 0 || again.Files.Unchanged != rep.Stats.Added {
		t.Errorf("dry run after the index = %+v, want nothing to do", again)
	}
	path := filepath.Join(root, "config", "config.go")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, []byte("\n// Reload reads the configuration again.\nfunc Reload(path string) (*Config, error) { return ParseConfig(path) }\n")...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	edit, err := e.DryRun(ctx, DryRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if edit.Files.ToIndex != 1 || edit.TextsToEmbed == 0 || edit.TextsCached == 0 {
		t.Errorf("dry run after an edit = %+v, want one file with new and cached texts", edit)
	}
	if _, err := e.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	_, inputs2, sent2 := srv.counts()
	if inputs2-inputs != edit.TextsToEmbed || sent2-sent != edit.Tokens {
		t.Errorf("after an edit the dry run said %d texts, %d tokens; the server received %d, %d",
			edit.TextsToEmbed, edit.Tokens, inputs2-inputs, sent2-sent)
	}
}

// TestIndexEmbedCap stops an index run at the embedding caps, before the
// request that would pass them.
func TestIndexEmbedCap(t *testing.T) {
	remoteLoopback(t)
	ctx := t.Context()
	root := spendRepo(t)

	// What a whole run costs.
	full := newEmbeddingsServer(t, 8)
	dry, err := openEngine(t, openaiConfig(t, full.URL), root).DryRun(ctx, DryRunOptions{})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		spend   config.Spend
		setting string
	}{
		{"run cap below one batch", config.Spend{EmbedRun: 1e-9}, "CTX_SPEND_EMBED_RUN"},
		{"run cap at half", config.Spend{EmbedRun: dry.EstimatedUSD / 2}, "CTX_SPEND_EMBED_RUN"},
		{"day cap at half", config.Spend{EmbedDay: dry.EstimatedUSD / 2}, "CTX_SPEND_EMBED_DAY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newEmbeddingsServer(t, 8)
			cfg := openaiConfig(t, srv.URL)
			cfg.Spend = tt.spend
			_, err := openEngine(t, cfg, root).Index(ctx, IndexOptions{})
			if !errors.Is(err, spend.ErrCapExceeded) {
				t.Fatalf("Index = %v, want ErrCapExceeded", err)
			}
			if !strings.Contains(err.Error(), tt.setting) {
				t.Errorf("error %q does not name %s", err, tt.setting)
			}
			capUSD := max(tt.spend.EmbedRun, tt.spend.EmbedDay)
			requests, _, sent := srv.counts()
			cost := spend.Cost(config.Price{InPerMTok: 0.02}, sent, 0, 0)
			if cost > capUSD+1e-12 {
				t.Errorf("the server received %d tokens ($%.8f), past the $%.8f cap", sent, cost, capUSD)
			}
			if tt.spend.EmbedRun == 1e-9 && requests != 0 {
				t.Errorf("the server received %d requests under a cap below one batch", requests)
			}
			// The day cap holds across runs: the next one sends nothing more
			// than fits.
			if tt.spend.EmbedDay > 0 {
				if _, err := openEngine(t, cfg, root).Index(ctx, IndexOptions{}); !errors.Is(err, spend.ErrCapExceeded) {
					t.Errorf("the next run = %v, want ErrCapExceeded", err)
				}
				_, _, sent2 := srv.counts()
				if cost := spend.Cost(config.Price{InPerMTok: 0.02}, sent2, 0, 0); cost > capUSD+1e-12 {
					t.Errorf("over two runs the server received $%.8f, past the $%.8f day cap", cost, capUSD)
				}
			}
		})
	}

	t.Run("local provider is not capped", func(t *testing.T) {
		localURL = spend.Local
		srv := newEmbeddingsServer(t, 8)
		cfg := openaiConfig(t, srv.URL)
		cfg.Spend = config.Spend{EmbedRun: 1e-9, EmbedDay: 1e-9}
		if _, err := openEngine(t, cfg, root).Index(ctx, IndexOptions{}); err != nil {
			t.Fatalf("Index with a loopback provider: %v", err)
		}
		if _, err := os.Stat(filepath.Join(cfg.CacheDir, spend.LedgerFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a local provider's run wrote the spend ledger (stat: %v)", err)
		}
	})
}

// countingProvider is a fake provider that counts its calls.
type countingProvider struct {
	mu    sync.Mutex // guards calls
	calls int
}

func (p *countingProvider) Embed(_ context.Context, texts []string, _ embed.InputKind) ([][]float32, error) {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

func (p *countingProvider) Model() embed.Model {
	return embed.Model{Provider: "openai", Name: "text-embedding-3-large", Dims: 2}
}

func TestMeteredEmbedderStopsAtCap(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	inner := &countingProvider{}
	price := config.Price{InPerMTok: 1e6} // a dollar a token
	text, prefixes := "hello world", embed.Prefixes{Document: "passage: "}
	n := tokens.Count("passage: hello world")
	if got := embedTokens(prefixes, []string{text}, embed.Document); got != n {
		t.Fatalf("tokens of a prefixed text = %d, want %d", got, n)
	}
	// The cap fits one batch and a half.
	m := &meteredEmbedder{Provider: inner, meter: spend.NewMeter(config.Spend{EmbedRun: 1.5 * float64(n)}, t.TempDir()),
		price: price, prefixes: prefixes}
	if m.Model() != inner.Model() {
		t.Fatalf("Model = %v, want the wrapped %v", m.Model(), inner.Model())
	}
	if _, err := m.Embed(ctx, []string{text}, embed.Document); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	_, err := m.Embed(ctx, []string{text}, embed.Document)
	if !errors.Is(err, spend.ErrCapExceeded) || !strings.Contains(err.Error(), "CTX_SPEND_EMBED_RUN") {
		t.Fatalf("second batch = %v, want ErrCapExceeded naming CTX_SPEND_EMBED_RUN", err)
	}
	// Once stopped, even a batch that would fit is not sent.
	if _, err := m.Embed(ctx, []string{"a"}, embed.Query); !errors.Is(err, spend.ErrCapExceeded) {
		t.Errorf("batch after the stop = %v, want ErrCapExceeded", err)
	}
	if inner.calls != 1 {
		t.Errorf("the provider was called %d times, want 1", inner.calls)
	}
	if got, want := m.meter.Spent(spend.Embed), (spend.Total{USD: float64(n), InTokens: n, Requests: 1}); got != want {
		t.Errorf("Spent = %+v, want %+v", got, want)
	}
}
