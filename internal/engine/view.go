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
	stamp  string // vector file stamp recorded with it

	vecMu sync.Mutex
	vecs  *search.Vectors
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
		return nil, fmt.Errorf("opening index %s: %w", e.dbPath, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening index %s: %w", e.dbPath, err)
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
		return nil, nil, fmt.Errorf("opening index %s: %w", e.dbPath, err)
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
	release := func() {
		e.mu.Lock()
		h.refs--
		closeNow := h.retired && h.refs == 0
		e.mu.Unlock()
		if closeNow {
			h.close()
		}
	}
	gen, stored, err := generation(ctx, h.db)
	if err != nil {
		release()
		return nil, nil, err
	}
	if cur != nil && cur.gen == gen && cur.stored == stored {
		return cur, release, nil
	}
	v, err := readView(ctx, h.db)
	if err != nil {
		release()
		return nil, nil, err
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
	return nil
}

// generation reads the committed generation and identity in one
// statement: a kept view is current while both are unchanged.
func generation(ctx context.Context, db *store.DB) (int64, string, error) {
	kv, err := db.MetaKeys(ctx, store.MetaGeneration, store.MetaIdentity)
	if err != nil {
		return 0, "", err
	}
	gen, _ := strconv.ParseInt(kv[store.MetaGeneration], 10, 64)
	return gen, kv[store.MetaIdentity], nil
}

// readView reads what the last committed index run recorded.
func readView(ctx context.Context, db *store.DB) (*view, error) {
	v := &view{db: db}
	kv, err := db.MetaAll(ctx)
	if err != nil {
		return nil, err
	}
	v.gen, _ = strconv.ParseInt(kv[store.MetaGeneration], 10, 64)
	v.total, _ = strconv.Atoi(kv[metaChunks])
	v.stored = kv[store.MetaIdentity]
	v.stamp = kv[metaVecStamp]
	return v, nil
}

// viewVectors returns the view's dense vectors, loaded on first use (see
// [Engine.loadVectors]); concurrent callers wait for the one load, and a
// failed load is tried again by the next call.
func (e *Engine) viewVectors(ctx context.Context, v *view) (*search.Vectors, error) {
	v.vecMu.Lock()
	defer v.vecMu.Unlock()
	if v.vecs != nil {
		return v.vecs, nil
	}
	vecs, err := e.loadVectors(ctx, v.db, v.gen, v.stamp)
	if err != nil {
		return nil, err
	}
	v.vecs = vecs
	return vecs, nil
}
