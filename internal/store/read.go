package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// FileState is what incremental indexing needs to know about a stored file.
type FileState struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
	Hash    []byte
}

// FileStates returns every stored file by path.
func (db *DB) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT path, size, mtime, hash FROM files`)
	if err != nil {
		return nil, fmt.Errorf("listing files: %v", err)
	}
	defer rows.Close()
	out := map[string]FileState{}
	for rows.Next() {
		var p string
		var s FileState
		if err := rows.Scan(&p, &s.Size, &s.ModTime, &s.Hash); err != nil {
			return nil, fmt.Errorf("listing files: %v", err)
		}
		out[p] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing files: %v", err)
	}
	return out, nil
}

// SkippedFiles returns every file recorded as skipped for its content, by
// path.
func (db *DB) SkippedFiles(ctx context.Context) (map[string]Skipped, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT path, size, mtime, reason, detail FROM skipped`)
	if err != nil {
		return nil, fmt.Errorf("listing skipped files: %v", err)
	}
	defer rows.Close()
	out := map[string]Skipped{}
	for rows.Next() {
		var p string
		var s Skipped
		if err := rows.Scan(&p, &s.Size, &s.ModTime, &s.Reason, &s.Detail); err != nil {
			return nil, fmt.Errorf("listing skipped files: %v", err)
		}
		out[p] = s
	}
	return out, rows.Err()
}

// TouchFiles records a new mtime for a file whose content hash did not
// change, so the next run skips it on size+mtime alone.
func (db *DB) TouchFiles(ctx context.Context, mtimes map[string]int64) error {
	if db.w == nil {
		return ErrReadOnly
	}
	if len(mtimes) == 0 {
		return nil
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("touching files: %v", err)
	}
	defer tx.Rollback()
	for p, m := range mtimes {
		if _, err := tx.ExecContext(ctx, `UPDATE files SET mtime = ? WHERE path = ?`, m, p); err != nil {
			return fmt.Errorf("touching %s: %v", p, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("touching files: %v", err)
	}
	return nil
}

// Hit is one chunk found by a channel, with its channel score (higher is
// better).
type Hit struct {
	ChunkID int64
	Score   float64
}

// ChunkRow is a stored chunk with its file's path and language.
type ChunkRow struct {
	Chunk
	Path     string
	Language string
	FileSize int64
	FileTime int64 // Unix nanoseconds
}

const chunkCols = `c.id, c.file_id, c.kind, coalesce(c.symbol, c.name), c.name, c.breadcrumb, ` + summarySQL + `, c.start_line, c.end_line, c.start_byte, c.end_byte, c.part, c.embed_key, f.path, f.language, f.size, f.mtime`

func (db *DB) queryChunks(ctx context.Context, where string, args ...any) ([]ChunkRow, error) {
	return collect(ctx, db.r, "chunks", `SELECT `+chunkCols+` FROM chunks c JOIN files f ON f.id = c.file_id WHERE `+where, args, func(rows *sql.Rows, r *ChunkRow) error {
		return rows.Scan(&r.ID, &r.FileID, kindScan{&r.Kind}, &r.Symbol, &r.Name, &r.Breadcrumb, &r.Summary, &r.StartLine, &r.EndLine,
			&r.StartByte, &r.EndByte, &r.Part, &r.EmbedKey, &r.Path, &r.Language, &r.FileSize, &r.FileTime)
	})
}

// Chunks returns the chunks with the given ids, in no particular order;
// ids that no longer exist are left out.
func (db *DB) Chunks(ctx context.Context, ids []int64) ([]ChunkRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("c.id IN (")
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", id)
	}
	b.WriteByte(')')
	return db.queryChunks(ctx, b.String())
}

// ChunksByName returns up to limit chunks whose bare defined name equals
// one of names, ignoring case, by path and position.
func (db *DB) ChunksByName(ctx context.Context, names []string, limit int) ([]ChunkRow, error) {
	if len(names) == 0 {
		return nil, nil
	}
	args := append(stringArgs(names), limit)
	return db.queryChunks(ctx, `c.name <> '' AND c.name COLLATE NOCASE IN `+placeholders(len(names))+` ORDER BY f.path, c.start_byte LIMIT ?`, args...)
}

// FileChunks returns the chunks of one file ordered by position.
func (db *DB) FileChunks(ctx context.Context, path string) ([]ChunkRow, error) {
	// The file's id range (files.chunk_lo, chunk_hi) reads its rows
	// alone; c.file_id alone has no index to find them by.
	return db.queryChunks(ctx, `f.path = ? AND c.id BETWEEN f.chunk_lo AND f.chunk_hi ORDER BY c.start_byte`, path)
}

// Vectors calls start with the content version and the number of chunks
// that name an embedding (the rows to expect: row is called once for each
// of them whose vector is stored or folded), then row with every chunk
// that has an embedding, in ascending chunk id order, and its encoded
// vector (embed.EncodeVector), or nil when the vector was folded into the
// vector file ([DB.FoldVectors]: the caller takes the chunk's row from
// there); an error from start or row stops the scan. Before any fold a
// chunk whose key has no stored vector is left out, as it always was. The vec slice is only valid
// during the call. It returns the content version the vectors belong to:
// the tables and the version are read in one transaction, so a derived
// file stamped with it holds exactly that committed state.
//
// It streams one join of the chunks with their vectors, holding no vector
// after its call: memory stays flat however large the index. (Reading the
// two tables in one scan each and joining them in memory took a third of
// the time on the Go standard library, 0.3 s against 0.85 s, but held
// every vector twice.)
func (db *DB) Vectors(ctx context.Context, start func(ver Version, n int) error, row func(chunkID int64, vec []byte) error) (Version, error) {
	var ver Version
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?, ?)`, MetaIndexID, MetaContentVersion, MetaVectorBase)
		if err != nil {
			return err
		}
		ver = versionOf(kv)
		q := `SELECT c.id, e.vec FROM chunks c JOIN embeddings e ON e.key = c.embed_key ORDER BY c.id`
		if kv[MetaVectorBase] != "" {
			q = `SELECT c.id, e.vec FROM chunks c LEFT JOIN embeddings e ON e.key = c.embed_key WHERE c.embed_key IS NOT NULL ORDER BY c.id`
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE embed_key IS NOT NULL`).Scan(&n); err != nil {
			return fmt.Errorf("reading vectors: %v", err)
		}
		if err := start(ver, n); err != nil {
			return err
		}
		return each(ctx, tx, "vectors", q, nil, func(rows *sql.Rows) error {
			var id int64
			var vec sql.RawBytes
			if err := rows.Scan(&id, &vec); err != nil {
				return err
			}
			return row(id, vec)
		})
	})
	return ver, err
}

// VectorsAfter is what a reader holding the vectors of chunks up to
// afterID needs to bring them to the committed state, read in one
// transaction: the ids of every chunk now (ascending; a held row whose id
// is absent was deleted), and each chunk's vector for
// ids above afterID, by ascending id (nil when it is folded, as for
// [DB.Vectors]; fn also gets the version read). Chunk ids are never reused within
// a database ([MetaIndexID] tells databases apart), so a held id that is
// still live still names the same text. It returns the content version
// read. Cost: one scan of the chunk ids and one indexed read per new
// chunk, against a full [DB.Vectors] read.
func (db *DB) VectorsAfter(ctx context.Context, afterID int64, fn func(ver Version, chunkID int64, vec []byte) error) (Version, []int64, error) {
	var ver Version
	var live []int64
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?, ?)`, MetaIndexID, MetaContentVersion, MetaVectorBase)
		if err != nil {
			return err
		}
		ver = versionOf(kv)
		q := `SELECT c.id, e.vec FROM chunks c JOIN embeddings e ON e.key = c.embed_key WHERE c.id > ? ORDER BY c.id`
		if kv[MetaVectorBase] != "" {
			q = `SELECT c.id, e.vec FROM chunks c LEFT JOIN embeddings e ON e.key = c.embed_key WHERE c.id > ? AND c.embed_key IS NOT NULL ORDER BY c.id`
		}
		// Every chunk id, from the files' ranges rather than the table
		// (a held row's chunk had an embedding, so it is live iff its id
		// is here).
		live, err = liveChunkIDs(ctx, tx)
		if err != nil {
			return err
		}
		return each(ctx, tx, "vectors", q, []any{afterID}, func(rows *sql.Rows) error {
			var id int64
			var vec []byte
			if err := rows.Scan(&id, &vec); err != nil {
				return err
			}
			return fn(ver, id, vec)
		})
	})
	return ver, live, err
}

// EmbeddingKeys returns the key of every stored embedding (as strings of
// the raw key bytes), in one scan: an index run looks keys up here instead
// of querying once per chunk (1.4 s of CPU on the Go standard library).
// When the store holds more than limit keys (limit > 0) it returns nil
// instead: the map costs about 100 bytes a key, so a caller bounding its
// memory looks keys up per batch with [DB.EmbeddingKeysIn] beyond that.
func (db *DB) EmbeddingKeys(ctx context.Context, limit int) (map[string]bool, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT key FROM embeddings`)
	if err != nil {
		return nil, fmt.Errorf("reading embedding keys: %v", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	var k sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("reading embedding keys: %v", err)
		}
		if limit > 0 && len(out) == limit {
			return nil, nil
		}
		out[string(k)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading embedding keys: %v", err)
	}
	return out, nil
}

// EmbeddingKeysIn returns which of keys (embedding cache keys, as in
// [DB.EmbeddingKeys]) the store holds a vector for: the lookup of a run
// that embeds a few files, which should not read every key.
func (db *DB) EmbeddingKeysIn(ctx context.Context, keys [][]byte) (map[string]bool, error) {
	out := map[string]bool{}
	const per = 500 // parameters a statement
	for len(keys) > 0 {
		n := min(per, len(keys))
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = k
		}
		keys = keys[n:]
		err := each(ctx, db.r, "embedding keys", `SELECT key FROM embeddings WHERE key IN `+placeholders(n), args, func(rows *sql.Rows) error {
			var k []byte
			err := rows.Scan(&k)
			out[string(k)] = true
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Counts summarises the index.
type Counts struct {
	Files  int
	Chunks int
	// Vectors is the number of distinct vectors stored in SQLite plus the
	// number of chunks whose vector was folded into the vector file.
	Vectors   int
	Languages map[string]int // files per language
}

// ChunkCount returns the number of chunks, from the files' chunk id
// ranges alone: what [DB.Count] reports as Chunks, without its scan of
// every chunk for the vectors (0.35 s of a no-change re-index of ten
// copies of the Go standard library).
func (db *DB) ChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := db.r.QueryRowContext(ctx, chunkCountQuery).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting chunks: %v", err)
	}
	return n, nil
}

// chunkCountQuery counts the chunks by the files' chunk id ranges: the
// chunks table has no narrow index to count.
const chunkCountQuery = `SELECT coalesce(sum(chunk_hi - chunk_lo + 1), 0) FROM files WHERE chunk_hi >= chunk_lo`

// Count returns the index's counts.
func (db *DB) Count(ctx context.Context) (Counts, error) {
	c := Counts{Languages: map[string]int{}}
	// Vectors counts the stored vectors (one per distinct key) plus the
	// chunks whose vectors were folded into the vector file (see
	// [DB.FoldVectors]), one row each there: counting the distinct keys
	// of both took 0.3 s of CPU on the Go standard library, this 0.04 s.
	// Chunks counts the files' chunk id ranges: the table itself has no
	// narrow index to count.
	if err := db.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM files), (`+chunkCountQuery+`),
(SELECT count(*) FROM embeddings) + (SELECT count(*) FROM chunks c WHERE c.embed_key IS NOT NULL AND
 (SELECT value FROM meta WHERE key = ?) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.key = c.embed_key))`, MetaVectorBase).
		Scan(&c.Files, &c.Chunks, &c.Vectors); err != nil {
		return c, fmt.Errorf("counting: %v", err)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT language, count(*) FROM files GROUP BY language`)
	if err != nil {
		return c, fmt.Errorf("counting languages: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l string
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			return c, fmt.Errorf("counting languages: %v", err)
		}
		c.Languages[l] = n
	}
	return c, rows.Err()
}

// FileRef names a stored file.
type FileRef struct {
	ID   int64
	Path string
}

// maxFilesPerMention caps the files [DB.FilesByPathSuffixes] returns for
// one mention.
const maxFilesPerMention = 20

// MentionNames reports whether mention, a path as a query writes it,
// names the indexed file path: the two are equal, path ends with
// "/"+mention ("db/models/query.py"), or mention ends with "/"+path (an
// absolute or longer path from a traceback or a diff).
func MentionNames(path, mention string) bool {
	return path == mention || strings.HasSuffix(path, "/"+mention) || strings.HasSuffix(mention, "/"+path)
}

// FilesByPathSuffixes returns, for each path mentioned in a query, the
// files it refers to ([MentionNames]): those whose path equals the mention
// or ends with "/"+mention, and those whose path the mention itself ends
// with after a "/" (an absolute or longer path from a traceback). Leading "/" and "./"
// are ignored. out[i] holds mentions[i]'s files, at most 20, shortest path
// first; nil for a mention with no file name. All mentions are answered
// by one pass over the files table (a traceback names a dozen paths, and
// a pass per path cost 2-3 ms each on a 5k-file repository).
func (db *DB) FilesByPathSuffixes(ctx context.Context, mentions []string) ([][]FileRef, error) {
	out := make([][]FileRef, len(mentions))
	clean := make([]string, len(mentions))
	var bases []string
	seen := map[string]bool{}
	for i, m := range mentions {
		m = strings.TrimLeft(strings.TrimPrefix(m, "./"), "/")
		clean[i] = m
		base := m[strings.LastIndexByte(m, '/')+1:]
		if base == "" || seen[base] {
			continue
		}
		seen[base] = true
		bases = append(bases, base)
	}
	if len(bases) == 0 {
		return out, nil
	}
	var where strings.Builder
	var args []any
	for i, b := range bases {
		if i > 0 {
			where.WriteString(" OR ")
		}
		// Bytes, not characters: a blob's substr counts bytes.
		where.WriteString("path = ? OR substr(CAST(path AS BLOB), ?) = CAST(? AS BLOB)")
		args = append(args, b, -(len(b) + 1), "/"+b)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT id, path FROM files WHERE `+where.String()+` ORDER BY length(path), path`, args...)
	if err != nil {
		return nil, fmt.Errorf("finding files named %s: %v", strings.Join(bases, ", "), err)
	}
	defer rows.Close()
	for rows.Next() {
		var f FileRef
		if err := rows.Scan(&f.ID, &f.Path); err != nil {
			return nil, fmt.Errorf("finding files named %s: %v", strings.Join(bases, ", "), err)
		}
		for i, m := range clean {
			if len(out[i]) < maxFilesPerMention && m != "" && MentionNames(f.Path, m) {
				out[i] = append(out[i], f)
			}
		}
	}
	return out, rows.Err()
}

func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// ChunkAtLine returns the id of the chunk of file fileID holding the
// 1-based line, or its first chunk when line is 0 or outside every chunk;
// 0 when the file has no chunks.
func (db *DB) ChunkAtLine(ctx context.Context, fileID int64, line int) (int64, error) {
	var id int64
	err := db.r.QueryRowContext(ctx, `SELECT c.id FROM files f JOIN chunks c ON c.id BETWEEN f.chunk_lo AND f.chunk_hi WHERE f.id = ?
ORDER BY (c.start_line <= ? AND c.end_line >= ?) DESC, c.start_byte LIMIT 1`,
		fileID, line, line).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("finding the chunk at line %d: %v", line, err)
	}
	return id, nil
}

// FileInfo is a stored file's id, path and language.
type FileInfo struct {
	ID       int64
	Path     string
	Language string
}

// AllFiles returns every stored file.
func (db *DB) AllFiles(ctx context.Context) ([]FileInfo, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, path, language FROM files`)
	if err != nil {
		return nil, fmt.Errorf("listing files: %v", err)
	}
	defer rows.Close()
	var out []FileInfo
	for rows.Next() {
		var f FileInfo
		if err := rows.Scan(&f.ID, &f.Path, &f.Language); err != nil {
			return nil, fmt.Errorf("listing files: %v", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// chunkRanges is the query of every file's chunk ids, as ranges
// (files.chunk_lo, chunk_hi; empty for a file without chunks) in
// increasing order: a file's chunks take consecutive ids ([DB.Apply]).
const chunkRanges = `SELECT chunk_lo, chunk_hi FROM files WHERE chunk_hi >= chunk_lo ORDER BY chunk_lo`

// liveChunkIDs returns the id of every chunk, in increasing order, from
// the files' chunk ranges.
func liveChunkIDs(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	var live []int64
	err := each(ctx, tx, "chunk ids", chunkRanges, nil, func(rows *sql.Rows) error {
		var lo, hi int64
		if err := rows.Scan(&lo, &hi); err != nil {
			return err
		}
		for id := lo; id <= hi; id++ {
			live = append(live, id)
		}
		return nil
	})
	return live, err
}
