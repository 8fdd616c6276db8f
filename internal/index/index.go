// Package index is ctx's incremental index pipeline: discover → read →
// sniff → chunk → analyze → (embed) → store.
//
// A file whose size and mtime match the stored row is skipped without being
// read; one whose content hash matches only has its mtime refreshed; changed
// and new files are re-chunked; files gone from disk (or now skipped) are
// removed. Embeddings are content-addressed, so unchanged chunk text is never
// re-embedded. Reading and chunking run on GOMAXPROCS goroutines; one writer
// goroutine applies whole files in batched transactions.
package index

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/store"
)

// Options configures [Run]; nil means defaults.
type Options struct {
	// Discover configures the file walk.
	Discover *discover.Options
	// Chunker splits files; nil means chunk.New(nil).
	Chunker *chunk.Chunker
	// Embedder embeds chunks; nil indexes lexical-only.
	Embedder embed.Provider
	// EmbedBatch is the number of texts per embedding request (default 64).
	EmbedBatch int
	// Workers is the number of read+chunk goroutines (default GOMAXPROCS).
	Workers int
	// Progress, when set, is called from one goroutine after each file is
	// processed with the number done and the number to process.
	Progress func(done, total int)
	// Phase, when set, is called from the run's goroutine and its writer
	// (one at a time) as the run goes through its phases (see [Phase]).
	Phase func(Phase)
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger
	// Paths, when not nil, restricts the run to these slash paths below
	// the root (files or directories, as a watcher reports them; see
	// [NewPathPlan]): only they are walked, read and, when gone, deleted.
	Paths []string
	// Resume redoes the end-of-run work (import resolution) even when no
	// file changed: the previous run was interrupted after writing files,
	// or the database is new.
	Resume bool
	// Folded, when set, returns the stored blobs (embed.EncodeVector's
	// form) of those keys whose vectors the store folded into the vector
	// file (store.DB.FoldVectors) and a live chunk still names: a new
	// chunk of such a key gets that vector (stored again, with its file)
	// instead of being embedded again. Keys it does not return are
	// embedded. It is called from several goroutines.
	Folded func(keys [][]byte) map[string][]byte
	// WhileMerging, when set, runs in its own goroutine beside the merge
	// of the BM25 segments, once every content write of the run is
	// committed (the merge rewrites postings only, so what it reads is
	// what the run leaves). Run returns after it returns. The engine
	// writes the vector file there: on a cold index of the Go standard
	// library, 0.6 s of reading and writing vectors on the core the
	// 1.3 s merge leaves idle.
	WhileMerging func(ctx context.Context)
}

// Stats reports what one run did.
type Stats struct {
	// Discovered is the number of files the walk returned.
	Discovered int
	Added      int
	Changed    int
	Unchanged  int
	// Touched counts files whose mtime changed but whose content did not.
	Touched int
	Deleted int
	// Dirs holds the directories the run walked, with their modification
	// times before they were listed (a whole walk's, or a run of some
	// paths' directories on the way and below).
	Dirs []discover.Dir
	// Skips holds every skipped path with its reason, from the walk and
	// from content sniffing, sorted by path.
	Skips []discover.Skip
	// ContentSkips counts the skips of files the walk listed (so
	// Discovered counts them too): skipped for their content, or because
	// reading them failed (see [Stats.SkipShare]).
	ContentSkips int
	// Chunks is the number of chunks written.
	Chunks int
	// Embedded is the number of texts sent to the embedder (cache misses).
	Embedded int
	// Duration is the wall-clock time of the run.
	Duration time.Duration
	// Imports counts the index's import statements after the run; nil
	// when no file changed and the run resumed nothing (they were not
	// resolved again).
	Imports *ImportStats
}

// ImportStats counts import statements: all of them, those that should
// resolve inside the repository (graph.Resolution.Internal), and those of
// them that did.
type ImportStats struct {
	Total    int `json:"total"`
	Internal int `json:"internal"`
	Resolved int `json:"resolved"`
}

// resolveImports resolves every stored import, or only those scope names
// when it is not nil, against the stored files, the repository's go.mod
// module paths and its Cargo.toml crate names (read from disk).
func resolveImports(ctx context.Context, db *store.DB, root string, scope *store.ImportScope) (ImportStats, error) {
	files, err := db.ListFiles(ctx)
	if err != nil {
		return ImportStats{}, err
	}
	paths := make([]string, len(files))
	mods := map[string]string{}
	crates := map[string]string{}
	for i, f := range files {
		paths[i] = f.Path
		base := path.Base(f.Path)
		if base != "go.mod" && base != "Cargo.toml" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			continue
		}
		dir := path.Dir(f.Path)
		if dir == "." {
			dir = ""
		}
		if base == "Cargo.toml" {
			if n := graph.CrateName(src); n != "" {
				crates[dir] = n
			}
		} else if m := graph.ModulePath(src); m != "" {
			mods[dir] = m
		}
	}
	r := graph.NewResolver(paths, mods)
	r.SetCrateNames(crates)
	total, internal, resolved, err := db.ResolveImports(ctx, scope, func(im store.ImportRow) store.Resolution {
		res := r.Resolve(im.Path, im.Language, im.Spec)
		return store.Resolution{Target: res.Target, Internal: res.Internal}
	})
	return ImportStats{Total: total, Internal: internal, Resolved: resolved}, err
}

// importScope is what a run of some paths must resolve again: the
// imports of the files it wrote, every unresolved import when it added
// files (one may be the target), and every import resolving to a file it
// deleted or to that file's directory (a Go package). Nil (everything)
// when a manifest the resolver reads (go.mod, Cargo.toml) is among them.
func importScope(written, gone []string, added bool) *store.ImportScope {
	sc := &store.ImportScope{Files: written, Unresolved: added}
	for _, p := range append(slices.Clone(written), gone...) {
		if b := path.Base(p); b == "go.mod" || b == "Cargo.toml" {
			return nil
		}
	}
	for _, p := range gone {
		sc.Targets = append(sc.Targets, p, path.Dir(p))
	}
	return sc
}

// SkipCounts returns the number of skips per reason.
func (s *Stats) SkipCounts() map[string]int {
	m := map[string]int{}
	for _, k := range s.Skips {
		m[string(k.Reason)]++
	}
	return m
}

// writeBatchFiles caps how many files one transaction holds; a batch also
// closes when its chunk count passes writeBatchChunks. Each batch adds a
// BM25 segment that the run's end merges: measured on a cold index of the
// Go standard library, 4096 chunks a batch made 39 segments and a 3.2-3.7 s
// merge, 16384 make 10 and 2.6-2.7 s, and 1 s less CPU in all, for 50 MB
// more peak memory (166-170 MB -> 215-226 MB); the bound does not grow
// with the repository. The writer holds one batch while the next is
// gathered: ten copies of the Go tree peaked at 346 MB against 326 MB
// when the gathering waited, for 4 s less of a 151 s chunking phase.
const (
	writeBatchFiles  = 1024
	writeBatchChunks = 16384
)

// maxKnownKeys caps the embedding keys a run holds in one map (about 100
// bytes a key: 26 MB): the Go standard library's index has 107k, ten
// copies of it 1.07M, whose runs look their keys up per batch instead.
const maxKnownKeys = 1 << 18

// Run brings the index in db up to date with the files under root (an
// absolute, symlink-resolved directory). A bad file is skipped with a
// reason and never aborts the run; errors come only from the walk of the
// root itself, the store, the embedder, or ctx.
func Run(ctx context.Context, db *store.DB, root string, opts *Options) (*Stats, error) {
	start := time.Now()
	if opts == nil {
		opts = &Options{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	chunker := opts.Chunker
	if chunker == nil {
		chunker = chunk.New(nil)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	batchSize := opts.EmbedBatch
	if batchSize <= 0 {
		batchSize = 64
	}

	report(opts.Phase, Phase{Name: PhaseDiscover, Unit: "files"})
	plan, err := newPlan(ctx, db, root, opts.Discover, opts.Paths)
	if err != nil {
		return nil, err
	}
	report(opts.Phase, Phase{Name: PhaseDiscover, Done: plan.Discovered, Total: plan.Discovered, Unit: "files", End: true})
	report(opts.Phase, Phase{Name: PhaseChunk, Total: len(plan.Todo), Unit: "files"})
	stored, todo := plan.stored, plan.Todo
	if len(stored) == 0 && len(todo) > 0 {
		// A cold run: the name and import-target indexes are built once
		// at its end, from sorted keys (see store.DeferLookupIndexes).
		if _, err := db.DeferLookupIndexes(ctx); err != nil {
			return nil, err
		}
	}
	// Embeddings already stored, looked up by content key so unchanged
	// text is never embedded again. Read once: workers only read it, and
	// keys this run adds are deduplicated by the store.
	//
	// A run of some paths, or of an index with more than maxKnownKeys
	// embeddings, looks up only its own texts' keys instead, so memory
	// does not grow with the index.
	known := func(keys [][]byte) (map[string]bool, error) { return db.EmbeddingKeysIn(ctx, keys) }
	if opts.Embedder != nil && len(todo) > 0 && opts.Paths == nil {
		all, err := db.EmbeddingKeys(ctx, maxKnownKeys)
		if err != nil {
			return nil, err
		}
		if all != nil {
			known = func([][]byte) (map[string]bool, error) { return all, nil }
		}
	}
	st := &Stats{Discovered: plan.Discovered, Unchanged: plan.Unchanged, Skips: plan.Skips, ContentSkips: plan.ContentSkips, Dirs: plan.Dirs}
	deletes := make([]store.Update, len(plan.Gone))
	for i, p := range plan.Gone {
		deletes[i] = store.Update{File: store.File{Path: p}, Delete: true}
	}

	type result struct {
		file    discover.File
		update  *store.Update
		skip    *discover.Skip
		touch   bool
		mtime   int64
		changed bool
		texts   int
	}
	results := make(chan result, 2*workers)
	var (
		mu       sync.Mutex // guards touches and skips below
		touches  = map[string]int64{}
		skips    []discover.Skip
		embedded atomic.Int64
		// changedPaths lists the files rewritten or added, gonePaths the
		// indexed files deleted (the writer's, read after it is done).
		changedPaths, gonePaths []string
	)

	g, gctx := errgroup.WithContext(ctx)
	// Writer: the one goroutine that writes to the store. It applies
	// the batches the collector below hands it, one at a time and in
	// order, while the collector gathers the next one: if the collector
	// applied its own batches, the workers would stall on a full
	// results channel during every transaction, leaving one of two
	// cores idle for the writer's whole share of the run (measured on a
	// cold index of the Go standard library: 3.3 s of 21 s of CPU). At
	// most two batches are held at once: the one being written and the
	// one being gathered.
	batches := make(chan []store.Update)
	g.Go(func() error {
		for b := range batches {
			if err := db.Apply(context.WithoutCancel(gctx), b); err != nil {
				return err // cancels gctx: the collector stops sending
			}
		}
		return nil
	})
	// Collector: counts and orders the workers' results into batches.
	g.Go(func() error {
		defer close(batches)
		var batch []store.Update
		chunks := 0
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			select {
			case batches <- batch:
			case <-gctx.Done():
				return gctx.Err()
			}
			batch, chunks = nil, 0
			return nil
		}
		if len(deletes) > 0 {
			if err := db.Apply(gctx, deletes); err != nil {
				return err
			}
			st.Deleted = len(deletes)
		}
		done := 0
		for r := range results {
			done++
			if opts.Progress != nil {
				opts.Progress(done, len(todo))
			}
			report(opts.Phase, Phase{Name: PhaseChunk, Done: done, Total: len(todo), Unit: "files"})
			switch {
			case r.skip != nil:
				mu.Lock()
				skips = append(skips, *r.skip)
				mu.Unlock()
				_, had := stored[r.skip.Path]
				if had {
					st.Deleted++
					gonePaths = append(gonePaths, r.skip.Path)
				}
				if r.skip.Reason == discover.ReasonUnreadable {
					// Transient: not recorded, so the next run tries again.
					if had {
						batch = append(batch, store.Update{File: store.File{Path: r.skip.Path}, Delete: true})
					}
					break
				}
				batch = append(batch, store.Update{File: store.File{Path: r.skip.Path}, Delete: true, Skip: &store.Skipped{
					Size: r.file.Size, ModTime: r.file.ModTime, Reason: string(r.skip.Reason), Detail: r.skip.Detail}})
			case r.touch:
				mu.Lock()
				touches[r.update.File.Path] = r.mtime
				mu.Unlock()
				st.Touched++
			default:
				changedPaths = append(changedPaths, r.update.File.Path)
				if r.changed {
					st.Changed++
				} else {
					st.Added++
				}
				st.Chunks += len(r.update.Chunks)
				chunks += len(r.update.Chunks)
				batch = append(batch, *r.update)
			}
			if len(batch) >= writeBatchFiles || chunks >= writeBatchChunks {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})

	// Producers: read, sniff, chunk, analyze, embed.
	jobs := make(chan discover.File)
	// pg cancels pctx when a worker fails, so the feeder and the other
	// workers stop instead of waiting for each other.
	pg, pctx := errgroup.WithContext(gctx)
	pg.Go(func() error {
		defer close(jobs)
		for _, f := range todo {
			select {
			case jobs <- f:
			case <-pctx.Done():
				return pctx.Err()
			}
		}
		return nil
	})
	for range workers {
		pg.Go(func() error {
			for f := range jobs {
				r, err := processFile(pctx, f, stored, chunker, opts.Embedder, batchSize, known, opts.Folded,
					opts.Discover != nil && opts.Discover.IncludeSecrets)
				if err != nil {
					return err
				}
				if r.embedded > 0 {
					embedded.Add(int64(r.embedded))
				}
				res := result{file: f, update: r.update, skip: r.skip, touch: r.touch, mtime: f.ModTime, changed: r.changed}
				select {
				case results <- res:
				case <-pctx.Done():
					return pctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		err := pg.Wait()
		close(results)
		return err
	})
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := db.TouchFiles(ctx, touches); err != nil {
		return nil, err
	}
	report(opts.Phase, Phase{Name: PhaseChunk, Done: len(todo), Total: len(todo), Unit: "files", End: true})
	if st.Added+st.Changed+st.Deleted > 0 || opts.Resume {
		// Any file added or removed can change what an import names; a
		// run of some paths resolves only what it can have changed.
		var scope *store.ImportScope
		if opts.Paths != nil && !opts.Resume {
			scope = importScope(changedPaths, append(plan.Gone, gonePaths...), st.Added > 0)
		}
		report(opts.Phase, Phase{Name: PhaseResolve, Unit: "imports"})
		imp, err := resolveImports(ctx, db, root, scope)
		if err != nil {
			return nil, err
		}
		st.Imports = &imp
		report(opts.Phase, Phase{Name: PhaseResolve, Done: imp.Total, Total: imp.Total, Unit: "imports", End: true})
	}
	// Merge the BM25 segments this run wrote (the policy decides; also
	// after a run that changed nothing, to finish one interrupted before
	// it compacted).
	compact := db.CompactPostings
	if opts.Paths != nil {
		compact = db.CompactPostingsLight
	}
	report(opts.Phase, Phase{Name: PhaseMerge, Unit: "segments"})
	var beside sync.WaitGroup
	if opts.WhileMerging != nil {
		beside.Go(func() { opts.WhileMerging(ctx) })
	}
	cs, err := compact(ctx)
	if err == nil {
		// A no-op unless this run or an interrupted one deferred them and
		// the merge was not a full one.
		_, err = db.BuildLookupIndexes(ctx)
	}
	beside.Wait()
	if err != nil {
		return nil, err
	}
	report(opts.Phase, Phase{Name: PhaseMerge, Done: cs.Segments, Total: cs.Segments, Unit: "segments", End: true})
	if cs.Segments > 0 {
		log.Debug("compacted the BM25 index", "segments", cs.Segments, "dropped", cs.Dropped)
	}
	st.Skips = append(st.Skips, skips...)
	st.ContentSkips += len(skips)
	sort.Slice(st.Skips, func(i, j int) bool { return st.Skips[i].Path < st.Skips[j].Path })
	st.Embedded = int(embedded.Load())
	st.Duration = time.Since(start)
	log.Debug("index run", "root", root, "files", st.Discovered, "added", st.Added, "changed", st.Changed,
		"deleted", st.Deleted, "chunks", st.Chunks, "dur", st.Duration)
	return st, nil
}

type fileResult struct {
	update   *store.Update
	skip     *discover.Skip
	touch    bool
	changed  bool
	embedded int
}

// Prepared is one file read and chunked as an index run does it, before
// its rows are built.
type Prepared struct {
	// File is the walked file with Size as read and Language from its
	// content.
	File discover.File
	// Src is the content, with secrets masked unless they are kept.
	Src []byte
	// Hash is the SHA-256 of the content as read (before masking).
	Hash [32]byte
	// Secrets are the spans masked in Src.
	Secrets []store.Secret
	// Chunked is the chunker's output for Src.
	Chunked chunk.File
	// Changed is set when the index held an older version of the file.
	Changed bool
}

// Prepare reads, sniffs, masks and chunks one file the way an index run
// does (ctx index --dry-run uses it to see the same texts). unchanged is
// set, and nothing chunked, when stored holds the same content; a
// per-file problem (unreadable, binary, generated) is returned as a skip.
// Errors: only the chunker's (cancellation).
func Prepare(ctx context.Context, f discover.File, stored map[string]store.FileState, chunker *chunk.Chunker, keepSecrets bool) (p Prepared, skip *discover.Skip, unchanged bool, err error) {
	src, err := os.ReadFile(f.Abs)
	if err != nil {
		detail := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			detail = "deleted during the scan"
		}
		return p, &discover.Skip{Path: f.Path, Reason: discover.ReasonUnreadable, Detail: detail}, false, nil
	}
	if int64(len(src)) != f.Size {
		f.Size = int64(len(src)) // changed since the walk; index what we read
	}
	sum := sha256.Sum256(src)
	old, had := stored[f.Path]
	if had && string(old.Hash) == string(sum[:]) {
		return p, nil, true, nil
	}
	if reason, detail, skip := discover.Sniff(f.Path, src); skip {
		return p, &discover.Skip{Path: f.Path, Reason: reason, Detail: detail}, false, nil
	}
	f.Language = discover.ContentLanguage(f.Path, f.Language, src)
	masked := maskSecrets(keepSecrets, f.Path, src) // secrets.go
	cf, err := chunker.ChunkFile(ctx, f.Path, f.Language, src)
	if err != nil {
		return p, nil, false, err
	}
	return Prepared{File: f, Src: src, Hash: sum, Secrets: masked, Chunked: cf, Changed: had}, nil, false, nil
}

// processFile reads, sniffs and chunks one file. Per-file problems become a
// skip; only embedder failures and cancellation are errors.
func processFile(ctx context.Context, f discover.File, stored map[string]store.FileState, chunker *chunk.Chunker,
	emb embed.Provider, batchSize int, known knownKeys, folded func([][]byte) map[string][]byte, keepSecrets bool) (fileResult, error) {
	p, skip, unchanged, err := Prepare(ctx, f, stored, chunker, keepSecrets)
	switch {
	case err != nil:
		return fileResult{}, err
	case skip != nil:
		return fileResult{skip: skip}, nil
	case unchanged:
		return fileResult{update: &store.Update{File: store.File{Path: f.Path}}, touch: true}, nil
	}
	u, n, err := build(ctx, p, emb, batchSize, known, folded)
	if err != nil {
		return fileResult{}, err
	}
	return fileResult{update: u, changed: p.Changed, embedded: n}, nil
}

// Build returns the rows of a prepared file as an index run writes them:
// its chunks with their summaries and BM25 column terms, its imports and
// names, and (with emb) each chunk's EmbedKey plus, in Vectors, the
// vectors of the keys known does not report as stored (nil known: none
// is). It returns the number of texts embedded. Errors: the embedding
// provider's.
func Build(ctx context.Context, p Prepared, emb embed.Provider, batchSize int, known func(keys [][]byte) (map[string]bool, error)) (*store.Update, int, error) {
	return build(ctx, p, emb, batchSize, known, nil)
}

// build is [Build], taking the vectors of folded keys from folded (see
// [Options.Folded]; nil: none).
func build(ctx context.Context, p Prepared, emb embed.Provider, batchSize int, known knownKeys, folded func([][]byte) map[string][]byte) (*store.Update, int, error) {
	f, src, cf, sum, masked := p.File, p.Src, p.Chunked, p.Hash, p.Secrets
	if known == nil {
		known = func([][]byte) (map[string]bool, error) { return nil, nil }
	}
	chunks := cf.Chunks
	u := &store.Update{File: store.File{
		Path: f.Path, Language: f.Language, Size: f.Size, ModTime: f.ModTime, Hash: sum[:], Lines: countLines(src),
	}, Secrets: masked}
	for _, im := range graph.Imports(f.Language, src) {
		u.Imports = append(u.Imports, store.Import{Spec: im.Spec, Line: im.Line})
	}
	for _, n := range graph.Names(f.Language, src) {
		u.Names = append(u.Names, store.Name{Name: n.Name, Kind: n.Kind, Line: n.Line})
	}
	for _, d := range cf.Decls {
		u.Names = append(u.Names, store.Name{
			Name: d.Name, Kind: string(d.Kind), Line: d.StartLine, EndLine: d.EndLine, Symbol: d.Symbol, Breadcrumb: d.Breadcrumb,
		})
	}
	pathTerms := strings.Join(analyze.TermList(f.Path), " ")
	u.Chunks = make([]store.Chunk, len(chunks))
	for i, c := range chunks {
		text := string(src[c.StartByte:c.EndByte])
		u.Chunks[i] = store.Chunk{
			Kind: string(c.Kind), Symbol: c.Symbol, Name: c.Name, Breadcrumb: c.Breadcrumb,
			Summary:   Summary(c, text),
			StartLine: c.StartLine, EndLine: c.EndLine, StartByte: c.StartByte, EndByte: c.EndByte, Part: c.Part, Sketch: c.Sketch,
			Terms: [store.NumColumns]string{
				store.ColName: joinTerms(c.Symbol, c.Breadcrumb),
				store.ColPath: pathTerms,
				store.ColDoc:  joinTerms(c.Doc),
				store.ColBody: cappedTerms(text, tfCap),
			},
		}
	}
	n := 0
	if emb != nil && len(chunks) > 0 {
		var err error
		n, err = embedChunks(ctx, emb, batchSize, known, folded, f.Path, src, chunks, u)
		if err != nil {
			return nil, 0, fmt.Errorf("embedding %s: %w", f.Path, err)
		}
	}
	return u, n, nil
}

// knownKeys returns which of an embedding cache key list the store
// already holds (a map keyed by the key's bytes).
type knownKeys func(keys [][]byte) (map[string]bool, error)

// embedChunks sets each chunk's EmbedKey and puts the vectors of keys
// known says the store lacks into u.Vectors: from folded when it has
// them (nil: none), else embedded. It returns the number of texts
// embedded.
func embedChunks(ctx context.Context, emb embed.Provider, batchSize int, known knownKeys, folded func([][]byte) map[string][]byte,
	path string, src []byte, chunks []chunk.Chunk, u *store.Update) (int, error) {
	m := emb.Model()
	keys := make([][]byte, len(chunks))
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = EmbedText(path, c, string(src[c.StartByte:c.EndByte]))
		k := embed.CacheKey(m, texts[i])
		keys[i] = k[:]
		u.Chunks[i].EmbedKey = keys[i]
	}
	have, err := known(keys)
	if err != nil {
		return 0, err
	}
	var missTexts []string
	var missKeys []string
	queued := map[string]bool{}
	for i, k := range keys {
		if have[string(k)] || queued[string(k)] {
			continue
		}
		queued[string(k)] = true
		missTexts = append(missTexts, texts[i])
		missKeys = append(missKeys, string(k))
	}
	if len(missTexts) > 0 && folded != nil {
		ks := make([][]byte, len(missKeys))
		for i, k := range missKeys {
			ks[i] = []byte(k)
		}
		if got := folded(ks); len(got) > 0 {
			u.Vectors = make(map[string][]byte, len(missKeys))
			var texts []string
			var keys []string
			for i, k := range missKeys {
				if blob, ok := got[k]; ok {
					u.Vectors[k] = blob
					continue
				}
				texts, keys = append(texts, missTexts[i]), append(keys, k)
			}
			missTexts, missKeys = texts, keys
		}
	}
	if len(missTexts) == 0 {
		return 0, nil
	}
	vecs, err := embed.Batch(ctx, emb, missTexts, embed.Document, batchSize)
	if err != nil {
		return 0, err
	}
	if u.Vectors == nil {
		u.Vectors = make(map[string][]byte, len(vecs))
	}
	for i, v := range vecs {
		u.Vectors[missKeys[i]] = embed.EncodeVector(v)
	}
	return len(missTexts), nil
}

// maxEmbedTextBytes caps the text sent to an embedding model; longer chunks
// are cut (models truncate anyway, and a cap keeps requests bounded).
const maxEmbedTextBytes = 4000

// EmbedText is the text embedded for a chunk: its path, breadcrumb and
// symbol as a header line, then the code, cut at maxEmbedTextBytes.
func EmbedText(path string, c chunk.Chunk, code string) string {
	var b strings.Builder
	b.WriteString(path)
	if c.Breadcrumb != "" {
		b.WriteString(" > ")
		b.WriteString(c.Breadcrumb)
	}
	if c.Symbol != "" {
		b.WriteString(" > ")
		b.WriteString(c.Symbol)
	}
	b.WriteByte('\n')
	b.WriteString(code)
	s := b.String()
	if len(s) > maxEmbedTextBytes {
		s = strings.ToValidUTF8(s[:maxEmbedTextBytes], "")
	}
	return s
}

// tfCap is the most times one term is written to a chunk's body column.
// BM25's term-frequency saturation (k1 = 1.2) makes occurrences past the
// third worth little (tf 3 scores 1.57 of a possible 2.2, tf 10 1.96), while
// repeated tokens (err, nil, self, return) would dominate the token
// counts; capping them keeps the lexical index about 1.2× the source
// bytes.
const tfCap = 3

// cappedTerms is joinTerms with each distinct term written at most max
// times (max ≤ 255).
func cappedTerms(text string, max int) string {
	tc := termCountPool.Get().(*termCounts)
	defer tc.release()
	var b strings.Builder
	b.Grow(len(text))
	analyze.Terms(text, func(term string) {
		// One map lookup for a term seen before, the common case; a
		// lookup and an insert for a new one.
		i, seen := tc.index[term]
		switch {
		case !seen:
			tc.index[term] = int32(len(tc.count))
			tc.count = append(tc.count, 1)
		case int(tc.count[i]) >= max:
			return
		default:
			tc.count[i]++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(term)
	})
	return b.String()
}

// termCounts counts one chunk's terms for [cappedTerms]: count[index[t]]
// is how many times term t was written. Kept in a pool, so a chunk's map
// starts at the size earlier chunks grew it to instead of growing again
// (a new map per chunk spent a third of cappedTerms' time inserting and
// growing).
type termCounts struct {
	index map[string]int32
	count []uint8
}

var termCountPool = sync.Pool{New: func() any { return &termCounts{index: map[string]int32{}} }}

// release empties tc (its keys view the chunk's text) and returns it to
// the pool.
func (tc *termCounts) release() {
	clear(tc.index)
	tc.count = tc.count[:0]
	termCountPool.Put(tc)
}

func joinTerms(texts ...string) string {
	var b strings.Builder
	for _, t := range texts {
		analyze.Terms(t, func(term string) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(term)
		})
	}
	return b.String()
}

func countLines(src []byte) int {
	n := 0
	for _, c := range src {
		if c == '\n' {
			n++
		}
	}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
