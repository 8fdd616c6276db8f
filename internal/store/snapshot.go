package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// SnapshotTo writes a consistent copy of the database's committed content
// to dst, a path that must not exist yet, with SQLite's VACUUM INTO: it
// reads in one read transaction of a pooled connection, so index runs and
// queries of other processes go on meanwhile and the copy holds one
// committed state, whatever they commit during it. The copy is a
// standalone file in rollback-journal mode with no WAL beside it.
// Errors: dst exists or cannot be written, SQLite failures.
func (db *DB) SnapshotTo(ctx context.Context, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("snapshotting the index: %s exists", dst)
	}
	if _, err := db.r.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return sqlErr("snapshotting the index", err)
	}
	return nil
}

// Scrub prepares the standalone database file at path (a [DB.SnapshotTo]
// copy) to leave this machine: it deletes the meta keys named, replaces
// root (an absolute path) with "." wherever a skip detail names it, and
// does so with secure_delete on, so the deleted values are overwritten on
// disk rather than left in free pages. It checks that the file is of
// this build's schema first. Errors: [ErrCorrupt] for a file that is not
// a database, a schema other than [SchemaVersion], SQLite failures.
func Scrub(ctx context.Context, path, root string, keys []string) (err error) {
	db, err := sql.Open("sqlite", FileURI(path)+"?_pragma=secure_delete(ON)&_pragma=journal_mode(DELETE)&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("scrubbing %s: %v", path, err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("scrubbing %s: %v", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	if err := checkStandalone(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return sqlErr("scrubbing the snapshot", err)
	}
	defer tx.Rollback()
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, k); err != nil {
			return sqlErr("scrubbing the snapshot", err)
		}
	}
	if root != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE skipped SET detail = replace(detail, ?, '.') WHERE instr(detail, ?) > 0`, root, root); err != nil {
			return sqlErr("scrubbing the snapshot", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return sqlErr("scrubbing the snapshot", err)
	}
	return nil
}

// CheckFile opens the standalone database file at path (an index copied
// from elsewhere, not yet in use) read-only and checks it: it is a
// database of this build's schema and SQLite's quick_check finds its
// pages, records and indexes sound. Errors: [ErrCorrupt] for a file that
// is not a database or is damaged, [ErrSchemaTooNew], [ErrSchemaOld]
// (wrapped, with the schema found), SQLite failures.
func CheckFile(ctx context.Context, path string) (err error) {
	db, err := sql.Open("sqlite", FileURI(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("checking %s: %v", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := checkStandalone(ctx, db); err != nil {
		return err
	}
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&res); err != nil {
		return sqlErr("checking the database", err)
	}
	if res != "ok" {
		return corruptError{fmt.Errorf("checking the database: %s", res)}
	}
	return nil
}

// checkStandalone reads the schema version of a database opened outside
// [Open]: a file without a meta table is not an index.
func checkStandalone(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&n); err != nil {
		return sqlErr("reading the schema", err)
	}
	if n == 0 {
		return corruptError{errors.New("reading the schema: not an index database (no meta table)")}
	}
	v, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("%w: schema %d, this build reads %d", ErrSchemaTooNew, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w: schema %d, this build reads %d", ErrSchemaOld, v, SchemaVersion)
	}
	return nil
}

// FileEntry is one indexed file as an archive's manifest lists it.
type FileEntry struct {
	Path string `json:"path"` // slash path relative to the root
	Size int64  `json:"size"` // bytes
	Hash string `json:"sha256"`
}

// ReadFileEntries returns the files table of the standalone database at
// path (sorted by path) and its meta table, read in one transaction.
// Errors: SQLite failures.
func ReadFileEntries(ctx context.Context, path string) (files []FileEntry, meta map[string]string, err error) {
	db, err := sql.Open("sqlite", FileURI(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %v", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, sqlErr("reading the snapshot", err)
	}
	defer tx.Rollback()
	files, err = collect(ctx, tx, "files", `SELECT path, size, lower(hex(hash)) FROM files ORDER BY path`, nil,
		func(rows *sql.Rows, f *FileEntry) error { return rows.Scan(&f.Path, &f.Size, &f.Hash) })
	if err != nil {
		return nil, nil, err
	}
	meta, err = metaRows(ctx, tx, `SELECT key, value FROM meta`)
	return files, meta, err
}

// SetFileMeta writes kv into the meta table of the standalone database
// file at path (one not in use by an open [DB]), and a fresh
// [MetaIndexID] when newID is set, so that no derived file stamped with
// the id the file came with passes for it. Errors: SQLite failures.
func SetFileMeta(ctx context.Context, path string, kv map[string]string, newID bool) (err error) {
	db, err := sql.Open("sqlite", FileURI(path)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("writing meta of %s: %v", path, err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing meta of %s: %v", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return sqlErr("writing meta", err)
	}
	defer tx.Rollback()
	for k, v := range kv {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, k, v); err != nil {
			return sqlErr("writing meta", err)
		}
	}
	if newID {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, MetaIndexID); err != nil {
			return sqlErr("writing meta", err)
		}
		if err := bumpContent(ctx, tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return sqlErr("writing meta", err)
	}
	return nil
}
