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
	return db.metaQuery(ctx, `SELECT key, value FROM meta WHERE key IN `+placeholders(len(keys)), stringArgs(keys)...)
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
