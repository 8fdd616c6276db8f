package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Meta keys the store itself maintains.
const (
	// MetaContentVersion counts the transactions that changed the index's
	// content (files, chunks, vectors, postings): [DB.Apply] and
	// [DB.ReplaceWith] increment it inside the transaction that makes the
	// change, so a value read together with rows names exactly the
	// content those rows belong to. Derived files (the vector file) are
	// stamped with it: a derived file whose stamp differs from the
	// committed value is stale, whatever a run did or did not finish.
	MetaContentVersion = "content_version"
	// MetaIndexID is a random id (16 hex digits) given to a database the
	// first time content is written to it. With MetaContentVersion it
	// tells a derived file of a deleted and recreated index (whose
	// content version starts again from 1) from one of this index.
	MetaIndexID = "index_id"
)

// Version names one committed state of an index's content: the index's
// id and its content version (see [MetaContentVersion]). The zero Version
// is an index nothing was written to.
type Version struct {
	IndexID string
	Content int64
}

// String is the stamp written into derived files: "<index id>:<content
// version>".
func (v Version) String() string { return v.IndexID + ":" + strconv.FormatInt(v.Content, 10) }

// Version returns the committed content version.
func (db *DB) Version(ctx context.Context) (Version, error) {
	kv, err := db.MetaKeys(ctx, MetaIndexID, MetaContentVersion)
	if err != nil {
		return Version{}, err
	}
	return versionOf(kv), nil
}

func versionOf(kv map[string]string) Version {
	n, _ := strconv.ParseInt(kv[MetaContentVersion], 10, 64)
	return Version{IndexID: kv[MetaIndexID], Content: n}
}

// bumpContent increments the content version inside tx (the transaction
// that changes the content) and gives the index an id if it has none.
func bumpContent(ctx context.Context, tx *sql.Tx) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES(?, ?)`, MetaIndexID, hex.EncodeToString(b[:])); err != nil {
		return fmt.Errorf("stamping the index: %v", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, '1')
ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, MetaContentVersion); err != nil {
		return fmt.Errorf("stamping the index: %v", err)
	}
	return nil
}

// readTx runs fn in one read transaction of a pooled reader connection, so
// every statement of fn sees the same committed state (SQLite's WAL
// snapshot is taken by the first read and held until the end).
func (db *DB) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("beginning a read: %v", err)
	}
	defer tx.Rollback()
	return fn(tx)
}
