// Package engine is the one facade the CLI and the MCP server call: it
// resolves the indexed root and its database, checks the index identity,
// and runs index, find and status.
package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/builtin"
	"github.com/ctx-dev/ctx/internal/embed/ollama"
	"github.com/ctx-dev/ctx/internal/embed/onnx"
	"github.com/ctx-dev/ctx/internal/embed/openai"
	"github.com/ctx-dev/ctx/internal/embed/static"
	"github.com/ctx-dev/ctx/internal/embed/voyage"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/rerank"
	"github.com/ctx-dev/ctx/internal/store"
)

// ErrNotIndexed means the root has no index yet; the fix is `ctx index`.
var ErrNotIndexed = errors.New("not indexed")

// ErrStale means the index was built with another schema, chunker or
// embedding model; the fix is `ctx index`, which rebuilds it.
var ErrStale = errors.New("index is stale")

// Engine serves one indexed root.
type Engine struct {
	cfg    config.Config
	root   string // absolute, symlink-resolved
	dbPath string
	log    *slog.Logger
	emb    embed.Provider // nil: lexical-only

	keepOpen bool
	mu       sync.Mutex  // guards h and watch
	h        *handle     // kept database handle (keepOpen only)
	watch    *watching   // the running watcher ([Engine.Watch]), or nil
	cache    *queryCache // answers of repeated requests (keepOpen only)
	// bg counts the chunk-table updates running in the background
	// ([Engine.advanceLater]); Close waits for them.
	bg   sync.WaitGroup
	ml   models // the optional LLM and reranker, built on first use
	opts Options
	// sizeChecked is set once [Engine.CheckFirstIndex] has let the root
	// through, so a watcher's check and its first run walk it once.
	sizeChecked atomic.Bool
}

// Options configures [Open]; nil means defaults.
type Options struct {
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger
	// Embedder overrides the provider chosen by the config (tests use the
	// deterministic fake).
	Embedder embed.Provider
	// KeepOpen keeps a read-only database handle and the loaded vectors
	// between queries, for long-lived servers; call [Engine.Close] when
	// done. Each query still sees the last committed index generation.
	KeepOpen bool
	// NoAdapted ignores the repository's adapted model ([Engine.Adapt])
	// and uses the configured provider as is (ctx train, which replaces
	// or removes that model, opens the engine so).
	NoAdapted bool
	// LLM and Reranker override the clients the configuration would build
	// (tests use fakes); the configuration still says whether the layer is
	// on (config.LLM.Provider, config.Rerank.Provider).
	LLM      llm.Client
	Reranker rerank.Reranker
}

// Open resolves root (made absolute and symlink-resolved; it must be an
// existing directory) and prepares an engine for it. It does not open the
// database. Errors: a root that does not exist or is not a directory, a
// provider that cannot be configured.
func Open(cfg config.Config, root string, opts *Options) (*Engine, error) {
	if opts == nil {
		opts = &Options{}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", root, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("opening root: %w", err)
	}
	if !fi.IsDir() {
		return nil, Errorf(ErrInvalidArgument, "opening root %s: not a directory", abs)
	}
	e := &Engine{cfg: cfg, root: abs, dbPath: store.PathFor(cfg.CacheDir, abs), log: opts.Logger, emb: opts.Embedder, keepOpen: opts.KeepOpen, opts: *opts}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.emb == nil {
		e.emb, err = newProvider(cfg.Embed)
		if err != nil {
			return nil, err
		}
		if cfg.Embed.Provider == builtin.ProviderName && !opts.NoAdapted {
			// A model fine-tuned on this repository (ctx train) replaces
			// the built-in one; its identity makes the next index run
			// rebuild an index built without it.
			p, err := loadAdapted(e.AdaptedModelPath())
			if err != nil {
				return nil, err
			}
			if p != nil {
				e.emb = p
			}
		}
	}
	if e.keepOpen {
		// The identity (model) is part of each key; the configuration's
		// other answer-changing settings are this fingerprint.
		e.cache = newQueryCache(configFingerprint([]any{cfg.MaxQueryBytes, cfg.Embed.QueryTimeout, cfg.Exclude, cfg.IncludeSecrets, cfg.MaxFileBytes}))
	}
	return e, nil
}

// QueryCache reports the query cache's use, nil for an engine without
// one (only [Options.KeepOpen] engines have one).
func (e *Engine) QueryCache() *CacheStats {
	if e.cache == nil {
		return nil
	}
	st := e.cache.stats()
	return &st
}

// Root returns the indexed root (absolute).
func (e *Engine) Root() string { return e.root }

// DBPath returns where the root's index database lives.
func (e *Engine) DBPath() string { return e.dbPath }

// Config returns the configuration the engine was opened with.
func (e *Engine) Config() config.Config { return e.cfg }

func newProvider(c config.Embed) (embed.Provider, error) {
	switch c.Provider {
	case "", "none":
		return nil, nil
	case builtin.ProviderName:
		p, err := builtin.New()
		if err != nil {
			return nil, fmt.Errorf("loading the built-in model: %w", err)
		}
		return p, nil
	case "ollama":
		p, err := ollama.New(ollama.Options{BaseURL: c.BaseURL, Model: cmp.Or(c.Model, "nomic-embed-text"), Dims: c.Dims, BatchSize: c.BatchSize})
		if err != nil {
			return nil, fmt.Errorf("configuring ollama: %w", err)
		}
		return p, nil
	case "openai":
		p, err := openai.New(openai.Options{BaseURL: c.BaseURL, Model: cmp.Or(c.Model, "text-embedding-3-small"), Dims: c.Dims, BatchSize: c.BatchSize, APIKey: c.APIKey})
		if err != nil {
			return nil, fmt.Errorf("configuring openai: %w", err)
		}
		return p, nil
	case "voyage":
		// Voyage's models take their length as output_dimension, so a
		// configured length is asked for rather than only checked.
		p, err := voyage.New(voyage.Options{BaseURL: c.BaseURL, Model: c.Model, Dims: c.Dims, SendDims: c.Dims > 0, BatchSize: c.BatchSize, APIKey: c.APIKey})
		if err != nil {
			return nil, fmt.Errorf("configuring voyage: %w", err)
		}
		return p, nil
	case "model2vec":
		// Model is the model directory; its base name names the model,
		// and the weights' checksum in the identity marks an index built
		// with other weights as stale.
		m, err := static.LoadModel2Vec(c.Model)
		if err != nil {
			return nil, fmt.Errorf("loading model2vec model %s: %w", c.Model, err)
		}
		return static.New(m, filepath.Base(c.Model)), nil
	case "onnx":
		p, err := onnx.New(onnx.Options{ModelDir: c.Model, LibraryPath: c.Library})
		if err != nil {
			return nil, fmt.Errorf("loading onnx model %s: %w", c.Model, err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown embedding provider %q", c.Provider)
}

// Identity describes what an index was built with: schema, chunker and
// analyzer versions and the embedding model.
type Identity struct {
	Schema   int    `json:"schema"`
	Chunker  int    `json:"chunker"`
	Analyzer int    `json:"analyzer"`
	Model    string `json:"model"` // embedding model identity, "none" when lexical-only
	Hash     string `json:"hash"`  // first 16 hex digits of SHA-256 over the three
}

// Identity returns the identity this engine writes into an index it
// builds (an index with another one is rebuilt by [Engine.Index]).
func (e *Engine) Identity() Identity {
	id := Identity{Schema: store.SchemaVersion, Chunker: chunk.Version, Analyzer: analyze.Version, Model: "none"}
	if e.emb != nil {
		id.Model = e.emb.Model().String()
	}
	sum := sha256.Sum256([]byte(strconv.Itoa(id.Schema) + "\x00" + strconv.Itoa(id.Chunker) + "\x00" + strconv.Itoa(id.Analyzer) + "\x00" + id.Model))
	id.Hash = hex.EncodeToString(sum[:8])
	return id
}

// ensureDims makes the provider learn its vector length before the
// identity is computed: a provider configured with Dims 0 reports 0 until
// its first response, and an identity taken then would change after it.
// It asks the provider (one Embed call), so only building an index uses
// it; queries, lookups and status take the length stored in the index
// ([Engine.storedDims]) and never call the provider for it.
func (e *Engine) ensureDims(ctx context.Context) error {
	if e.emb == nil || e.emb.Model().Dims > 0 {
		return nil
	}
	if _, err := e.emb.Embed(ctx, []string{"dimension probe"}, embed.Query); err != nil {
		return fmt.Errorf("probing the embedding model's dimensions: %w", err)
	}
	return nil
}

// openDB opens the root's database for indexing (created and migrated
// when needed) or, with readOnly, for queries: then a missing database is
// [ErrNotIndexed] and nothing is written, so queries never wait for or
// block an index run. A database or directory it cannot open or write is
// [ErrCacheDir].
func (e *Engine) openDB(ctx context.Context, readOnly bool) (*store.DB, error) {
	db, err := store.Open(ctx, e.dbPath, &store.Options{ReadOnly: readOnly, MustExist: readOnly, Resident: readOnly && e.keepOpen})
	switch {
	case errors.Is(err, store.ErrNotIndexed):
		return nil, fmt.Errorf("%w: %s has no index; run `ctx index`", ErrNotIndexed, e.root)
	case errors.Is(err, store.ErrAccess):
		return nil, cacheDirErr(dirOf(e.dbPath), err)
	}
	return db, err
}

// checkIdentity compares the stored identity with this build's.
func (e *Engine) checkIdentity(ctx context.Context, db *store.DB) (stored string, ok bool, err error) {
	stored, err = db.Meta(ctx, store.MetaIdentity)
	if err != nil {
		return "", false, err
	}
	return stored, stored == e.Identity().Hash, nil
}

func walkOptions(cfg config.Config) *discover.Options {
	return &discover.Options{MaxFileBytes: cfg.MaxFileBytes, IncludeSecrets: cfg.IncludeSecrets, Exclude: cfg.Exclude}
}

// Semantic reports whether the engine has an embedding model (the dense
// channel is on).
func (e *Engine) Semantic() bool { return e.emb != nil }
