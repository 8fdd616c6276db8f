package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// termRow is one term's merged postings row.
type termRow struct {
	term string
	n    int
	data []byte
}

// mergeRows merges the postings rows of the segments segs (all: every
// segment, which segs then lists), calling emit with each term's merged
// row (m merges them), in term order. It reads the postings table in its
// key order, (term, seg), so each term's rows come together and the
// table's pages are read in sequence; a partial merge reads past the
// other segments' rows but not their long data. Errors: SQLite failures
// and corrupt postings.
func mergeRows(ctx context.Context, tx *sql.Tx, segs []int64, all bool, m *merger, emit func(termRow) error) error {
	var cur string
	flush := func() error {
		r, ok, err := m.flush()
		if err != nil || !ok {
			return err
		}
		return emit(termRow{cur, r.n, r.data})
	}
	q := `SELECT p.term, ` + postingsData + ` FROM postings p LEFT JOIN postings_big b ON b.id = p.big`
	var args []any
	if !all {
		segList, _ := json.Marshal(segs)
		q += ` WHERE p.seg IN (SELECT value FROM json_each(?))`
		args = append(args, string(segList))
	}
	q += ` ORDER BY p.term, p.seg`
	if err := each(ctx, tx, "postings", q, args, func(rows *sql.Rows) error {
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
		return fmt.Errorf("merging postings: %w", err)
	}
	return flush()
}
