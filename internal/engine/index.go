package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/wvstore"
)

// IndexOptions configures [Engine.Index].
type IndexOptions struct {
	// Progress is called after each processed file (see index.Options).
	Progress func(done, total int)
	// SyncProgress is called after each file written into Weaviate (the
	// weaviate backend's second phase); total is the files to write.
	SyncProgress func(done, total int)
	// Phase, when set, is called as the run goes through its phases
	// (discover, chunk+embed, resolve, merge, then [PhaseSwap] and
	// [PhaseVectors] when they run), one call at a time; see [Phase].
	Phase func(Phase)
	// Rebuild discards the existing index first.
	Rebuild bool
	// Paths, when not nil, restricts the run to these slash paths below
	// the root (files or directories, as a watcher reports them): only
	// they are walked and compared with the index. A run that must see
	// everything (no finished index yet, an interrupted run to complete,
	// an identity change or Rebuild) ignores Paths and walks the root.
	Paths []string
}

// IndexReport is the outcome of one index run.
type IndexReport struct {
	Stats *index.Stats
	// Rebuilt is set when the old index was discarded (identity change or
	// Rebuild).
	Rebuilt bool
	// Resumed is set when the previous run had not finished (killed or
	// interrupted) and this one completed it.
	Resumed bool
	// Generation is the index generation after the run.
	Generation int64
	// Weaviate reports the sync into Weaviate (the weaviate backend);
	// nil for the local backend.
	Weaviate *wvstore.SyncStats
}

// Run state, in the meta table: a run records "running" (with the identity
// it builds) before it writes anything and "done" in the transaction that
// commits its generation, so an index whose last run was killed says so
// (`ctx status`, fresh: false on answers) and the next run knows to finish
// the end-of-run work (import resolution, generation, vector file) even
// when every file was already written.
const (
	metaRunState    = "run_state"
	metaRunIdentity = "run_identity"
	metaRunStarted  = "run_started"  // Unix nanoseconds
	metaRunProgress = "run_progress" // "done/total" files, a first run's
	runRunning      = "running"
	runDone         = "done"
)

// Index brings the root's index up to date, creating it when missing and
// rebuilding it when its identity (schema, chunker, model) differs from
// this build's. A rebuild of a finished index is written beside it and
// swapped in by one transaction ([store.DB.ReplaceWith]): queries answer
// from the old index until then. A run that was interrupted is completed
// by the next one. Errors: [discover.ErrUnsafeRoot] for "/" or the home
// directory without --force, [ErrTooManyFiles] for a first index of a big
// tree outside a git work tree ([Engine.CheckFirstIndex]), [ErrCacheDir]
// for a cache directory it cannot use, store and embedder failures, ctx.
//
// With the weaviate backend the local index is built first, then synced
// into the repository's tenant (files whose content hash differs are
// written again, deleted files removed: see wvstore.Sync).
func (e *Engine) Index(ctx context.Context, opts IndexOptions) (*IndexReport, error) {
	rep, err := e.indexLocal(ctx, opts)
	if err != nil || !e.remoteBackend() {
		return rep, err
	}
	rep.Weaviate, err = e.syncWeaviate(ctx, rep.Generation, opts.SyncProgress, opts.Phase)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// indexLocal builds or updates the local index.
func (e *Engine) indexLocal(ctx context.Context, opts IndexOptions) (*IndexReport, error) {
	if err := discover.CheckRoot(e.root, e.cfg.Home, e.cfg.Force); err != nil {
		return nil, err
	}
	if err := e.CheckFirstIndex(ctx); err != nil {
		return nil, err
	}
	if err := e.ensureDims(ctx); err != nil {
		return nil, err
	}
	unlock, err := lockIndex(ctx, e.dbPath, func() {
		e.log.Info("another index run of this root is in progress; waiting", "root", e.root)
	})
	if err != nil {
		return nil, err
	}
	defer unlock()
	// What an interrupted rebuild left beside the index is never used.
	if err := removeDB(e.nextPath()); err != nil {
		return nil, err
	}
	db, err := e.openDB(ctx, false)
	if err != nil {
		return nil, err
	}
	kv, err := db.MetaAll(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	hd := headOf(kv)
	id := e.Identity()
	foreign := hd.stored != "" && hd.stored != id.Hash
	// A first run killed part way by a build with another identity left
	// rows this build must not mix with its own.
	foreignPartial := hd.stored == "" && hd.running && kv[metaRunIdentity] != "" && kv[metaRunIdentity] != id.Hash
	if opts.Paths != nil && (opts.Rebuild || foreign || foreignPartial || hd.stored == "" || hd.running) {
		opts.Paths = nil
	}
	if opts.Rebuild || foreign || foreignPartial {
		if foreign {
			e.log.Info("index identity changed; rebuilding", "old", hd.stored, "new", id.Hash)
		}
		if hd.stored != "" {
			defer db.Close()
			return e.rebuildBeside(ctx, db, hd, opts)
		}
		// No finished index to keep answering: rebuild in place. The
		// generation only ever grows, across rebuilds too, so a cache
		// stamped with it never mistakes a rebuilt index for the old one.
		db.Close()
		if err := removeDB(e.dbPath); err != nil {
			return nil, err
		}
		if db, err = e.openDB(ctx, false); err != nil {
			return nil, err
		}
		defer db.Close()
		return e.run(ctx, db, head{gen: hd.gen}, true, true, opts)
	}
	defer db.Close()
	return e.run(ctx, db, hd, false, true, opts)
}

// nextPath is where a rebuild writes the new index before it is swapped in.
func (e *Engine) nextPath() string { return e.dbPath + ".next" }

// rebuildBeside builds a new index at [Engine.nextPath] while live keeps
// answering queries, then makes it live's content in one transaction. If
// the swap fails (live is damaged), live is replaced by the new file.
func (e *Engine) rebuildBeside(ctx context.Context, live *store.DB, hd head, opts IndexOptions) (*IndexReport, error) {
	next := e.nextPath()
	ndb, err := store.Open(ctx, next, nil)
	if errors.Is(err, store.ErrAccess) {
		return nil, cacheDirErr(dirOf(next), err)
	} else if err != nil {
		return nil, err
	}
	rep, err := e.run(ctx, ndb, head{gen: hd.gen}, true, false, opts)
	if cerr := ndb.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the rebuilt index: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	if opts.Phase != nil {
		opts.Phase(Phase{Name: PhaseSwap})
	}
	if _, err := live.ReplaceWith(ctx, next); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e.log.Warn("the old index could not take the rebuilt one's content; replacing its file", "err", err)
		if err := e.replaceFile(ctx, live, next); err != nil {
			return nil, err
		}
	}
	if opts.Phase != nil {
		opts.Phase(Phase{Name: PhaseSwap, End: true})
	}
	if err := removeDB(next); err != nil {
		e.log.Warn("removing the rebuilt index's file", "err", err)
	}
	if e.emb != nil {
		var vecs *search.Vectors
		phaseStep(opts.Phase, PhaseVectors, func() { vecs = e.writeVectorFile(ctx, live) })
		if null := e.updateNull(ctx, live, vecs); null != "" {
			if err := live.SetMeta(ctx, map[string]string{metaDenseNull: null}); err != nil {
				e.log.Warn("recording the confidence level", "err", err)
			}
		}
	}
	if err := live.WriteDocLens(ctx); err != nil {
		e.log.Warn("writing the doc-length file", "err", err)
	}
	return rep, nil
}

// replaceFile puts the closed database at next in live's place, for when
// live cannot be written. Queries see no index for a moment.
func (e *Engine) replaceFile(ctx context.Context, live *store.DB, next string) error {
	live.Close()
	e.retire()
	if err := removeDB(e.dbPath); err != nil {
		return err
	}
	if _, err := os.Stat(next + "-wal"); err == nil {
		if err := os.Rename(next+"-wal", e.dbPath+"-wal"); err != nil {
			return fmt.Errorf("installing the rebuilt index: %w", err)
		}
	}
	if err := os.Rename(next, e.dbPath); err != nil {
		return fmt.Errorf("installing the rebuilt index: %w", err)
	}
	db, err := e.openDB(ctx, false)
	if err != nil {
		return err
	}
	*live = *db
	return nil
}

// run updates db from the files under the root and commits a generation
// after hd's. rebuilt marks a new database; vectors writes the root's
// vector file from db (not for a rebuild's database, which is copied into
// the live one first).
func (e *Engine) run(ctx context.Context, db *store.DB, hd head, rebuilt, vectors bool, opts IndexOptions) (*IndexReport, error) {
	id := e.Identity()
	rep := &IndexReport{Rebuilt: rebuilt, Resumed: hd.running && !rebuilt}
	started := time.Now()
	if err := db.SetMeta(ctx, map[string]string{metaRunState: runRunning, metaRunIdentity: id.Hash,
		metaRunStarted: strconv.FormatInt(started.UnixNano(), 10), metaRunProgress: ""}); err != nil {
		return nil, err
	}
	// A first run publishes its progress for the queries it cannot answer
	// yet (in other processes too): at most twice a second, from a
	// goroutine of its own. The write waits for the writer connection,
	// which the run's transactions hold for up to a second; made by the
	// goroutine that gathers the run's batches, it stalled the workers
	// behind the writer (1.1 s of a cold index of the Go standard
	// library, by the execution trace). Only the latest count waits.
	progress := opts.Progress
	stopPublishing := func() {}
	if hd.stored == "" {
		pub := make(chan string, 1)
		published := make(chan struct{})
		go func() {
			defer close(published)
			for p := range pub {
				_ = db.SetMeta(ctx, map[string]string{metaRunProgress: p})
			}
		}()
		stopPublishing = sync.OnceFunc(func() {
			close(pub)
			<-published
		})
		defer stopPublishing()
		var last time.Time
		progress = func(done, total int) {
			if now := time.Now(); now.Sub(last) >= 500*time.Millisecond || done == total {
				last = now
				latest(pub, fmt.Sprintf("%d/%d", done, total))
			}
			if opts.Progress != nil {
				opts.Progress(done, total)
			}
		}
	}
	if vectors && opts.Paths == nil && e.foldsVectors() {
		if err := e.repairVectors(ctx, db); err != nil {
			return nil, err
		}
	}
	// The vector file is written beside the BM25 merge (see
	// [index.Options.WhileMerging]) and folded after it, below.
	var vecs *search.Vectors
	writeVecs := e.emb != nil && vectors && opts.Paths == nil
	var whileMerging func(context.Context)
	if writeVecs {
		whileMerging = func(ctx context.Context) { vecs = e.vectorFile(ctx, db) }
	}
	st, err := index.Run(ctx, db, e.root, &index.Options{
		Discover:     walkOptions(e.cfg),
		Embedder:     e.indexEmbedder(), // spend.go: remote providers are metered and capped
		EmbedBatch:   e.cfg.Embed.BatchSize,
		Progress:     progress,
		Phase:        opts.Phase,
		Logger:       e.log,
		Resume:       hd.running || rebuilt,
		Paths:        opts.Paths,
		Folded:       e.foldedLookup(ctx, db, vectors && opts.Paths == nil),
		WhileMerging: whileMerging,
	})
	stopPublishing() // before the run's state is recorded below
	if err != nil {
		return nil, err
	}
	rep.Stats = st
	gen := hd.gen
	if st.Added+st.Changed+st.Deleted > 0 || hd.stored == "" || rebuilt || hd.running {
		gen++
	}
	rep.Generation = gen
	chunks, err := db.ChunkCount(ctx)
	if err != nil {
		return nil, err
	}
	// The derived vector file is written before the generation is
	// committed, so a server that sees the new generation finds its
	// vectors ready and the first query after an index run does not pay
	// for reading every vector out of SQLite. The file is stamped with
	// the content version its vectors were read at, which every write
	// moves in its own transaction: a file that is not of the committed
	// content is never trusted. A failure only costs the first query its
	// speed. The phase reports what is left once the merge is done:
	// folding the file's vectors out of SQLite.
	//
	// A run of some paths (a watcher's) leaves the file alone: a server
	// updates its vectors in memory (see [Engine.viewVectors]), and
	// rewriting every vector after each save would cost more than the
	// save's own indexing.
	if writeVecs {
		phaseStep(opts.Phase, PhaseVectors, func() { e.foldLogged(ctx, db, vecs) })
	}
	meta := map[string]string{
		store.MetaRoot:        e.root,
		store.MetaIdentity:    id.Hash,
		store.MetaGeneration:  strconv.FormatInt(gen, 10),
		store.MetaLastIndexed: time.Now().UTC().Format(time.RFC3339),
		store.MetaEmbedModel:  id.Model,
		store.MetaChunker:     strconv.Itoa(id.Chunker),
		metaChunks:            strconv.Itoa(chunks),
		metaRunState:          runDone,
	}
	prevDirs := ""
	if opts.Paths != nil {
		prevDirs = recordedDirs(ctx, db)
	}
	meta[metaDirs] = dirTimes(prevDirs, opts.Paths, st.Dirs)
	if opts.Paths == nil {
		// The skip counts of a whole walk; a run of some paths saw only
		// theirs and keeps the last whole run's.
		skips, _ := json.Marshal(st.SkipCounts())
		meta[store.MetaSkips] = string(skips)
	}
	if st.Imports != nil {
		b, _ := json.Marshal(st.Imports)
		meta[metaImports] = string(b)
	}
	if vecs != nil {
		if null := e.updateNull(ctx, db, vecs); null != "" {
			meta[metaDenseNull] = null
		}
	}
	if err := db.SetMeta(ctx, meta); err != nil {
		return nil, err
	}
	if vectors && opts.Paths == nil {
		// One-shot searches map the doc lengths from this file instead
		// of copying them out of SQLite; a watcher's runs leave it to
		// go stale (a server keeps the lengths it read in memory).
		if err := db.WriteDocLens(ctx); err != nil {
			e.log.Warn("writing the doc-length file", "err", err)
		}
	}
	return rep, nil
}

// latest puts v in ch, a channel of capacity 1 whose only sender is the
// caller, in place of the value waiting there, if any: once it is taken
// out, nothing else can fill the channel, so the send never blocks.
func latest[T any](ch chan T, v T) {
	select {
	case <-ch:
	default:
	}
	ch <- v
}

// metaChunks caches the chunk count for IDF at query time.
const metaChunks = "chunks"

// metaImports holds the import counts of the last run that resolved
// them (index.ImportStats as JSON).
const metaImports = "imports"

// writeVectorFile makes the root's vector file hold db's committed
// vectors, unless it already does, folds them ([Engine.foldVectors]) and
// returns them (nil on failure). Errors are logged, not returned: the
// query path rebuilds a missing or stale file from SQLite, and reports
// vectors that no file holds any more.
func (e *Engine) writeVectorFile(ctx context.Context, db *store.DB) *search.Vectors {
	vecs := e.vectorFile(ctx, db)
	e.foldLogged(ctx, db, vecs)
	return vecs
}

// vectorFile is [Engine.writeVectorFile] without the fold.
func (e *Engine) vectorFile(ctx context.Context, db *store.DB) *search.Vectors {
	ver, err := db.Version(ctx)
	var vecs *search.Vectors
	if err == nil {
		vecs, err = e.loadVectors(ctx, db, ver)
	}
	if err != nil {
		e.log.Warn("writing the vector file", "err", err)
		return nil
	}
	return vecs
}

// foldLogged is [Engine.foldVectors], logging its error.
func (e *Engine) foldLogged(ctx context.Context, db *store.DB, vecs *search.Vectors) {
	if err := e.foldVectors(ctx, db, vecs); err != nil {
		e.log.Warn("folding the vectors into the vector file", "err", err)
	}
}

// foldsVectors reports whether the engine's embedder runs on this
// machine from a model in the binary or a local model file (builtin,
// model2vec, onnx): only then are stored vectors folded into the vector
// file. A provider reached over HTTP (OpenAI-compatible, Voyage, Ollama)
// costs money or time to embed again, so its vectors stay in SQLite,
// where the content-addressed cache keeps every text it ever embedded.
func (e *Engine) foldsVectors() bool {
	if e.emb == nil {
		return false
	}
	_, remote := embedEndpoint(config.Embed{Provider: e.emb.Model().Provider})
	return !remote
}

// foldVectors deletes from SQLite the stored vectors that vecs, a vector
// file of db's committed state, holds ([store.DB.FoldVectors]), and gives
// the freed pages back to the file system. Every vector file is synced by
// its writer before it is renamed into place, so once the fold commits its
// rows are a durable only copy. Nothing is folded when the content
// moved on since the file was written, for vectors read into memory (no
// file), or for a remote provider.
func (e *Engine) foldVectors(ctx context.Context, db *store.DB, vecs *search.Vectors) error {
	if vecs == nil || vecs.FileID == 0 || vecs.IndexID == "" || !e.foldsVectors() {
		return nil
	}
	if base := store.ParseVectorBase(mustMeta(ctx, db, store.MetaVectorBase)); base == (store.VectorBase{FileID: vecs.FileID, Content: vecs.Generation}) {
		return nil // this file's state is folded already (a run that changed nothing)
	}
	// The file at the path must still be this one: a query process may
	// have written another since (see [search.WriteVectorFileFrom]).
	m := e.emb.Model()
	cur, err := search.ReadVectorFile(e.vecPath(), vecFileKey(m.String(), store.Version{IndexID: vecs.IndexID}), m.Dims, vecs.Generation)
	if err != nil || cur.FileID != vecs.FileID {
		return fmt.Errorf("the vector file was replaced before the fold (%v); not folding", err)
	}
	if err := fault("fold"); err != nil {
		return err
	}
	start := time.Now()
	n, ok, err := db.FoldVectors(ctx, store.Version{IndexID: vecs.IndexID, Content: vecs.Generation}, vecs.FileID)
	if err != nil || !ok || n == 0 {
		return err
	}
	folded := time.Since(start)
	if err := fault("vacuum"); err != nil {
		return err
	}
	start = time.Now()
	err = db.ReleaseFreePages(ctx)
	e.log.Debug("folded vectors", "vectors", n, "fold", folded, "vacuum", time.Since(start))
	return err
}

// repairVectors makes this run chunk and embed again the files of every
// chunk whose vector was folded into a vector file that is now missing,
// damaged, of another index or without its row ([store.DB.ForgetFiles]),
// so the vector file written at the end of the run holds every vector
// again. A vector file stamped with the committed content is complete by
// construction and costs no check.
func (e *Engine) repairVectors(ctx context.Context, db *store.DB) error {
	kv, err := db.MetaKeys(ctx, store.MetaVectorBase, store.MetaIndexID, store.MetaContentVersion)
	if err != nil || kv[store.MetaVectorBase] == "" {
		return err
	}
	ver := headOf(kv).ver
	m := e.emb.Model()
	if _, err := search.ReadVectorFile(e.vecPath(), vecFileKey(m.String(), ver), m.Dims, ver.Content); err == nil {
		return nil
	}
	base, berr := e.vecBase()(ver)
	has := func(id int64) bool {
		if berr != nil {
			return false
		}
		return base.Has(id)
	}
	var ids []int64
	seen := map[int64]bool{}
	err = db.MissingVectorFiles(ctx, has, func(fileID int64, _ string) error {
		if !seen[fileID] {
			seen[fileID] = true
			ids = append(ids, fileID)
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	e.log.Warn("the vector file lost vectors; indexing their files again", "files", len(ids), "cause", berr)
	return db.ForgetFiles(ctx, ids)
}

// maxFoldedKeys caps the folded keys an index run holds in one map, as
// index.maxKnownKeys does for stored ones (about 100 bytes a key).
const maxFoldedKeys = 1 << 18

// foldedLookup returns the [index.Options.Folded] of a whole run (all
// false: nil, as for a run of some paths, which embeds such texts again
// rather than scan every chunk's key): the vectors of folded keys, read
// from the vector file by the row of a live chunk that names the key.
// Nil when nothing is folded, when more keys are folded than
// maxFoldedKeys, or when the vector file cannot be read (the run then
// embeds those texts again).
func (e *Engine) foldedLookup(ctx context.Context, db *store.DB, all bool) func([][]byte) map[string][]byte {
	if !all || !e.foldsVectors() {
		return nil
	}
	kv, err := db.MetaKeys(ctx, store.MetaVectorBase, store.MetaIndexID, store.MetaContentVersion)
	if err != nil || kv[store.MetaVectorBase] == "" {
		return nil
	}
	// Read on first use: a run with nothing to embed (no file changed)
	// pays nothing.
	var (
		once sync.Once
		keys map[string]int64
		base *search.Vectors
	)
	load := func() {
		k, err := db.FoldedKeys(ctx, maxFoldedKeys)
		if err != nil || len(k) == 0 {
			return
		}
		if b, err := e.vecBase()(headOf(kv).ver); err == nil {
			keys, base = k, b
		}
	}
	return func(ks [][]byte) map[string][]byte {
		once.Do(load)
		if base == nil {
			return nil
		}
		var out map[string][]byte
		for _, k := range ks {
			id, ok := keys[string(k)]
			if !ok {
				continue
			}
			if q, scale, ok := base.Row(id); ok {
				if out == nil {
					out = map[string][]byte{}
				}
				out[string(k)] = embed.EncodeInt8(q, scale)
			}
		}
		return out
	}
}

// updateNull returns the index's off-topic level for the confidence grade
// ([denseNull], as JSON) when it must be stored: no level of this model
// and probe set is stored yet, or the index has grown or shrunk by more
// than [nullDrift] since it was measured. "" when the stored one stands,
// when the provider is remote (the probes are not sent: answers are
// graded without the level), or when it could not be measured (logged).
func (e *Engine) updateNull(ctx context.Context, db *store.DB, vecs *search.Vectors) string {
	if vecs == nil || e.remoteEmbed() {
		return ""
	}
	if n := parseNull(mustMeta(ctx, db, metaDenseNull), e.emb.Model().String()); n != nil &&
		math.Abs(float64(vecs.Len()-n.Chunks)) <= nullDrift*float64(n.Chunks) {
		return ""
	}
	null, err := measureNull(ctx, e.emb, vecs)
	if err != nil || null == nil {
		if err != nil {
			e.log.Warn("measuring the confidence level", "err", err)
		}
		return ""
	}
	b, _ := json.Marshal(null)
	return string(b)
}

func mustMeta(ctx context.Context, db *store.DB, key string) string {
	v, _ := db.Meta(ctx, key)
	return v
}

func dirOf(path string) string { return filepath.Dir(path) }

func removeDB(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".vec", path + ".dl"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing old index: %w", err)
		}
	}
	return nil
}

// Clear removes the root's index (the database, its WAL and the vector
// file), waiting for an index run in progress to finish first. Clearing a
// root with no index is not an error. Queries after it fail with
// [ErrNotIndexed] until the next index run.
func (e *Engine) Clear(ctx context.Context) error {
	unlock, err := lockIndex(ctx, e.dbPath, nil)
	if err != nil {
		return err
	}
	defer unlock()
	e.retire()
	if err := removeDB(e.nextPath()); err != nil {
		return err
	}
	return removeDB(e.dbPath)
}
