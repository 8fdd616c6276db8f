package wvstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/weaviate"
)

// ErrNotSynced is returned by [Open] when the tenant holds no index.
var ErrNotSynced = errors.New("no index in Weaviate")

// Source reads one tenant's index for the search package: a
// [search.Source] and a [search.VectorIndex]. It remembers the rows its
// queries returned, so the search's row lookup after recall rarely needs
// another request. Safe for concurrent use; meant for one search or a
// few (its row memory is never trimmed).
type Source struct {
	c      *weaviate.Client
	tenant string
	chunk  string // class names
	file   string
	terms  string
	Info   Info

	mu     sync.Mutex
	rows   map[int64]store.ChunkRow
	hashes map[string]string // path → content hash (hex SHA-256) of the rows seen
	// vecs holds the vector field (base64) of the rows seen, by chunk id:
	// Cosines scores those chunks here.
	vecs map[int64]string

	// Degraded says what the source could not do and did without (the
	// document frequencies when a count failed); empty when nothing.
	degraded string
}

var (
	_ search.Source      = (*Source)(nil)
	_ search.VectorIndex = (*Source)(nil)
)

// Open returns the tenant's index. Errors: ErrNotSynced (wrapped, with the
// fix) when the tenant or its Index object is missing, and the client's.
func Open(ctx context.Context, c *weaviate.Client, prefix, tenant string) (*Source, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := CheckTenant(tenant); err != nil {
		return nil, err
	}
	info, err := readInfo(ctx, c, prefix+indexClass, tenant)
	if err != nil {
		// A missing collection or tenant is an index never synced, not a
		// failure: tell them apart by listing the tenants.
		ts, terr := c.Tenants(ctx, prefix+indexClass)
		if terr == nil && slices.Contains(ts, tenant) || terr != nil && !isMissing(ctx, c, prefix+indexClass) {
			return nil, err
		}
		info = nil
	}
	if info == nil {
		return nil, fmt.Errorf("%w for tenant %s; run `ctx index --backend weaviate`", ErrNotSynced, tenant)
	}
	return &Source{c: c, tenant: tenant, chunk: prefix + chunkClass, file: prefix + fileClass, terms: prefix + termsClass, Info: *info, rows: map[int64]store.ChunkRow{}, hashes: map[string]string{}, vecs: map[int64]string{}}, nil
}

// FileHash returns the content hash (hex SHA-256) the index holds for a
// file whose chunks a query of this source returned, or "".
func (s *Source) FileHash(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hashes[path]
}

// Degraded returns what the source did without, or "".
func (s *Source) Degraded() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.degraded
}

// rowHit is a chunk hit as the search reads it: its packed row
// ([rowProp]) and _additional.
type rowHit struct {
	Row string              `json:"row"`
	Add weaviate.Additional `json:"_additional"`
}

// Count returns the chunk and file counts of the last sync.
func (s *Source) Count(context.Context) (store.Counts, error) {
	n := 0
	if s.Info.Model != "none" {
		n = s.Info.Chunks
	}
	return store.Counts{Files: s.Info.Files, Chunks: s.Info.Chunks, Vectors: n}, nil
}

// Len is the number of chunks with vectors.
func (s *Source) Len() int {
	c, _ := s.Count(context.Background())
	return c.Vectors
}

// AllFiles lists the tenant's files.
func (s *Source) AllFiles(ctx context.Context) ([]store.FileInfo, error) {
	m, err := listFiles(ctx, s.c, s.file, s.tenant)
	if err != nil {
		return nil, err
	}
	out := make([]store.FileInfo, 0, len(m))
	for p, f := range m {
		out = append(out, store.FileInfo{ID: f.id, Path: p, Language: f.lang})
	}
	slices.SortFunc(out, func(a, b store.FileInfo) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}

// get runs a chunk query, remembers its rows and returns them with the
// hits' scores and distances.
func (s *Source) get(ctx context.Context, q weaviate.Query) ([]store.ChunkRow, []weaviate.Additional, error) {
	q.Class, q.Tenant, q.Fields = s.chunk, s.tenant, rowFieldsQuery
	hits, err := weaviate.GetAs[rowHit](ctx, s.c, q)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]store.ChunkRow, len(hits))
	hashes := make([]string, len(hits))
	vecs := make([]string, len(hits))
	adds := make([]weaviate.Additional, len(hits))
	for i := range hits {
		if hashes[i], vecs[i], err = decodeRow(hits[i].Row, &rows[i]); err != nil {
			return nil, nil, fmt.Errorf("chunk object %s: %w", hits[i].Add.ID, err)
		}
		adds[i] = hits[i].Add
	}
	s.mu.Lock()
	for i, r := range rows {
		s.keepLocked(r, hashes[i], vecs[i])
	}
	s.mu.Unlock()
	return rows, adds, nil
}

// keepLocked remembers a row a query returned, with its file's hash and
// its encoded vector when the row carries them (""), for the search's
// reads that follow. s.mu must be held.
func (s *Source) keepLocked(r store.ChunkRow, hash, vec string) {
	s.rows[r.ID] = r
	if hash != "" {
		s.hashes[r.Path] = hash
	}
	if vec != "" {
		s.vecs[r.ID] = vec
	}
}

// rowFieldsQuery are the properties a chunk query returns.
var rowFieldsQuery = []string{rowProp}

// Chunks returns the rows of ids, from memory when a query returned them.
func (s *Source) Chunks(ctx context.Context, ids []int64) ([]store.ChunkRow, error) {
	out := make([]store.ChunkRow, 0, len(ids))
	var missing []int64
	s.mu.Lock()
	for _, id := range ids {
		if r, ok := s.rows[id]; ok {
			out = append(out, r)
		} else {
			missing = append(missing, id)
		}
	}
	s.mu.Unlock()
	for b := range slices.Chunk(missing, maxIDs) {
		f := idsFilter("chunkId", b)
		rows, _, err := s.get(ctx, weaviate.Query{Where: &f, Limit: len(b)})
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// maxIDs caps the ids one ContainsAny filter names.
const maxIDs = 500

// ChunksByName returns chunks whose defined name is one of names,
// ignoring case, in path and position order.
func (s *Source) ChunksByName(ctx context.Context, names []string, limit int) ([]store.ChunkRow, error) {
	if len(names) == 0 || limit <= 0 {
		return nil, nil
	}
	low := make([]string, len(names))
	for i, n := range names {
		low[i] = strings.ToLower(n)
	}
	f := weaviate.Filter{Operator: "ContainsAny", Path: []string{"nameLower"}, Texts: low}
	// Weaviate returns matches in no set order: ask for more than limit so
	// the first by path are among them.
	rows, _, err := s.get(ctx, weaviate.Query{Where: &f, Limit: min(limit*4, 10000)})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b store.ChunkRow) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.StartByte, b.StartByte))
	})
	return rows[:min(len(rows), limit)], nil
}

// declHit is a chunk object found by a name declared inside it.
type declHit struct {
	Row   string              `json:"row"`
	Decls string              `json:"decls"`
	Add   weaviate.Additional `json:"_additional"`
}

// DeclaredChunks is [store.DB.DeclaredChunks] over the tenant: the chunk
// objects whose declared names (declLowerProp) hold one of names, and
// each such declaration, by path and line, at most limit.
func (s *Source) DeclaredChunks(ctx context.Context, names []string, limit int) ([]store.Declared, error) {
	if len(names) == 0 || limit <= 0 {
		return nil, nil
	}
	want := make(map[string]bool, len(names))
	low := make([]string, 0, len(names))
	for _, n := range names {
		if l := strings.ToLower(n); !want[l] {
			want[l] = true
			low = append(low, l)
		}
	}
	f := weaviate.Filter{Operator: "ContainsAny", Path: []string{declLowerProp}, Texts: low}
	hits, err := weaviate.GetAs[declHit](ctx, s.c, weaviate.Query{Class: s.chunk, Tenant: s.tenant, Fields: []string{rowProp, declsProp},
		Where: &f, Limit: min(limit*4, 10000)})
	if err != nil {
		return nil, err
	}
	var out []store.Declared
	for _, h := range hits {
		var r store.ChunkRow
		hash, vec, err := decodeRow(h.Row, &r)
		if err != nil {
			return nil, fmt.Errorf("chunk object %s: %w", h.Add.ID, err)
		}
		// Kept as get keeps rows: the search reads these chunks next.
		s.mu.Lock()
		s.keepLocked(r, hash, vec)
		s.mu.Unlock()
		var ds []declared
		if err := json.Unmarshal([]byte(h.Decls), &ds); err != nil {
			return nil, fmt.Errorf("chunk object %s: its declared names: %v", h.Add.ID, err)
		}
		for _, d := range ds {
			if want[strings.ToLower(d.Name)] {
				out = append(out, store.Declared{Name: d.Name, Kind: d.Kind, Symbol: d.Symbol, Crumb: d.Crumb, Line: d.Line,
					ChunkID: r.ID, Start: r.StartByte, Path: r.Path, Language: r.Language})
			}
		}
	}
	slices.SortFunc(out, func(a, b store.Declared) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line)) })
	return out[:min(len(out), limit)], nil
}

var _ search.DeclaredSource = (*Source)(nil)

// termFilter matches chunks holding term t in any BM25 column of mask
// (0: all).
func termFilter(t string, mask uint8) weaviate.Filter {
	var fs []weaviate.Filter
	for c, p := range termProps {
		if mask == 0 || mask&(1<<c) != 0 {
			fs = append(fs, weaviate.Equal(p, t))
		}
	}
	if len(fs) == 1 {
		return fs[0]
	}
	return weaviate.Or(fs...)
}

// SearchBM25 runs q through Weaviate's BM25: over allProp when q has the
// baked-in weights and no column mask, else over the column properties
// weighted by q.Weights (Weaviate adds up one BM25 score per property);
// ties go by ascending chunk id, as locally.
func (s *Source) SearchBM25(ctx context.Context, q store.BM25Query) ([]store.Hit, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	var props []string
	if q.Columns == 0 && q.Weights == s.Info.AllWeights && s.Info.Objects >= objectsVersion {
		props = []string{allProp}
	} else {
		for c, p := range termProps {
			if (q.Columns == 0 || q.Columns&(1<<c) != 0) && q.Weights[c] > 0 {
				props = append(props, p+"^"+strconv.FormatFloat(q.Weights[c], 'g', -1, 64))
			}
		}
	}
	var where []weaviate.Filter
	if len(q.Groups) > 0 {
		var groups []weaviate.Filter
		for _, g := range q.Groups {
			var all []weaviate.Filter
			for _, i := range g {
				all = append(all, termFilter(q.Terms[i], q.Columns))
			}
			groups = append(groups, weaviate.And(all...))
		}
		where = append(where, weaviate.Or(groups...))
	}
	if q.FileIDs != nil {
		if len(q.FileIDs) == 0 {
			return nil, nil
		}
		where = append(where, idsFilter("fileId", q.FileIDs))
	}
	wq := weaviate.Query{BM25: &weaviate.BM25{Query: strings.Join(q.Terms, " "), Properties: props}, Limit: q.Limit}
	switch len(where) {
	case 0:
	case 1:
		wq.Where = &where[0]
	default:
		f := weaviate.And(where...)
		wq.Where = &f
	}
	rows, hits, err := s.get(ctx, wq)
	if err != nil {
		return nil, err
	}
	out := make([]store.Hit, len(rows))
	for i := range rows {
		out[i] = store.Hit{ChunkID: rows[i].ID, Score: float64(hits[i].Score)}
	}
	slices.SortStableFunc(out, func(a, b store.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	return out, nil
}

// DocFreqs counts the chunks holding each term, in one request. When the
// count fails (Weaviate refuses aggregations while a replica is down),
// every term gets 1 and Degraded says so: the search then weighs the
// query's terms by the query alone.
func (s *Source) DocFreqs(ctx context.Context, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	if len(terms) == 0 {
		return out, nil
	}
	if s.Info.TermBuckets > 0 {
		return s.lookupTerms(ctx, terms)
	}
	// A tenant synced before it had a vocabulary: count per term.
	fs := make([]weaviate.Filter, len(terms))
	for i, t := range terms {
		fs[i] = termFilter(t, 0)
	}
	counts, err := s.c.CountEach(ctx, s.chunk, s.tenant, fs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		s.mu.Lock()
		s.degraded = "term statistics unavailable (" + err.Error() + "); query terms weighed without them"
		s.mu.Unlock()
		for _, t := range terms {
			out[t] = 1
		}
		return out, nil
	}
	for i, t := range terms {
		if counts[i] > 0 {
			out[t] = counts[i]
		}
	}
	return out, nil
}

// FilesByPathSuffixes answers as [store.DB.FilesByPathSuffixes] does,
// looking the mentions' base names up in the file objects.
func (s *Source) FilesByPathSuffixes(ctx context.Context, mentions []string) ([][]store.FileRef, error) {
	out := make([][]store.FileRef, len(mentions))
	clean := make([]string, len(mentions))
	var bases []string
	for i, m := range mentions {
		m = strings.TrimLeft(strings.TrimPrefix(m, "./"), "/")
		clean[i] = m
		if b := m[strings.LastIndexByte(m, '/')+1:]; b != "" && !slices.Contains(bases, b) {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return out, nil
	}
	f := weaviate.Filter{Operator: "ContainsAny", Path: []string{"base"}, Texts: bases}
	type fileHit struct {
		FileID string              `json:"fileId"`
		Path   string              `json:"path"`
		Add    weaviate.Additional `json:"_additional"`
	}
	hits, err := weaviate.GetAs[fileHit](ctx, s.c, weaviate.Query{Class: s.file, Tenant: s.tenant, Fields: []string{"fileId", "path"}, Where: &f, Limit: 10000})
	if err != nil {
		return nil, err
	}
	files := make([]store.FileRef, 0, len(hits))
	for _, h := range hits {
		id, err := strconv.ParseInt(h.FileID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("file object %s: fileId %q", h.Add.ID, h.FileID)
		}
		files = append(files, store.FileRef{ID: id, Path: h.Path})
	}
	slices.SortFunc(files, func(a, b store.FileRef) int {
		return cmp.Or(cmp.Compare(len(a.Path), len(b.Path)), cmp.Compare(a.Path, b.Path))
	})
	for _, f := range files {
		for i, m := range clean {
			if len(out[i]) < 20 && m != "" && store.MentionNames(f.Path, m) {
				out[i] = append(out[i], f)
			}
		}
	}
	return out, nil
}

// ChunkAtLine returns the chunk of the file holding line (see
// [search.Source]).
func (s *Source) ChunkAtLine(ctx context.Context, fileID int64, line int) (int64, error) {
	f := weaviate.Equal("fileId", idText(fileID))
	rows, _, err := s.get(ctx, weaviate.Query{Where: &f, Limit: 10000})
	if err != nil {
		return 0, err
	}
	slices.SortFunc(rows, func(a, b store.ChunkRow) int { return cmp.Compare(a.StartByte, b.StartByte) })
	for _, r := range rows {
		if r.StartLine <= line && line <= r.EndLine {
			return r.ID, nil
		}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return rows[0].ID, nil
}

// TopK runs Weaviate's vector search (cosine distance d; similarity 1-d).
func (s *Source) TopK(ctx context.Context, q []float32, k int) ([]int64, []float64, error) {
	rows, hits, err := s.get(ctx, weaviate.Query{NearVector: &weaviate.NearVector{Vector: q}, Limit: k})
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int64, len(rows))
	sims := make([]float64, len(rows))
	for i := range rows {
		ids[i], sims[i] = rows[i].ID, 1-hits[i].Distance
	}
	return ids, sims, nil
}

// Cosines returns q's similarity to each chunk of ids. A chunk whose row
// a query returned with its vector (every row of a tenant written with
// objectsVersion 4) is scored here, as the local store scores it: q's dot
// product with the stored int8 embedding decoded, q being unit length.
// The rest (a chunk whose row no query of this source returned) are
// scored by a vector search restricted to them, asking only for their
// ids. For a search's candidates, whose rows it read, no request is
// made. Errors: the client's, or a row's vector that does not decode.
func (s *Source) Cosines(ctx context.Context, q []float32, ids []int64) ([]float64, error) {
	sim := make(map[int64]float64, len(ids))
	var ask []int64
	s.mu.Lock()
	var buf []byte
	for _, id := range ids {
		if text, ok := s.vecs[id]; ok {
			var c float64
			var err error
			if c, buf, err = rowCosine(q, text, buf); err != nil {
				s.mu.Unlock()
				return nil, fmt.Errorf("chunk %d: %w", id, err)
			}
			sim[id] = c
		} else {
			ask = append(ask, id)
		}
	}
	s.mu.Unlock()
	for b := range slices.Chunk(ask, maxIDs) {
		f := idsFilter("chunkId", b)
		type idHit struct {
			ChunkID string              `json:"chunkId"`
			Add     weaviate.Additional `json:"_additional"`
		}
		hits, err := weaviate.GetAs[idHit](ctx, s.c, weaviate.Query{Class: s.chunk, Tenant: s.tenant, Fields: []string{"chunkId"}, NearVector: &weaviate.NearVector{Vector: q}, Where: &f, Limit: len(b)})
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			n, err := strconv.ParseInt(h.ChunkID, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("chunk object %s: chunkId %q", h.Add.ID, h.ChunkID)
			}
			sim[n] = 1 - h.Add.Distance
		}
	}
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = sim[id]
	}
	return out, nil
}

func idText(id int64) string { return strconv.FormatInt(id, 10) }

// idsFilter matches objects whose id property is one of ids.
func idsFilter(prop string, ids []int64) weaviate.Filter {
	ts := make([]string, len(ids))
	for i, id := range ids {
		ts[i] = idText(id)
	}
	return weaviate.Filter{Operator: "ContainsAny", Path: []string{prop}, Texts: ts}
}

// isMissing reports whether the class does not exist.
func isMissing(ctx context.Context, c *weaviate.Client, class string) bool {
	cl, err := c.Class(ctx, class)
	return err == nil && cl == nil
}
