package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// migrations[i] moves a database from schema i to i+1. Append only.
var migrations = []string{
	0: `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  hash BLOB NOT NULL,
  lines INTEGER NOT NULL
);
CREATE TABLE chunks(
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  symbol TEXT NOT NULL,
  name TEXT NOT NULL,
  breadcrumb TEXT NOT NULL,
  summary TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  part INTEGER NOT NULL,
  embed_key BLOB
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_name ON chunks(name COLLATE NOCASE) WHERE name <> '';
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  name, path, doc, body,
  content='', contentless_delete=1,
  tokenize="unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
CREATE TABLE embeddings(key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
`,
	1: `
CREATE TABLE skipped(
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL
) WITHOUT ROWID;
`,
	// A WITHOUT ROWID table keeps whole rows in its b-tree, which holds
	// kilobyte vectors badly (200 MB for 44 MB of vectors measured on a
	// django index); a rowid table with a unique key stores them densely.
	2: `
CREATE TABLE embeddings_v3(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, vec BLOB NOT NULL);
INSERT INTO embeddings_v3(key, vec) SELECT key, vec FROM embeddings;
DROP TABLE embeddings;
ALTER TABLE embeddings_v3 RENAME TO embeddings;
`,
	// Import statements, written with their file; target and internal
	// are filled by ResolveImports once every file of a run is written.
	3: `
CREATE TABLE imports(
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  spec TEXT NOT NULL,
  line INTEGER NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  internal INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_target ON imports(target) WHERE target <> '';
`,
	// Top-level one-line constants and variables, which chunks do not
	// name (graph.Names), written with their file.
	4: `
CREATE TABLE names(
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX names_file ON names(file_id);
CREATE INDEX names_name ON names(name COLLATE NOCASE);
`,
	// ctx's own BM25 index replaces FTS5 (postings.go); an index of an
	// older schema is rebuilt (its identity names the schema), so the
	// migration only has to leave a consistent, empty BM25 index.
	5: `
DROP TABLE chunks_vocab;
DROP TABLE chunks_fts;
ALTER TABLE chunks ADD COLUMN ntok INTEGER NOT NULL DEFAULT 0;
CREATE TABLE postings(
  id INTEGER PRIMARY KEY,
  term TEXT NOT NULL,
  seg INTEGER NOT NULL,
  n INTEGER NOT NULL,
  data BLOB NOT NULL,
  UNIQUE(term, seg)
);
CREATE TABLE segments(
  seg INTEGER PRIMARY KEY,
  docs INTEGER NOT NULL,
  postings INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE TABLE dead(id INTEGER PRIMARY KEY);
CREATE TABLE bm25_stats(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  docs INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  next_chunk INTEGER NOT NULL,
  next_seg INTEGER NOT NULL
);
INSERT INTO bm25_stats SELECT 1, 0, 0, coalesce(max(id), 0) + 1, 1 FROM chunks;
INSERT INTO dead SELECT id FROM chunks;
`,
	// Secrets masked in each file's content before chunking
	// (internal/secrets), written with their file.
	6: `
CREATE TABLE secrets(
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  rule TEXT NOT NULL,
  line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL
);
CREATE INDEX secrets_file ON secrets(file_id);
`,
	// Declarations without a body (chunk.Decl) join the names, with
	// their qualified symbol, breadcrumb and last line.
	7: `
ALTER TABLE names ADD COLUMN symbol TEXT NOT NULL DEFAULT '';
ALTER TABLE names ADD COLUMN breadcrumb TEXT NOT NULL DEFAULT '';
ALTER TABLE names ADD COLUMN end_line INTEGER NOT NULL DEFAULT 0;
`,
	// Each chunk's structural sketch (chunk.Sketch), for pattern search;
	// NULL for chunks of files without a grammar, and for every chunk of
	// an older index until it is rebuilt (its chunker version differs).
	8: `
ALTER TABLE chunks ADD COLUMN sketch BLOB;
`,
	// Compact BM25 postings (postings.go, doclens.go): the chunks' token
	// counts move out of the entries into doclens, and the term is stored
	// once. An older index is rebuilt (its identity names the schema), so
	// this leaves a consistent, empty BM25 index: no chunk has postings
	// (ntok 0), none is dead. The postings tables are those of
	// postingsTable("postings") and postingsBigTable("postings_big").
	9: `
DROP TABLE postings;
CREATE TABLE postings(
  term TEXT NOT NULL,
  seg INTEGER NOT NULL,
  n INTEGER NOT NULL,
  data BLOB,
  big INTEGER,
  PRIMARY KEY(term, seg)
) WITHOUT ROWID;
CREATE TABLE postings_big(id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE doclens(page INTEGER PRIMARY KEY, data BLOB NOT NULL);
DELETE FROM segments;
DELETE FROM dead;
UPDATE chunks SET ntok = 0;
UPDATE bm25_stats SET docs = 0, tokens = 0;
`,
	// Vectors may be folded into the vector file (fold.go): the
	// embeddings table then holds only the vectors no vector file holds
	// yet, and meta vector_base names the file the rest live in. Nothing
	// to convert (no vector is folded yet); the bump keeps older builds,
	// which would read a folded index as having lost its vectors, out.
	10: `
DELETE FROM meta WHERE key = 'vector_base';
`,
	// Embedding keys are 16 bytes (embed.KeyBytes) and the vector file
	// stores 7-bit rows (version 5). An older index is rebuilt (its
	// identity names the schema): its 32-byte keys match no new chunk's,
	// and its version 4 vector file, which holds its folded vectors, is
	// not read, so no folded base is named until the rebuild writes one.
	11: `
DELETE FROM meta WHERE key = 'vector_base';
`,
	// Kinds as integer codes (kind.go), a chunk's symbol NULL when it
	// is its name (most are: 69k of the Go standard library's 107k
	// chunks), read as coalesce(symbol, name), and the summary of a split
	// definition's later part NULL when it repeats the first part's
	// (summaryArg; the migration keeps every summary). The rows are converted,
	// so nothing has to be indexed again.
	//
	// A file's chunks take consecutive ids, which the file row names
	// (chunk_lo, chunk_hi; an empty range for a file without chunks), in
	// place of the index chunks_file (1.3 MB on the Go standard library);
	// chunks no longer reference files (the writer deletes a file's
	// chunks itself, with foreign keys off).
	12: `
ALTER TABLE files ADD COLUMN chunk_lo INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN chunk_hi INTEGER NOT NULL DEFAULT -1;
UPDATE files SET (chunk_lo, chunk_hi) = (SELECT coalesce(min(id), 0), coalesce(max(id), -1) FROM chunks WHERE file_id = files.id);
CREATE TABLE chunks_v13(
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  symbol TEXT,
  name TEXT NOT NULL,
  breadcrumb TEXT NOT NULL,
  summary TEXT,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  part INTEGER NOT NULL,
  embed_key BLOB,
  ntok INTEGER NOT NULL DEFAULT 0,
  sketch BLOB
);
INSERT INTO chunks_v13 SELECT id, file_id, ` + kindCaseSQL("kind") + `, nullif(symbol, name), name, breadcrumb, summary,
  start_line, end_line, start_byte, end_byte, part, embed_key, ntok, sketch FROM chunks ORDER BY id;
DROP TABLE chunks;
ALTER TABLE chunks_v13 RENAME TO chunks;
CREATE INDEX chunks_name ON chunks(name COLLATE NOCASE) WHERE name <> '';
CREATE TABLE names_v13(
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  line INTEGER NOT NULL,
  symbol TEXT NOT NULL DEFAULT '',
  breadcrumb TEXT NOT NULL DEFAULT '',
  end_line INTEGER NOT NULL DEFAULT 0
);
INSERT INTO names_v13 SELECT file_id, name, ` + kindCaseSQL("kind") + `, line, symbol, breadcrumb, end_line FROM names ORDER BY rowid;
DROP TABLE names;
ALTER TABLE names_v13 RENAME TO names;
CREATE INDEX names_file ON names(file_id);
CREATE INDEX names_name ON names(name COLLATE NOCASE);
`,
	// Postings keyed by (seg, term) instead of (term, seg)
	// (postingsTable): a segment's rows are appended at the end of the
	// table instead of between every earlier segment's rows, which made
	// each new segment rewrite pages all over the table (writing the
	// 96 segments of ten copies of the Go standard library spent 17 s in
	// postings inserts and most of 12 s of commits). A search looks each
	// term up in each segment. The rows are converted.
	13: `
CREATE TABLE postings_v14(
  term TEXT NOT NULL,
  seg INTEGER NOT NULL,
  n INTEGER NOT NULL,
  data BLOB,
  big INTEGER,
  PRIMARY KEY(seg, term)
) WITHOUT ROWID;
INSERT INTO postings_v14 SELECT term, seg, n, data, big FROM postings ORDER BY seg, term;
DROP TABLE postings;
ALTER TABLE postings_v14 RENAME TO postings;
`,
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("store: migrations and SchemaVersion disagree")
	}
}

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return sqlErr("creating meta", err)
	}
	v, err := schemaVersion(ctx, db.w)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w: schema %d, this build reads up to %d", ErrSchemaTooNew, v, SchemaVersion)
	}
	if v == SchemaVersion {
		return nil
	}
	// Every step runs in one transaction: a process killed part way leaves
	// the schema it found, never a half-migrated one (a new database is
	// then empty, which readers report as not indexed).
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return sqlErr(fmt.Sprintf("migrating to schema %d", v+1), err)
	}
	defer tx.Rollback()
	for ; v < SchemaVersion; v++ {
		stmt := migrations[v]
		if v == 0 {
			// meta was created above so the version could be read.
			stmt = stmt[len("\nCREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"):]
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return sqlErr(fmt.Sprintf("migrating to schema %d", v+1), err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', ?)`, strconv.Itoa(v+1)); err != nil {
			return sqlErr(fmt.Sprintf("migrating to schema %d", v+1), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return sqlErr(fmt.Sprintf("migrating to schema %d", SchemaVersion), err)
	}
	return nil
}

func (db *DB) checkSchema(ctx context.Context) error {
	// An index run killed after SQLite created the file and before the
	// first migration committed leaves a database with no tables, or with
	// an empty meta table: nothing is indexed yet.
	var tables int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&tables); err != nil {
		return sqlErr("reading schema version", err)
	}
	if tables == 0 {
		return ErrNotIndexed
	}
	v, err := schemaVersion(ctx, db.r)
	if err != nil {
		return err
	}
	switch {
	case v == 0:
		return ErrNotIndexed
	case v > SchemaVersion:
		return fmt.Errorf("%w: schema %d, this build reads up to %d", ErrSchemaTooNew, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w: index schema %d is older than %d: run `ctx index` to migrate", ErrSchemaOld, v, SchemaVersion)
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var s string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, sqlErr("reading schema version", err)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("reading schema version %q: %v", s, err)
	}
	return n, nil
}
