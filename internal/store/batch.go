package store

import (
	"context"
	"database/sql"
	"strings"
)

// rowWriter inserts rows into one table in a transaction through
// multi-row INSERT statements: rows are buffered and sent perStmt at a
// time through one statement prepared on first use, the rest by
// [rowWriter.flush]. One statement of many rows costs SQLite and the
// driver much less than as many single-row statements (a cold index of
// the Go standard library sends about a million rows). Rows are
// inserted in the order they were added, so the rowids SQLite assigns
// are those one statement per row would get.
type rowWriter struct {
	tx      *sql.Tx
	head    string // "INSERT INTO t(a, b) VALUES"
	tail    string // what follows the values: "" or an ON CONFLICT clause
	cols    int
	perStmt int
	full    *sql.Stmt // perStmt rows; nil until first used
	args    []any     // buffered rows, cols values each
}

// newRowWriter returns a writer of rows of cols values each; head ends
// with VALUES.
func newRowWriter(tx *sql.Tx, head, tail string, cols, perStmt int) *rowWriter {
	return &rowWriter{tx: tx, head: head, tail: tail, cols: cols, perStmt: perStmt, args: make([]any, 0, cols*perStmt)}
}

// add buffers one row (cols values), sending a full statement's worth
// of rows once there is one. Errors: SQLite's, unwrapped.
func (w *rowWriter) add(ctx context.Context, row ...any) error {
	w.args = append(w.args, row...)
	if len(w.args) < w.cols*w.perStmt {
		return nil
	}
	if w.full == nil {
		st, err := w.tx.PrepareContext(ctx, w.query(w.perStmt))
		if err != nil {
			return err
		}
		w.full = st
	}
	_, err := w.full.ExecContext(ctx, w.args...)
	w.reset()
	return err
}

// flush sends the buffered rows. Errors: SQLite's, unwrapped.
func (w *rowWriter) flush(ctx context.Context) error {
	n := len(w.args) / w.cols
	if n == 0 {
		return nil
	}
	_, err := w.tx.ExecContext(ctx, w.query(n), w.args...)
	w.reset()
	return err
}

// reset empties the buffer, dropping its references to the values.
func (w *rowWriter) reset() {
	clear(w.args)
	w.args = w.args[:0]
}

// close releases the prepared statement.
func (w *rowWriter) close() {
	if w.full != nil {
		w.full.Close()
	}
}

// query returns the statement inserting n rows.
func (w *rowWriter) query(n int) string {
	var b strings.Builder
	row := "(?" + strings.Repeat(",?", w.cols-1) + ")"
	b.Grow(len(w.head) + n*(len(row)+1) + len(w.tail))
	b.WriteString(w.head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	b.WriteString(w.tail)
	return b.String()
}
