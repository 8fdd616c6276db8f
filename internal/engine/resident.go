package engine

import (
	"context"
	"errors"
	"time"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
)

// maxTableChunks bounds the chunk rows a kept engine holds in memory
// ([store.ChunkTable], about 130 bytes a chunk measured on the Go
// standard library, so about 130 MB at the bound): a larger index is
// searched from SQLite, as a one-shot process searches.
const maxTableChunks = 1_000_000

// residentSource is a kept view's index for a search: the view's
// database, with chunk rows (by id and by name) answered from the view's
// [store.ChunkTable] instead of a statement per call.
type residentSource struct {
	*store.DB
	t *store.ChunkTable
	v *view
}

// maxViewDocFreqs bounds the terms whose document frequency a view keeps
// (about 50 bytes a term: 2.5 MB at the bound); past it, terms are read
// from the database each time.
const maxViewDocFreqs = 50_000

// DocFreqs answers the terms the view has read before from memory and
// reads the others: a committed state's document frequencies are fixed.
func (s residentSource) DocFreqs(ctx context.Context, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	var missing []string
	s.v.dfMu.Lock()
	for _, t := range terms {
		if n, ok := s.v.df[t]; ok {
			out[t] = n
		} else {
			missing = append(missing, t)
		}
	}
	s.v.dfMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.DB.DocFreqs(ctx, missing)
	if err != nil {
		return nil, err
	}
	s.v.dfMu.Lock()
	if s.v.df == nil {
		s.v.df = map[string]int{}
	}
	for t, n := range read {
		out[t] = n
		if len(s.v.df) < maxViewDocFreqs {
			s.v.df[t] = n
		}
	}
	s.v.dfMu.Unlock()
	return out, nil
}

// Chunks answers from the table; it never fails.
func (s residentSource) Chunks(_ context.Context, ids []int64) ([]store.ChunkRow, error) {
	return s.t.Chunks(ids), nil
}

// RowsInMemory marks the source's rows as read from memory: a search
// does not read them ahead while its dense channel runs.
func (residentSource) RowsInMemory() {}

// ChunksByName answers from the table; it never fails.
func (s residentSource) ChunksByName(_ context.Context, names []string, limit int) ([]store.ChunkRow, error) {
	return s.t.ChunksByName(names, limit), nil
}

// chunkSource is the source a search of v reads chunk rows from: v's
// resident table for a kept engine ([Options.KeepOpen]), read on first
// use; the database itself for a one-shot engine (which would read the
// table to use it once), while an index run is writing (every batch
// commits a new state, and the rows the BM25 postings name must be the
// ones committed), for an index above [maxTableChunks], or when the
// table cannot be read.
func (e *Engine) chunkSource(ctx context.Context, v *view) search.Source {
	if !e.keepOpen || v.head.running || v.total > maxTableChunks {
		return v.db
	}
	v.tabMu.Lock()
	t, prev := v.tab, v.prevTab
	v.tabMu.Unlock()
	if t != nil {
		return residentSource{DB: v.db, t: t, v: v}
	}
	if prev != nil {
		// Bringing the replaced view's table up to date takes 0.3-0.5 s
		// on the Go standard library (every row is copied): the first
		// answers after a save read SQLite meanwhile.
		e.advanceLater(ctx, v)
		return v.db
	}
	t, err := e.viewTable(ctx, v)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("reading the chunk table; searching the database", "err", err)
		}
		return v.db
	}
	return residentSource{DB: v.db, t: t, v: v}
}

// advanceLater starts bringing v's replaced table up to date in the
// background, once per view; it holds v's database handle until done,
// and [Engine.Close] waits for it. It outlives the call that started it
// (ctx's values are kept, its cancellation is not).
func (e *Engine) advanceLater(ctx context.Context, v *view) {
	v.tabMu.Lock()
	started := v.advancing
	v.advancing = true
	v.tabMu.Unlock()
	if started {
		return
	}
	e.mu.Lock()
	h := v.h
	if h == nil || h.retired {
		e.mu.Unlock()
		return
	}
	h.refs++
	e.bg.Add(1)
	e.mu.Unlock()
	go func() {
		defer e.bg.Done()
		defer e.release(h)
		if _, err := e.viewTable(context.WithoutCancel(ctx), v); err != nil {
			e.log.Warn("updating the chunk table", "err", err)
		}
	}()
}

// viewTable returns v's chunk table, read on first use: brought up to
// date from the table of the view v replaced when there is one (the rows
// of deleted chunks dropped, the new ones read), else read whole.
// Concurrent callers wait for the one read; a failed read is tried again
// by the next call.
func (e *Engine) viewTable(ctx context.Context, v *view) (*store.ChunkTable, error) {
	v.tabMu.Lock()
	defer v.tabMu.Unlock()
	if v.tab != nil {
		return v.tab, nil
	}
	start := time.Now()
	how := "read"
	var t *store.ChunkTable
	var err error
	if v.prevTab != nil {
		how = "advanced"
		t, err = v.prevTab.Advance(ctx, v.db)
		if err != nil && !errors.Is(err, store.ErrOtherIndexTable) {
			e.log.Warn("updating the chunk table; reading it all", "err", err)
		}
	}
	if t == nil {
		how = "read"
		if t, err = v.db.ReadChunkTable(ctx); err != nil {
			return nil, err
		}
	}
	v.tab, v.prevTab = t, nil
	e.log.Debug("chunk table "+how, "chunks", t.Len(), "bytes", t.Bytes(), "dur", time.Since(start))
	return t, nil
}

// Prefetch reads what a kept engine holds for the index's current
// committed state before the first query asks for it: the chunk table
// (about 0.6 s on the Go standard library's 106k chunks). A server calls
// it once when it starts, beside its watcher; a query that comes first
// waits for the one read. It does nothing for a one-shot engine, without
// an index, or while an index run is writing. Errors are logged: the
// first query reads again.
func (e *Engine) Prefetch(ctx context.Context) {
	if !e.keepOpen || e.remoteBackend() {
		return
	}
	v, release, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer release()
	if v.stored == "" || v.stored != e.Identity().Hash {
		return // a first index being built, or a stale one: queries say so
	}
	e.chunkSource(ctx, v)
}
