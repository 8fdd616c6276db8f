package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
)

// view is one committed state of the index as queries see it: a read-only
// database handle and what the last index run recorded (generation, chunk
// count, identity), with the dense vectors loaded on first use.
//
// A one-shot engine (the CLI) opens a view per call and closes it after.
// An engine opened with [Options.KeepOpen] (the MCP server) keeps its
// database handle between calls, re-reads the generation on each call
// (one indexed SQLite lookup), and reloads the rest only when an index run
// has committed a new generation since, so queries answer from the last
// committed state while an index run writes the next one.
type view struct {
	db     *store.DB
	gen    int64
	total  int    // chunks, for IDF
	stored string // identity hash recorded by the last index run
	dirs   string // the recorded directory times (metaDirs), as stored
	// dirList is dirs parsed, once per view (see [view.dirStamps]).
	dirOnce sync.Once
	dirList []dirStamp
	// What a run in progress published (first runs): its identity, start
	// (Unix ns) and "done/total" files.
	runIdentity string
	runStarted  int64
	runProgress string
	head        head // what the view was read at
	// nullRaw is the stored off-topic level (metaDenseNull); null is it
	// parsed, or measured when none fits, once per view (see
	// [Engine.viewNull]).
	nullRaw  string
	nullOnce sync.Once
	null     *denseNull

	// sketches are the chunks' structural sketches, read once per view
	// by pattern search (see [Engine.viewSketches]); sketchMu guards them.
	sketchMu sync.Mutex
	sketches *sketchSet

	vecMu sync.Mutex
	vecs  *search.Vectors
	// prev holds the vectors of the view this one replaced (kept handles
	// only): while an index run commits batch after batch, queries use
	// them instead of reloading every vector after each batch, and say
	// the index is being updated.
	prev *search.Vectors

	// tab is the chunk rows of this state, read on first use by a kept
	// engine's search (see [Engine.viewTable]); prevTab is the table of
	// the view this one replaced, to bring up to date rather than read
	// whole. tabMu guards both.
	tabMu     sync.Mutex
	tab       *store.ChunkTable
	prevTab   *store.ChunkTable
	advancing bool // an update of prevTab runs ([Engine.advanceLater])
	// h is the kept handle the view was read through (nil for a
	// one-shot view), for work that outlives the call.
	h *handle

	// df is the BM25 document frequencies a kept engine's searches of
	// this state have read (see [residentSource.DocFreqs]); dfMu guards
	// it.
	dfMu sync.Mutex
	df   map[string]int
}

// head is the part of the index's meta that tells one committed state
// from another: the generation and identity the last finished run
// recorded, the content version every write moves, and whether a run
// started and did not finish.
type head struct {
	gen     int64
	stored  string
	ver     store.Version
	running bool // run state "running": a run is in progress or was interrupted
}

func headOf(kv map[string]string) head {
	gen, _ := strconv.ParseInt(kv[store.MetaGeneration], 10, 64)
	ver, _ := strconv.ParseInt(kv[store.MetaContentVersion], 10, 64)
	return head{gen: gen, stored: kv[store.MetaIdentity], ver: store.Version{IndexID: kv[store.MetaIndexID], Content: ver},
		running: kv[metaRunState] == runRunning}
}

// handle is a long-lived read-only database connection shared by views,
// closed when it is retired (the database file was replaced or removed)
// and its last user releases it.
type handle struct {
	db *store.DB
	// f holds the database file's inode open for as long as the handle
	// lives, so no file created later at the path can reuse its number
	// and pass for it.
	f       *os.File
	file    fileID
	refs    int
	retired bool
	view    *view // latest view read through this handle
}

// fileID tells a replaced database file from the one a handle opened.
type fileID struct{ dev, ino uint64 }

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	return idOf(fi), nil
}

// openHandle opens the database read-only, holding its file open first.
func (e *Engine) openHandle(ctx context.Context) (*handle, error) {
	f, err := os.Open(e.dbPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no index; run `ctx index`", ErrNotIndexed, e.root)
	}
	if err != nil {
		return nil, e.openErr(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, e.openErr(err)
	}
	db, err := e.openDB(ctx, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &handle{db: db, f: f, file: idOf(fi)}, nil
}

func (h *handle) close() {
	h.db.Close()
	h.f.Close()
}

// acquire returns the view of the index's current committed state and a
// func to call when done with it. Errors: [ErrNotIndexed] when there is no
// index database, store failures.
func (e *Engine) acquire(ctx context.Context) (*view, func(), error) {
	if !e.keepOpen {
		db, err := e.openDB(ctx, true)
		if err != nil {
			return nil, nil, err
		}
		v, err := readView(ctx, db)
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		return v, func() { db.Close() }, nil
	}
	id, err := statID(e.dbPath)
	if errors.Is(err, os.ErrNotExist) {
		e.retire()
		return nil, nil, fmt.Errorf("%w: %s has no index; run `ctx index`", ErrNotIndexed, e.root)
	}
	if err != nil {
		return nil, nil, e.openErr(err)
	}
	e.mu.Lock()
	h := e.h
	if h == nil || h.file != id {
		e.retireLocked()
		e.mu.Unlock()
		nh, err := e.openHandle(ctx)
		if err != nil {
			return nil, nil, err
		}
		e.mu.Lock()
		if e.h != nil && e.h.file == nh.file {
			// Another call opened it meanwhile.
			nh.close()
		} else {
			e.retireLocked()
			e.h = nh
		}
		h = e.h
	}
	h.refs++
	cur := h.view
	e.mu.Unlock()
	release := func() { e.release(h) }
	hd, err := readHead(ctx, h.db)
	if err != nil {
		release()
		return nil, nil, err
	}
	if cur != nil && cur.head == hd {
		return cur, release, nil
	}
	v, err := readView(ctx, h.db)
	if err != nil {
		release()
		return nil, nil, err
	}
	v.h = h
	if cur != nil && cur.stored == v.stored {
		cur.vecMu.Lock()
		v.prev = cur.vecs
		if v.prev == nil {
			v.prev = cur.prev
		}
		cur.vecMu.Unlock()
	}
	if cur != nil {
		// A table of another database is told by its index id and read
		// anew (see [store.ChunkTable.Advance]).
		cur.tabMu.Lock()
		v.prevTab = cur.tab
		if v.prevTab == nil {
			v.prevTab = cur.prevTab
		}
		cur.tabMu.Unlock()
	}
	e.mu.Lock()
	if h.view == nil || h.view.gen <= v.gen {
		h.view = v
	}
	e.mu.Unlock()
	return v, release, nil
}

// retire drops the kept database handle (closed once no call uses it).
func (e *Engine) retire() {
	e.mu.Lock()
	e.retireLocked()
	e.mu.Unlock()
}

func (e *Engine) retireLocked() {
	h := e.h
	if h == nil {
		return
	}
	e.h = nil
	h.retired = true
	if h.refs == 0 {
		h.close()
	}
}

// Close releases what a [Options.KeepOpen] engine holds. Calls in flight
// finish first; later calls reopen.
func (e *Engine) Close() error {
	e.retire()
	e.bg.Wait()
	return nil
}

// release gives back a reference on h taken under e.mu, closing h when
// it was retired and this was the last one.
func (e *Engine) release(h *handle) {
	e.mu.Lock()
	h.refs--
	closeNow := h.retired && h.refs == 0
	e.mu.Unlock()
	if closeNow {
		h.close()
	}
}

// readHead reads the committed head in one statement: a kept view is
// current while it is unchanged.
func readHead(ctx context.Context, db *store.DB) (head, error) {
	kv, err := db.MetaKeys(ctx, store.MetaGeneration, store.MetaIdentity, store.MetaIndexID, store.MetaContentVersion, metaRunState)
	if err != nil {
		return head{}, err
	}
	return headOf(kv), nil
}

// readView reads what the last committed index run recorded.
func readView(ctx context.Context, db *store.DB) (*view, error) {
	v := &view{db: db}
	kv, err := db.MetaAll(ctx)
	if err != nil {
		return nil, err
	}
	v.head = headOf(kv)
	v.gen, v.stored = v.head.gen, v.head.stored
	v.total, _ = strconv.Atoi(kv[metaChunks])
	v.dirs = kv[metaDirs]
	v.nullRaw = kv[metaDenseNull]
	v.runIdentity, v.runProgress = kv[metaRunIdentity], kv[metaRunProgress]
	v.runStarted, _ = strconv.ParseInt(kv[metaRunStarted], 10, 64)
	return v, nil
}

// dirStamps returns the view's recorded directory times, parsed on first
// use: a kept view answers many queries.
func (v *view) dirStamps() []dirStamp {
	v.dirOnce.Do(func() { v.dirList = parseDirs(v.dirs) })
	return v.dirList
}

// viewVectors returns the view's dense vectors, loaded on first use (see
// [Engine.loadVectors]); concurrent callers wait for the one load, and a
// failed load is tried again by the next call. While an index run is in
// progress a kept view answers with the vectors it had before the run's
// last batches (the answer is marked not fresh), rather than reload them
// from SQLite after every batch. Once the run is done, a kept view
// brings the previous view's vectors up to date ([search.Vectors.Advance]:
// the chunks deleted dropped, the new ones read) instead of reading them
// all, so a saved file is searchable in milliseconds.
func (e *Engine) viewVectors(ctx context.Context, v *view) (*search.Vectors, error) {
	v.vecMu.Lock()
	defer v.vecMu.Unlock()
	if v.vecs != nil {
		return v.vecs, nil
	}
	if v.prev != nil && v.head.running && indexRunning(e.dbPath) {
		return v.prev, nil
	}
	if v.prev != nil {
		vecs, _, err := v.prev.Advance(ctx, v.db, e.vecBase())
		if err == nil {
			v.vecs, v.prev = vecs, nil
			return vecs, nil
		}
		if !errors.Is(err, search.ErrOtherIndex) {
			e.log.Warn("updating the vectors; reading them all", "err", err)
		}
	}
	vecs, err := e.loadVectors(ctx, v.db, v.head.ver)
	if err != nil {
		return nil, err
	}
	v.vecs, v.prev = vecs, nil
	return vecs, nil
}

// vecPath is the derived vector file of the root's index.
func (e *Engine) vecPath() string { return e.dbPath + ".vec" }

// loadVectors returns the index's embeddings for the dense channel: from
// the vector file when it carries ver (the content version the caller's
// view was read at) and this model, else from SQLite, streamed into a new
// vector file stamped with the version they were read at (which may be
// later than ver if a run committed since; the vectors and the stamp are
// read in one transaction, so the file never claims a state it does not
// hold), which is then mapped: neither step holds every vector in memory.
// The vectors an index run folded come from the file being replaced
// ([search.WriteVectorFileFrom]). A bad or stale file is replaced, never
// trusted; when no file can be written the vectors are read into memory.
// Errors: [search.ErrVectorsMissing] (wrapped) when folded vectors are in
// no vector file (it was deleted or damaged: `ctx index` repairs it).
func (e *Engine) loadVectors(ctx context.Context, db *store.DB, ver store.Version) (*search.Vectors, error) {
	m := e.emb.Model()
	path := e.vecPath()
	if v, err := search.ReadVectorFile(path, vecFileKey(m.String(), ver), m.Dims, ver.Content); err == nil {
		v.IndexID = ver.IndexID
		return v, nil
	} else if !errors.Is(err, search.ErrStaleVectorFile) && !errors.Is(err, os.ErrNotExist) {
		e.log.Warn("ignoring the vector file", "err", err)
	}
	key := func(ver store.Version) string { return vecFileKey(m.String(), ver) }
	got, werr := search.WriteVectorFileFrom(ctx, db, path, m.Dims, key, e.vecBase())
	if errors.Is(werr, search.ErrVectorsMissing) {
		// An index run may have renamed a newer file over the one the
		// read began with, and folded: read the new state once more.
		got, werr = search.WriteVectorFileFrom(ctx, db, path, m.Dims, key, e.vecBase())
	}
	if werr == nil {
		v, err := search.ReadVectorFile(path, key(got), m.Dims, got.Content)
		if err == nil {
			v.IndexID = got.IndexID
			return v, nil
		}
		// Another process replaced the file with a later state since.
		werr = err
	}
	if ctx.Err() != nil || errors.Is(werr, search.ErrVectorsMissing) {
		return nil, werr
	}
	// Without a file (a read-only cache directory, a full disk), read
	// them into memory.
	v, _, err := search.LoadVectors(ctx, db, m.Dims, e.vecBase())
	if err != nil {
		return nil, err
	}
	e.log.Warn("caching vectors", "err", werr)
	return v, nil
}

// vecBase is where the vectors an index run folded are read from: the
// root's vector file, whatever content version it holds, when it is of
// the same index and model.
func (e *Engine) vecBase() search.Base {
	m := e.emb.Model()
	return search.FileBase(e.vecPath(), m.Dims, func(ver store.Version) string { return vecFileKey(m.String(), ver) })
}

// vecFileKey is the model string a vector file is stamped with: the
// model identity and the index's id (its header also carries the content
// version, as its generation).
func vecFileKey(model string, ver store.Version) string {
	return model + "#" + ver.IndexID
}

// viewNull returns the off-topic level of the view's index for the
// engine's model: the one the last index run stored, else (an index
// written before levels were stored) measured from vecs once per view.
// Nil when it cannot be had, and for a remote provider, which is never
// sent the probes.
func (e *Engine) viewNull(ctx context.Context, v *view, vecs search.VectorIndex) *denseNull {
	if e.emb == nil || e.remoteEmbed() {
		return nil
	}
	v.nullOnce.Do(func() {
		model := e.emb.Model().String()
		if v.null = parseNull(v.nullRaw, model); v.null != nil {
			return
		}
		null, err := measureNull(ctx, e.emb, vecs)
		if err != nil {
			e.log.Info("measuring the confidence level", "err", err)
			return
		}
		v.null = null
	})
	return v.null
}
