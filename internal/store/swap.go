package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// ReplaceWith makes the content of the database at src (a complete index
// built beside this one by the same build, so of the same schema) this
// database's content, in one transaction: readers see the old index until
// the commit and the new one after it, never a gap or a mix. Every table
// is emptied and refilled from src; the meta table takes src's values,
// [MetaIndexID] included (the chunk ids are src's, so nothing derived
// from this index's rows may pass for the result's), and the content
// version moves past both databases' ([MetaContentVersion]), so no
// derived file of either passes for the result. It returns the new
// [Version].
//
// The WAL grows by about the size of src until the next checkpoint.
// Errors: src missing or of another schema, SQLite failures (nothing is
// changed then).
func (db *DB) ReplaceWith(ctx context.Context, src string) (Version, error) {
	if db.w == nil {
		return Version{}, ErrReadOnly
	}
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return Version{}, fmt.Errorf("replacing the index: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS next`, FileURI(src)+"?mode=ro"); err != nil {
		return Version{}, fmt.Errorf("replacing the index: opening %s: %v", src, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE next`)

	want := strconv.Itoa(SchemaVersion)
	var got string
	if err := conn.QueryRowContext(ctx, `SELECT value FROM next.meta WHERE key = 'schema_version'`).Scan(&got); err != nil || got != want {
		return Version{}, fmt.Errorf("replacing the index: %s has schema %q, want %s (%v)", src, got, want, err)
	}
	tables, err := contentTables(ctx, conn)
	if err != nil {
		return Version{}, err
	}

	// src is a whole, consistent index: its rows are copied as they are,
	// without foreign-key actions (a files row deleted before its chunks
	// would cascade, and chunks inserted before their files would fail).
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return Version{}, fmt.Errorf("replacing the index: %v", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return Version{}, fmt.Errorf("replacing the index: %v", err)
	}
	defer tx.Rollback()
	old, err := metaRows(ctx, tx, `SELECT key, value FROM main.meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
	if err != nil {
		return Version{}, err
	}
	nv, err := metaRows(ctx, tx, `SELECT key, value FROM next.meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
	if err != nil {
		return Version{}, err
	}
	// Both databases ran the same migrations (the schema versions match),
	// so their tables and column orders are the same.
	for _, t := range tables {
		q := fmt.Sprintf(`DELETE FROM main.%[1]s; INSERT INTO main.%[1]s SELECT * FROM next.%[1]s`, quoteIdent(t))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return Version{}, fmt.Errorf("replacing the index: copying %s: %v", t, err)
		}
	}
	ver := Version{IndexID: nv[MetaIndexID], Content: max(versionOf(old).Content, versionOf(nv).Content) + 1}
	if ver.IndexID == "" {
		if err := bumpContent(ctx, tx); err != nil {
			return Version{}, err
		}
		kv, err := metaRows(ctx, tx, `SELECT key, value FROM main.meta WHERE key = ?`, MetaIndexID)
		if err != nil {
			return Version{}, err
		}
		ver.IndexID = kv[MetaIndexID]
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO main.meta(key, value) VALUES(?, ?), (?, ?)`,
		MetaIndexID, ver.IndexID, MetaContentVersion, strconv.FormatInt(ver.Content, 10)); err != nil {
		return Version{}, fmt.Errorf("replacing the index: %v", err)
	}
	if err := tx.Commit(); err != nil {
		return Version{}, fmt.Errorf("replacing the index: commit: %v", err)
	}
	// Give the copied-over pages back and keep the WAL from holding a
	// second copy of the index until some later checkpoint.
	if _, err := conn.ExecContext(ctx, `PRAGMA main.wal_checkpoint(TRUNCATE)`); err != nil {
		return ver, fmt.Errorf("replacing the index: checkpoint: %v", err)
	}
	return ver, nil
}

// contentTables lists the tables of the main database that hold an
// index's content (not SQLite's own), meta last.
func contentTables(ctx context.Context, conn *sql.Conn) ([]string, error) {
	names, err := collect(ctx, conn, "the index's tables", `SELECT name FROM main.sqlite_master
WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> 'meta' ORDER BY name`, nil,
		func(rows *sql.Rows, n *string) error { return rows.Scan(n) })
	return append(names, "meta"), err
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
