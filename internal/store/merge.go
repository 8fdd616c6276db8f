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
// sequence and the other segments' not at all. Errors: SQLite failures
// and corrupt postings.
func mergeRows(ctx context.Context, tx *sql.Tx, segs []int64, m *merger, emit func(termRow) error) error {
	var cur string
	flush := func() error {
		r, ok, err := m.flush()
		if err != nil || !ok {
			return err
		}
		return emit(termRow{cur, r.n, r.data})
	}
	if err := scanTerms(ctx, tx, segs, true, func(r segRow) error {
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
	return flush()
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
