// Package store is ctx's storage: one SQLite database per indexed root
// (WAL), the single source of truth for files, chunks, their BM25 index
// (postings.go) and their embeddings.
//
// Invariants (../shared/DESIGN.md, storage):
//   - every write goes through [DB.Apply], which runs in one transaction
//     holding whole files only: a file's chunks, postings and vectors change
//     together or not at all;
//   - embeddings are content-addressed by embed.CacheKey, so re-indexing
//     never re-embeds text seen before;
//   - the index identity (schema, chunker, embedding model) is stored in the
//     meta table and compared on open by the engine.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SchemaVersion is the database layout version.
//
//	1: files, chunks, contentless FTS5 chunks_fts(name, path, doc, body), embeddings, meta.
//	2: skipped: files skipped for their content, so unchanged ones are not read again.
//	3: embeddings is a rowid table with a unique key (was WITHOUT ROWID).
//	4: imports: each file's import statements and what they resolve to.
//	5: names: top-level one-line constants and variables.
//	6: ctx's own BM25 index (postings, segments, dead, bm25_stats) replaces FTS5.
//	7: secrets: the spans masked in each file's content before chunking.
//	8: names hold declarations without a body too (symbol, breadcrumb, end_line).
//	9: chunks.sketch: each chunk's structural sketch, for pattern search.
//	10: compact BM25 postings: doc lengths once per chunk (doclens), a
//	    one-byte column and frequency, the term stored once (postings
//	    WITHOUT ROWID keyed by (term, seg), long data in postings_big).
//	11: vectors of live chunks may be folded into the vector file (meta vector_base).
//	12: 16-byte embedding keys; vector file version 5 (7-bit rows).
//	13: kinds as integer codes; a chunk's symbol NULL when it is its name.
//	14: postings keyed by (seg, term): a new segment is appended.
const SchemaVersion = 14

// MinReadableSchema is the oldest schema this build can migrate from.
const MinReadableSchema = 1

// ErrNotIndexed is returned by [Open] with [Options.MustExist] when the
// root has no index database yet, and with [Options.ReadOnly] when the
// database holds no schema yet (a first run was stopped before its first
// write).
var ErrNotIndexed = errors.New("not indexed")

// ErrReadOnly is returned by writes to a database opened with
// [Options.ReadOnly].
var ErrReadOnly = errors.New("index opened read-only")

// ErrSchemaTooNew is returned when the database was written by a newer ctx.
var ErrSchemaTooNew = errors.New("index written by a newer ctx")

// ErrSchemaOld is returned by a read-only [Open] of a database of an older
// schema, which only a writer (an index run) migrates.
var ErrSchemaOld = errors.New("index schema is older than this build's")

// ErrCorrupt is wrapped by errors that say the database's content is
// damaged: a postings row that does not decode, or SQLite's own
// SQLITE_CORRUPT and SQLITE_NOTADB. Rebuilding the index fixes it.
var ErrCorrupt = errors.New("index database is damaged")

// Options configures [Open]; nil means defaults.
type Options struct {
	// MustExist makes Open fail with [ErrNotIndexed] instead of creating
	// the database.
	MustExist bool
	// ReadOnly opens for queries only: no writer connection, no migration;
	// writes fail with [ErrReadOnly].
	ReadOnly bool
	// Resident keeps the read connections' memory small for a long-lived
	// process: no memory map of the database (mapped pages a query touched
	// stay in the process's resident set, 200 MB after 250 queries on the
	// Go standard library's index) and a 4 MB page cache per connection;
	// the kernel's page cache still holds the file. Measured with
	// scripts/bench-mcp: no change in query time. Only a ReadOnly open
	// maps the file at all: a writable one (an index run) reads as a
	// resident one does, so its memory does not grow with the index.
	Resident bool
}

// DB is an open index database. It is safe for concurrent use: writes are
// serialised on one connection, reads use a pool.
type DB struct {
	path string
	w    *sql.DB // single connection: the one writer
	r    *sql.DB // read pool
	// head is the prepared read of the keys a server checks on every
	// query (see [DB.MetaKeys]); nil until first used.
	head *headStmt
	// docLens holds the BM25 doc-length pages the last search read (a
	// pointer: engine installs a reopened DB by copying the struct).
	docLens *docLenCache
	// search holds SearchBM25's prepared statements (a pointer, as
	// docLens).
	search *searchStmts
	// mergeCap, when not 0, replaces maxMergeSegments (tests).
	mergeCap int
	// importPage, when not 0, replaces resolveImportsPage (tests).
	importPage int
}

// headStmt is a statement prepared once on the read pool.
type headStmt struct {
	mu    sync.Mutex // guards query and stmt
	query string
	stmt  *sql.Stmt
}

// PathFor returns the database file for an indexed root inside cacheDir:
// cacheDir/<base name of root>-<first 12 hex digits of sha256(root)>.db.
// root must already be absolute and symlink-resolved.
func PathFor(cacheDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	base := filepath.Base(root)
	base = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
	if base == "" || base == "." || base == "/" || base == "_" {
		base = "root"
	}
	return filepath.Join(cacheDir, base+"-"+hex.EncodeToString(sum[:6])+".db")
}

// dsn returns the connection string of the writer (WAL, immediate
// transactions) or of a reader (the journal mode is a property of the file,
// set by the writer; readers only read). mapped memory-maps up to 1 GiB of
// the file, for the reads of a short query process; every other
// connection reads through a page cache of bounded size (4 MB for
// readers, 16 MB for the writer), because mapped pages a process touched
// stay in its resident set: an index run that read the whole database
// through a map would grow with the repository (see [Options.Resident]).
func dsn(path string, writer, mapped bool) string {
	v := url.Values{}
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "foreign_keys(ON)")
	v.Add("_pragma", "synchronous(NORMAL)")
	switch {
	case mapped:
		v.Add("_pragma", "cache_size(-16000)")
		v.Add("_pragma", "mmap_size(1073741824)")
	case writer:
		v.Add("_pragma", "cache_size(-16000)")
		v.Add("_pragma", "mmap_size(0)")
	default:
		v.Add("_pragma", "cache_size(-4000)")
		v.Add("_pragma", "mmap_size(0)")
	}
	if writer {
		// Set before the first table exists, so only new databases get
		// it: CompactPostings gives the pages of merged BM25 segments
		// back to the file system.
		v.Add("_pragma", "auto_vacuum(INCREMENTAL)")
		v.Add("_pragma", "journal_mode(WAL)")
		v.Add("_txlock", "immediate")
	}
	return FileURI(path) + "?" + v.Encode()
}

// FileURI returns path as the "file:" URI SQLite reads, with the bytes
// that would end or decode the path escaped ("?" starts the query, "#"
// the fragment, "%" an escape); connection parameters follow a "?". Every
// SQLite file ctx opens (the index, the memory database, the spend
// ledger, caches) is named through it.
func FileURI(path string) string { return "file:" + uriPath.Replace(path) }

var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Open opens (creating and migrating when needed) the database at path.
// Errors: [ErrNotIndexed] (MustExist and no file), [ErrSchemaTooNew],
// [ErrAccess] (the file or its directory cannot be created, opened or
// written), or a wrapped SQLite error.
func Open(ctx context.Context, path string, opts *Options) (_ *DB, err error) {
	defer func() { err = markAccess(err) }()
	if opts == nil {
		opts = &Options{}
	}
	if _, err := os.Stat(path); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("opening index %s: %w", path, err)
		}
		if opts.MustExist || opts.ReadOnly {
			return nil, ErrNotIndexed
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating index directory: %w", err)
		}
	}
	db := &DB{path: path, head: &headStmt{}, docLens: &docLenCache{}, search: &searchStmts{}}
	if !opts.ReadOnly {
		db.w, err = sql.Open("sqlite", dsn(path, true, false))
		if err != nil {
			return nil, fmt.Errorf("opening index %s: %v", path, err)
		}
		db.w.SetMaxOpenConns(1)
		if err := db.migrate(ctx); err != nil {
			db.w.Close()
			return nil, fmt.Errorf("opening index %s: %w", path, err)
		}
	}
	db.r, err = sql.Open("sqlite", dsn(path, false, opts.ReadOnly && !opts.Resident))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening index %s: %v", path, err)
	}
	// A one-shot reader (ReadOnly, not Resident) gets one connection: its
	// channels' queries wait for each other instead of opening a second
	// connection, whose open, schema parse, page cache and lookaside cost
	// more than the wait. Measured on the Go standard library's index,
	// paired whole-process `ctx find` runs: wall ×0.92, CPU ×0.90, 170
	// fewer page faults. Every read of a search runs in its own
	// transaction or statement, never nested in another's.
	if opts.ReadOnly && !opts.Resident {
		db.r.SetMaxOpenConns(1)
		db.docLens.filePath = db.docLensPath()
	} else {
		db.r.SetMaxOpenConns(8)
	}
	if opts.ReadOnly {
		if err := db.checkSchema(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Close closes every connection.
func (db *DB) Close() error {
	var errs []error
	if h := db.head; h != nil && h.stmt != nil {
		errs = append(errs, h.stmt.Close())
	}
	if db.search != nil {
		errs = append(errs, db.search.close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.docLens != nil {
		db.docLens.close()
	}
	return errors.Join(errs...)
}

// SizeBytes returns the size on disk of the database, its WAL and its
// doc-length file, in bytes.
func (db *DB) SizeBytes() int64 {
	var n int64
	for _, p := range []string{db.path, db.path + "-wal", db.path + "-shm", db.docLensPath()} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
