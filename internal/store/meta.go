package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Meta keys written by the engine.
const (
	MetaRoot        = "root"
	MetaIdentity    = "identity"
	MetaGeneration  = "generation"
	MetaLastIndexed = "last_indexed" // RFC 3339
	MetaSkips       = "skips"        // JSON object: reason → count
	MetaEmbedModel  = "embed_model"
	MetaChunker     = "chunker_version"
)

// Meta returns the value stored under key, or "" when there is none.
func (db *DB) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := db.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading meta %s: %v", key, err)
	}
	return v, nil
}

// SetMeta stores values under their keys in one transaction.
func (db *DB) SetMeta(ctx context.Context, kv map[string]string) error {
	if db.w == nil {
		return ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("writing meta: %v", err)
	}
	defer tx.Rollback()
	for k, v := range kv {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, k, v); err != nil {
			return fmt.Errorf("writing meta %s: %v", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("writing meta: %v", err)
	}
	return nil
}

// MetaAll returns every stored key and value, read in one statement (so
// from one committed state).
func (db *DB) MetaAll(ctx context.Context) (map[string]string, error) {
	return db.metaQuery(ctx, `SELECT key, value FROM meta`)
}

// MetaKeys returns the values of the given keys that are stored, read in
// one statement.
func (db *DB) MetaKeys(ctx context.Context, keys ...string) (map[string]string, error) {
	if len(keys) == 0 {
		return map[string]string{}, nil
	}
	q := `SELECT key, value FROM meta WHERE key IN ` + placeholders(len(keys))
	if st := db.headStatement(ctx, q); st != nil {
		return metaRows(ctx, stmtQuerier{st}, "", stringArgs(keys)...)
	}
	return db.metaQuery(ctx, q, stringArgs(keys)...)
}

// headStatement returns q prepared on the read pool when it is the
// statement prepared first (a kept server asks the same keys on every
// query: parsing it each time cost more than the read), else nil.
func (db *DB) headStatement(ctx context.Context, q string) *sql.Stmt {
	if db.r == nil {
		return nil
	}
	if db.head == nil {
		return nil
	}
	h := db.head
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stmt == nil && h.query == "" {
		st, err := db.r.PrepareContext(ctx, q)
		h.query = q
		if err != nil {
			return nil
		}
		h.stmt = st
	}
	if h.query != q {
		return nil
	}
	return h.stmt
}

// stmtQuerier runs a prepared statement as a querier (its query text is
// ignored).
type stmtQuerier struct{ st *sql.Stmt }

func (s stmtQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(ctx, args...)
}

func (db *DB) metaQuery(ctx context.Context, q string, args ...any) (map[string]string, error) {
	return metaRows(ctx, db.r, q, args...)
}

// metaRows reads key/value rows of the meta table through conn (the pool
// or a transaction).
func metaRows(ctx context.Context, conn querier, query string, args ...any) (map[string]string, error) {
	kv := map[string]string{}
	err := each(ctx, conn, "meta", query, args, func(rows *sql.Rows) error {
		var k, v string
		err := rows.Scan(&k, &v)
		kv[k] = v
		return err
	})
	return kv, err
}
