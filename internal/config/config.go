// Package config resolves ctx's settings. Precedence is flags, then CTX_*
// environment variables, then defaults; this is the only package that reads
// the environment.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config holds every setting. The zero value is not useful; use [Default]
// or [Load].
type Config struct {
	// CacheDir holds one index database per indexed root. Default:
	// os.UserCacheDir()/ctx (so XDG_CACHE_HOME moves it); CTX_CACHE_DIR or
	// --cache-dir override it.
	CacheDir string
	// Home is the user's home directory, which ctx refuses to index itself
	// without Force. Empty when it cannot be determined.
	Home string
	// Force allows indexing "/" or the home directory itself (--force).
	Force bool
	// MaxFileBytes is the discovery size cap in bytes. Default 1 MiB
	// (1<<20); CTX_MAX_FILE_BYTES overrides it.
	MaxFileBytes int64
	// MaxQueryBytes is the longest query searched, in bytes. A longer one
	// is cut at a UTF-8 boundary and the answer says so; issue-sized text
	// fits. Default [DefaultMaxQueryBytes] (32 KiB); CTX_MAX_QUERY_BYTES
	// overrides it; 0 means the default.
	MaxQueryBytes int
	// IncludeSecrets indexes secret files (.env, keys, certificates) too.
	// Default false; CTX_INCLUDE_SECRETS=1 sets it.
	IncludeSecrets bool
	// Exclude holds extra gitignore-syntax patterns, relative to the root
	// (CTX_EXCLUDE, comma-separated).
	Exclude []string
	// Embed selects the embedding provider.
	Embed Embed
	// LogLevel is "debug", "info", "warn" or "error" (CTX_LOG_LEVEL).
	// Default "warn".
	LogLevel string
	// MCPToken is the bearer token `ctx serve` requires when --token is
	// not given (CTX_MCP_TOKEN); empty means none.
	MCPToken string
	// WatchDebounce is how long a watcher (ctx watch, and ctx mcp and
	// ctx serve unless --no-watch) waits after the last file event before
	// it indexes the changed paths, so a burst (a checkout, a rebase)
	// becomes one run. Default [DefaultWatchDebounce] (300ms);
	// CTX_WATCH_DEBOUNCE overrides it; 0 means the default.
	WatchDebounce time.Duration
	// FreshWait bounds how long a query to a watching server waits for the
	// edits made before it to be indexed (read-your-writes); past it the
	// query answers from the committed index and says it is stale.
	// Default [DefaultFreshWait] (1s); CTX_FRESH_WAIT overrides it
	// ("0s": never wait).
	FreshWait time.Duration
	// RequestTimeout is the per-request deadline (limits.request_timeout):
	// it bounds each `ctx find` and each MCP tool call. A search stops
	// gathering at nine tenths of it and answers with what it found,
	// marked partial; a call with nothing to answer by then fails with the
	// timeout error. Default [DefaultRequestTimeout] (10s);
	// CTX_REQUEST_TIMEOUT overrides it; 0 means no deadline.
	RequestTimeout time.Duration
	// CodexHome is where the Codex CLI keeps its user configuration
	// (CODEX_HOME, Codex's own variable); empty means ~/.codex.
	CodexHome string
	// LLM configures the optional language model (query decomposition,
	// result summaries, ctx answer). Off unless LLM.Provider is set.
	LLM LLM
	// Rerank configures the optional reranker. Off unless Rerank.Provider
	// is set.
	Rerank Rerank
	// Spend holds the price table and the spending caps for remote
	// embedding, rerank and LLM requests.
	Spend Spend
	// Backend is where the index is kept and searched (local SQLite, or
	// Weaviate for teams).
	Backend Backend
}

// LLM selects and configures the optional language model. With Provider
// empty (the default) ctx never calls one.
type LLM struct {
	// Provider is "" (off), "openai" (any OpenAI-compatible
	// chat-completions server: OpenAI, vLLM, LM Studio, llama.cpp server,
	// OpenRouter), "anthropic" (the Messages API) or "ollama" (Ollama's
	// OpenAI-compatible /v1) (CTX_LLM_PROVIDER).
	Provider string
	// URL is the API root (CTX_LLM_URL); for OpenAI-compatible servers it
	// ends in /v1. Defaults: openai https://api.openai.com/v1, anthropic
	// https://api.anthropic.com/v1, ollama http://127.0.0.1:11434/v1.
	URL string
	// Model is the model name (CTX_LLM_MODEL). Defaults: openai
	// "gpt-4o-mini", anthropic "claude-3-5-haiku-latest", ollama
	// "llama3.2".
	Model string
	// APIKey is the key (CTX_LLM_API_KEY; else OPENAI_API_KEY for openai,
	// ANTHROPIC_API_KEY for anthropic).
	APIKey string
	// Timeout bounds one request, retries excluded (CTX_LLM_TIMEOUT).
	// Default [DefaultLLMTimeout] (60s).
	Timeout time.Duration
	// MaxTokens caps the tokens the model writes per request
	// (CTX_LLM_MAX_TOKENS). Default [DefaultLLMMaxTokens] (1024).
	MaxTokens int
}

// Rerank selects and configures the optional reranker, which reorders
// the top TopN results of a search. With Provider empty (the default)
// nothing is reranked.
type Rerank struct {
	// Provider is "" (off), "cohere", "jina" or "voyage" (the /rerank
	// request shape those three share) or "tei" (Hugging Face
	// text-embeddings-inference's /rerank) (CTX_RERANK_PROVIDER).
	Provider string
	// URL is the API root that /rerank is appended to (CTX_RERANK_URL).
	// Defaults: cohere https://api.cohere.com/v2, jina
	// https://api.jina.ai/v1, voyage https://api.voyageai.com/v1; tei has
	// none (a local server, e.g. http://127.0.0.1:8080).
	URL string
	// Model is the reranker's name (CTX_RERANK_MODEL). Defaults: cohere
	// "rerank-v3.5", jina "jina-reranker-v2-base-multilingual", voyage
	// "rerank-2"; tei serves one model and ignores it.
	Model string
	// APIKey is the bearer key (CTX_RERANK_API_KEY).
	APIKey string
	// TopN is how many of the first results are reranked
	// (CTX_RERANK_TOP_N). Default [DefaultRerankTopN] (50).
	TopN int
	// Timeout bounds the rerank request; past it the search answers in
	// its own order and says it was not reranked (CTX_RERANK_TIMEOUT).
	// Default [DefaultRerankTimeout] (3s).
	Timeout time.Duration
}

// Spend holds prices and caps, in US dollars. A cap of 0 means none.
// Caps are checked before a request is sent, against the estimated cost
// of the request plus what was already spent in the run or the UTC day.
type Spend struct {
	// Prices overrides or extends the built-in price table: model name to
	// price (CTX_PRICES, "model=in/out[/req],…" in USD per million input
	// and output tokens and per request, e.g.
	// "gpt-4o-mini=0.15/0.6,rerank-v3.5=0/0/0.002").
	Prices map[string]Price
	// EmbedRun, EmbedDay, RerankRun, RerankDay, LLMRun and LLMDay cap
	// spend per run (one ctx command, or one server request) and per UTC
	// day (all processes, recorded in the cache directory)
	// (CTX_SPEND_EMBED_RUN, CTX_SPEND_EMBED_DAY, CTX_SPEND_RERANK_RUN,
	// CTX_SPEND_RERANK_DAY, CTX_SPEND_LLM_RUN, CTX_SPEND_LLM_DAY). Defaults:
	// no run caps; day caps [DefaultEmbedDayUSD], [DefaultRerankDayUSD],
	// [DefaultLLMDayUSD].
	EmbedRun, EmbedDay   float64
	RerankRun, RerankDay float64
	LLMRun, LLMDay       float64
}

// Price is what a model costs, in US dollars.
type Price struct {
	// InPerMTok and OutPerMTok are the price of a million input (or
	// embedded) and output tokens.
	InPerMTok, OutPerMTok float64
	// PerRequest is a flat price per request (rerankers priced per
	// search).
	PerRequest float64
}

// Embed selects and configures the embedding provider.
type Embed struct {
	// Provider is "builtin" (the default: ctx's own static model,
	// compiled in), "none" (lexical-only), "ollama", "openai",
	// "model2vec" (a local static model run in-process) or "onnx" (a
	// local transformer through ONNX Runtime, in builds with -tags onnx)
	// (CTX_EMBED_PROVIDER).
	Provider string
	// Model is the provider's model name (CTX_EMBED_MODEL). Defaults:
	// ollama "nomic-embed-text", openai "text-embedding-3-small". For
	// model2vec it is the model directory (model.safetensors,
	// tokenizer.json, config.json), with no default: [Config.Validate]
	// rejects an empty one.
	Model string
	// BaseURL is the service address (CTX_EMBED_URL). Defaults: ollama
	// http://127.0.0.1:11434, openai https://api.openai.com/v1.
	BaseURL string
	// APIKey is the bearer key for openai-compatible services
	// (CTX_EMBED_API_KEY, else OPENAI_API_KEY).
	APIKey string
	// Dims is the vector length; 0 learns it from the first response
	// (CTX_EMBED_DIMS). A model2vec model has its own and ignores it.
	Dims int
	// Library is the ONNX Runtime shared library the onnx provider loads
	// (CTX_ONNXRUNTIME_LIB), e.g. .../libonnxruntime.so.1, version 1.24 or
	// newer; required for onnx, which also needs a ctx built with
	// -tags onnx.
	Library string
	// BatchSize is how many texts go in one request (CTX_EMBED_BATCH).
	// Default 64.
	BatchSize int
	// QueryTimeout bounds embedding a query (retries included); when it
	// passes, or the provider fails, the search answers from the lexical
	// channels and says it is degraded. Default [DefaultQueryTimeout]
	// (2s); CTX_EMBED_QUERY_TIMEOUT overrides it (a Go duration such as
	// "500ms" or "5s"); 0 means the default.
	QueryTimeout time.Duration
}

// Defaults of settings that the zero value leaves to their users.
const (
	// DefaultMaxQueryBytes is [Config].MaxQueryBytes when unset.
	DefaultMaxQueryBytes = 32 << 10
	// DefaultQueryTimeout is [Embed].QueryTimeout when unset.
	DefaultQueryTimeout = 2 * time.Second
	// DefaultWatchDebounce is [Config].WatchDebounce when unset.
	DefaultWatchDebounce = 300 * time.Millisecond
	// DefaultFreshWait is [Config].FreshWait by default: a query answers
	// within it (issue target: a find during indexing answers within 1 s).
	DefaultFreshWait = time.Second
	// DefaultRequestTimeout is [Config].RequestTimeout by default.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultLLMTimeout is [LLM].Timeout when unset: a long answer from a
	// slow local model fits.
	DefaultLLMTimeout = 60 * time.Second
	// DefaultLLMMaxTokens is [LLM].MaxTokens when unset.
	DefaultLLMMaxTokens = 1024
	// DefaultRerankTopN is [Rerank].TopN when unset: the depth rerankers'
	// own documentation suggests for a first-stage list.
	DefaultRerankTopN = 50
	// DefaultRerankTimeout is [Rerank].Timeout when unset.
	DefaultRerankTimeout = 3 * time.Second
	// Default day caps in US dollars: generous for one developer (a cold
	// index of the Go standard library with text-embedding-3-small is
	// about 15M tokens, $0.30), small enough that a loop cannot run up a
	// bill.
	DefaultEmbedDayUSD  = 5.0
	DefaultRerankDayUSD = 1.0
	DefaultLLMDayUSD    = 2.0
)

// Default returns the defaults, with CacheDir and Home resolved from the
// operating system.
func Default() Config {
	c := Config{
		MaxFileBytes:  1 << 20,
		MaxQueryBytes: DefaultMaxQueryBytes,
		LogLevel:      "warn",
		WatchDebounce: DefaultWatchDebounce,
		FreshWait:     DefaultFreshWait,
		Embed:         Embed{Provider: "builtin", BatchSize: 64, QueryTimeout: DefaultQueryTimeout},
		LLM:           LLM{Timeout: DefaultLLMTimeout, MaxTokens: DefaultLLMMaxTokens},
		Rerank:        Rerank{TopN: DefaultRerankTopN, Timeout: DefaultRerankTimeout},
		Spend:         Spend{EmbedDay: DefaultEmbedDayUSD, RerankDay: DefaultRerankDayUSD, LLMDay: DefaultLLMDayUSD},
	}
	c.RequestTimeout = DefaultRequestTimeout
	if d, err := os.UserCacheDir(); err == nil {
		c.CacheDir = filepath.Join(d, "ctx")
	} else {
		c.CacheDir = filepath.Join(os.TempDir(), "ctx-cache")
	}
	if h, err := os.UserHomeDir(); err == nil {
		c.Home = h
	}
	return c
}

// Load returns the defaults overridden by CTX_* environment variables.
// Flags are applied by the caller afterwards. Errors name the variable and
// its bad value.
func Load() (Config, error) {
	c := Default()
	if v := os.Getenv("CTX_CACHE_DIR"); v != "" {
		c.CacheDir = v
	}
	if v := os.Getenv("CTX_MAX_FILE_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("CTX_MAX_FILE_BYTES=%q: want a positive number of bytes", v)
		}
		c.MaxFileBytes = n
	}
	if v := os.Getenv("CTX_MAX_QUERY_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("CTX_MAX_QUERY_BYTES=%q: want a positive number of bytes", v)
		}
		c.MaxQueryBytes = n
	}
	if v := os.Getenv("CTX_INCLUDE_SECRETS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("CTX_INCLUDE_SECRETS=%q: want true or false", v)
		}
		c.IncludeSecrets = b
	}
	if v := os.Getenv("CTX_EXCLUDE"); v != "" {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				c.Exclude = append(c.Exclude, p)
			}
		}
	}
	if v := os.Getenv("CTX_LOG_LEVEL"); v != "" {
		c.LogLevel = strings.ToLower(v)
	}
	if v := os.Getenv("CTX_EMBED_PROVIDER"); v != "" {
		c.Embed.Provider = strings.ToLower(v)
	}
	c.Embed.Model = os.Getenv("CTX_EMBED_MODEL")
	c.Embed.BaseURL = os.Getenv("CTX_EMBED_URL")
	c.Embed.Library = os.Getenv("CTX_ONNXRUNTIME_LIB")
	c.Embed.APIKey = os.Getenv("CTX_EMBED_API_KEY")
	if c.Embed.APIKey == "" {
		switch c.Embed.Provider {
		case "voyage":
			c.Embed.APIKey = os.Getenv("VOYAGE_API_KEY")
		default:
			c.Embed.APIKey = os.Getenv("OPENAI_API_KEY")
		}
	}
	if v := os.Getenv("CTX_EMBED_DIMS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("CTX_EMBED_DIMS=%q: want a non-negative integer", v)
		}
		c.Embed.Dims = n
	}
	c.MCPToken = os.Getenv("CTX_MCP_TOKEN")
	c.CodexHome = os.Getenv("CODEX_HOME")
	if v := os.Getenv("CTX_EMBED_BATCH"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("CTX_EMBED_BATCH=%q: want a positive integer", v)
		}
		c.Embed.BatchSize = n
	}
	if v := os.Getenv("CTX_EMBED_QUERY_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("CTX_EMBED_QUERY_TIMEOUT=%q: want a positive duration such as 2s or 500ms", v)
		}
		c.Embed.QueryTimeout = d
	}
	if v := os.Getenv("CTX_WATCH_DEBOUNCE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("CTX_WATCH_DEBOUNCE=%q: want a positive duration such as 300ms or 1s", v)
		}
		c.WatchDebounce = d
	}
	if v := os.Getenv("CTX_FRESH_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("CTX_FRESH_WAIT=%q: want a duration such as 1s, 200ms or 0s", v)
		}
		c.FreshWait = d
	}
	if v := os.Getenv("CTX_REQUEST_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("CTX_REQUEST_TIMEOUT=%q: want a duration such as 10s, 30s or 0s (no deadline)", v)
		}
		c.RequestTimeout = d
	}
	if err := loadBackend(&c); err != nil {
		return c, err
	}
	if err := loadModelLayer(&c); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate checks settings that flags or the environment may have broken.
func (c *Config) Validate() error {
	switch c.Embed.Provider {
	case "builtin", "none", "ollama", "openai", "voyage":
	case "model2vec":
		if c.Embed.Model == "" {
			return fmt.Errorf("embedding provider model2vec needs the model directory in CTX_EMBED_MODEL")
		}
	case "onnx":
		if c.Embed.Model == "" || c.Embed.Library == "" {
			return fmt.Errorf("embedding provider onnx needs the model directory (model.onnx, tokenizer.json) in CTX_EMBED_MODEL and the ONNX Runtime library in CTX_ONNXRUNTIME_LIB")
		}
	default:
		return fmt.Errorf("embedding provider %q: want builtin, none, ollama, openai, voyage, model2vec or onnx", c.Embed.Provider)
	}
	if c.MaxFileBytes <= 0 {
		return fmt.Errorf("max file bytes %d: want a positive number", c.MaxFileBytes)
	}
	if c.MaxQueryBytes < 0 {
		return fmt.Errorf("max query bytes %d: want a positive number", c.MaxQueryBytes)
	}
	if c.Embed.QueryTimeout < 0 {
		return fmt.Errorf("embedding query timeout %s: want a positive duration", c.Embed.QueryTimeout)
	}
	if err := c.validateModelLayer(); err != nil {
		return err
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log level %q: want debug, info, warn or error", c.LogLevel)
	}
	return nil
}
