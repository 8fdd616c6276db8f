package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/memory"
	"github.com/ctx-dev/ctx/internal/search"
)

// Memory types, as the memory package defines them.
type (
	// Memory is one stored memory.
	Memory = memory.Memory
	// MemoryInput is a memory to store.
	MemoryInput = memory.Input
	// MemoryFilter narrows a listing or a search by kind, tags and path
	// prefix.
	MemoryFilter = memory.Filter
	// MemoryQuery is one memory search: Text, Limit (default 10) and a
	// filter.
	MemoryQuery = memory.Query
	// MemoryHit is a memory found by a search with its score and channels.
	MemoryHit = memory.Hit
	// ImportReport says what [Engine.ImportMemories] did.
	ImportReport = memory.ImportReport
)

// MemoryPath returns the repository's memory database: a SQLite file
// beside the index database (its path + ".memories"), which no index run,
// rebuild or [Engine.Clear] touches.
func (e *Engine) MemoryPath() string { return e.dbPath + ".memories" }

// memoryEmbedder returns the embedder memories use: the engine's model,
// masking secrets when the configured provider is remote ([IsRemote]).
func (e *Engine) memoryEmbedder() *memory.Embedder {
	if e.emb == nil {
		return nil
	}
	return &memory.Embedder{Provider: e.emb, Mask: IsRemote(e.cfg.Embed.Provider), BatchSize: e.cfg.Embed.BatchSize,
		QueryTimeout: cmp.Or(e.cfg.Embed.QueryTimeout, config.DefaultQueryTimeout)}
}

// openMemories opens the memory database, read-only (a missing file is an
// empty store) or for writing (created when missing).
func (e *Engine) openMemories(ctx context.Context, readOnly bool) (*memory.DB, error) {
	return memory.Open(ctx, e.MemoryPath(), &memory.Options{ReadOnly: readOnly})
}

// memoryPath turns a path a caller gave for a memory into a slash path
// relative to the root: an absolute path must lie inside the root, and
// the path (or its longest existing parent) must not leave the root
// through a symlink. Errors wrap
// [memory.ErrInvalid].
func (e *Engine) memoryPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(e.root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%w: path %s is outside the repository root %s", memory.ErrInvalid, p, e.root)
		}
		p = rel
	}
	rel, err := memory.NormalizePath(filepath.ToSlash(p))
	if err != nil || rel == "" {
		return rel, err
	}
	// The path need not exist yet: its longest existing part must stay
	// inside the root once symlinks are resolved.
	for p := filepath.Join(e.root, filepath.FromSlash(rel)); p != e.root && len(p) > len(e.root); p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if r, err := filepath.Rel(e.root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%w: path %s leads outside the repository root through a symlink", memory.ErrInvalid, rel)
		}
		break
	}
	return rel, nil
}

// AddMemory stores a memory in the repository's memory database (created
// on first use; no code index is needed), embedding its text with the
// engine's model (masked first for a remote provider). Storing a memory
// of the same kind, text and path again returns the stored one with
// Duplicate set. Errors: [memory.ErrInvalid] (wrapped: empty text, text
// over 64 KiB, unknown kind, a path outside the root, bad tags), SQLite
// failures.
func (e *Engine) AddMemory(ctx context.Context, in MemoryInput) (Memory, error) {
	p, err := e.memoryPath(in.Path)
	if err != nil {
		return Memory{}, err
	}
	in.Path = p
	if in, err = memory.Normalize(in); err != nil {
		return Memory{}, err
	}
	db, err := e.openMemories(ctx, false)
	if err != nil {
		return Memory{}, err
	}
	defer db.Close()
	return db.Add(ctx, in, e.memoryEmbedder())
}

// MemoryResponse is the answer of [Engine.SearchMemories]: the JSON of
// `ctx memory find --json`.
type MemoryResponse struct {
	Query   string       `json:"query"`
	Results []MemoryHit  `json:"results"`
	Stats   memory.Stats `json:"stats"`
}

// SearchMemories searches the memories with the code index's channels
// (BM25 and, with an embedding model, dense; fused by RRF). A repository
// without memories answers no results. The query is cut like a code query
// ([Engine.CutQuery]). Errors: a bad filter ([memory.ErrInvalid]),
// SQLite failures.
func (e *Engine) SearchMemories(ctx context.Context, q MemoryQuery) (*MemoryResponse, error) {
	q.Text, _ = e.CutQuery(q.Text)
	if q.PathPrefix != "" {
		p, err := e.memoryPath(q.PathPrefix)
		if err != nil {
			return nil, err
		}
		q.PathPrefix = p
	}
	db, err := e.openMemories(ctx, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	hits, st, err := db.Search(ctx, q, e.memoryEmbedder())
	if err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Score = round(hits[i].Score)
	}
	if st.Degraded != "" {
		e.log.Info("searching memories without the dense channel", "err", st.Degraded)
	}
	return &MemoryResponse{Query: EchoQuery(q.Text), Results: hits, Stats: st}, nil
}

// FindMemories returns the memories that answer q, best first (see
// [Engine.SearchMemories], which also returns the search's statistics).
func (e *Engine) FindMemories(ctx context.Context, q MemoryQuery) ([]MemoryHit, error) {
	r, err := e.SearchMemories(ctx, q)
	if err != nil {
		return nil, err
	}
	return r.Results, nil
}

// ListMemories returns the memories f keeps, by ascending id (none when
// the repository has no memory database).
func (e *Engine) ListMemories(ctx context.Context, f MemoryFilter) ([]Memory, error) {
	if f.PathPrefix != "" {
		p, err := e.memoryPath(f.PathPrefix)
		if err != nil {
			return nil, err
		}
		f.PathPrefix = p
	}
	db, err := e.openMemories(ctx, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.List(ctx, f)
}

// RemoveMemory deletes memory id. Errors: [memory.ErrNotFound] (wrapped)
// for an id the repository does not hold, SQLite failures.
func (e *Engine) RemoveMemory(ctx context.Context, id int64) error {
	if _, err := os.Stat(e.MemoryPath()); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("memory %d: %w (%s has no memories)", id, memory.ErrNotFound, e.root)
	}
	db, err := e.openMemories(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Remove(ctx, id)
}

// ExportMemories writes every memory to w as JSON Lines (see
// [memory.DB.Export]) and returns how many.
func (e *Engine) ExportMemories(ctx context.Context, w io.Writer) (int, error) {
	db, err := e.openMemories(ctx, true)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.Export(ctx, w)
}

// ImportMemories reads JSON Lines written by [Engine.ExportMemories] and
// stores each memory not stored yet; bad lines are skipped and reported
// with their numbers, never aborting the import (see [memory.DB.Import]).
// Paths in the lines are checked as [Engine.AddMemory] checks them.
func (e *Engine) ImportMemories(ctx context.Context, r io.Reader) (ImportReport, error) {
	db, err := e.openMemories(ctx, false)
	if err != nil {
		return ImportReport{}, err
	}
	defer db.Close()
	return db.Import(ctx, r, e.memoryEmbedder())
}

// ContextRequest is one search of code and memories together.
type ContextRequest struct {
	// Query is what to look for; Limit is the most items (default 10).
	Query string
	Limit int
	// Languages and PathGlobs filter the code results (as in
	// [FindRequest]); memories are not filtered by them.
	Languages []string
	PathGlobs []string
	// Full attaches each code result's code.
	Full bool
	// NoMemories leaves the memories out (the answer is then
	// [Engine.Find]'s results, as context items).
	NoMemories bool
}

// ContextItem is one entry of a context search: a code result or a
// memory. Its JSON is {"source": "code", "score", …the fields of [Hit]} or
// {"source": "memory", "score", "id", "kind", "text", "tags", "path",
// "priority"}, where score is the fused score both sources share.
type ContextItem struct {
	// Source is "code" or "memory".
	Source string
	// Score is the item's fused RRF score (see [ContextSearch]).
	Score float64
	// Code is set for a code result, Memory for a memory.
	Code   *Hit
	Memory *MemoryHit
}

// contextMemory is a memory's JSON in a context search.
type contextMemory struct {
	Source   string   `json:"source"`
	Score    float64  `json:"score"`
	ID       int64    `json:"id"`
	Kind     string   `json:"kind"`
	Text     string   `json:"text"`
	Tags     []string `json:"tags"`
	Path     string   `json:"path,omitempty"`
	Priority int      `json:"priority"`
}

// contextCode is a code result's JSON in a context search: the fused
// score, being shallower, hides the Hit's own.
type contextCode struct {
	Source string  `json:"source"`
	Score  float64 `json:"score"`
	*Hit
}

// MarshalJSON writes the item in its source's shape.
func (it ContextItem) MarshalJSON() ([]byte, error) {
	switch {
	case it.Code != nil:
		return json.Marshal(contextCode{Source: "code", Score: it.Score, Hit: it.Code})
	case it.Memory != nil:
		m := it.Memory
		return json.Marshal(contextMemory{Source: "memory", Score: it.Score, ID: m.ID, Kind: m.Kind, Text: m.Text, Tags: m.Tags, Path: m.Path, Priority: m.Priority})
	}
	return nil, fmt.Errorf("context item with neither code nor memory")
}

// UnmarshalJSON reads an item written by MarshalJSON.
func (it *ContextItem) UnmarshalJSON(b []byte) error {
	var head struct {
		Source string  `json:"source"`
		Score  float64 `json:"score"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*it = ContextItem{Source: head.Source, Score: head.Score}
	switch head.Source {
	case "code":
		it.Code = &Hit{}
		return json.Unmarshal(b, it.Code)
	case "memory":
		var m contextMemory
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		it.Memory = &MemoryHit{Memory: Memory{ID: m.ID, Kind: m.Kind, Text: m.Text, Tags: m.Tags, Path: m.Path, Priority: m.Priority}, Score: m.Score}
		return nil
	}
	return fmt.Errorf("context item source %q: want code or memory", head.Source)
}

// ContextStats describes a context search.
type ContextStats struct {
	// SearchMS is the whole search's time in milliseconds.
	SearchMS float64 `json:"search_ms"`
	// Code is the code search's statistics (absent when it could not run).
	Code *FindStats `json:"code,omitempty"`
	// Memory is the memory search's (absent with NoMemories).
	Memory *memory.Stats `json:"memory,omitempty"`
	// CodeUnavailable says why no code results are included although
	// memories are: the repository is not indexed, or its index is stale
	// or empty, with the fix.
	CodeUnavailable string `json:"code_unavailable,omitempty"`
}

// ContextResponse is the answer of [Engine.ContextSearch].
type ContextResponse struct {
	Query   string        `json:"query"`
	Results []ContextItem `json:"results"`
	Stats   ContextStats  `json:"stats"`
	// CodeErr is the code search's error when CodeUnavailable is set, for
	// front ends that act on it (an MCP server starts indexing).
	CodeErr error `json:"-"`
}

// Context search fusion. Each source's list is already ranked by its own
// fusion, so the two are merged by reciprocal rank with the usual k
// ([search.RRFK] = 60) and equal weights: an item's place in the merged
// list depends only on its rank in its own list, which keeps the scores
// of the two searches (not comparable with each other) out of it. The
// merged list alternates between the sources where their ranks tie; ties
// go to code, the primary answer, and a memory enters only when it
// matched (see [memory.DenseFloor]), so a repository whose memories say
// nothing about the query gets code alone.
const (
	contextCodeWeight   = 1.0
	contextMemoryWeight = 1.0
)

// ContextSearch searches the code (through [Engine.Find]) and the
// memories, and returns one list ranked by RRF over the two, each item
// naming its source. When the code index cannot answer (not indexed,
// stale or empty) and memories are included, the memories come back with
// Stats.CodeUnavailable and CodeErr set; with NoMemories that is an error
// as for Find. Other errors: Find's, the memory store's.
func (e *Engine) ContextSearch(ctx context.Context, req ContextRequest) (*ContextResponse, error) {
	start := time.Now()
	limit := cmp.Or(req.Limit, 10)
	query, _ := e.CutQuery(req.Query)
	resp := &ContextResponse{Query: EchoQuery(query), Results: []ContextItem{}}
	var code []Hit
	fr, err := e.Find(ctx, FindRequest{Query: req.Query, Limit: limit, Languages: req.Languages, PathGlobs: req.PathGlobs, Full: req.Full})
	switch {
	case err == nil:
		code, resp.Stats.Code = fr.Results, &fr.Stats
	case !req.NoMemories && (errors.Is(err, ErrNotIndexed) || errors.Is(err, ErrStale) || errors.Is(err, ErrEmptyIndex)):
		resp.CodeErr, resp.Stats.CodeUnavailable = err, err.Error()
	default:
		return nil, err
	}
	var mems []MemoryHit
	if !req.NoMemories {
		mr, err := e.SearchMemories(ctx, MemoryQuery{Text: req.Query, Limit: limit})
		if err != nil {
			return nil, err
		}
		mems, resp.Stats.Memory = mr.Results, &mr.Stats
	}
	resp.Results = fuseContext(code, mems, limit)
	resp.Stats.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// fuseContext merges code results and memory hits by weighted RRF (code
// i is id i, memory j is id −(j+1)), best first, ties to code, at most
// limit.
func fuseContext(code []Hit, mems []MemoryHit, limit int) []ContextItem {
	lists := []search.Ranked{{Channel: "code", Weight: contextCodeWeight}, {Channel: "memory", Weight: contextMemoryWeight}}
	for i := range code {
		lists[0].IDs = append(lists[0].IDs, int64(i))
	}
	for j := range mems {
		lists[1].IDs = append(lists[1].IDs, -int64(j+1))
	}
	fused := search.Fuse(lists)
	slices.SortStableFunc(fused, func(a, b search.Fused) int {
		// Code ids are ≥ 0, memories < 0: on equal scores code first, then
		// each source in its own order.
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(codeFirst(a.ID), codeFirst(b.ID)), cmp.Compare(abs(a.ID), abs(b.ID)))
	})
	out := make([]ContextItem, 0, min(limit, len(fused)))
	for _, f := range fused[:min(limit, len(fused))] {
		it := ContextItem{Score: round(f.Score)}
		if f.ID >= 0 {
			it.Source, it.Code = "code", &code[f.ID]
		} else {
			it.Source, it.Memory = "memory", &mems[-f.ID-1]
		}
		out = append(out, it)
	}
	return out
}

// codeFirst orders code ids (≥ 0) before memory ids.
func codeFirst(id int64) int {
	if id >= 0 {
		return 0
	}
	return 1
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
