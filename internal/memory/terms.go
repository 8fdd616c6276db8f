package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/store"
)

// The term index: each memory's analysed terms with their frequency per
// column (memory_terms) and its length (memories.dl), written with the
// memory in one transaction, so a search reads the postings of its query
// terms instead of analysing every memory (at 10,000 memories analysis
// took 90% of a search). The analyzer version that wrote them is kept in
// meta; a writable open rewrites them under another version, and a
// read-only one analyses the memories in memory until then.

// metaAnalyzer is the meta key of the analyzer version of memory_terms.
const metaAnalyzer = "analyzer"

// execer is a transaction or a connection.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// writeTerms replaces memory id's terms and length.
func writeTerms(ctx context.Context, tx execer, id int64, m *Memory) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_terms WHERE id = ?`, id); err != nil {
		return fmt.Errorf("indexing memory %d: %v", id, err)
	}
	d := analyzeMemory(m)
	for t, c := range d.tf {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_terms (term, id, name, path, doc) VALUES (?, ?, ?, ?, ?)`,
			t, id, c[store.ColName], c[store.ColPath], c[store.ColDoc]); err != nil {
			return fmt.Errorf("indexing memory %d: %v", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE memories SET dl = ? WHERE id = ?`, d.dl, id); err != nil {
		return fmt.Errorf("indexing memory %d: %v", id, err)
	}
	return nil
}

// checkTerms sets db.termsCurrent, first rewriting the term index of a
// writable database whose terms another analyzer version wrote.
func (db *DB) checkTerms(ctx context.Context) error {
	var v string
	err := db.conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaAnalyzer).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("reading the memory term index version: %v", err)
	}
	want := strconv.Itoa(analyze.Version)
	if v == want || db.readOnly {
		db.termsCurrent = v == want
		return nil
	}
	recs, err := db.records(ctx, withText)
	if err != nil {
		return err
	}
	tx, err := db.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rewriting the memory term index: %v", err)
	}
	defer tx.Rollback()
	for i := range recs {
		if err := writeTerms(ctx, tx, recs[i].ID, &recs[i].Memory); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, metaAnalyzer, want); err != nil {
		return fmt.Errorf("rewriting the memory term index: %v", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rewriting the memory term index: %v", err)
	}
	db.termsCurrent = true
	return nil
}

// termStats reads the BM25 statistics of terms from the term index; the
// caller fills in the lengths (dl) from the records it read.
func (db *DB) termStats(ctx context.Context, terms []string) (*termStats, error) {
	ts := &termStats{df: map[string]int{}, tf: map[int64]map[string][store.NumColumns]uint16{}, dl: map[int64]int{}}
	if err := db.conn.QueryRowContext(ctx, `SELECT count(*), coalesce(avg(dl), 0) FROM memories`).Scan(&ts.docs, &ts.avgdl); err != nil {
		return nil, fmt.Errorf("reading memory term statistics: %v", err)
	}
	if len(terms) == 0 || ts.docs == 0 {
		return ts, nil
	}
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	rows, err := db.conn.QueryContext(ctx, `SELECT term, id, name, path, doc FROM memory_terms
		WHERE term IN (?`+strings.Repeat(", ?", len(terms)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading memory terms: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var id int64
		var c [store.NumColumns]uint16
		if err := rows.Scan(&term, &id, &c[store.ColName], &c[store.ColPath], &c[store.ColDoc]); err != nil {
			return nil, fmt.Errorf("reading memory terms: %v", err)
		}
		ts.df[term]++
		if ts.tf[id] == nil {
			ts.tf[id] = map[string][store.NumColumns]uint16{}
		}
		ts.tf[id][term] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading memory terms: %v", err)
	}
	return ts, nil
}
