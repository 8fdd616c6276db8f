package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
)

// IndexOptions configures [Engine.Index].
type IndexOptions struct {
	// Progress is called after each processed file (see index.Options).
	Progress func(done, total int)
	// Rebuild discards the existing index first.
	Rebuild bool
}

// IndexReport is the outcome of one index run.
type IndexReport struct {
	Stats *index.Stats
	// Rebuilt is set when the old index was discarded (identity change or
	// Rebuild).
	Rebuilt bool
	// Generation is the index generation after the run.
	Generation int64
}

// Index brings the root's index up to date, creating it when missing and
// rebuilding it when its identity (schema, chunker, model) differs from
// this build's. Errors: [discover.ErrUnsafeRoot] for "/" or the home
// directory without --force, store and embedder failures, ctx.
func (e *Engine) Index(ctx context.Context, opts IndexOptions) (*IndexReport, error) {
	if err := discover.CheckRoot(e.root, e.cfg.Home, e.cfg.Force); err != nil {
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
	rep := &IndexReport{}
	db, err := e.openDB(ctx, false)
	if err != nil {
		return nil, err
	}
	stored, ok, err := e.checkIdentity(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	// The generation only ever grows, across rebuilds too, so a cache
	// stamped with it never mistakes a rebuilt index for the old one.
	prevGen, _ := strconv.ParseInt(mustMeta(ctx, db, store.MetaGeneration), 10, 64)
	if opts.Rebuild || stored != "" && !ok {
		if !opts.Rebuild {
			e.log.Info("index identity changed; rebuilding", "old", stored, "new", e.Identity().Hash)
		}
		db.Close()
		if err := removeDB(e.dbPath); err != nil {
			return nil, err
		}
		rep.Rebuilt = true
		if db, err = e.openDB(ctx, false); err != nil {
			return nil, err
		}
	}
	defer db.Close()

	st, err := index.Run(ctx, db, e.root, &index.Options{
		Discover:   walkOptions(e.cfg),
		Embedder:   e.emb,
		EmbedBatch: e.cfg.Embed.BatchSize,
		Progress:   opts.Progress,
		Logger:     e.log,
	})
	if err != nil {
		return nil, err
	}
	rep.Stats = st
	gen := prevGen
	if st.Added+st.Changed+st.Deleted > 0 || stored == "" || rep.Rebuilt {
		gen++
	}
	rep.Generation = gen
	skips, _ := json.Marshal(st.SkipCounts())
	counts, err := db.Count(ctx)
	if err != nil {
		return nil, err
	}
	id := e.Identity()
	model := id.Model
	// Write the derived vector file before the generation is committed,
	// so a server that sees the new generation finds its vectors ready
	// and the first query after an index run does not pay for reading
	// every vector out of SQLite. The file is stamped with a token
	// committed below with the generation: a file from a run that dies
	// before committing never passes for a later run's. A failure only
	// costs the first query its speed.
	stamp := mustMeta(ctx, db, metaVecStamp)
	if e.emb != nil {
		stamp = e.writeVectorFile(ctx, db, gen, stamp)
	}
	meta := map[string]string{
		store.MetaRoot:        e.root,
		store.MetaIdentity:    id.Hash,
		store.MetaGeneration:  strconv.FormatInt(gen, 10),
		store.MetaLastIndexed: time.Now().UTC().Format(time.RFC3339),
		store.MetaSkips:       string(skips),
		store.MetaEmbedModel:  model,
		store.MetaChunker:     strconv.Itoa(id.Chunker),
		metaChunks:            strconv.Itoa(counts.Chunks),
		metaVecStamp:          stamp,
	}
	if st.Imports != nil {
		b, _ := json.Marshal(st.Imports)
		meta[metaImports] = string(b)
	}
	if err := db.SetMeta(ctx, meta); err != nil {
		return nil, err
	}
	return rep, nil
}

// metaChunks caches the chunk count for IDF at query time.
const metaChunks = "chunks"

// metaImports holds the import counts of the last run that resolved
// them (index.ImportStats as JSON).
const metaImports = "imports"

// metaVecStamp is the token the derived vector file of the committed
// generation carries (see [Engine.writeVectorFile]).
const metaVecStamp = "vector_file_stamp"

// writeVectorFile makes the vector file for generation gen and returns
// the stamp to commit with it: prev when the file already carries gen and
// prev (nothing changed), else a new random one. Errors are logged, not
// returned: the query path rebuilds a missing file from SQLite.
func (e *Engine) writeVectorFile(ctx context.Context, db *store.DB, gen int64, prev string) string {
	m := e.emb.Model()
	path := e.dbPath + ".vec"
	if prev != "" {
		if _, err := search.ReadVectorFile(path, vecFileKey(m.String(), prev), m.Dims, gen); err == nil {
			return prev
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	stamp := hex.EncodeToString(b[:])
	v, err := search.LoadVectors(ctx, db, m.Dims, gen)
	if err == nil {
		err = search.WriteVectorFile(path, vecFileKey(m.String(), stamp), v)
	}
	if err != nil {
		e.log.Warn("writing the vector file", "err", err)
	}
	return stamp
}

func mustMeta(ctx context.Context, db *store.DB, key string) string {
	v, _ := db.Meta(ctx, key)
	return v
}

func dirOf(path string) string { return filepath.Dir(path) }

func removeDB(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".vec"} {
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
	return removeDB(e.dbPath)
}
