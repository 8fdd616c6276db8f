package config

import "time"

// settings is the one table of ctx's settings (see [Setting] for how to
// add one). Order is the order of `ctx config ls` and README: top-level
// keys first, then by section.
var settings = []*Setting{
	{
		Key: "cache_dir", Env: "CTX_CACHE_DIR", Flag: "--cache-dir", Kind: KindString,
		DefaultDoc: "the user cache directory/ctx ($XDG_CACHE_HOME/ctx)",
		Doc:        "where index databases, the embedding cache and the daily spend ledger live",
		Trust:      true, IsPath: always,
		Field: func(c *Config) any { return &c.CacheDir },
	},
	{
		Key: "log_level", Env: "CTX_LOG_LEVEL", Flag: "--verbose (debug)", Kind: KindString,
		Default: "warn", Values: []string{"debug", "info", "warn", "error"}, What: "log level",
		Doc:   "the lowest level of log records written to stderr",
		Field: func(c *Config) any { return &c.LogLevel },
	},

	{
		Key: "index.exclude", Env: "CTX_EXCLUDE", Kind: KindList, Want: "want a list of strings",
		Doc:   "extra gitignore-syntax patterns to leave out, relative to the root",
		Field: func(c *Config) any { return &c.Exclude },
	},
	{
		Key: "index.max_file_bytes", Env: "CTX_MAX_FILE_BYTES", Kind: KindBytes,
		Default: int64(1 << 20), Min: Positive, Want: "want a positive number of bytes",
		Doc:   "files larger than this are skipped (an integer, or with KiB, MiB, GiB)",
		Field: func(c *Config) any { return &c.MaxFileBytes },
	},
	{
		Key: "index.include_secrets", Env: "CTX_INCLUDE_SECRETS", Kind: KindBool,
		Want: "want true or false", Trust: true,
		Doc:   "index secret files (.env, keys) and leave detected secrets unmasked",
		Field: func(c *Config) any { return &c.IncludeSecrets },
	},
	{
		Key: "index.non_repo_max_files", Env: "CTX_NON_REPO_MAX_FILES", Kind: KindInt,
		Default: DefaultNonRepoMaxFiles, Min: Positive, Want: "want a positive number of files",
		Doc:   "a root outside any git work tree, with no index, is indexed only when it holds at most this many files (else --force)",
		Field: func(c *Config) any { return &c.NonRepoMaxFiles },
	},

	{
		Key: "limits.max_query_bytes", Env: "CTX_MAX_QUERY_BYTES", Kind: KindInt,
		Default: DefaultMaxQueryBytes, Min: Positive, Want: "want a positive number of bytes",
		Doc:   "a longer query is searched by its first this many bytes, with a warning",
		Field: func(c *Config) any { return &c.MaxQueryBytes },
	},
	{
		Key: "limits.request_timeout", Env: "CTX_REQUEST_TIMEOUT", Kind: KindDuration,
		Default: DefaultRequestTimeout, Min: Positive, Want: "want a positive duration such as 10s or 500ms",
		Doc:   "per-request deadline: past it an answer returns what was found so far, marked partial",
		Field: func(c *Config) any { return &c.RequestTimeout },
	},

	{
		Key: "embed.provider", Env: "CTX_EMBED_PROVIDER", Kind: KindString,
		Default: "builtin", Values: []string{"builtin", "none", "ollama", "openai", "voyage", "model2vec", "onnx"}, What: "embedding provider",
		Doc: "the embedding model's provider", Trust: true,
		Field: func(c *Config) any { return &c.Embed.Provider },
	},
	{
		Key: "embed.model", Env: "CTX_EMBED_MODEL", Kind: KindString,
		DefaultDoc: "the provider's; for model2vec and onnx, the model directory",
		Doc:        "the model name, or the local model directory",
		IsPath:     localModel,
		Field:      func(c *Config) any { return &c.Embed.Model },
	},
	{
		Key: "embed.url", Env: "CTX_EMBED_URL", Kind: KindString,
		DefaultDoc: "the provider's", Doc: "the embedding service's base URL", Trust: true,
		Field: func(c *Config) any { return &c.Embed.BaseURL },
	},
	{
		Key: "embed.api_key", Env: "CTX_EMBED_API_KEY", Kind: KindString, Secret: true,
		Doc:      "the embedding service's key (else OPENAI_API_KEY, or VOYAGE_API_KEY for voyage)",
		AuthFor:  func(c *Config) string { return c.Embed.Provider },
		AuthHint: "openai|voyage",
		FallbackEnv: func(c *Config) string {
			if c.Embed.Provider == "voyage" {
				return "VOYAGE_API_KEY"
			}
			return "OPENAI_API_KEY"
		},
		Field: func(c *Config) any { return &c.Embed.APIKey },
	},
	{
		Key: "embed.dims", Env: "CTX_EMBED_DIMS", Kind: KindInt,
		Min: NonNegative, Want: "want a non-negative integer",
		Doc:   "vector length; 0 learns it from the first response",
		Field: func(c *Config) any { return &c.Embed.Dims },
	},
	{
		Key: "embed.batch", Env: "CTX_EMBED_BATCH", Kind: KindInt,
		Default: 64, Min: Positive, Want: "want a positive integer",
		Doc:   "texts per embedding request",
		Field: func(c *Config) any { return &c.Embed.BatchSize },
	},
	{
		Key: "embed.query_timeout", Env: "CTX_EMBED_QUERY_TIMEOUT", Kind: KindDuration,
		Default: DefaultQueryTimeout, Min: Positive, Want: "want a positive duration such as 2s or 500ms",
		Doc:   "past it a query is answered from the lexical channels, marked degraded",
		Field: func(c *Config) any { return &c.Embed.QueryTimeout },
	},
	{
		Key: "embed.onnxruntime_lib", Env: "CTX_ONNXRUNTIME_LIB", Kind: KindString,
		Doc:   "the ONNX Runtime shared library (≥ 1.24) the onnx provider loads",
		Trust: true, IsPath: always,
		Field: func(c *Config) any { return &c.Embed.Library },
	},

	{
		Key: "watch.debounce", Env: "CTX_WATCH_DEBOUNCE", Flag: "--debounce", Kind: KindDuration,
		Default: DefaultWatchDebounce, Min: Positive, Want: "want a positive duration such as 300ms or 1s",
		Doc:   "quiet time after the last file event before a watcher indexes",
		Field: func(c *Config) any { return &c.WatchDebounce },
	},
	{
		Key: "watch.fresh_wait", Env: "CTX_FRESH_WAIT", Kind: KindDuration,
		Default: DefaultFreshWait, Min: NonNegative, Want: "want a duration such as 1s, 200ms or 0s",
		Doc:   "how long a query to a watching server waits for earlier edits to be indexed",
		Field: func(c *Config) any { return &c.FreshWait },
	},

	{
		Key: "server.http", Env: "CTX_SERVER_HTTP", Flag: "--http", Kind: KindString,
		Default: DefaultHTTPAddr,
		Doc:     "the address ctx serve listens on (any but loopback needs a token)",
		Field:   func(c *Config) any { return &c.Server.HTTP },
	},
	{
		Key: "server.tools", Env: "CTX_SERVER_TOOLS", Flag: "--tools", Kind: KindString,
		Default: "default", Values: []string{"default", "all"}, What: "tool set",
		Doc:   "the MCP tools ctx mcp and ctx serve offer",
		Field: func(c *Config) any { return &c.Server.Tools },
	},
	{
		Key: "server.watch", Env: "CTX_SERVER_WATCH", Flag: "--no-watch (false)", Kind: KindBool,
		Default: true, Want: "want true or false",
		Doc:   "ctx mcp and ctx serve watch the repository and keep its index fresh",
		Field: func(c *Config) any { return &c.Server.Watch },
	},
	{
		Key: "server.token", Env: "CTX_MCP_TOKEN", Flag: "--token", Kind: KindString, Secret: true,
		Doc:      "the bearer token ctx serve requires",
		AuthFor:  func(*Config) string { return "mcp" },
		AuthHint: "mcp",
		Field:    func(c *Config) any { return &c.MCPToken },
	},

	{
		Key: "llm.provider", Env: "CTX_LLM_PROVIDER", Kind: KindString,
		Values: []string{"", "openai", "anthropic", "ollama"}, What: "LLM provider",
		DefaultDoc: "(none: off)", Doc: "the optional LLM (query decomposition, summaries, ctx answer)", Trust: true,
		Field: func(c *Config) any { return &c.LLM.Provider },
	},
	{
		Key: "llm.url", Env: "CTX_LLM_URL", Kind: KindString,
		DefaultDoc: "the provider's", Doc: "the LLM's API root (ending in /v1 for OpenAI-compatible servers)", Trust: true,
		Field: func(c *Config) any { return &c.LLM.URL },
	},
	{
		Key: "llm.model", Env: "CTX_LLM_MODEL", Kind: KindString,
		DefaultDoc: "the provider's", Doc: "the LLM's model name",
		Field: func(c *Config) any { return &c.LLM.Model },
	},
	{
		Key: "llm.api_key", Env: "CTX_LLM_API_KEY", Kind: KindString, Secret: true,
		Doc:      "the LLM's key (else OPENAI_API_KEY or ANTHROPIC_API_KEY)",
		AuthFor:  func(c *Config) string { return c.LLM.Provider },
		AuthHint: "openai|anthropic",
		FallbackEnv: func(c *Config) string {
			switch c.LLM.Provider {
			case "openai":
				return "OPENAI_API_KEY"
			case "anthropic":
				return "ANTHROPIC_API_KEY"
			}
			return ""
		},
		Field: func(c *Config) any { return &c.LLM.APIKey },
	},
	{
		Key: "llm.timeout", Env: "CTX_LLM_TIMEOUT", Kind: KindDuration,
		Default: DefaultLLMTimeout, Min: Positive, Want: "want a positive duration such as 3s or 500ms",
		Doc:   "bound on one LLM request",
		Field: func(c *Config) any { return &c.LLM.Timeout },
	},
	{
		Key: "llm.max_tokens", Env: "CTX_LLM_MAX_TOKENS", Kind: KindInt,
		Default: DefaultLLMMaxTokens, Min: Positive, Want: "want a positive number of tokens",
		Doc:   "cap on the tokens the LLM writes per request",
		Field: func(c *Config) any { return &c.LLM.MaxTokens },
	},

	{
		Key: "rerank.provider", Env: "CTX_RERANK_PROVIDER", Kind: KindString,
		Values: []string{"", "cohere", "jina", "voyage", "tei"}, What: "reranker",
		DefaultDoc: "(none: off)", Doc: "the optional reranker of the first results", Trust: true,
		Field: func(c *Config) any { return &c.Rerank.Provider },
	},
	{
		Key: "rerank.url", Env: "CTX_RERANK_URL", Kind: KindString,
		DefaultDoc: "the provider's (tei: none)", Doc: "the reranker's API root", Trust: true,
		Field: func(c *Config) any { return &c.Rerank.URL },
	},
	{
		Key: "rerank.model", Env: "CTX_RERANK_MODEL", Kind: KindString,
		DefaultDoc: "the provider's", Doc: "the reranker's model name",
		Field: func(c *Config) any { return &c.Rerank.Model },
	},
	{
		Key: "rerank.api_key", Env: "CTX_RERANK_API_KEY", Kind: KindString, Secret: true,
		Doc:      "the reranker's key",
		AuthFor:  func(c *Config) string { return c.Rerank.Provider },
		AuthHint: "cohere|jina|voyage",
		Field:    func(c *Config) any { return &c.Rerank.APIKey },
	},
	{
		Key: "rerank.top_n", Env: "CTX_RERANK_TOP_N", Kind: KindInt,
		Default: DefaultRerankTopN, Min: Positive, Want: "want a positive number of results",
		Doc:   "how many of the first results are reranked",
		Field: func(c *Config) any { return &c.Rerank.TopN },
	},
	{
		Key: "rerank.timeout", Env: "CTX_RERANK_TIMEOUT", Kind: KindDuration,
		Default: DefaultRerankTimeout, Min: Positive, Want: "want a positive duration such as 3s or 500ms",
		Doc:   "past it results keep the search's order",
		Field: func(c *Config) any { return &c.Rerank.Timeout },
	},

	{
		Key: "spend.prices", Env: "CTX_PRICES", Kind: KindPrices,
		Want: "want model=in/out[/request],…", Trust: true,
		DefaultDoc: "the built-in table",
		Doc:        "prices in USD per million input and output tokens and per request, over the built-in table",
		Field:      func(c *Config) any { return &c.Spend.Prices },
	},
	spendCap("spend.embed_run", "CTX_SPEND_EMBED_RUN", 0, "embedding spend per run", func(c *Config) any { return &c.Spend.EmbedRun }),
	spendCap("spend.embed_day", "CTX_SPEND_EMBED_DAY", DefaultEmbedDayUSD, "embedding spend per UTC day", func(c *Config) any { return &c.Spend.EmbedDay }),
	spendCap("spend.rerank_run", "CTX_SPEND_RERANK_RUN", 0, "rerank spend per run", func(c *Config) any { return &c.Spend.RerankRun }),
	spendCap("spend.rerank_day", "CTX_SPEND_RERANK_DAY", DefaultRerankDayUSD, "rerank spend per UTC day", func(c *Config) any { return &c.Spend.RerankDay }),
	spendCap("spend.llm_run", "CTX_SPEND_LLM_RUN", 0, "LLM spend per run", func(c *Config) any { return &c.Spend.LLMRun }),
	spendCap("spend.llm_day", "CTX_SPEND_LLM_DAY", DefaultLLMDayUSD, "LLM spend per UTC day", func(c *Config) any { return &c.Spend.LLMDay }),

	{
		Key: "backend.name", Env: "CTX_BACKEND", Flag: "--backend", Kind: KindString,
		Default: "local", Values: Backends, What: "backend",
		Doc: "where the index is kept and searched", Trust: true,
		Field: func(c *Config) any { return &c.Backend.Name },
	},

	{
		Key: "weaviate.url", Env: "CTX_WEAVIATE_URL", Kind: KindString,
		Doc: "the Weaviate server's base URL", Trust: true,
		Field: func(c *Config) any { return &c.Backend.Weaviate.URL },
	},
	{
		Key: "weaviate.api_key", Env: "CTX_WEAVIATE_API_KEY", Kind: KindString, Secret: true,
		Doc:      "the Weaviate server's key (empty: anonymous)",
		AuthFor:  func(*Config) string { return "weaviate" },
		AuthHint: "weaviate",
		Field:    func(c *Config) any { return &c.Backend.Weaviate.APIKey },
	},
	{
		Key: "weaviate.tenant", Env: "CTX_WEAVIATE_TENANT", Kind: KindString,
		DefaultDoc: "from the origin URL, else the root", Doc: "the repository's tenant", Trust: true,
		Field: func(c *Config) any { return &c.Backend.Tenant },
	},
	{
		Key: "weaviate.replicas", Env: "CTX_WEAVIATE_REPLICAS", Kind: KindInt,
		Default: 1, Min: Positive, Want: "want a positive number",
		Doc:   "replication factor of the collections ctx creates",
		Field: func(c *Config) any { return &c.Backend.Replicas },
	},
	{
		Key: "weaviate.prefix", Env: "CTX_WEAVIATE_PREFIX", Kind: KindString,
		DefaultDoc: "Ctx", Doc: "the start of ctx's collection names", Trust: true,
		Field: func(c *Config) any { return &c.Backend.Prefix },
	},
}

func spendCap(key, env string, def float64, what string, field func(*Config) any) *Setting {
	return &Setting{
		Key: key, Env: env, Kind: KindUSD, Default: def, Min: NonNegative,
		Want:  "want a non-negative amount in US dollars (0: no cap)",
		Doc:   "cap on " + what + " (0: none)",
		Trust: true, Field: field,
	}
}

func always(*Config) bool { return true }

// localModel: embed.model is a directory for the providers that run a
// local model.
func localModel(c *Config) bool {
	return c.Embed.Provider == "model2vec" || c.Embed.Provider == "onnx"
}

// Defaults of the settings whose default is not spelled in the table
// alone.
const (
	// DefaultRequestTimeout is [Config].RequestTimeout by default.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultNonRepoMaxFiles is [Config].NonRepoMaxFiles by default.
	DefaultNonRepoMaxFiles = 20000
	// DefaultHTTPAddr is [Server].HTTP by default: loopback only.
	DefaultHTTPAddr = "127.0.0.1:8765"
)
