package store

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
)

// termRow is one term's merged postings row.
type termRow struct {
	term string
	n    int
	data []byte
}

// mergeSegments merges the postings rows of the segments segs, calling
// emit with each term's merged row (m merges them), in term order. It
// reads each segment's rows in rowid order and merges the segments in
// Go, which reads the table's pages in sequence instead of through the
// (term, seg) index and a rowid lookup per row (3 s against 1 s on the
// Go standard library). That order is term order because every writer
// of postings inserts one segment's rows in one transaction, in term
// order, and segment numbers grow with time: rowids (max + 1 on insert)
// rise with the segment and, within one, with the term.
//
// ok is false when the rows are not in that order (then emit may have
// been called with part of the terms): a row in a segment's rowid range
// belongs to another segment, a segment's terms do not ascend, or its
// rows do not hold the entries entries[seg] says it has. Errors: SQLite
// failures and corrupt postings.
func mergeSegments(ctx context.Context, tx *sql.Tx, segs []int64, entries map[int64]int64, m *merger, emit func(termRow) error) (ok bool, err error) {
	segs = slices.Sorted(slices.Values(segs))
	probe, err := tx.PrepareContext(ctx, `SELECT id, seg FROM postings WHERE id >= ? ORDER BY id LIMIT 1`)
	if err != nil {
		return false, fmt.Errorf("reading postings: %v", err)
	}
	defer probe.Close()
	var minID, maxID sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(id), max(id) FROM postings`).Scan(&minID, &maxID); err != nil {
		return false, fmt.Errorf("reading postings: %v", err)
	}
	if !minID.Valid {
		return len(segs) == 0 || entries[segs[0]] == 0, nil
	}
	// firstAtLeast returns the rowid where the segments numbered seg and
	// above start (max + 1 when none of them has rows).
	firstAtLeast := func(seg int64) (int64, error) {
		lo, hi := minID.Int64, maxID.Int64+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			var id, s int64
			switch err := probe.QueryRowContext(ctx, mid).Scan(&id, &s); {
			case err == sql.ErrNoRows:
				hi = mid
			case err != nil:
				return 0, fmt.Errorf("reading postings: %v", err)
			case s >= seg:
				hi = mid
			default:
				lo = id + 1
			}
		}
		return lo, nil
	}

	h := make(cursorHeap, 0, len(segs))
	// Every cursor opened, closed on return: an open one holds the
	// transaction.
	var all []*segCursor
	defer func() {
		for _, c := range all {
			c.rows.Close()
		}
	}()
	for _, seg := range segs {
		lo, err := firstAtLeast(seg)
		if err != nil {
			return false, err
		}
		hi, err := firstAtLeast(seg + 1)
		if err != nil {
			return false, err
		}
		c := &segCursor{seg: seg, want: entries[seg]}
		c.rows, err = tx.QueryContext(ctx, `SELECT seg, term, n, data FROM postings WHERE id >= ? AND id < ? ORDER BY id`, lo, hi)
		if err != nil {
			return false, fmt.Errorf("reading postings: %v", err)
		}
		all = append(all, c)
		more, err := c.next()
		if err != nil || c.bad {
			return false, err
		}
		if more {
			heap.Push(&h, c)
		}
	}
	var group []*segCursor
	for len(h) > 0 {
		term := h[0].term
		group = group[:0]
		for len(h) > 0 && h[0].term == term {
			group = append(group, heap.Pop(&h).(*segCursor))
		}
		for _, c := range group {
			m.rows = append(m.rows, c.data)
		}
		r, live, err := m.flush()
		if err != nil {
			return false, fmt.Errorf("reading postings: %w", err)
		}
		if live {
			if err := emit(termRow{term, r.n, r.data}); err != nil {
				return false, err
			}
		}
		for _, c := range group {
			more, err := c.next()
			if err != nil || c.bad {
				return false, err
			}
			if more {
				heap.Push(&h, c)
			}
		}
	}
	return true, nil
}

// segCursor reads one segment's postings rows in rowid order.
type segCursor struct {
	seg  int64
	rows *sql.Rows
	// The current row's term and data (valid until the next call of
	// next).
	term string
	data sql.RawBytes
	// want is the segment's entries (segments.postings), got those of
	// the rows read so far.
	want, got int64
	// bad is set when a row is out of order or the entries disagree.
	bad bool
	// started is set once a row was read.
	started bool
}

// next moves to the next row and reports whether there is one; at the
// end it checks the entries read against the segment's.
func (c *segCursor) next() (bool, error) {
	if !c.rows.Next() {
		if err := c.rows.Err(); err != nil {
			return false, fmt.Errorf("reading postings: %v", err)
		}
		c.bad = c.got != c.want
		return false, nil
	}
	prev := c.term
	var seg, n int64
	if err := c.rows.Scan(&seg, &c.term, &n, &c.data); err != nil {
		return false, fmt.Errorf("reading postings: %v", err)
	}
	c.got += n
	if seg != c.seg || c.got > c.want || c.started && c.term <= prev {
		c.bad = true
		return false, nil
	}
	c.started = true
	return true, nil
}

// cursorHeap is a min-heap of cursors by (term, seg), through
// container/heap.
type cursorHeap []*segCursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	if h[i].term != h[j].term {
		return h[i].term < h[j].term
	}
	return h[i].seg < h[j].seg
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*segCursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return c
}

// mergeByTerm is mergeSegments for rows in any order: it reads them
// through the (term, seg) index.
func mergeByTerm(ctx context.Context, tx *sql.Tx, segs []int64, m *merger, emit func(termRow) error) error {
	var cur string
	flush := func() error {
		r, ok, err := m.flush()
		if err != nil || !ok {
			return err
		}
		return emit(termRow{cur, r.n, r.data})
	}
	segList, _ := json.Marshal(segs)
	if err := each(ctx, tx, "postings", `SELECT term, data FROM postings WHERE seg IN (SELECT value FROM json_each(?)) ORDER BY term, seg`, []any{string(segList)}, func(rows *sql.Rows) error {
		var t string
		var data []byte
		if err := rows.Scan(&t, &data); err != nil {
			return err
		}
		if t != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = t
		}
		m.rows = append(m.rows, data)
		return nil
	}); err != nil {
		return err
	}
	return flush()
}
