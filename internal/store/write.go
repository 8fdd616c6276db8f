package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// File is a row of the files table.
type File struct {
	ID       int64
	Path     string // slash-separated, relative to the root
	Language string
	Size     int64  // bytes
	ModTime  int64  // Unix nanoseconds
	Hash     []byte // SHA-256 of the content, 32 bytes
	Lines    int
}

// Chunk is a row of the chunks table plus the terms of its BM25 columns.
type Chunk struct {
	ID         int64
	FileID     int64
	Kind       string
	Symbol     string
	Name       string
	Breadcrumb string
	Summary    string
	StartLine  int // 1-based, inclusive
	EndLine    int // 1-based, inclusive
	StartByte  int // 0-based
	EndByte    int // 0-based, exclusive
	Part       int
	// EmbedKey is the content-addressed key of its embedding
	// (embed.CacheKey, 16 bytes), nil when the index has no embedding
	// model.
	EmbedKey []byte
	// Sketch is the chunk's structural sketch (chunk.Sketch), nil when it
	// has none.
	Sketch []byte

	// Terms holds the BM25 columns (ColName, ColPath, ColDoc, ColBody):
	// analyzed terms (analyze.Terms, which holds no whitespace) separated
	// by ' ', written on insert only (the postings keep no text).
	Terms [NumColumns]string
}

// Update is one file's change: its new row and chunks, or its deletion.
type Update struct {
	File   File
	Chunks []Chunk
	// Vectors holds new embeddings to store, by key; keys already present
	// are left alone.
	Vectors map[string][]byte
	// Imports are the file's import statements (spec as written, 1-based
	// line); [DB.ResolveImports] fills in what they name.
	Imports []Import
	// Names are the file's top-level one-line constants and variables.
	Names []Name
	// Secrets are the spans masked in the file's content before it was
	// chunked.
	Secrets []Secret
	// Delete removes the file (by Path) and everything derived from it.
	Delete bool
	// Skip, with Delete, records why the file is not indexed (its content
	// was binary, generated or minified), keyed by its size and mtime.
	Skip *Skipped
}

// Name is a definition no chunk is named by: a top-level constant or
// variable declared on one line (graph.Names), or a declaration without a
// body (chunk.Decl: an interface, trait or abstract method, a C prototype).
type Name struct {
	Name string // the bare name
	Kind string // const, var, function, method, ...
	Line int    // 1-based, the first line
	// Symbol and Breadcrumb are as in Chunk (empty: Name, top level);
	// EndLine is the last line, 1-based (0: Line).
	Symbol, Breadcrumb string
	EndLine            int
}

// Import is one import statement of a file.
type Import struct {
	Spec string
	Line int // 1-based
}

// Skipped is a file left out of the index for its content.
type Skipped struct {
	Size    int64 // bytes
	ModTime int64 // Unix nanoseconds
	Reason  string
	Detail  string
}

// Apply writes a batch of file updates in one transaction, so each file
// changes together with its chunks, postings and vectors, or not at all.
// The batch's chunks get fresh ids (never reused) and form one new
// segment of the BM25 index. The same transaction increments the content
// version ([MetaContentVersion]) that derived files are stamped with.
func (db *DB) Apply(ctx context.Context, updates []Update) error {
	if db.w == nil {
		return ErrReadOnly
	}
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %v", err)
	}
	defer conn.Close()
	// Apply writes a file's rows right after the file's own and deletes
	// them before it, so a foreign-key check could never fail here; with
	// the checks on, SQLite looks up the file of every row and keeps a
	// statement journal for every multi-row INSERT. The journals that
	// remain (the chunks' explicit ids need one) stay in memory instead
	// of a temporary file: at most a statement's pages, about 1 MB.
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY`); err != nil {
		return fmt.Errorf("begin: %v", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON; PRAGMA temp_store = DEFAULT`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %v", err)
	}
	defer tx.Rollback()
	w, err := newApplyWriter(ctx, tx)
	defer w.close()
	if err != nil {
		return fmt.Errorf("preparing writes: %v", err)
	}

	// Vectors of the whole batch go in key order: keys are hashes, and
	// inserting them sorted touches the key index's pages in sequence
	// instead of at random.
	vecs := map[string][]byte{}
	for i := range updates {
		maps.Copy(vecs, updates[i].Vectors)
	}
	for _, k := range slices.Sorted(maps.Keys(vecs)) {
		if err := w.vecs.add(ctx, []byte(k), vecs[k]); err != nil {
			return fmt.Errorf("writing vectors: %v", err)
		}
	}
	if err := w.vecs.flush(ctx); err != nil {
		return fmt.Errorf("writing vectors: %v", err)
	}
	nChunks := 0
	for i := range updates {
		if !updates[i].Delete {
			nChunks += len(updates[i].Chunks)
		}
	}
	var nextID int64
	if nChunks > 0 {
		if nextID, err = nextChunkIDs(ctx, tx, nChunks); err != nil {
			return err
		}
	}
	seg := newSegBuilder()
	for i := range updates {
		u := &updates[i]
		if err := w.deleteFile(ctx, u.File.Path); err != nil {
			return err
		}
		if u.Delete {
			if u.Skip != nil {
				if _, err := w.insSkip.ExecContext(ctx, u.File.Path, u.Skip.Size, u.Skip.ModTime, u.Skip.Reason, u.Skip.Detail); err != nil {
					return fmt.Errorf("recording skip of %s: %v", u.File.Path, err)
				}
			}
			continue
		}
		var fileID int64
		// The file's chunks take the ids nextID.. in turn, so the file row
		// names them as that range (files.chunk_lo, chunk_hi).
		lo, hi := nextID, nextID+int64(len(u.Chunks))-1
		if err := w.upFile.QueryRowContext(ctx, u.File.Path, u.File.Language, u.File.Size, u.File.ModTime, u.File.Hash, u.File.Lines, lo, hi).Scan(&fileID); err != nil {
			return fmt.Errorf("writing file %s: %v", u.File.Path, err)
		}
		w.written[fileID] = true
		for _, im := range u.Imports {
			if err := w.imports.add(ctx, fileID, im.Spec, im.Line); err != nil {
				return fmt.Errorf("writing imports of %s: %v", u.File.Path, err)
			}
		}
		for _, n := range u.Names {
			if err := w.names.add(ctx, fileID, n.Name, kindArg(n.Kind), n.Line, n.Symbol, n.Breadcrumb, max(n.EndLine, n.Line)); err != nil {
				return fmt.Errorf("writing names of %s: %v", u.File.Path, err)
			}
		}
		for _, sc := range u.Secrets {
			if err := w.secrets.add(ctx, fileID, sc.Rule, sc.Line, sc.StartByte, sc.EndByte); err != nil {
				return fmt.Errorf("writing secrets of %s: %v", u.File.Path, err)
			}
		}
		for j := range u.Chunks {
			c := &u.Chunks[j]
			id := nextID
			nextID++
			ntok := seg.add(id, c.Terms)
			if err := w.chunks.add(ctx, id, fileID, kindArg(c.Kind), symbolArg(c.Symbol, c.Name), c.Name, c.Breadcrumb, summaryArg(u.Chunks, j), c.StartLine, c.EndLine, c.StartByte, c.EndByte, c.Part, c.EmbedKey, ntok, c.Sketch); err != nil {
				return fmt.Errorf("writing chunks of %s: %v", u.File.Path, err)
			}
		}
	}
	if err := w.flush(ctx); err != nil {
		return fmt.Errorf("writing files: %v", err)
	}
	if err := seg.writeSegment(ctx, tx); err != nil {
		return err
	}
	if err := bumpContent(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %v", err)
	}
	return nil
}

// Rows per multi-row INSERT statement of [DB.Apply], by table: up to
// about a thousand bound values each, far below SQLite's limit (32766).
const (
	chunkRowsPerStmt  = 64
	vectorRowsPerStmt = 256
	nameRowsPerStmt   = 128
	importRowsPerStmt = 256
	secretRowsPerStmt = 64
)

// applyWriter holds the statements of one [DB.Apply] transaction.
type applyWriter struct {
	tx *sql.Tx
	// Prepared once per transaction: one call per file.
	upFile, insSkip, delSkip, fileID *sql.Stmt
	// Buffered rows of the files written so far.
	chunks, vecs, names, imports, secrets *rowWriter
	// written holds the ids of the files this transaction wrote, whose
	// rows may still be buffered.
	written map[int64]bool
}

func newApplyWriter(ctx context.Context, tx *sql.Tx) (*applyWriter, error) {
	w := &applyWriter{
		tx:      tx,
		chunks:  newRowWriter(tx, `INSERT OR FAIL INTO chunks(id, file_id, kind, symbol, name, breadcrumb, summary, start_line, end_line, start_byte, end_byte, part, embed_key, ntok, sketch) VALUES`, "", 15, chunkRowsPerStmt),
		vecs:    newRowWriter(tx, `INSERT OR IGNORE INTO embeddings(key, vec) VALUES`, "", 2, vectorRowsPerStmt),
		names:   newRowWriter(tx, `INSERT OR FAIL INTO names(file_id, name, kind, line, symbol, breadcrumb, end_line) VALUES`, "", 7, nameRowsPerStmt),
		imports: newRowWriter(tx, `INSERT OR FAIL INTO imports(file_id, spec, line) VALUES`, "", 3, importRowsPerStmt),
		secrets: newRowWriter(tx, `INSERT OR FAIL INTO secrets(file_id, rule, line, start_byte, end_byte) VALUES`, "", 5, secretRowsPerStmt),
		written: map[int64]bool{},
	}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	w.upFile = prep(`INSERT INTO files(path, language, size, mtime, hash, lines, chunk_lo, chunk_hi) VALUES(?,?,?,?,?,?,?,?)
ON CONFLICT(path) DO UPDATE SET language=excluded.language, size=excluded.size, mtime=excluded.mtime, hash=excluded.hash, lines=excluded.lines,
  chunk_lo=excluded.chunk_lo, chunk_hi=excluded.chunk_hi
RETURNING id`)
	w.insSkip = prep(`INSERT OR REPLACE INTO skipped(path, size, mtime, reason, detail) VALUES(?,?,?,?,?)`)
	w.delSkip = prep(`DELETE FROM skipped WHERE path = ?`)
	w.fileID = prep(`SELECT id, chunk_lo, chunk_hi FROM files WHERE path = ?`)
	return w, err
}

// flush sends every buffered row. Errors: SQLite's, unwrapped.
func (w *applyWriter) flush(ctx context.Context) error {
	for _, rw := range []*rowWriter{w.imports, w.names, w.secrets, w.chunks} {
		if err := rw.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (w *applyWriter) close() {
	for _, st := range []*sql.Stmt{w.upFile, w.insSkip, w.delSkip, w.fileID} {
		if st != nil {
			st.Close()
		}
	}
	for _, rw := range []*rowWriter{w.chunks, w.vecs, w.names, w.imports, w.secrets} {
		rw.close()
	}
}

// deleteFile removes a file's chunks (their postings become dead until
// compaction), file row and skip record (a no-op for an unknown path).
func (w *applyWriter) deleteFile(ctx context.Context, path string) error {
	if _, err := w.delSkip.ExecContext(ctx, path); err != nil {
		return fmt.Errorf("deleting skip record of %s: %v", path, err)
	}
	var id, lo, hi int64
	switch err := w.fileID.QueryRowContext(ctx, path).Scan(&id, &lo, &hi); {
	case errors.Is(err, sql.ErrNoRows):
		return nil // a new file: nothing else to delete (most writes of a cold run)
	case err != nil:
		return fmt.Errorf("deleting file %s: %v", path, err)
	}
	if w.written[id] {
		// The same path twice in one batch: the rows of its first
		// update must be in place to be deleted.
		if err := w.flush(ctx); err != nil {
			return fmt.Errorf("deleting file %s: %v", path, err)
		}
	}
	tx := w.tx
	// The file's chunks are the ids lo..hi (files.chunk_lo, chunk_hi).
	for _, q := range []struct {
		what, sql string
		args      []any
	}{
		{"postings", `UPDATE bm25_stats SET (docs, tokens) =
(SELECT docs - count(*), tokens - coalesce(sum(ntok), 0) FROM chunks WHERE id BETWEEN ? AND ? AND ntok > 0) WHERE id = 1`, []any{lo, hi}},
		{"postings", `INSERT INTO dead(id) SELECT id FROM chunks WHERE id BETWEEN ? AND ? AND ntok > 0`, []any{lo, hi}},
		{"chunks", `DELETE FROM chunks WHERE id BETWEEN ? AND ?`, []any{lo, hi}},
		{"imports", `DELETE FROM imports WHERE file_id = ?`, []any{id}},
		{"names", `DELETE FROM names WHERE file_id = ?`, []any{id}},
		{"secrets", `DELETE FROM secrets WHERE file_id = ?`, []any{id}},
		{"the file row", `DELETE FROM files WHERE id = ?`, []any{id}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return fmt.Errorf("deleting %s of %s: %v", q.what, path, err)
		}
	}
	return nil
}
