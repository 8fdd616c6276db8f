package store

import (
	"context"
	"database/sql"
)

// lookupIndexes are the secondary indexes whose keys arrive in no order
// while files are written: a chunk's or a definition's name, an import's
// resolved target. Every other index grows at its end (file ids and
// segment numbers only increase). An insert into one of these dirties a
// page anywhere in it, so a transaction writes about one page per row
// once the index outgrows the writer's page cache, and a cold run costs
// more per file the bigger the repository is: on ten copies of the Go
// standard library (chunks_name 17.5 MB, names_name 6.7 MB,
// imports_target 5.6 MB against a 16 MB cache) the writer spent 59 s
// of CPU, 0.54 of the chunker's against 0.35 for one copy. Built at the
// end of a cold run from sorted keys instead (see
// [DB.DeferLookupIndexes]): 34 s, 0.37 of the chunker's (CPU profiles of
// both builds). The DDL is the current schema's
// (migrations 3 and 12); a migration that changes one changes it here.
var lookupIndexes = []struct{ name, ddl string }{
	{"chunks_name", `CREATE INDEX IF NOT EXISTS chunks_name ON chunks(name COLLATE NOCASE) WHERE name <> ''`},
	{"names_name", `CREATE INDEX IF NOT EXISTS names_name ON names(name COLLATE NOCASE)`},
	{"imports_target", `CREATE INDEX IF NOT EXISTS imports_target ON imports(target) WHERE target <> ''`},
}

// DeferLookupIndexes drops the name and import-target indexes of an
// index that holds no files yet, so the cold run about to fill it
// appends rows instead of scattering index entries, and reports whether
// it did. [DB.BuildLookupIndexes] (or a full merge of the BM25 segments)
// builds them again; until then a lookup by name reads the whole table:
// slower, never wrong. An index that holds files is left alone.
// Errors: the database's.
func (db *DB) DeferLookupIndexes(ctx context.Context) (bool, error) {
	if db.w == nil {
		return false, ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return false, sqlErr("deferring the lookup indexes", err)
	}
	defer tx.Rollback()
	var hasFiles bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM files)`).Scan(&hasFiles); err != nil {
		return false, sqlErr("deferring the lookup indexes", err)
	}
	if hasFiles {
		return false, nil
	}
	if err := dropLookupIndexes(ctx, tx); err != nil {
		return false, sqlErr("deferring the lookup indexes", err)
	}
	if err := tx.Commit(); err != nil {
		return false, sqlErr("deferring the lookup indexes", err)
	}
	return true, nil
}

// BuildLookupIndexes creates the lookup indexes a cold run deferred (or
// one killed before it built them left missing), in one transaction,
// and reports how many it built: 0 when all exist, which costs one
// query. Errors: the database's.
func (db *DB) BuildLookupIndexes(ctx context.Context) (int, error) {
	if db.w == nil {
		return 0, ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, sqlErr("building the lookup indexes", err)
	}
	defer tx.Rollback()
	names := make([]any, len(lookupIndexes))
	for i, ix := range lookupIndexes {
		names[i] = ix.name
	}
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN `+placeholders(len(names)), names...).Scan(&have); err != nil {
		return 0, sqlErr("building the lookup indexes", err)
	}
	if have == len(lookupIndexes) {
		return 0, nil
	}
	if err := createLookupIndexes(ctx, tx); err != nil {
		return 0, sqlErr("building the lookup indexes", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, sqlErr("building the lookup indexes", err)
	}
	return len(lookupIndexes) - have, nil
}

// dropLookupIndexes drops the lookup indexes that exist.
func dropLookupIndexes(ctx context.Context, tx *sql.Tx) error {
	for _, ix := range lookupIndexes {
		if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS `+ix.name); err != nil {
			return err
		}
	}
	return nil
}

// createLookupIndexes creates the lookup indexes that do not exist, each
// from its sorted keys.
func createLookupIndexes(ctx context.Context, tx *sql.Tx) error {
	for _, ix := range lookupIndexes {
		if _, err := tx.ExecContext(ctx, ix.ddl); err != nil {
			return err
		}
	}
	return nil
}
