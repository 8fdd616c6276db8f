package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// KV is a small content-addressed cache in its own SQLite file, for
// derived text that is costly to make and never changes for its key
// (LLM summaries keyed by a hash of the model, the prompt version and the
// chunk's text). It is not part of any index: deleting the file loses only
// work that can be redone. Safe for concurrent use by goroutines and
// processes (WAL, a busy timeout).
type KV struct {
	db *sql.DB
}

// OpenKV opens (creating when needed) the cache at path. Errors: a
// directory that cannot be created, a file that is not a cache database.
func OpenKV(ctx context.Context, path string) (*KV, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("opening cache %s: %v", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, true, false))
	if err != nil {
		return nil, fmt.Errorf("opening cache %s: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kv(key TEXT PRIMARY KEY, value TEXT NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening cache %s: %v", path, err)
	}
	return &KV{db: db}, nil
}

// Get returns the value stored under key; ok is false when there is none.
func (kv *KV) Get(ctx context.Context, key string) (value string, ok bool, err error) {
	err = kv.db.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading cache: %v", err)
	}
	return value, true, nil
}

// Put stores value under key, replacing what was there.
func (kv *KV) Put(ctx context.Context, key, value string) error {
	if _, err := kv.db.ExecContext(ctx, `INSERT OR REPLACE INTO kv(key, value, created) VALUES(?, ?, ?)`, key, value, time.Now().Unix()); err != nil {
		return fmt.Errorf("writing cache: %v", err)
	}
	return nil
}

// Close closes the cache.
func (kv *KV) Close() error { return kv.db.Close() }
