package config_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

// TestLoadDefaults: with no CTX_* variables, the cache lives under the user
// cache directory (so XDG_CACHE_HOME moves it) and lexical-only is on.
func TestLoadDefaults(t *testing.T) {
	clearEnv(t)
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	c, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "ctx"); c.CacheDir != want {
		t.Errorf("CacheDir = %q, want %q", c.CacheDir, want)
	}
	if c.MaxFileBytes != 1<<20 || c.Embed.Provider != "builtin" || c.LogLevel != "warn" || c.IncludeSecrets {
		t.Errorf("defaults = %+v", c)
	}
	if c.MaxQueryBytes != 32<<10 || c.Embed.QueryTimeout != 2*time.Second {
		t.Errorf("MaxQueryBytes, Embed.QueryTimeout = %d, %s; want 32768, 2s", c.MaxQueryBytes, c.Embed.QueryTimeout)
	}
}

// TestLoadEnv: every CTX_* variable overrides its default.
func TestLoadEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv("CTX_CACHE_DIR", "/tmp/x")
	t.Setenv("CTX_MAX_FILE_BYTES", "2048")
	t.Setenv("CTX_INCLUDE_SECRETS", "true")
	t.Setenv("CTX_EXCLUDE", "gen/**, *.pb.go ,")
	t.Setenv("CTX_LOG_LEVEL", "DEBUG")
	t.Setenv("CTX_EMBED_PROVIDER", "openai")
	t.Setenv("CTX_EMBED_MODEL", "m")
	t.Setenv("CTX_EMBED_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "fallback")
	t.Setenv("CTX_EMBED_DIMS", "256")
	t.Setenv("CTX_EMBED_BATCH", "8")
	t.Setenv("CTX_MAX_QUERY_BYTES", "1000")
	t.Setenv("CTX_EMBED_QUERY_TIMEOUT", "750ms")
	t.Setenv("CTX_WATCH_DEBOUNCE", "50ms")
	t.Setenv("CTX_FRESH_WAIT", "0s")
	c, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.WatchDebounce != 50*time.Millisecond || c.FreshWait != 0 {
		t.Errorf("WatchDebounce, FreshWait = %v, %v; want 50ms, 0s", c.WatchDebounce, c.FreshWait)
	}
	got := []any{c.CacheDir, c.MaxFileBytes, c.MaxQueryBytes, c.IncludeSecrets, c.Exclude, c.LogLevel, c.Embed}
	want := []any{"/tmp/x", int64(2048), 1000, true, []string{"gen/**", "*.pb.go"}, "debug",
		config.Embed{Provider: "openai", Model: "m", BaseURL: "http://127.0.0.1:1/v1", APIKey: "fallback", Dims: 256, BatchSize: 8, QueryTimeout: 750 * time.Millisecond}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", d)
	}
	t.Setenv("CTX_EMBED_API_KEY", "own")
	if c, _ := config.Load("", nil); c.Embed.APIKey != "own" {
		t.Errorf("APIKey = %q, want CTX_EMBED_API_KEY over OPENAI_API_KEY", c.Embed.APIKey)
	}
}

// TestLoadBadValues: a bad variable is an error that names it.
func TestLoadBadValues(t *testing.T) {
	for _, tc := range []struct{ key, val string }{
		{"CTX_MAX_FILE_BYTES", "big"},
		{"CTX_MAX_FILE_BYTES", "-1"},
		{"CTX_INCLUDE_SECRETS", "maybe"},
		{"CTX_EMBED_DIMS", "x"},
		{"CTX_EMBED_BATCH", "0"},
		{"CTX_MAX_QUERY_BYTES", "0"},
		{"CTX_MAX_QUERY_BYTES", "32k"},
		{"CTX_EMBED_QUERY_TIMEOUT", "2"},
		{"CTX_EMBED_QUERY_TIMEOUT", "-1s"},
		{"CTX_WATCH_DEBOUNCE", "0s"},
		{"CTX_WATCH_DEBOUNCE", "300"},
		{"CTX_FRESH_WAIT", "-1s"},
		{"CTX_EMBED_PROVIDER", "magic"},
		{"CTX_LOG_LEVEL", "loud"},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(tc.key, tc.val)
			_, err := config.Load("", nil)
			if err == nil {
				t.Fatalf("Load with %s=%q: no error", tc.key, tc.val)
			}
			name := tc.key
			switch tc.key {
			case "CTX_EMBED_PROVIDER":
				name = "provider"
			case "CTX_LOG_LEVEL":
				name = "log level"
			}
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %s", err, name)
			}
		})
	}
}

// TestModel2Vec: CTX_EMBED_PROVIDER=model2vec takes the model directory
// from CTX_EMBED_MODEL, and Validate rejects it without one.
func TestModel2Vec(t *testing.T) {
	clearEnv(t)
	t.Setenv("CTX_EMBED_PROVIDER", "Model2Vec")
	t.Setenv("CTX_EMBED_MODEL", "/models/potion-base-8M")
	c, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Embed{Provider: "model2vec", Model: "/models/potion-base-8M", BatchSize: 64, QueryTimeout: config.DefaultQueryTimeout}
	if d := cmp.Diff(want, c.Embed); d != "" {
		t.Errorf("Embed mismatch (-want +got):\n%s", d)
	}

	t.Setenv("CTX_EMBED_MODEL", "")
	_, err = config.Load("", nil)
	if err == nil || !strings.Contains(err.Error(), "model2vec") || !strings.Contains(err.Error(), "CTX_EMBED_MODEL") {
		t.Errorf("Load without CTX_EMBED_MODEL: %v, want an error naming model2vec and CTX_EMBED_MODEL", err)
	}
	c = config.Default()
	c.Embed.Provider = "model2vec"
	if err := c.Validate(); err == nil {
		t.Error("Validate of model2vec without a model: no error")
	}
	c.Embed.Model = "dir"
	if err := c.Validate(); err != nil {
		t.Errorf("Validate of model2vec with a model: %v", err)
	}
}

// TestONNX: CTX_EMBED_PROVIDER=onnx needs both the model directory and
// the ONNX Runtime library, and the error names what is missing.
func TestONNX(t *testing.T) {
	clearEnv(t)
	t.Setenv("CTX_EMBED_PROVIDER", "onnx")
	t.Setenv("CTX_EMBED_MODEL", "/models/coderankembed")
	if _, err := config.Load("", nil); err == nil || !strings.Contains(err.Error(), "CTX_ONNXRUNTIME_LIB") {
		t.Errorf("Load without CTX_ONNXRUNTIME_LIB: %v, want an error naming it", err)
	}
	t.Setenv("CTX_ONNXRUNTIME_LIB", "/opt/ort/libonnxruntime.so.1")
	c, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Embed{Provider: "onnx", Model: "/models/coderankembed", Library: "/opt/ort/libonnxruntime.so.1", BatchSize: 64, QueryTimeout: config.DefaultQueryTimeout}
	if d := cmp.Diff(want, c.Embed); d != "" {
		t.Errorf("Embed mismatch (-want +got):\n%s", d)
	}
}

func clearEnv(t *testing.T) {
	for _, k := range []string{"CTX_CACHE_DIR", "CTX_MAX_FILE_BYTES", "CTX_INCLUDE_SECRETS", "CTX_EXCLUDE", "CTX_LOG_LEVEL",
		"CTX_EMBED_PROVIDER", "CTX_EMBED_MODEL", "CTX_EMBED_URL", "CTX_EMBED_API_KEY", "OPENAI_API_KEY", "CTX_EMBED_DIMS", "CTX_EMBED_BATCH", "CTX_ONNXRUNTIME_LIB",
		"CTX_MAX_QUERY_BYTES", "CTX_EMBED_QUERY_TIMEOUT", "CTX_WATCH_DEBOUNCE", "CTX_FRESH_WAIT"} {
		t.Setenv(k, "")
	}
}

func TestLoadModelLayer(t *testing.T) {
	t.Setenv("CTX_LLM_PROVIDER", "Anthropic")
	t.Setenv("CTX_LLM_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "k-ant")
	t.Setenv("CTX_LLM_TIMEOUT", "5s")
	t.Setenv("CTX_RERANK_PROVIDER", "tei")
	t.Setenv("CTX_RERANK_URL", "http://127.0.0.1:8080")
	t.Setenv("CTX_RERANK_TOP_N", "20")
	t.Setenv("CTX_PRICES", "m1=1/2, rr=0/0/0.002")
	t.Setenv("CTX_SPEND_LLM_DAY", "0")
	c, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.LLM.Provider != "anthropic" || c.LLM.APIKey != "k-ant" || c.LLM.Timeout != 5*time.Second || c.LLM.MaxTokens != config.DefaultLLMMaxTokens {
		t.Errorf("LLM = %+v", c.LLM)
	}
	if c.Rerank.Provider != "tei" || c.Rerank.TopN != 20 || c.Rerank.Timeout != config.DefaultRerankTimeout {
		t.Errorf("Rerank = %+v", c.Rerank)
	}
	want := map[string]config.Price{"m1": {InPerMTok: 1, OutPerMTok: 2}, "rr": {PerRequest: 0.002}}
	if diff := cmp.Diff(want, c.Spend.Prices); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
	if c.Spend.LLMDay != 0 || c.Spend.EmbedDay != config.DefaultEmbedDayUSD {
		t.Errorf("Spend = %+v", c.Spend)
	}
}

func TestLoadModelLayerErrors(t *testing.T) {
	for _, tc := range []struct{ key, val, want string }{
		{"CTX_LLM_PROVIDER", "gpt", `LLM provider "gpt"`},
		{"CTX_RERANK_PROVIDER", "tei", "CTX_RERANK_URL"},
		{"CTX_PRICES", "m1=1/x", `price "x"`},
		{"CTX_SPEND_EMBED_RUN", "-1", "CTX_SPEND_EMBED_RUN"},
		{"CTX_RERANK_TIMEOUT", "soon", "CTX_RERANK_TIMEOUT"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			t.Setenv(tc.key, tc.val)
			_, err := config.Load("", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load with %s=%s: err %v, want it to mention %q", tc.key, tc.val, err, tc.want)
			}
		})
	}
}
