package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MetaVectorBase names the vector file the database relies on for the
// vectors it folded ([DB.FoldVectors]): "<file id>:<content version>",
// the file's random id (decimal) and the content version it held. Unset
// while no vector was ever folded (every vector is in the embeddings
// table). Vector files written later at the same path from this one (and
// the vectors still stored) hold the same rows: see search.WriteVectorFileFrom.
const MetaVectorBase = "vector_base"

// VectorBase is the parsed [MetaVectorBase]: the file id and content
// version of the vector file the store relies on; zero when none.
type VectorBase struct {
	FileID  int64
	Content int64
}

// ParseVectorBase parses a [MetaVectorBase] value; the zero VectorBase
// for "" or a malformed value.
func ParseVectorBase(s string) VectorBase {
	id, ver, ok := strings.Cut(s, ":")
	if !ok {
		return VectorBase{}
	}
	f, err1 := strconv.ParseInt(id, 10, 64)
	c, err2 := strconv.ParseInt(ver, 10, 64)
	if err1 != nil || err2 != nil {
		return VectorBase{}
	}
	return VectorBase{FileID: f, Content: c}
}

// FoldVectors empties the embeddings table, in one transaction that also
// records fileID as the vector file the store now relies on
// ([MetaVectorBase]), when the committed content is still ver. The caller
// must hold a durable vector file (synced and renamed into place) of
// exactly that state, with a row for every live chunk that names an
// embedding: after the fold those rows exist nowhere else. The vectors no
// live chunk names (texts of deleted chunks, kept as a content-addressed
// cache) go too: only a local model's vectors are folded, and it embeds
// such a text again in microseconds, while deleting every row lets SQLite
// drop the table's pages wholesale (0.10 s of CPU against 0.35 s for
// deleting the live chunks' keys one by one, sqlite3 on the Go standard
// library's 106,576 vectors; 7.8 s of wall time for the latter under
// modernc on a loaded machine). The content version does not change: the
// rows a reader gets (stored or from the file) are the same before and
// after.
//
// It returns the number of vectors deleted, and false (deleting nothing)
// when the content moved on since ver. The freed pages stay in the file
// until [DB.ReleaseFreePages].
func (db *DB) FoldVectors(ctx context.Context, ver Version, fileID int64) (int64, bool, error) {
	if db.w == nil {
		return 0, false, ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("folding vectors: %v", err)
	}
	defer tx.Rollback()
	kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
	if err != nil {
		return 0, false, err
	}
	if versionOf(kv) != ver {
		return 0, false, nil
	}
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM embeddings`).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("folding vectors: %v", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings`); err != nil {
		return 0, false, fmt.Errorf("folding vectors: %v", err)
	}
	base := strconv.FormatInt(fileID, 10) + ":" + strconv.FormatInt(ver.Content, 10)
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, MetaVectorBase, base); err != nil {
		return 0, false, fmt.Errorf("folding vectors: %v", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("folding vectors: %v", err)
	}
	return n, true, nil
}

// ReleaseFreePages gives the database's free pages back to the file
// system (SQLite's incremental_vacuum; a no-op for a database created
// before auto_vacuum was set), after a fold or a compaction freed them.
func (db *DB) ReleaseFreePages(ctx context.Context) error {
	if db.w == nil {
		return ErrReadOnly
	}
	if _, err := db.w.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
		return fmt.Errorf("releasing free pages: %v", err)
	}
	return nil
}

// foldedJoin and foldedWhere select the live chunks (c) that name an
// embedding the embeddings table (e) does not hold: folded, or lost.
const (
	foldedJoin  = `LEFT JOIN embeddings e ON e.key = c.embed_key`
	foldedWhere = `c.embed_key IS NOT NULL AND e.key IS NULL`
)

// MissingVectorFiles calls fn with each live chunk whose vector is not
// stored (it was folded, or lost) and that has(chunk id) says the vector
// file lacks, with its file's path; one read transaction, streamed.
func (db *DB) MissingVectorFiles(ctx context.Context, has func(chunkID int64) bool, fn func(fileID int64, path string) error) error {
	return db.readTx(ctx, func(tx *sql.Tx) error {
		return each(ctx, tx, "folded vectors", `SELECT c.id, f.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id `+foldedJoin+` WHERE `+foldedWhere+` ORDER BY c.id`, nil, func(rows *sql.Rows) error {
			var id, fid int64
			var path string
			if err := rows.Scan(&id, &fid, &path); err != nil {
				return err
			}
			if has(id) {
				return nil
			}
			return fn(fid, path)
		})
	})
}

// ForgetFiles makes the next index run chunk and embed the files named by
// id again, as if their content had changed: their recorded hash and mtime
// are cleared (their chunks stay searchable until then). It is how an
// index run repairs chunks whose vectors were lost with the vector file.
func (db *DB) ForgetFiles(ctx context.Context, ids []int64) error {
	if db.w == nil {
		return ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("forgetting files: %v", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE files SET hash = X'', mtime = -1 WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("forgetting files: %v", err)
	}
	defer st.Close()
	for _, id := range ids {
		if _, err := st.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("forgetting files: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("forgetting files: %v", err)
	}
	return nil
}

// Unfold writes back into the standalone database file at path (a
// [DB.SnapshotTo] copy, not in use) the vectors of its live chunks that
// were folded ([DB.FoldVectors]): row(the copy's content version, chunk
// id) returns a chunk's stored blob (embed.EncodeVector's form), ok false
// when it has none. It also
// deletes [MetaVectorBase], so the copy holds every vector itself and
// relies on no vector file: a self-contained index. Chunks are read a
// batch at a time, so memory does not grow with the index. It returns the
// number of vectors written. Errors: a folded vector row cannot supply
// (wrapping ErrMissingVector), SQLite failures.
func Unfold(ctx context.Context, path string, row func(ver Version, chunkID int64) ([]byte, bool)) (n int, err error) {
	db, err := sql.Open("sqlite", FileURI(path)+"?_pragma=journal_mode(DELETE)&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, fmt.Errorf("unfolding vectors into %s: %v", path, err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("unfolding vectors into %s: %v", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, sqlErr("unfolding vectors", err)
	}
	defer tx.Rollback()
	kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
	if err != nil {
		return 0, err
	}
	ver := versionOf(kv)
	type folded struct {
		id  int64
		key []byte
	}
	const batch = 4096
	var after int64
	for {
		rows, err := collect(ctx, tx, "folded vectors", `SELECT c.id, c.embed_key FROM chunks c `+foldedJoin+`
WHERE c.id > ? AND `+foldedWhere+` ORDER BY c.id LIMIT ?`, []any{after, batch}, func(rows *sql.Rows, f *folded) error {
			return rows.Scan(&f.id, &f.key)
		})
		if err != nil {
			return n, err
		}
		for _, f := range rows {
			blob, ok := row(ver, f.id)
			if !ok {
				return n, fmt.Errorf("unfolding vectors: chunk %d: %w", f.id, ErrMissingVector)
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO embeddings(key, vec) VALUES(?, ?)`, f.key, blob); err != nil {
				return n, sqlErr("unfolding vectors", err)
			}
			n++
		}
		if len(rows) < batch {
			break
		}
		after = rows[len(rows)-1].id
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, MetaVectorBase); err != nil {
		return n, sqlErr("unfolding vectors", err)
	}
	if err := tx.Commit(); err != nil {
		return n, sqlErr("unfolding vectors", err)
	}
	return n, nil
}

// ErrMissingVector is wrapped by [Unfold]'s error for a folded vector
// that no vector file holds.
var ErrMissingVector = errors.New("a folded vector is in no vector file")

// FoldedKeys returns, for each key whose vector was folded
// ([DB.FoldVectors]) and that a live chunk names, the id of one such
// chunk (its row in the vector file holds the vector), read in one scan:
// an index run looks new chunks' keys up here so text seen before is not
// embedded again. When more than limit keys are folded (limit > 0) it
// returns nil instead, bounding the run's memory (about 100 bytes a key).
func (db *DB) FoldedKeys(ctx context.Context, limit int) (map[string]int64, error) {
	out := map[string]int64{}
	err := each(ctx, db.r, "folded keys", `SELECT c.embed_key, c.id FROM chunks c `+foldedJoin+` WHERE `+foldedWhere, nil, func(rows *sql.Rows) error {
		var k sql.RawBytes
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return err
		}
		if limit > 0 && len(out) == limit {
			out = nil
			return errStop
		}
		if out != nil {
			out[string(k)] = id
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil, nil
	}
	return out, err
}

// errStop ends a scan early; not an error.
var errStop = errors.New("stop")
