package store

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// termRow is one term's merged postings row.
type termRow struct {
	term string
	n    int
	data []byte
}

// mergeRows merges the postings rows of the segments segs, calling emit
// with each term's merged row (m merges them), in term order. It reads
// the segments with [scanTerms], so each segment's pages are read in
// sequence and the other segments' not at all.
//
// Reading and merging run in a goroutine of their own, mergeBatch rows
// ahead of emit, so that on a second core they overlap the writing of
// the rows before. Measured on a cold index of the Go standard library
// (10 segments, 3 alternating runs each): one after the other, reading
// took 0.72-0.84 s and writing 0.61-0.67 s, 1.36-1.51 s in all;
// overlapped, 1.17-1.29 s (the two SQLite connections slow each other:
// writing alone then takes about 1 s). read is what that goroutine
// reads through: a read transaction that sees the segments as committed,
// never the connection emit writes through (one SQLite connection runs
// one statement at a time). m is the goroutine's until mergeRows returns.
// Errors: SQLite failures, corrupt postings, and emit's (which stops the
// reading).
func mergeRows(ctx context.Context, read querier, segs []int64, m *merger, emit func(termRow) error) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []termRow, 2)
	var readErr error
	go func() {
		defer close(batches)
		readErr = readMerged(rctx, read, segs, m, func(b []termRow) bool {
			select {
			case batches <- b:
				return true
			case <-rctx.Done():
				return false
			}
		})
	}()
	var emitErr error
	for b := range batches {
		for _, r := range b {
			if emitErr != nil {
				break
			}
			if emitErr = emit(r); emitErr != nil {
				cancel() // the reader stops; the loop drains what it sent
			}
		}
	}
	// The channel is closed once the reader has returned: readErr is set.
	if emitErr != nil {
		return emitErr
	}
	return readErr
}

// mergeBatch is how many merged rows [mergeRows] hands over at once.
const mergeBatch = 256

// readMerged is [mergeRows]' reading half: it calls send with the merged
// rows in term order, mergeBatch at a time (the last batch shorter), and
// stops when send returns false (the context is then done).
func readMerged(ctx context.Context, read querier, segs []int64, m *merger, send func([]termRow) bool) error {
	var (
		cur   string
		batch []termRow
	)
	flush := func() error {
		r, ok, err := m.flush()
		if err != nil || !ok {
			return err
		}
		batch = append(batch, termRow{cur, r.n, r.data})
		if len(batch) == mergeBatch {
			if !send(batch) {
				return ctx.Err()
			}
			batch = make([]termRow, 0, mergeBatch)
		}
		return nil
	}
	if err := scanTerms(ctx, read, segs, true, func(r segRow) error {
		if r.term != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = r.term
		}
		m.rows = append(m.rows, r.data)
		return nil
	}); err != nil {
		return fmt.Errorf("merging postings: %w", err)
	}
	if err := flush(); err != nil {
		return fmt.Errorf("merging postings: %w", err)
	}
	if len(batch) > 0 && !send(batch) {
		return ctx.Err()
	}
	return nil
}

// segRow is one postings row as [scanTerms] reads it.
type segRow struct {
	term string
	seg  int64
	n    int    // its entries
	data []byte // its data (empty when not asked for); the caller's to keep
}

// segRowsQuery reads one segment's rows in term order: the table's key is
// (seg, term), so it walks one key range, a run of pages, in sequence.
const (
	segRowsQuery   = `SELECT p.term, p.n, ` + postingsData + ` FROM postings p LEFT JOIN postings_big b ON b.id = p.big WHERE p.seg = ? ORDER BY p.term`
	segCountsQuery = `SELECT p.term, p.n, x'' FROM postings p WHERE p.seg = ? ORDER BY p.term`
)

// maxMergeSegments is the most segments [scanTerms] reads at once, each
// through a statement of its own. A cold run writes a segment per 16,384
// chunks (index.writeBatchChunks): 96 for ten copies of the Go standard
// library, so this covers repositories 40 times larger; past it, a merge
// takes the smallest this many first ([DB.CompactPostings]; tests lower
// it through DB.mergeCap).
const maxMergeSegments = 1 << 12

// scanTerms calls f with every postings row of the segments segs in
// (term, seg) order: a k-way merge of one cursor per segment, all open
// at once in conn (a transaction, so they read one commit). withData
// false leaves segRow.data empty and reads no long data. An error from f
// stops the scan and is returned as is; SQLite's are wrapped.
func scanTerms(ctx context.Context, conn querier, segs []int64, withData bool, f func(segRow) error) error {
	q := segRowsQuery
	if !withData {
		q = segCountsQuery
	}
	h := make(segCursors, 0, len(segs))
	var open []*sql.Rows
	defer func() {
		for _, r := range open {
			r.Close()
		}
	}()
	for _, seg := range slices.Sorted(slices.Values(segs)) {
		rows, err := conn.QueryContext(ctx, q, seg)
		if err != nil {
			return fmt.Errorf("reading segment %d: %v", seg, err)
		}
		open = append(open, rows)
		c := &segCursor{rows: rows, row: segRow{seg: seg}}
		if ok, err := c.next(); err != nil {
			return err
		} else if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := f(c.row); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// segCursor is one segment's rows in [scanTerms].
type segCursor struct {
	rows *sql.Rows
	row  segRow // the current row
}

// next reads the cursor's next row; false at the segment's end.
func (c *segCursor) next() (bool, error) {
	if !c.rows.Next() {
		if err := c.rows.Err(); err != nil {
			return false, fmt.Errorf("reading segment %d: %v", c.row.seg, err)
		}
		return false, nil
	}
	var data []byte
	if err := c.rows.Scan(&c.row.term, &c.row.n, &data); err != nil {
		return false, fmt.Errorf("reading segment %d: %v", c.row.seg, err)
	}
	c.row.data = data
	return true, nil
}

// segCursors is a min-heap of cursors by (term, seg).
type segCursors []*segCursor

func (h segCursors) Len() int { return len(h) }
func (h segCursors) Less(i, j int) bool {
	if c := strings.Compare(h[i].row.term, h[j].row.term); c != 0 {
		return c < 0
	}
	return h[i].row.seg < h[j].row.seg
}
func (h segCursors) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *segCursors) Push(x any)   { *h = append(*h, x.(*segCursor)) }
func (h *segCursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
