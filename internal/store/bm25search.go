package store

// The BM25 query path: [DB.SearchBM25] reads the query terms' postings
// rows in one statement and scores them a window of chunk ids at a time.
//
// Each row lists its entries in ascending id order (postings.go), so
// every row gets a cursor, and a window of windowIDs consecutive ids
// takes, term after term in the query's order, the entries of each of
// the term's rows that fall inside it. A chunk's score is therefore the
// sum of its terms' contributions in query order, as when whole terms
// were added one after the other into an accumulator of the whole id
// range, while the accumulator spans one window (16 kB, held in the CPU's
// first-level cache) instead of every id (1.7 MB of fresh memory a
// search on the Go standard library's 106k chunks, which a one-shot
// process pays in page faults), and no entry is decoded into an
// intermediate slice. When a window is done its chunks go to a heap of
// the best hits and the window is cleared.

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// SearchBM25 returns up to q.Limit chunks holding at least one of the
// query's terms (and a whole group, with Groups), by BM25 score
// descending, equal scores by ascending chunk id. An empty index or a
// query with no terms returns nil. Errors: SQLite failures and
// corrupt postings (rebuild the index).
func (db *DB) SearchBM25(ctx context.Context, q BM25Query) ([]Hit, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	if len(q.Groups) > 0 && len(q.Terms) > MaxGroupTerms {
		return nil, fmt.Errorf("BM25 search: %d terms in groups, at most %d", len(q.Terms), MaxGroupTerms)
	}
	// Prepared before the transaction takes a connection, so that the
	// first search prepares on a connection the transaction can then
	// reuse instead of on a second one (and again on the transaction's).
	st := db.search.prepared(ctx, db.r)
	// One read transaction: the statistics, dead set, postings and doc
	// lengths are of the same commit.
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("BM25 search: %w", err)
	}
	defer tx.Rollback()
	var docs, tokens int64
	var state string // the Version the doc-length cache is kept for
	var row *sql.Row
	if st.stats != nil {
		row = tx.StmtContext(ctx, st.stats).QueryRowContext(ctx, MetaIndexID, MetaContentVersion)
	} else {
		row = tx.QueryRowContext(ctx, searchStatsQuery, MetaIndexID, MetaContentVersion)
	}
	if err := row.Scan(&docs, &tokens, &state); err != nil {
		return nil, fmt.Errorf("BM25 search: reading statistics: %w", err)
	}
	if docs <= 0 {
		return nil, nil
	}
	dead, err := deadChunks(ctx, st.queryIn(ctx, tx, st.dead, deadQuery))
	if err != nil {
		return nil, fmt.Errorf("BM25 search: %w", err)
	}
	var allowed map[int64]bool
	if q.FileIDs != nil {
		if allowed, err = chunksOfFiles(ctx, tx, q.FileIDs); err != nil {
			return nil, err
		}
		if len(allowed) == 0 {
			return nil, nil
		}
	}
	rows, err := queryPostings(ctx, st.queryIn(ctx, tx, st.postings, postingsQuery), q.Terms)
	if err != nil {
		return nil, err
	}
	lens := docLenReader{cache: db.docLens, conn: tx, t: db.docLens.table(state)}
	s := bm25Scorer{
		docs:    docs,
		avgdl:   float64(tokens) / float64(docs),
		weights: q.Weights,
		columns: cmp.Or(q.Columns, allColumns),
		groups:  q.Groups,
		dead:    dead,
		allowed: allowed,
		docLen:  func(id int64) (uint32, error) { return lens.get(ctx, id) },
	}
	hits, err := s.score(q.Terms, rows, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("BM25 search: %w", err)
	}
	return hits, nil
}

// termPostings is one query term's postings rows.
type termPostings struct {
	rows [][]byte // the rows' data
	n    int      // their entries, dead chunks' included
}

// queryPostings returns each term's postings rows (out[i] for terms[i]).
// Their data is copied once out of SQLite, into shared blocks of
// copyBlock bytes (a row longer than a quarter of one gets its own).
func queryPostings(ctx context.Context, conn querier, terms []string) ([]termPostings, error) {
	list, err := json.Marshal(terms)
	if err != nil {
		return nil, fmt.Errorf("reading postings: %v", err)
	}
	out := make([]termPostings, len(terms))
	var block []byte
	err = each(ctx, conn, "postings", postingsQuery, []any{string(list)}, func(rows *sql.Rows) error {
		var t, n int
		var data sql.RawBytes // the driver's, until the next row
		if err := rows.Scan(&t, &n, &data); err != nil {
			return err
		}
		if t < 0 || t >= len(terms) {
			return fmt.Errorf("term index %d of %d", t, len(terms))
		}
		var own []byte
		if len(data) > copyBlock/4 {
			own = bytes.Clone(data)
		} else {
			if cap(block)-len(block) < len(data) {
				block = make([]byte, 0, copyBlock)
			}
			block = append(block, data...)
			own = block[len(block)-len(data) : len(block) : len(block)]
		}
		tp := &out[t]
		tp.rows = append(tp.rows, own)
		tp.n += n
		return nil
	})
	return out, err
}

// copyBlock is the size of the blocks [queryPostings] copies rows into.
const copyBlock = 16 << 10

// SearchBM25's statements, whose text does not depend on the query (the
// terms go in as one JSON array), so that a long-lived process prepares
// them once.
const (
	searchStatsQuery = `SELECT docs, tokens, coalesce((SELECT value FROM meta WHERE key = ?), '') || ':' || coalesce((SELECT value FROM meta WHERE key = ?), '') FROM bm25_stats WHERE id = 1`
	deadQuery        = `SELECT id FROM dead`
	// postingsQuery returns each row of the terms of a JSON array: the
	// term's index in the array, the row's entry count and its data. The
	// table's key is (seg, term), so it looks each term up in each
	// segment (CROSS JOIN fixes the loops: segments, terms, then one key
	// lookup).
	postingsQuery = `SELECT j.key, p.n, ` + postingsData + ` FROM segments s CROSS JOIN json_each(?) j CROSS JOIN postings p ON p.seg = s.seg AND p.term = j.value LEFT JOIN postings_big b ON b.id = p.big`
)

// searchStmts holds the statements of SearchBM25 and DocFreqs prepared on
// a DB's read pool (database/sql prepares each again on each connection
// it runs on, once). Parsing them on every search cost a long-lived
// server 0.1-0.3 ms a call (BenchmarkRetrievalGoroot's profile).
type searchStmts struct {
	mu                              sync.Mutex // guards the statements
	stats, dead, postings, docFreqs *sql.Stmt  // nil until prepared
}

// prepared returns the statements, preparing them on pool the first
// time; on a failure (or for a nil s) it returns none (the search runs their text) and
// tries again next time.
func (s *searchStmts) prepared(ctx context.Context, pool *sql.DB) *searchStmts {
	if s == nil {
		return &searchStmts{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.postings != nil {
		return s
	}
	var sts [4]*sql.Stmt
	for i, q := range []string{searchStatsQuery, deadQuery, postingsQuery, docFreqsQuery} {
		st, err := pool.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range sts[:i] {
				st.Close()
			}
			return &searchStmts{}
		}
		sts[i] = st
	}
	s.stats, s.dead, s.postings, s.docFreqs = sts[0], sts[1], sts[2], sts[3]
	return s
}

// close closes the prepared statements.
func (s *searchStmts) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, st := range []*sql.Stmt{s.stats, s.dead, s.postings, s.docFreqs} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	s.stats, s.dead, s.postings, s.docFreqs = nil, nil, nil, nil
	return errors.Join(errs...)
}

// queryIn returns a querier that runs st in tx, or query in tx when st
// is nil.
func (s *searchStmts) queryIn(ctx context.Context, tx *sql.Tx, st *sql.Stmt, query string) querier {
	if st == nil {
		return tx
	}
	return stmtQuerier{tx.StmtContext(ctx, st)}
}

// bm25Scorer scores one query's postings rows.
type bm25Scorer struct {
	docs    int64   // live chunks (N)
	avgdl   float64 // their mean token count
	weights BM25Weights
	columns uint8   // the searched columns' mask (not 0)
	groups  [][]int // BM25Query.Groups
	dead    map[int64]bool
	allowed map[int64]bool // nil: every chunk
	// docLen returns a chunk's token count over all columns.
	docLen func(id int64) (uint32, error)
}

// windowBits sets the ids a window holds: 1,024, whose scores and term
// bits take 16 kB.
const (
	windowBits = 10
	windowIDs  = 1 << windowBits
)

// window accumulates the scores of the chunk ids base … base+windowIDs−1.
type window struct {
	score   [windowIDs]float64
	bits    [windowIDs]uint64 // bit 63: touched; bit i < 63: holds term i
	touched []uint16          // offsets from base, first touched first
	later   []contribution    // with groups: the contributions, in term order
}

// contribution is one term's score for one chunk of a window, added once
// the window's group matches are known.
type contribution struct {
	off  uint16
	term int
	s    float64
}

var windowPool = sync.Pool{New: func() any { return new(window) }}

// touchedBit marks an accumulator in use; term bits are 0..62.
const touchedBit = 1 << 63

// MaxGroupTerms is the most terms a [BM25Query] with groups may have: one
// accumulator bit each.
const MaxGroupTerms = 63

func (w *window) add(off uint16, s float64, term int) {
	bit := uint64(touchedBit)
	if term < 63 {
		bit |= 1 << term
	}
	if w.bits[off] == 0 {
		w.touched = append(w.touched, off)
	}
	w.score[off] += s
	w.bits[off] |= bit
}

// keepGroups replaces each touched chunk's term bits with the terms of
// the groups (masks of term bits) it holds whole, none when it holds no
// whole group.
func (w *window) keepGroups(masks []uint64) {
	for _, off := range w.touched {
		bits := w.bits[off]
		keep := uint64(touchedBit)
		for _, m := range masks {
			if bits&m == m {
				keep |= m
			}
		}
		w.bits[off] = keep
	}
}

// flush offers the window's chunks (with grouped, those that hold a whole
// group) to top and clears the window.
func (w *window) flush(base int64, grouped bool, top *topHits) {
	for _, off := range w.touched {
		if !grouped || w.bits[off] != touchedBit {
			top.offer(Hit{ChunkID: base + int64(off), Score: w.score[off]})
		}
		w.score[off], w.bits[off] = 0, 0
	}
	w.touched = w.touched[:0]
	w.later = w.later[:0]
}

// score returns the best limit chunks of the terms' rows (rows[i] for
// terms[i]). A term's contribution to a chunk is
//
//	idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))
//
// (postings.go), summed over the terms in their order. With groups,
// FTS5 counts a term's occurrences only in chunks that match a group
// holding it: a window's contributions wait until every term has marked
// the window's chunks that hold it. Errors: errCorruptPostings, and
// docLen's.
func (s *bm25Scorer) score(terms []string, rows []termPostings, limit int) ([]Hit, error) {
	// The column weights, zero outside the searched columns. With finite
	// weights, a one-column entry's weighted frequency is that column's
	// product alone, bit for bit: the other columns' products are zeros.
	var wc [NumColumns]float64
	finite := true
	for c := range NumColumns {
		if s.columns&(1<<c) != 0 {
			wc[c] = s.weights[c]
		}
		finite = finite && !math.IsInf(wc[c], 0) && !math.IsNaN(wc[c])
	}
	// Cursors over every row of the terms that count, term after term:
	// the term's are curs[from[t]:from[t+1]].
	var curs []postingsCursor
	from := make([]int, len(terms)+1)
	idf := make([]float64, len(terms))
	for t := range terms {
		from[t] = len(curs)
		// df: the live entries in the searched columns, which are all
		// of them without dead chunks over every column.
		df := rows[t].n
		if len(s.dead) > 0 || s.columns != allColumns {
			df = 0
			for _, data := range rows[t].rows {
				n, err := s.liveEntries(data)
				if err != nil {
					return nil, fmt.Errorf("term %q: %w", terms[t], err)
				}
				df += n
			}
		}
		if df == 0 {
			continue
		}
		v := math.Log((float64(s.docs) - float64(df) + 0.5) / (float64(df) + 0.5))
		if v <= 0 {
			v = 1e-6
		}
		idf[t] = v
		for _, data := range rows[t].rows {
			c := postingsCursor{data: data}
			if err := c.next(0); err != nil {
				return nil, fmt.Errorf("term %q: %w", terms[t], err)
			}
			if !c.done {
				curs = append(curs, c)
			}
		}
	}
	from[len(terms)] = len(curs)
	grouped := s.groups != nil
	var masks []uint64
	for _, g := range s.groups {
		var m uint64
		for _, t := range g {
			m |= 1 << t
		}
		masks = append(masks, m)
	}

	w := windowPool.Get().(*window)
	defer func() {
		w.flush(0, false, &topHits{})
		windowPool.Put(w)
	}()
	top := topHits{heap: make([]Hit, 0, limit), limit: limit}
	var tf [NumColumns]uint32
	for {
		// The next window: the one of the lowest id a cursor is at.
		lo, any := int64(math.MaxInt64), false
		for i := range curs {
			if !curs[i].done && curs[i].id < lo {
				lo, any = curs[i].id, true
			}
		}
		if !any {
			break
		}
		base := lo &^ (windowIDs - 1)
		end := base + windowIDs
		for t := range terms {
			for i := from[t]; i < from[t+1]; i++ {
				c := &curs[i]
				for !c.done && c.id < end {
					id := c.id
					var f float64
					if b := c.data[c.pos]; b < longEntry && finite {
						// One column: the weighted sum over the columns
						// is its product alone (the others add zeros).
						if err := c.next(c.pos + 1); err != nil {
							return nil, fmt.Errorf("term %q: %w", terms[t], err)
						}
						col := b & 3
						if s.columns&(1<<col) == 0 {
							continue
						}
						f = wc[col] * float64(uint32(b>>2)+1)
					} else {
						mask, err := c.entry(&tf)
						if err != nil {
							return nil, fmt.Errorf("term %q: %w", terms[t], err)
						}
						if mask&s.columns == 0 {
							continue
						}
						for c, wt := range wc {
							f += wt * float64(tf[c])
						}
					}
					if s.dead[id] || s.allowed != nil && !s.allowed[id] {
						continue
					}
					dl, err := s.docLen(id)
					if err != nil {
						return nil, fmt.Errorf("chunk %d: %w", id, err)
					}
					score := idf[t] * (f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/s.avgdl))
					off := uint16(id - base)
					if grouped {
						w.later = append(w.later, contribution{off, t, score})
						score = 0
					}
					w.add(off, score, t)
				}
			}
		}
		if grouped {
			w.keepGroups(masks)
			for _, c := range w.later {
				if w.bits[c.off]&(1<<c.term) != 0 {
					w.add(c.off, c.s, c.term)
				}
			}
		}
		w.flush(base, grouped, &top)
	}
	return top.sorted(), nil
}

// liveEntries returns the number of entries of a postings row's data
// whose chunk is live and holds the term in a searched column: the
// row's share of the term's df (the path filter does not change it).
// Errors: errCorruptPostings.
func (s *bm25Scorer) liveEntries(data []byte) (int, error) {
	c := postingsCursor{data: data}
	if err := c.next(0); err != nil {
		return 0, err
	}
	n := 0
	var tf [NumColumns]uint32
	for !c.done {
		id := c.id
		var mask uint8
		var err error
		if b := c.data[c.pos]; b < longEntry {
			mask, err = 1<<(b&3), c.next(c.pos+1)
		} else {
			mask, err = c.entry(&tf)
		}
		if err != nil {
			return 0, err
		}
		if mask&s.columns != 0 && !s.dead[id] {
			n++
		}
	}
	return n, nil
}

// postingsCursor walks a postings row's data one entry at a time.
type postingsCursor struct {
	data []byte
	pos  int   // offset of the current entry's byte, past its id delta
	id   int64 // the current entry's chunk id
	done bool  // no entry is left
}

// next moves to the entry whose id delta starts at off, or sets done at
// the end of the data. Errors: errCorruptPostings (a truncated entry, or
// ids that do not ascend).
func (c *postingsCursor) next(off int) error {
	if off >= len(c.data) {
		c.done = true
		return nil
	}
	d, n := binary.Uvarint(c.data[off:])
	if n <= 0 || d > math.MaxInt64-uint64(c.id) {
		return errCorruptPostings
	}
	off += n
	if off >= len(c.data) {
		return errCorruptPostings
	}
	c.id += int64(d)
	c.pos = off
	return nil
}

// entry decodes the current entry into its column mask and term
// frequencies (tf[c], 0 outside the mask) and moves to the next one.
// Errors: errCorruptPostings.
func (c *postingsCursor) entry(tf *[NumColumns]uint32) (uint8, error) {
	b := c.data[c.pos]
	off := c.pos + 1
	if b < longEntry {
		col := b & 3
		*tf = [NumColumns]uint32{}
		tf[col] = uint32(b>>2) + 1
		return 1 << col, c.next(off)
	}
	mask := b &^ longEntry
	if mask == 0 {
		return 0, errCorruptPostings
	}
	for col := range NumColumns {
		tf[col] = 0
		if mask&(1<<col) != 0 {
			v, n := binary.Uvarint(c.data[off:])
			if n <= 0 || v == 0 || v > math.MaxUint32 {
				return 0, errCorruptPostings
			}
			tf[col] = uint32(v)
			off += n
		}
	}
	return mask, c.next(off)
}

// topHits keeps the best limit hits offered: score descending, equal
// scores by ascending id.
type topHits struct {
	heap  []Hit // a min-heap: the worst kept hit on top
	limit int
}

// better orders hits best first.
func better(a, b Hit) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.ChunkID, b.ChunkID)
}

func (t *topHits) offer(h Hit) {
	heap := t.heap
	if len(heap) == t.limit && len(heap) > 0 && h.Score < heap[0].Score {
		return // worse than the worst kept (the common case)
	}
	if len(heap) < t.limit {
		heap = append(heap, h)
		for i := len(heap) - 1; i > 0; {
			p := (i - 1) / 2
			if better(heap[i], heap[p]) <= 0 {
				break
			}
			heap[i], heap[p] = heap[p], heap[i]
			i = p
		}
		t.heap = heap
		return
	}
	if len(heap) == 0 || better(h, heap[0]) >= 0 {
		return
	}
	heap[0] = h
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(heap) {
			return
		}
		w := l
		if r := l + 1; r < len(heap) && better(heap[r], heap[l]) > 0 {
			w = r
		}
		if better(heap[w], heap[i]) <= 0 {
			return
		}
		heap[i], heap[w] = heap[w], heap[i]
		i = w
	}
}

// sorted returns the kept hits, best first.
func (t *topHits) sorted() []Hit {
	slices.SortFunc(t.heap, better)
	return t.heap
}
