package spend

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	cfg := config.Spend{Prices: map[string]config.Price{
		"gpt-4o-mini": {InPerMTok: 0.1, OutPerMTok: 0.5}, // overrides the table
		"my-embedder": {InPerMTok: 0.07},                 // extends it
	}}
	tests := []struct {
		name   string
		model  string
		want   config.Price
		source string
		ok     bool
	}{
		{"builtin", "text-embedding-3-small", config.Price{InPerMTok: 0.02}, SourceBuiltin, true},
		{"builtin large", "text-embedding-3-large", config.Price{InPerMTok: 0.13}, SourceBuiltin, true},
		{"override wins", "gpt-4o-mini", config.Price{InPerMTok: 0.1, OutPerMTok: 0.5}, SourceOverride, true},
		{"override dated", "gpt-4o-mini-2024-07-18", config.Price{InPerMTok: 0.1, OutPerMTok: 0.5}, SourceOverride, true},
		{"extension", "my-embedder", config.Price{InPerMTok: 0.07}, SourceOverride, true},
		{"dated variant takes the longest prefix", "gpt-4o-2024-08-06", config.Price{InPerMTok: 2.5, OutPerMTok: 10}, SourceBuiltin, true},
		{"dated claude", "claude-3-5-haiku-20241022", config.Price{InPerMTok: 0.8, OutPerMTok: 4}, SourceBuiltin, true},
		{"sonnet 4 dated", "claude-sonnet-4-20250514", config.Price{InPerMTok: 3, OutPerMTok: 15}, SourceBuiltin, true},
		{"haiku 4.5 dated", "claude-haiku-4-5-20251001", config.Price{InPerMTok: 1, OutPerMTok: 5}, SourceBuiltin, true},
		{"ollama tag", "voyage-3:latest", config.Price{InPerMTok: 0.06}, SourceBuiltin, true},
		{"no prefix match without a separator", "voyage-3.9", config.Price{}, "", false},
		{"gateway vendor part", "openai/text-embedding-3-large", config.Price{InPerMTok: 0.13}, SourceBuiltin, true},
		{"per request", "rerank-v3.5", config.Price{PerRequest: 0.002}, SourceBuiltin, true},
		{"unknown", "nomic-embed-text", config.Price{}, "", false},
		{"empty", "", config.Price{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, source, ok := LookupSource(cfg, tt.model)
			if ok != tt.ok || source != tt.source {
				t.Fatalf("LookupSource(%q) = _, %q, %v; want %q, %v", tt.model, source, ok, tt.source, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LookupSource(%q) price (-want +got):\n%s", tt.model, diff)
			}
			if p, ok := Lookup(cfg, tt.model); ok != tt.ok || p != got {
				t.Errorf("Lookup(%q) = %v, %v; LookupSource says %v, %v", tt.model, p, ok, got, tt.ok)
			}
		})
	}
}

func TestDefaultPricesIsACopy(t *testing.T) {
	t.Parallel()
	p := DefaultPrices()
	p["text-embedding-3-small"] = config.Price{InPerMTok: 99}
	if got, _ := Lookup(config.Spend{}, "text-embedding-3-small"); got.InPerMTok != 0.02 {
		t.Errorf("changing DefaultPrices' result changed the table: %v", got)
	}
	for _, m := range []string{"gpt-4.1-mini", "gpt-4.1", "claude-haiku-4-5", "voyage-code-3", "rerank-2", "rerank-2-lite",
		"jina-reranker-v2-base-multilingual", "jina-embeddings-v3"} {
		if _, ok := p[m]; !ok {
			t.Errorf("DefaultPrices lacks %s", m)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		p                 config.Price
		in, out, requests int
		want              float64
	}{
		{"embedding", config.Price{InPerMTok: 0.02}, 1_000_000, 0, 10, 0.02},
		{"chat", config.Price{InPerMTok: 0.15, OutPerMTok: 0.6}, 2000, 500, 1, 0.0003 + 0.0003},
		{"per search", config.Price{PerRequest: 0.002}, 12345, 0, 3, 0.006},
		{"free", config.Price{}, 5000, 5000, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Cost(tt.p, tt.in, tt.out, tt.requests); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"", true},
		{"http://127.0.0.1:11434", true},
		{"http://127.1.2.3:8080/v1", true},
		{"http://localhost:8000/v1", true},
		{"http://LOCALHOST./v1", true},
		{"http://embed.localhost:9000", true},
		{"http://[::1]:8080", true},
		{"http://0.0.0.0:8080", true},
		{"localhost:11434", true},
		{"unix:///run/tei.sock", true},
		{"http+unix://%2Frun%2Ftei.sock/v1", true},
		{"/run/ollama.sock", true},
		{"https://api.openai.com/v1", false},
		{"https://api.voyageai.com/v1", false},
		{"http://192.168.1.20:11434", false},
		{"http://localhost.example.com", false},
		{"http://10.0.0.1", false},
		{"http://%zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			if got := Local(tt.url); got != tt.want {
				t.Errorf("Local(%q) = %v, want %v", tt.url, got, tt.want)
			}
		})
	}
}
