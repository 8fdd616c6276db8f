package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// DryRunOptions configures [Engine.DryRun].
type DryRunOptions struct {
	// Rebuild estimates a run that discards the existing index first
	// (ctx index --rebuild): every file is indexed and every text sent.
	Rebuild bool
}

// DryRunReport is what an index run would do and send, from
// [Engine.DryRun]. Its JSON form is the output of `ctx index --dry-run
// --json`; fields are only ever added.
type DryRunReport struct {
	// Root is the indexed root (absolute).
	Root string `json:"root"`
	// Provider and Model name the embedding model ("none" and "" when
	// indexing is lexical-only).
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Local is set when embedding costs nothing: the provider runs in
	// process or on this machine ([spend.Local]), or there is none.
	Local bool `json:"local"`
	// Rebuild is set when the run would build the index anew (none yet,
	// another identity, or [DryRunOptions].Rebuild).
	Rebuild bool `json:"rebuild"`
	// Files counts the files the walk found, by what the run would do.
	Files DryRunFiles `json:"files"`
	// Skips counts the skipped files per reason.
	Skips map[string]int `json:"skips"`
	// Chunks is the number of chunks the run would write.
	Chunks int `json:"chunks"`
	// TextsToEmbed is the number of texts the run would send to the
	// provider; TextsCached those it would find in the embedding cache.
	TextsToEmbed int `json:"texts_to_embed"`
	TextsCached  int `json:"texts_cached"`
	// Requests is the number of embedding requests (batches of
	// config.Embed.BatchSize texts per file).
	Requests int `json:"requests"`
	// Tokens counts the texts to embed, with the provider's prefixes, in
	// [tokens.Encoding] tokens (other tokenizers differ by a few percent).
	Tokens int `json:"tokens"`
	// Encoding names the tokenizer of Tokens.
	Encoding string `json:"encoding"`
	// Price is the price used for the estimate.
	Price DryRunPrice `json:"price"`
	// EstimatedUSD is the run's estimated cost in US dollars (0 when local
	// or when the price is unknown).
	EstimatedUSD float64 `json:"estimated_usd"`
	// DaySpentUSD is what embedding cost today (UTC) over all processes;
	// DayCapUSD and RunCapUSD are the embedding caps (0: none).
	DaySpentUSD float64 `json:"day_spent_usd"`
	DayCapUSD   float64 `json:"day_cap_usd"`
	RunCapUSD   float64 `json:"run_cap_usd"`
	// WithinCaps is false when the estimate would pass a cap: the run
	// would stop there.
	WithinCaps bool `json:"within_caps"`
}

// DryRunFiles counts files by what an index run would do with them.
type DryRunFiles struct {
	// ToIndex are new or changed files the run would chunk and write.
	ToIndex int `json:"to_index"`
	// Unchanged are indexed files whose size and mtime, or content,
	// match.
	Unchanged int `json:"unchanged"`
	// Skipped are files skipped by the walk or for their content.
	Skipped int `json:"skipped"`
}

// Price sources of a [DryRunPrice] besides spend.SourceBuiltin and
// spend.SourceOverride.
const (
	PriceLocal   = "local provider"
	PriceUnknown = "unknown"
)

// DryRunPrice is a price per million input tokens in US dollars, and
// where it comes from: spend.SourceBuiltin, spend.SourceOverride
// (CTX_PRICES), [PriceLocal] or [PriceUnknown].
type DryRunPrice struct {
	InPerMTok float64 `json:"in_per_mtok"`
	Source    string  `json:"source"`
}

// DryRun reports what [Engine.Index] would do now, without doing it: it
// walks, reads and chunks the files as an index run would, builds the
// texts the run would embed and leaves out those already in the
// embedding cache, and counts their tokens. It makes no request to the
// embedding provider, writes no index and takes no lock; a missing index
// is treated as an empty one. Errors: [discover.ErrUnsafeRoot], the walk
// of the root, the store, the spend ledger, ctx.
func (e *Engine) DryRun(ctx context.Context, opts DryRunOptions) (*DryRunReport, error) {
	if err := discover.CheckRoot(e.root, e.cfg.Home, e.cfg.Force); err != nil {
		return nil, err
	}
	rep := &DryRunReport{Root: e.root, Provider: "none", Local: !e.remoteEmbed(), Rebuild: opts.Rebuild,
		Encoding: tokens.Encoding, Skips: map[string]int{}, WithinCaps: true}
	rep.RunCapUSD, rep.DayCapUSD, _, _ = spend.Caps(e.cfg.Spend, spend.Embed)
	if e.emb != nil {
		m := e.emb.Model()
		rep.Provider, rep.Model = m.Provider, m.Name
	}

	db, err := e.openDB(ctx, true)
	switch {
	case errors.Is(err, ErrNotIndexed):
		db, rep.Rebuild = nil, true
	case err != nil:
		return nil, err
	default:
		defer db.Close()
	}
	if db != nil && !rep.Rebuild {
		// The length an index of this model was built with, so the cache
		// keys below are the run's; the provider is not asked.
		if err := e.storedDims(ctx, db); err != nil {
			return nil, err
		}
		kv, err := db.MetaAll(ctx)
		if err != nil {
			return nil, err
		}
		hd, id := headOf(kv), e.Identity()
		foreign := hd.stored != "" && hd.stored != id.Hash
		foreignPartial := hd.stored == "" && hd.running && kv[metaRunIdentity] != "" && kv[metaRunIdentity] != id.Hash
		// Index writes a rebuild into a new database: nothing is cached.
		rep.Rebuild = foreign || foreignPartial
	}

	var (
		todo   []discover.File
		skips  []discover.Skip
		stored map[string]store.FileState
		known  map[string]bool
	)
	if rep.Rebuild {
		walk, err := discover.Walk(ctx, e.root, walkOptions(e.cfg))
		if err != nil {
			return nil, fmt.Errorf("walking %s: %w", e.root, err)
		}
		todo, skips = walk.Files, walk.Skips
	} else {
		plan, err := index.NewPlan(ctx, db, e.root, walkOptions(e.cfg))
		if err != nil {
			return nil, err
		}
		todo, skips, rep.Files.Unchanged = plan.Todo, plan.Skips, plan.Unchanged
		if stored, err = db.FileStates(ctx); err != nil {
			return nil, err
		}
		if e.emb != nil && len(todo) > 0 {
			if known, err = db.EmbeddingKeys(ctx, 0); err != nil {
				return nil, err
			}
		}
	}

	est := make([]fileEstimate, len(todo))
	chunker := chunk.New(nil)
	prefixes := e.embedPrefixes()
	batch := e.cfg.Embed.BatchSize
	if batch <= 0 {
		batch = 64 // index.Options.EmbedBatch's default
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range todo {
		g.Go(func() error {
			r, err := e.estimateFile(gctx, f, stored, chunker, known, prefixes, batch)
			est[i] = r
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, s := range skips {
		rep.Skips[string(s.Reason)]++
	}
	rep.Files.Skipped = len(skips)
	for _, r := range est {
		switch {
		case r.skip != "":
			rep.Skips[string(r.skip)]++
			rep.Files.Skipped++
		case r.unchanged:
			rep.Files.Unchanged++
		default:
			rep.Files.ToIndex++
		}
		rep.Chunks += r.chunks
		rep.TextsToEmbed += r.texts
		rep.TextsCached += r.cached
		rep.Tokens += r.tokens
		rep.Requests += r.requests
	}
	return rep, e.priceDryRun(ctx, rep)
}

// priceDryRun fills in rep's price, estimate, the day's spend and
// whether the estimate fits the caps.
func (e *Engine) priceDryRun(ctx context.Context, rep *DryRunReport) error {
	if rep.Local {
		rep.Price = DryRunPrice{Source: PriceLocal}
		return nil
	}
	p, source, ok := spend.LookupSource(e.cfg.Spend, rep.Model)
	if !ok {
		rep.Price = DryRunPrice{Source: PriceUnknown}
	} else {
		rep.Price = DryRunPrice{InPerMTok: p.InPerMTok, Source: source}
		rep.EstimatedUSD = spend.Cost(p, rep.Tokens, 0, rep.Requests)
	}
	today, err := spend.NewMeter(e.cfg.Spend, e.cfg.CacheDir).Today(ctx, spend.Embed)
	if err != nil {
		return err
	}
	rep.DaySpentUSD = today.USD
	if rep.RunCapUSD > 0 && rep.EstimatedUSD > rep.RunCapUSD || rep.DayCapUSD > 0 && rep.DaySpentUSD+rep.EstimatedUSD > rep.DayCapUSD {
		rep.WithinCaps = false
	}
	return nil
}

// fileEstimate is what an index run would do with one file of its plan.
type fileEstimate struct {
	skip      discover.Reason // skipped for this reason, or ""
	unchanged bool            // content unchanged: only its mtime is refreshed
	chunks    int
	texts     int // texts sent to the provider
	cached    int // texts found in the embedding cache
	tokens    int // tokens of the texts sent, prefixes included
	requests  int
}

// estimateFile does to f what the index pipeline's per-file step does
// (internal/index processFile: read, compare the content hash, sniff,
// detect the language, mask secrets, chunk, build each chunk's
// [index.EmbedText] and its cache key, leave out the keys the store holds
// and the file's repeats) and counts the result instead of writing it.
// Only a chunker failure or ctx is an error, as in a run.
func (e *Engine) estimateFile(ctx context.Context, f discover.File, stored map[string]store.FileState, chunker *chunk.Chunker,
	known map[string]bool, prefixes embed.Prefixes, batch int) (fileEstimate, error) {
	p, skip, unchanged, err := index.Prepare(ctx, f, stored, chunker, e.cfg.IncludeSecrets)
	switch {
	case err != nil:
		return fileEstimate{}, err
	case skip != nil:
		return fileEstimate{skip: skip.Reason}, nil
	case unchanged:
		return fileEstimate{unchanged: true}, nil
	}
	src, cf := p.Src, p.Chunked
	r := fileEstimate{chunks: len(cf.Chunks)}
	if e.emb == nil || len(cf.Chunks) == 0 {
		return r, nil
	}
	m := e.emb.Model()
	queued := map[[embed.KeyBytes]byte]bool{}
	var send []string
	for _, c := range cf.Chunks {
		text := index.EmbedText(f.Path, c, string(src[c.StartByte:c.EndByte]))
		k := embed.CacheKey(m, text)
		switch {
		case queued[k]:
		case known[string(k[:])]:
			r.cached++
		default:
			queued[k] = true
			send = append(send, text)
		}
	}
	r.texts = len(send)
	r.tokens = embedTokens(prefixes, send, embed.Document)
	r.requests = (len(send) + batch - 1) / batch
	return r, nil
}
