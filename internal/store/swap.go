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
// except that this index keeps its [MetaIndexID] and its content version
// moves past both databases' ([MetaContentVersion]), so no derived file
// of either passes for the result. It returns the new [Version].
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
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS next`, "file:"+uriPath.Replace(src)+"?mode=ro"); err != nil {
		return Version{}, fmt.Errorf("replacing the index: opening %s: %v", src, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE next`)

	want := strconv.Itoa(SchemaVersion)
	var got string
	if err := conn.QueryRowContext(ctx, `SELECT value FROM next.meta WHERE key = 'schema_version'`).Scan(&got); err != nil || got != want {
		return Version{}, fmt.Errorf("replacing the index: %s has schema %q, want %s (%v)", src, got, want, err)
	}
	tables, err := plainTables(ctx, conn)
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
	nv, err := metaRows(ctx, tx, `SELECT key, value FROM next.meta WHERE key = ?`, MetaContentVersion)
	if err != nil {
		return Version{}, err
	}
	for _, t := range tables {
		cols, err := columns(ctx, tx, t)
		if err != nil {
			return Version{}, err
		}
		q := fmt.Sprintf(`DELETE FROM main.%[1]s; INSERT INTO main.%[1]s(%[2]s) SELECT %[2]s FROM next.%[1]s`, quoteIdent(t), cols)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return Version{}, fmt.Errorf("replacing the index: copying %s: %v", t, err)
		}
	}
	ver := Version{IndexID: old[MetaIndexID], Content: max(versionOf(old).Content, versionOf(nv).Content) + 1}
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

// plainTables lists the ordinary tables of the main database (not SQLite's
// own, not virtual tables or their shadow tables), the ones an index's
// content lives in.
func plainTables(ctx context.Context, conn *sql.Conn) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name FROM main.sqlite_master WHERE type = 'table'
AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("replacing the index: listing tables: %v", err)
	}
	defer rows.Close()
	var virtual []string
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("replacing the index: listing tables: %v", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replacing the index: listing tables: %v", err)
	}
	// Shadow tables of a virtual table (an FTS5 table's _data, _idx, …)
	// are written by the virtual table, not copied.
	vrows, err := conn.QueryContext(ctx, `SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'`)
	if err != nil {
		return nil, fmt.Errorf("replacing the index: listing tables: %v", err)
	}
	for vrows.Next() {
		var n string
		if err := vrows.Scan(&n); err == nil {
			virtual = append(virtual, n+"_")
		}
	}
	vrows.Close()
	out := names[:0]
outer:
	for _, n := range names {
		if n == "meta" {
			continue
		}
		for _, v := range virtual {
			if strings.HasPrefix(n, v) {
				continue outer
			}
		}
		out = append(out, n)
	}
	return append(out, "meta"), nil
}

// columns returns the comma-separated, quoted column names that table t
// has in both databases (a table migrated with ADD COLUMN may order them
// differently from a new one).
func columns(ctx context.Context, tx *sql.Tx, t string) (string, error) {
	read := func(schema string) ([]string, error) {
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT name FROM pragma_table_info(%s, %s)`, quoteString(t), quoteString(schema)))
		if err != nil {
			return nil, fmt.Errorf("replacing the index: columns of %s: %v", t, err)
		}
		defer rows.Close()
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				return nil, err
			}
			cols = append(cols, c)
		}
		return cols, rows.Err()
	}
	mainCols, err := read("main")
	if err != nil {
		return "", err
	}
	nextCols, err := read("next")
	if err != nil {
		return "", err
	}
	have := map[string]bool{}
	for _, c := range nextCols {
		have[c] = true
	}
	var out []string
	for _, c := range mainCols {
		if have[c] {
			out = append(out, quoteIdent(c))
		}
	}
	if len(out) == 0 {
		return "", fmt.Errorf("replacing the index: table %s has no columns in the new index", t)
	}
	return strings.Join(out, ", "), nil
}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
