package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ChunkTable is the chunk rows of one committed state held in memory, for
// a long-lived reader that answers many queries from that state: what
// [DB.Chunks] and [DB.ChunksByName] return, without a statement per call.
// It keeps every field of a [ChunkRow] but the embedding key (EmbedKey is
// nil in its rows; searching never reads it) and no code text.
//
// Layout: one entry per chunk in ascending id order, as columns (ints as
// int32, the four text fields as offsets into one string), the files by
// id, and the named chunks' positions sorted by (name folded as NOCASE
// folds it, path, start byte, id) for name lookups. About 130 bytes a
// chunk on the Go standard library (see [ChunkTable.Bytes]).
//
// A ChunkTable is immutable once read, so any number of goroutines may
// use it. Chunk ids are never reused within a database and a chunk row
// never changes after it is written (a file's update deletes its rows and
// inserts new ones), so [ChunkTable.Advance] brings a table to a later
// state by dropping the deleted rows and reading the new ones.
type ChunkTable struct {
	// Version is the committed state the table was read at.
	Version Version

	ids        []int64
	files      []int32 // index into fileRows
	kinds      []uint8 // index into kindNames
	startLine  []int32
	endLine    []int32
	startByte  []int32
	endByte    []int32
	part       []int32
	text       string   // symbol, name, breadcrumb and summary of each row, in turn
	off        []uint32 // text offsets: field f of row i is text[off[4i+f]:off[4i+f+1]]
	byName     []int32  // rows with a name, by (folded name, path, start byte, id)
	fileRows   []fileRow
	fileByID   map[int64]int32
	kindNames  []string
	kindByName map[string]uint8
}

// fileRow is what a chunk row carries of its file.
type fileRow struct {
	id       int64
	path     string
	language string
	size     int64
	mtime    int64
}

// ReadChunkTable reads every chunk row and file of the committed state
// into a [ChunkTable], in one transaction. Cost on the Go standard
// library (106k chunks): one scan of each table.
func (db *DB) ReadChunkTable(ctx context.Context) (*ChunkTable, error) {
	var t *ChunkTable
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		ver, files, err := residentHead(ctx, tx)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(chunk_hi - chunk_lo + 1), 0) FROM files WHERE chunk_hi >= chunk_lo`).Scan(&n); err != nil {
			return fmt.Errorf("counting chunks: %v", err)
		}
		b := newTableBuilder(ver, files, n)
		if err := b.read(ctx, tx, 0); err != nil {
			return err
		}
		t = b.finish()
		return nil
	})
	return t, err
}

// Advance returns a table of the database's committed state built from
// t: its live rows are kept, the rows of chunks added since are read, and
// the files are read again (their size and time change without their
// chunks). It returns t itself when nothing changed, and
// [ErrOtherIndexTable] when db is not the database t was read from (its
// [MetaIndexID] differs), as after a rebuild swapped in.
func (t *ChunkTable) Advance(ctx context.Context, db *DB) (*ChunkTable, error) {
	var out *ChunkTable
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		ver, files, err := residentHead(ctx, tx)
		if err != nil {
			return err
		}
		if ver.IndexID == "" || ver.IndexID != t.Version.IndexID {
			return ErrOtherIndexTable
		}
		if ver == t.Version {
			out = t
			return nil
		}
		live, err := liveChunkIDs(ctx, tx)
		if err != nil {
			return err
		}
		b := newTableBuilder(ver, files, len(live))
		for i, id := range t.ids {
			if _, ok := slices.BinarySearch(live, id); !ok {
				continue
			}
			addRow(b, id, t.fileRows[t.files[i]].id, t.kindNames[t.kinds[i]],
				t.field(i, 0), t.field(i, 1), t.field(i, 2), t.field(i, 3),
				int64(t.startLine[i]), int64(t.endLine[i]), int64(t.startByte[i]), int64(t.endByte[i]), int64(t.part[i]))
		}
		var top int64
		if len(t.ids) > 0 {
			top = t.ids[len(t.ids)-1]
		}
		if err := b.read(ctx, tx, top); err != nil {
			return err
		}
		out = b.finish()
		return nil
	})
	return out, err
}

// ErrOtherIndexTable is [ChunkTable.Advance]'s answer for a database that
// is not the one the table was read from: read the table anew.
var ErrOtherIndexTable = errors.New("the chunk table belongs to another index")

func residentHead(ctx context.Context, tx *sql.Tx) (Version, []fileRow, error) {
	kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
	if err != nil {
		return Version{}, nil, err
	}
	files, err := collect(ctx, tx, "files", `SELECT id, path, language, size, mtime FROM files`, nil, func(rows *sql.Rows, f *fileRow) error {
		return rows.Scan(&f.id, &f.path, &f.language, &f.size, &f.mtime)
	})
	return versionOf(kv), files, err
}

// tableBuilder packs rows, by ascending id, into a new [ChunkTable].
type tableBuilder struct {
	t    *ChunkTable
	text []byte
}

// newTableBuilder starts a table of files with room for n rows.
func newTableBuilder(ver Version, files []fileRow, n int) *tableBuilder {
	t := &ChunkTable{Version: ver, fileRows: files, fileByID: make(map[int64]int32, len(files)), kindByName: map[string]uint8{}}
	for i, f := range files {
		t.fileByID[f.id] = int32(i)
	}
	t.ids = make([]int64, 0, n)
	t.files = make([]int32, 0, n)
	t.kinds = make([]uint8, 0, n)
	t.startLine = make([]int32, 0, n)
	t.endLine = make([]int32, 0, n)
	t.startByte = make([]int32, 0, n)
	t.endByte = make([]int32, 0, n)
	t.part = make([]int32, 0, n)
	t.off = make([]uint32, 1, 4*n+1)
	// Room for the text of n rows at the Go standard library's 100 bytes
	// a row (symbol, name, breadcrumb and summary), so it grows rarely.
	return &tableBuilder{t: t, text: make([]byte, 0, 100*n)}
}

// read adds the rows of the chunks with ids above after. The text
// columns are scanned as raw bytes and copied once, into the table's
// text.
func (b *tableBuilder) read(ctx context.Context, tx *sql.Tx, after int64) error {
	var sym, name, crumb, summ sql.RawBytes
	var kind string
	var id, fileID, sl, el, sb, eb, part int64
	return each(ctx, tx, "chunks", `SELECT id, file_id, kind, coalesce(symbol, name), name, breadcrumb, summary, start_line, end_line, start_byte, end_byte, part FROM chunks WHERE id > ? ORDER BY id`, []any{after},
		func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &fileID, kindScan{&kind}, &sym, &name, &crumb, &summ, &sl, &el, &sb, &eb, &part); err != nil {
				return err
			}
			if summ == nil {
				// The first part's summary (summaryArg), read before.
				if i, ok := slices.BinarySearch(b.t.ids, id-part+1); ok {
					summ = b.text[b.t.off[4*i+3]:b.t.off[4*i+4]]
				}
			}
			addRow(b, id, fileID, kind, sym, name, crumb, summ, sl, el, sb, eb, part)
			return nil
		})
}

// add appends one row; a row whose file is not among the table's is left
// out, as the join of [DB.Chunks] leaves it out.
func addRow[S ~string | ~[]byte](b *tableBuilder, id, fileID int64, kind string, sym, name, crumb, summ S, sl, el, sb, eb, part int64) {
	t := b.t
	fi, ok := t.fileByID[fileID]
	if !ok {
		return
	}
	k, ok := t.kindByName[kind]
	if !ok {
		k = uint8(len(t.kindNames))
		t.kindNames = append(t.kindNames, kind)
		t.kindByName[kind] = k
	}
	t.ids = append(t.ids, id)
	t.files = append(t.files, fi)
	t.kinds = append(t.kinds, k)
	t.startLine = append(t.startLine, int32(sl))
	t.endLine = append(t.endLine, int32(el))
	t.startByte = append(t.startByte, int32(sb))
	t.endByte = append(t.endByte, int32(eb))
	t.part = append(t.part, int32(part))
	for _, f := range [4]S{sym, name, crumb, summ} {
		b.text = append(b.text, f...)
		t.off = append(t.off, uint32(len(b.text)))
	}
}

// finish returns the table, its name order sorted.
func (b *tableBuilder) finish() *ChunkTable {
	t := b.t
	t.text = string(b.text)
	for i := range t.ids {
		if t.field(i, 1) != "" {
			t.byName = append(t.byName, int32(i))
		}
	}
	slices.SortFunc(t.byName, func(a, b int32) int {
		if c := compareNoCase(t.field(int(a), 1), t.field(int(b), 1)); c != 0 {
			return c
		}
		return t.pathOrder(a, b)
	})
	return t
}

// pathOrder orders two rows as ChunksByName's ORDER BY does: by path and
// start byte, then (for rows SQLite would leave in either order) by id.
func (t *ChunkTable) pathOrder(a, b int32) int {
	if c := strings.Compare(t.fileRows[t.files[a]].path, t.fileRows[t.files[b]].path); c != 0 {
		return c
	}
	if c := cmp.Compare(t.startByte[a], t.startByte[b]); c != 0 {
		return c
	}
	return cmp.Compare(t.ids[a], t.ids[b])
}

// field is text field f (0 symbol, 1 name, 2 breadcrumb, 3 summary) of
// row i.
func (t *ChunkTable) field(i, f int) string {
	return t.text[t.off[4*i+f]:t.off[4*i+f+1]]
}

// Len is the number of chunk rows.
func (t *ChunkTable) Len() int { return len(t.ids) }

// Bytes is the memory the table holds, in bytes: its columns, text, name
// order and files (strings and map entries counted at their length plus
// a header).
func (t *ChunkTable) Bytes() int64 {
	n := int64(len(t.ids)) * (8 + 4 + 1 + 5*4)
	n += int64(len(t.off))*4 + int64(len(t.text)) + int64(len(t.byName))*4
	for _, f := range t.fileRows {
		n += 40 + 32 + int64(len(f.path)+len(f.language)) + 16 // row, two headers, map entry
	}
	return n
}

func (t *ChunkTable) row(i int) ChunkRow {
	f := t.fileRows[t.files[i]]
	return ChunkRow{
		Chunk: Chunk{ID: t.ids[i], FileID: f.id, Kind: t.kindNames[t.kinds[i]],
			Symbol: t.field(i, 0), Name: t.field(i, 1), Breadcrumb: t.field(i, 2), Summary: t.field(i, 3),
			StartLine: int(t.startLine[i]), EndLine: int(t.endLine[i]), StartByte: int(t.startByte[i]), EndByte: int(t.endByte[i]), Part: int(t.part[i])},
		Path: f.path, Language: f.language, FileSize: f.size, FileTime: f.mtime,
	}
}

// Chunks is [DB.Chunks] answered from the table: the rows of the ids it
// holds, in ids' order (duplicates once), EmbedKey nil.
func (t *ChunkTable) Chunks(ids []int64) []ChunkRow {
	out := make([]ChunkRow, 0, len(ids))
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		i, ok := slices.BinarySearch(t.ids, id)
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, t.row(i))
	}
	return out
}

// ChunksByName is [DB.ChunksByName] answered from the table: up to limit
// rows whose name equals one of names ignoring ASCII case (SQLite's
// NOCASE), by path, start byte and id.
func (t *ChunkTable) ChunksByName(names []string, limit int) []ChunkRow {
	var hits []int32
	done := make([]string, 0, len(names))
	for _, name := range names {
		if name == "" || slices.ContainsFunc(done, func(d string) bool { return compareNoCase(d, name) == 0 }) {
			continue
		}
		done = append(done, name)
		lo, _ := slices.BinarySearchFunc(t.byName, name, func(r int32, n string) int { return compareNoCase(t.field(int(r), 1), n) })
		for j := lo; j < len(t.byName) && compareNoCase(t.field(int(t.byName[j]), 1), name) == 0; j++ {
			hits = append(hits, t.byName[j])
		}
	}
	if len(done) > 1 {
		slices.SortFunc(hits, t.pathOrder)
	}
	if limit >= 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]ChunkRow, len(hits))
	for k, i := range hits {
		out[k] = t.row(int(i))
	}
	return out
}

// compareNoCase compares as SQLite's NOCASE collation does: bytes, with
// ASCII upper-case letters folded to lower case.
func compareNoCase(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := lowerASCII(a[i]), lowerASCII(b[i])
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
	}
	return cmp.Compare(len(a), len(b))
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
