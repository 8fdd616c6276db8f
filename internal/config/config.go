// Package config resolves ctx's settings. Precedence is flags, then CTX_*
// environment variables, then the project file (<root>/.ctx/config.toml),
// then the user file ($XDG_CONFIG_HOME/ctx/config.toml), then defaults.
// Every setting is declared once, in the table [Settings], which drives
// loading, validation, `ctx config` and the settings table in README.
// This is the only package that reads the environment.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

//go:generate go run ../../scripts/config-docs -readme ../../README.md

// Config holds every setting. The zero value is not useful; use [Default]
// or [Load]. Each field a setting sets is declared, with its key, variable
// and default, in [Settings]; the comments name the variable.
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
	// CodexHome is where the Codex CLI keeps its user configuration
	// (CODEX_HOME, Codex's own variable, read from the environment only);
	// empty means ~/.codex.
	CodexHome string
	// RankTune overrides ranking constants for one run, for tuning
	// experiments (CTX_RANK_TUNE, "Name=value,…", environment only; see
	// search.SetTuning). Empty means none.
	RankTune string
	// RequestTimeout is the per-request deadline: past it an answer
	// returns what was found so far, marked partial. Default
	// [DefaultRequestTimeout] (10s); CTX_REQUEST_TIMEOUT overrides it.
	RequestTimeout time.Duration
	// NonRepoMaxFiles is the most files a root that is not inside a git
	// work tree, and has no index, may hold to be indexed without
	// --force. Default [DefaultNonRepoMaxFiles] (20000);
	// CTX_NON_REPO_MAX_FILES overrides it.
	NonRepoMaxFiles int
	// Server holds the defaults of ctx mcp and ctx serve.
	Server Server
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

// Server holds the MCP server's defaults, which the commands' flags
// override.
type Server struct {
	// HTTP is the address ctx serve listens on (CTX_SERVER_HTTP,
	// --http). Default [DefaultHTTPAddr].
	HTTP string
	// Tools is the tool set, "default" or "all" (CTX_SERVER_TOOLS,
	// --tools). Default "default".
	Tools string
	// Watch keeps the index fresh while the server runs
	// (CTX_SERVER_WATCH; --no-watch sets it false). Default true.
	Watch bool
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

// Default returns the defaults of the table [Settings], with CacheDir and
// Home resolved from the operating system. It reads no file and no
// environment variable.
func Default() Config {
	var c Config
	for _, s := range settings {
		if s.Default != nil {
			s.set(&c, s.Default)
		}
	}
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

// Validate checks what single values cannot (settings that must go
// together), and the enums and ranges of values set in Go rather than
// through [Load]. A zero that a field documents as "the default" passes.
func (c *Config) Validate() error {
	for _, s := range settings {
		if len(s.Values) > 0 {
			if _, err := s.check(s.Get(c)); err != nil {
				return err
			}
		}
	}
	switch c.Embed.Provider {
	case "model2vec":
		if c.Embed.Model == "" {
			return fmt.Errorf("embedding provider model2vec needs the model directory in embed.model (CTX_EMBED_MODEL)")
		}
	case "onnx":
		if c.Embed.Model == "" || c.Embed.Library == "" {
			return fmt.Errorf("embedding provider onnx needs the model directory (model.onnx, tokenizer.json) in embed.model (CTX_EMBED_MODEL) and the ONNX Runtime library in embed.onnxruntime_lib (CTX_ONNXRUNTIME_LIB)")
		}
	}
	if c.Rerank.Provider == "tei" && c.Rerank.URL == "" {
		return fmt.Errorf("reranker tei needs the server's address in rerank.url (CTX_RERANK_URL)")
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
	if c.LLM.MaxTokens < 0 || c.LLM.Timeout < 0 || c.Rerank.TopN < 0 || c.Rerank.Timeout < 0 {
		return fmt.Errorf("negative LLM or reranker limit")
	}
	return nil
}
