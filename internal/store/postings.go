package store

// ctx's BM25 index: an inverted index of the chunks' analyzed terms kept
// in SQLite, scored in Go.
//
// Layout (schema 14). Each [DB.Apply] that writes chunks adds one
// segment: for every term of its chunks, one postings row (term, seg, n,
// data) whose data lists the n chunks holding the term, in ascending id
// order:
//
//	entry = uvarint(id − previous id in the row, the first from 0)
//	        byte(b)
//	b < 0xF0:  one column, c = b & 3, term frequency b>>2 + 1 (1..60)
//	b ≥ 0xF0:  column mask m = b & 0x0F (bit c set when column c holds
//	           the term), then uvarint(term frequency) for each set bit,
//	           lowest bit first
//
// Most entries take the one-byte form (82% of the Go standard library's
// hold the term in one column). Measured on that index (6.2 M entries), an
// entry averages 2.6 bytes, 16.1 MB in all (5.0 bytes, 31.1 MB, with the
// chunk's token count in every entry and a separate mask byte); chunks'
// token counts are kept once per chunk instead (doclens.go).
//
// The table is WITHOUT ROWID, keyed by (seg, term) (schema 14), so the
// term is stored once (a rowid table needs a second index on the key,
// which holds every term again: 7.3 MB there), and a new segment's rows,
// written in term order, are appended after every earlier segment's
// instead of being spread among them. A search looks each term up in each
// segment (few: the compaction policy below); merges read each segment's
// rows in term order and merge them ([scanTerms]). Such a table keeps
// whole rows in its b-tree, inner pages included, which holds long rows
// badly (the old rows as one WITHOUT ROWID table took 45.8 MB, 6.9 MB of
// it unused overflow space), so a row whose data is longer than
// maxInlinePostings keeps it in postings_big(id, data), a rowid table,
// and names it by id in big (data is then NULL). On the Go standard library the two tables take 25.1 MB
// (postings 11.0, postings_big 14.1) where the rowid table and its index
// took 47.9 MB.
//
// Deleting a chunk leaves its postings in place and records its id in
// dead, which every search skips; [DB.CompactPostings] merges segments
// and drops dead entries. Chunk ids are never reused (bm25_stats.next_chunk
// hands them out), so a dead id can never name a new chunk.
// bm25_stats also holds the live totals BM25 needs: the chunk count and
// their token count.
//
// Scores are FTS5's bm25() (ext/fts5/fts5_aux.c, SQLite 3.x), which ctx
// used before it kept its own index and whose constants the ranking was
// tuned with: for each query term t,
//
//	idf(t) · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl)),   k1 = 1.2, b = 0.75
//	idf(t) = ln((N − df + 0.5) / (df + 0.5)), or 1e-6 when that is ≤ 0
//
// where f is Σ over columns of weight × term frequency, D the chunk's
// token count over all columns (from doclens), avgdl the mean D, N the live chunk count
// and df the live chunks holding t (in the query's columns). The
// equivalence with FTS5 is pinned by TestBM25MatchesFTS5.

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Columns of the BM25 index, in the order of [BM25Weights] and of the
// column mask bits.
const (
	ColName = iota // symbol and breadcrumb terms
	ColPath        // the file path's terms
	ColDoc         // the doc comment's terms
	ColBody        // the code's terms (capped per term at indexing)
	NumColumns
)

// BM25Weights are the BM25 column weights, indexed by Col*.
type BM25Weights [NumColumns]float64

// BM25 constants, as FTS5's bm25() has them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// segBuilder accumulates the postings of one segment.
type segBuilder struct {
	terms  map[string]*termBuf
	docs   int64
	tokens int64
	// lens[i] is the token count of chunk first+i (0: no terms), for
	// doclens.
	first int64
	lens  []uint32
	// Scratch for one chunk: its terms, first seen first, and their
	// counts per column (tf[i] for order[i]; order[i].slot is i).
	order []*termBuf
	tf    [][NumColumns]uint32
}

type termBuf struct {
	data []byte
	last int64
	n    int
	// chunk is the id + 1 of the chunk being added when it holds the
	// term (0: none yet), slot the term's index in the builder's
	// scratch for that chunk.
	chunk int64
	slot  int
}

func newSegBuilder() *segBuilder {
	return &segBuilder{terms: map[string]*termBuf{}}
}

// add indexes one chunk and returns its token count over all columns.
// Chunks are added in ascending id order.
func (b *segBuilder) add(id int64, cols [NumColumns]string) int {
	b.order, b.tf = b.order[:0], b.tf[:0]
	ntok := 0
	for c, s := range cols {
		// The terms are separated by ' ' (Chunk.Terms), so
		// cutting at each space finds them at less cost than
		// strings.FieldsSeq, which checks every byte for any space.
		for t := range strings.SplitSeq(s, " ") {
			if t == "" {
				continue
			}
			ntok++
			tb := b.terms[t]
			if tb == nil {
				tb = &termBuf{}
				b.terms[t] = tb
			}
			if tb.chunk != id+1 {
				tb.chunk, tb.slot = id+1, len(b.order)
				b.order = append(b.order, tb)
				b.tf = append(b.tf, [NumColumns]uint32{})
			}
			b.tf[tb.slot][c]++
		}
	}
	if ntok == 0 {
		return 0
	}
	b.docs++
	b.tokens += int64(ntok)
	if len(b.lens) == 0 {
		b.first = id
	}
	for int64(len(b.lens)) < id-b.first {
		b.lens = append(b.lens, 0)
	}
	b.lens = append(b.lens, uint32(ntok))
	for i, tb := range b.order {
		tb.data = appendEntry(tb.data, id-tb.last, &b.tf[i])
		tb.last = id
		tb.n++
	}
	return ntok
}

// appendEntry appends one entry (the format in the file comment) to dst;
// tf holds the term's frequency in each column, one at least non-zero.
func appendEntry(dst []byte, delta int64, tf *[NumColumns]uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(delta))
	var mask byte
	col := 0
	for c, n := range tf {
		if n > 0 {
			mask |= 1 << c
			col = c
		}
	}
	if mask&(mask-1) == 0 && tf[col] <= maxShortTF {
		return append(dst, byte(tf[col]-1)<<2|byte(col))
	}
	dst = append(dst, longEntry|mask)
	for _, n := range tf {
		if n > 0 {
			dst = binary.AppendUvarint(dst, uint64(n))
		}
	}
	return dst
}

// The entry byte: below longEntry, one column and a term frequency up to
// maxShortTF; from it on, a column mask and the frequencies after it.
const (
	longEntry  = 0xF0
	maxShortTF = longEntry >> 2 // 60
)

// The one-byte form has 2 bits for the column.
var _ [4 - NumColumns]struct{}

// posting is one decoded entry.
type posting struct {
	id   int64
	dl   uint32 // tokens over all columns (not in the row: the scorer fills it in)
	mask uint8  // the columns holding the term (tf[c] > 0)
	tf   [NumColumns]uint32
}

// holds reports whether the entry's chunk holds the term in a column of
// mask.
func (p *posting) holds(mask uint8) bool { return p.mask&mask != 0 }

// allColumns is the column mask of every column.
const allColumns = 1<<NumColumns - 1

// livePostings calls f with each entry of a term's rows whose chunk is
// not dead and holds the term in a column of mask.
func livePostings(rows [][]byte, dead map[int64]bool, mask uint8, f func(p *posting)) error {
	for _, data := range rows {
		if err := decodePostings(data, func(p *posting) {
			if !dead[p.id] && p.holds(mask) {
				f(p)
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// decodePostings calls f with each entry of a postings row's data.
func decodePostings(data []byte, f func(p *posting)) error {
	return decodeEntries(data, func(p *posting, _ int) { f(p) })
}

// decodeEntries calls f with each entry of a postings row's data and the
// offset in data just past the entry's id delta (where a row re-based on
// another first id continues unchanged). It walks the row with the
// search's [postingsCursor], the one decoder of the entry format.
func decodeEntries(data []byte, f func(p *posting, at int)) error {
	c := postingsCursor{data: data}
	if err := c.next(0); err != nil {
		return err
	}
	var p posting
	for !c.done {
		id, at := c.id, c.pos
		mask, err := c.entry(&p.tf)
		if err != nil {
			return err
		}
		p.id, p.mask = id, mask
		f(&p, at)
	}
	return nil
}

var errCorruptPostings = fmt.Errorf("%w: corrupt postings row; run `ctx index --rebuild`", ErrCorrupt)

// writeSegment stores a built segment in tx (a no-op when it is empty):
// its postings rows and its chunks' doc lengths.
func (b *segBuilder) writeSegment(ctx context.Context, tx *sql.Tx) error {
	if b.docs == 0 {
		return nil
	}
	seg, err := newSegment(ctx, tx, b.docs, b.tokens)
	if err != nil {
		return fmt.Errorf("writing the BM25 index: %v", err)
	}
	ins, err := newPostingsWriter(ctx, tx, "postings", "postings_big")
	if err != nil {
		return fmt.Errorf("writing the BM25 index: %v", err)
	}
	defer ins.close()
	// Sorted terms touch the table's pages in sequence.
	type term struct {
		t  string
		tb *termBuf
	}
	terms := make([]term, 0, len(b.terms))
	var postings, bytes int64
	for t, tb := range b.terms {
		terms = append(terms, term{t, tb})
		postings += int64(tb.n)
		bytes += int64(len(tb.data))
	}
	slices.SortFunc(terms, func(x, y term) int { return strings.Compare(x.t, y.t) })
	for _, t := range terms {
		if err := ins.add(ctx, t.t, seg, t.tb.n, t.tb.data); err != nil {
			return fmt.Errorf("writing the BM25 index: %v", err)
		}
	}
	if err := ins.flush(ctx); err != nil {
		return fmt.Errorf("writing the BM25 index: %v", err)
	}
	if err := writeDocLens(ctx, tx, b.first, b.lens); err != nil {
		return fmt.Errorf("writing the BM25 index: document lengths: %v", err)
	}
	if err := recordSegment(ctx, tx, seg, b.docs, postings, bytes); err != nil {
		return fmt.Errorf("writing the BM25 index: %v", err)
	}
	return nil
}

// postingsRowsPerStmt is the number of postings rows one INSERT
// statement writes.
const postingsRowsPerStmt = 256

// maxInlinePostings is the longest data a postings row holds itself;
// longer data goes to postings_big. A WITHOUT ROWID table on 4 kB pages
// keeps at most 1,002 bytes of a row in its b-tree and copies keys into
// inner pages. Measured on the Go standard library's index, postings plus
// postings_big barely depend on it: 25.06 MB at 128, 25.10 at 256, 25.16
// at 512, 25.12 at 900; 256 leaves 5,085 of 290k rows in postings_big.
const maxInlinePostings = 256

// postingsWriter inserts postings rows into a postings table and its
// table of long data (postings and postings_big, or a full merge's new
// pair).
type postingsWriter struct {
	rows, big *rowWriter
	nextBig   int64 // the next postings_big id
}

func newPostingsWriter(ctx context.Context, tx *sql.Tx, table, bigTable string) (*postingsWriter, error) {
	w := &postingsWriter{
		rows: newRowWriter(tx, `INSERT OR FAIL INTO `+table+`(term, seg, n, data, big) VALUES`, "", 5, postingsRowsPerStmt),
		big:  newRowWriter(tx, `INSERT OR FAIL INTO `+bigTable+`(id, data) VALUES`, "", 2, postingsRowsPerStmt/8),
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM `+bigTable).Scan(&w.nextBig); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// add buffers one row. Errors: SQLite's, unwrapped.
func (w *postingsWriter) add(ctx context.Context, term string, seg int64, n int, data []byte) error {
	if len(data) <= maxInlinePostings {
		return w.rows.add(ctx, term, seg, n, data, nil)
	}
	id := w.nextBig
	w.nextBig++
	if err := w.big.add(ctx, id, data); err != nil {
		return err
	}
	return w.rows.add(ctx, term, seg, n, nil, id)
}

// flush sends the buffered rows. Errors: SQLite's, unwrapped.
func (w *postingsWriter) flush(ctx context.Context) error {
	if err := w.big.flush(ctx); err != nil {
		return err
	}
	return w.rows.flush(ctx)
}

func (w *postingsWriter) close() {
	w.rows.close()
	w.big.close()
}

// postingsData is the select expression of a postings row's data, for a
// query of postings p LEFT JOIN postings_big b ON b.id = p.big.
const postingsData = `coalesce(p.data, b.data)`

// newSegment allocates the next segment number in tx, adding the chunks
// and tokens it brings to the index's live totals (0, 0 for a merge).
func newSegment(ctx context.Context, tx *sql.Tx, docs, tokens int64) (int64, error) {
	var seg int64
	err := tx.QueryRowContext(ctx, `UPDATE bm25_stats SET next_seg = next_seg + 1, docs = docs + ?, tokens = tokens + ? WHERE id = 1 RETURNING next_seg - 1`,
		docs, tokens).Scan(&seg)
	return seg, err
}

// recordSegment adds a written segment's row to segments, which the
// compaction policy reads.
func recordSegment(ctx context.Context, tx *sql.Tx, seg, docs, postings, bytes int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO segments(seg, docs, postings, bytes) VALUES(?,?,?,?)`, seg, docs, postings, bytes)
	return err
}

// nextChunkIDs reserves n chunk ids in tx and returns the first.
func nextChunkIDs(ctx context.Context, tx *sql.Tx, n int) (int64, error) {
	var first int64
	if err := tx.QueryRowContext(ctx, `UPDATE bm25_stats SET next_chunk = next_chunk + ? WHERE id = 1 RETURNING next_chunk - ?`, n, n).Scan(&first); err != nil {
		return 0, fmt.Errorf("allocating chunk ids: %v", err)
	}
	return first, nil
}

// BM25Query is one search of the BM25 index.
type BM25Query struct {
	// Terms are distinct analyzed terms (analyze.Terms); scores sum over
	// them in this order. Unknown terms add nothing.
	Terms []string
	// Weights are the column weights.
	Weights BM25Weights
	// Columns is a mask (bit c for column c) of the columns a term must
	// occur in to count, for both its frequency and its df; 0 means all.
	Columns uint8
	// Groups, when not nil, keeps only chunks holding every term of at
	// least one group (each group lists indexes into Terms): FTS5's
	// (a AND b) OR (c AND d). A query with groups has at most
	// [MaxGroupTerms] terms.
	Groups [][]int
	// Limit is the number of hits wanted.
	Limit int
	// FileIDs keeps only chunks of these files (nil: every file); the
	// statistics stay those of the whole index.
	FileIDs []int64
}

// idSet runs a query of one integer column and returns its values as a
// set.
func idSet(ctx context.Context, conn querier, what, query string, args ...any) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := each(ctx, conn, what, query, args, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		out[id] = true
		return err
	})
	return out, err
}

// deadChunks returns the ids of deleted chunks whose postings remain.
func deadChunks(ctx context.Context, conn querier) (map[int64]bool, error) {
	return idSet(ctx, conn, "deleted chunks", `SELECT id FROM dead`)
}

// chunksOfFiles returns the ids of the chunks of the given files.
func chunksOfFiles(ctx context.Context, conn querier, fileIDs []int64) (map[int64]bool, error) {
	ids, err := json.Marshal(fileIDs)
	if err != nil {
		return nil, err
	}
	return idSet(ctx, conn, "the chunks of the path filter", `SELECT c.id FROM files f JOIN chunks c ON c.id BETWEEN f.chunk_lo AND f.chunk_hi WHERE f.id IN (SELECT value FROM json_each(?))`, string(ids))
}

// termRows returns the data of each term's postings rows, by term.
func (db *DB) termRows(ctx context.Context, terms []string) (map[string][][]byte, error) {
	return termRowsOf(ctx, db.r, terms)
}

// termRowsOf is termRows through conn (a transaction, to read the rows
// of the same commit as something else).
func termRowsOf(ctx context.Context, conn querier, terms []string) (map[string][][]byte, error) {
	out := make(map[string][][]byte, len(terms))
	err := each(ctx, conn, "postings", termRowsQuery(len(terms)), stringArgs(terms), func(rows *sql.Rows) error {
		var t string
		var data []byte
		err := rows.Scan(&t, &data)
		out[t] = append(out[t], data)
		return err
	})
	return out, err
}

// termRowsQuery reads the rows of n terms (n placeholders), each term
// looked up in each segment.
func termRowsQuery(n int) string {
	return `SELECT p.term, ` + postingsData + ` FROM segments s CROSS JOIN postings p ON p.seg = s.seg AND p.term IN ` + placeholders(n) + ` LEFT JOIN postings_big b ON b.id = p.big`
}

// docFreqsQuery sums the entries of each term's rows, the terms given as
// one JSON array (one statement text whatever their number, so it is
// prepared once: see [searchStmts]); the loops run as in postingsQuery.
const docFreqsQuery = `SELECT j.value, sum(p.n) FROM segments s CROSS JOIN json_each(?) j CROSS JOIN postings p ON p.seg = s.seg AND p.term = j.value GROUP BY j.value`

// TermChunks returns the ids of the live chunks holding term in one of
// the columns of mask (0: any), ascending.
func (db *DB) TermChunks(ctx context.Context, term string, mask uint8) ([]int64, error) {
	dead, err := deadChunks(ctx, db.r)
	if err != nil {
		return nil, err
	}
	rows, err := db.termRows(ctx, []string{term})
	if err != nil {
		return nil, err
	}
	var out []int64
	if err := livePostings(rows[term], dead, cmp.Or(mask, allColumns), func(p *posting) { out = append(out, p.id) }); err != nil {
		return nil, fmt.Errorf("reading the chunks holding %q: %w", term, err)
	}
	slices.Sort(out)
	return out, nil
}

// DocFreqs returns, for each term, the number of live chunks holding it
// (any column); unknown terms map to 0. It is exact at every instant:
// while deleted chunks' postings wait for [DB.CompactPostings], the
// term's postings are decoded and dead entries left out, so term
// selection never depends on the index's edit history. Errors: SQLite
// failures and corrupt postings (rebuild the index).
func (db *DB) DocFreqs(ctx context.Context, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	if len(terms) == 0 {
		return out, nil
	}
	for _, t := range terms {
		out[t] = 0
	}
	// Each term once: a repeated array element would count twice.
	list, err := json.Marshal(slices.Collect(maps.Keys(out)))
	if err != nil {
		return nil, fmt.Errorf("document frequencies: %v", err)
	}
	// Prepared before the transaction takes a connection (as SearchBM25's).
	st := db.search.prepared(ctx, db.r)
	// One read transaction, so the dead set and the postings are of the
	// same commit.
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("document frequencies: %v", err)
	}
	defer tx.Rollback()
	dead, err := deadChunks(ctx, st.queryIn(ctx, tx, st.dead, deadQuery))
	if err != nil {
		return nil, fmt.Errorf("document frequencies: %w", err)
	}
	if len(dead) == 0 {
		err := each(ctx, st.queryIn(ctx, tx, st.docFreqs, docFreqsQuery), "document frequencies", docFreqsQuery, []any{string(list)}, func(rows *sql.Rows) error {
			var t string
			var n int
			err := rows.Scan(&t, &n)
			out[t] = n
			return err
		})
		return out, err
	}
	rows, err := termRowsOf(ctx, tx, terms)
	if err != nil {
		return nil, err
	}
	for t, rs := range rows {
		n := 0
		if err := livePostings(rs, dead, allColumns, func(*posting) { n++ }); err != nil {
			return nil, fmt.Errorf("document frequencies: term %q: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// segmentList returns the numbers of the BM25 index's segments,
// ascending.
func segmentList(ctx context.Context, conn querier) ([]int64, error) {
	return collect(ctx, conn, "BM25 segments", `SELECT seg FROM segments ORDER BY seg`, nil, func(rows *sql.Rows, s *int64) error { return rows.Scan(s) })
}

// Vocabulary calls each with every term of the BM25 index and its
// document frequency (live chunks holding it, as [DB.DocFreqs] counts),
// in term order, from one read transaction; terms that only deleted
// chunks held are left out. An error from each stops the scan and is
// returned as is. On the Go standard library (290k terms) it reads the
// postings table once ([scanTerms]).
func (db *DB) Vocabulary(ctx context.Context, each func(term string, df int) error) error {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("vocabulary: %v", err)
	}
	defer tx.Rollback()
	dead, err := deadChunks(ctx, tx)
	if err != nil {
		return fmt.Errorf("vocabulary: %w", err)
	}
	segs, err := segmentList(ctx, tx)
	if err != nil {
		return fmt.Errorf("vocabulary: %w", err)
	}
	cur, df := "", 0
	flush := func() error {
		if cur == "" || df == 0 {
			return nil
		}
		return each(cur, df)
	}
	var stop error // each's error, returned as is
	err = scanTerms(ctx, tx, segs, len(dead) > 0, func(r segRow) error {
		if r.term != cur {
			if err := flush(); err != nil {
				stop = err
				return err
			}
			cur, df = r.term, 0
		}
		if len(dead) == 0 {
			df += r.n
			return nil
		}
		return livePostings([][]byte{r.data}, dead, allColumns, func(*posting) { df++ })
	})
	switch {
	case stop != nil:
		return stop
	case err != nil:
		return fmt.Errorf("vocabulary: term %q: %w", cur, err)
	}
	return flush()
}

// postingsTable returns the definition of a postings table named name
// (the layout of schema 14; the migration to it spells out the same
// statement).
func postingsTable(name string) string {
	return `CREATE TABLE ` + name + `(
  term TEXT NOT NULL,
  seg INTEGER NOT NULL,
  n INTEGER NOT NULL,
  data BLOB,
  big INTEGER,
  PRIMARY KEY(seg, term)
) WITHOUT ROWID`
}

// postingsBigTable returns the definition of a postings table's table of
// long data named name.
func postingsBigTable(name string) string {
	return `CREATE TABLE ` + name + `(id INTEGER PRIMARY KEY, data BLOB NOT NULL)`
}

// Compaction policy: small segments are merged once there are more than
// maxSegments, and everything is merged into one segment once the
// segments other than the largest hold more than a quarter of its
// postings or dead chunks are more than a twentieth of the live ones, so
// a search reads few rows per term and few dead entries. (Measured on the
// Go standard library's index: 27 unmerged segments of a cold run cost a
// search 1.3 ms more at the median than one; a search now looks each term
// up in each segment.) Merging the small segments reads and deletes only
// their own key ranges, so it costs what they hold.
const (
	maxSegments    = 8
	fullMergeRatio = 0.25
	deadMergeRatio = 0.05
)

// CompactStats describes one [DB.CompactPostings] call.
type CompactStats struct {
	Segments int // segments merged (0: nothing to do)
	Dropped  int // dead entries dropped
}

// CompactPostings merges BM25 segments by the compaction policy, in one
// transaction (one per maxMergeSegments segments past that many), and
// reports what it did. The indexer calls it at the end
// of each run.
func (db *DB) CompactPostings(ctx context.Context) (CompactStats, error) {
	return db.compactAll(ctx, false)
}

// CompactPostingsLight is [DB.CompactPostings] for a run of a few files:
// no full merge (it rewrites every posting, 2-3 s on the Go tree; the
// search reads dead entries correctly meanwhile); the small segments are
// merged as CompactPostings merges them. The next CompactPostings does
// the rest.
func (db *DB) CompactPostingsLight(ctx context.Context) (CompactStats, error) {
	return db.compactAll(ctx, true)
}

// compactAll compacts until the policy is met: more than
// maxMergeSegments segments to merge take one transaction per this many.
func (db *DB) compactAll(ctx context.Context, light bool) (CompactStats, error) {
	var all CompactStats
	for {
		st, more, err := db.compact(ctx, light)
		all.Segments += st.Segments
		all.Dropped += st.Dropped
		if err != nil || !more {
			return all, err
		}
	}
}

// compact merges segments by the policy in one transaction; more is true
// when it merged only the smallest maxMergeSegments of those the policy
// named, and the caller should compact again.
func (db *DB) compact(ctx context.Context, light bool) (st CompactStats, more bool, err error) {
	if db.w == nil {
		return st, false, ErrReadOnly
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	defer tx.Rollback()
	type segment struct{ seg, docs, postings int64 }
	segs, err := collect(ctx, tx, "BM25 segments", `SELECT seg, docs, postings FROM segments ORDER BY postings DESC, seg`, nil, func(rows *sql.Rows, s *segment) error {
		return rows.Scan(&s.seg, &s.docs, &s.postings)
	})
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %w", err)
	}
	var nDead, live int64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM dead), docs FROM bm25_stats`).Scan(&nDead, &live); err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	var rest int64
	for _, s := range segs[min(1, len(segs)):] {
		rest += s.postings
	}
	// pick is the segments to merge: a suffix of segs (largest first).
	var pick []segment
	full := false
	switch {
	case len(segs) == 0:
	case !light && (nDead > 0 && float64(nDead) > deadMergeRatio*float64(live) ||
		len(segs) > 1 && float64(rest) > fullMergeRatio*float64(segs[0].postings)):
		full, pick = true, segs
	case len(segs) > maxSegments:
		pick = segs[1:]
	}
	if len(pick) == 0 {
		return st, false, nil
	}
	// A merge reads all its segments at once (scanTerms): past
	// maxMergeSegments, the smallest that many are merged now, as a
	// partial merge, and the caller compacts again.
	if limit := cmp.Or(db.mergeCap, maxMergeSegments); len(pick) > limit {
		full, more = false, true
		pick = pick[len(pick)-limit:]
	}
	merge := make([]int64, len(pick))
	docs := live
	if !full {
		docs = 0
	}
	for i, s := range pick {
		merge[i] = s.seg
		if !full {
			docs += s.docs
		}
	}
	dead, err := deadChunks(ctx, tx)
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %w", err)
	}
	seg, err := newSegment(ctx, tx, 0, 0)
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}

	// A full merge streams into a new pair of tables that replaces the
	// old one (dropping a table is much cheaper than deleting its rows one
	// by one); a partial one streams into the postings table itself (the
	// new segment's key range is past every segment being read, so no
	// cursor of the merge meets its rows), then deletes the merged rows.
	//
	// The new postings table is then copied whole into the one that
	// replaces the old: rows inserted one by one, even in key order,
	// leave a WITHOUT ROWID table's pages about 88% full (SQLite
	// rebalances each split page with its siblings), where a whole-table
	// copy into an empty table (INSERT INTO t SELECT * FROM u, which
	// SQLite does page-order, as an append) fills them. Measured on the
	// Go standard library's index: postings 11.0 -> 9.7 MB. (The copy
	// is written in the main database: a temporary table would hold the
	// whole postings in memory.)
	target, bigTarget := "postings", "postings_big"
	if full {
		target, bigTarget = "postings_merged", "postings_merged_big"
		for _, q := range []string{postingsTable(target), postingsBigTable(bigTarget)} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
			}
		}
	}
	var postings, bytes int64
	ins, err := newPostingsWriter(ctx, tx, target, bigTarget)
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	defer ins.close()
	emit := func(r termRow) error {
		postings += int64(r.n)
		bytes += int64(len(r.data))
		return ins.add(ctx, r.term, seg, r.n, r.data)
	}
	// The segments are read through a connection of their own, beside
	// the writes (see mergeRows). The write transaction has changed no
	// postings row yet, and this process is the index's only writer, so a
	// read begun now sees the segments it would.
	rtx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	defer rtx.Rollback()
	m := merger{dead: dead}
	if err := mergeRows(ctx, rtx, merge, &m, emit); err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %w", err)
	}
	rtx.Rollback() // the old segments are read: release their snapshot before they are dropped
	if err := ins.flush(ctx); err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	segList, _ := json.Marshal(merge)
	where := `WHERE seg IN (SELECT value FROM json_each(?))`
	st.Dropped = m.dropped

	if full {
		for _, q := range []string{
			`DROP TABLE postings`,
			`DROP TABLE postings_big`,
			postingsTable("postings"),
			`INSERT INTO postings SELECT * FROM postings_merged`,
			`DROP TABLE postings_merged`,
			`ALTER TABLE postings_merged_big RENAME TO postings_big`,
			`DELETE FROM segments`,
			// Every dead chunk's postings were in the merged segments.
			`DELETE FROM dead`,
			// Pages of no live chunk are never read again.
			`DELETE FROM doclens WHERE page NOT IN (SELECT DISTINCT id >> ` + fmt.Sprint(docPageBits) + ` FROM chunks WHERE ntok > 0)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
			}
		}
		// The secondary indexes, whose entries were inserted in no key
		// order (pages about 87% full), are built again from sorted
		// entries, as the postings were: 0.5 MB less on the Go standard
		// library's index. The lookup indexes are dropped first and
		// created last, so each is built once, also when a cold run
		// deferred it.
		err = dropLookupIndexes(ctx, tx)
		for _, table := range []string{"names", "imports", "files"} {
			if err == nil {
				_, err = tx.ExecContext(ctx, `REINDEX `+table)
			}
		}
		if err == nil {
			err = createLookupIndexes(ctx, tx)
		}
		if err != nil {
			return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
		}
	} else {
		for _, q := range []string{
			`DELETE FROM postings_big WHERE id IN (SELECT big FROM postings ` + where + ` AND big IS NOT NULL)`,
			`DELETE FROM postings ` + where,
			`DELETE FROM segments ` + where,
		} {
			if _, err := tx.ExecContext(ctx, q, string(segList)); err != nil {
				return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
			}
		}
	}
	// A merged segment's docs: the live chunks for a full merge, the sum
	// of the merged segments' counts (deleted chunks included) otherwise.
	if err := recordSegment(ctx, tx, seg, docs, postings, bytes); err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	if err := tx.Commit(); err != nil {
		return st, false, fmt.Errorf("compacting the BM25 index: %v", err)
	}
	st.Segments = len(merge)
	if full {
		// The old segments' pages are free now: return them (a no-op in
		// databases created before auto_vacuum was set).
		if _, err := db.w.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
			return st, false, fmt.Errorf("compacting the BM25 index: releasing free pages: %v", err)
		}
	}
	return st, more, nil
}

// merger merges one term's postings rows into one.
type merger struct {
	dead    map[int64]bool
	rows    [][]byte  // the term's rows so far
	entries []posting // scratch
	dropped int
}

// flush merges the rows collected so far and resets them; ok is false
// when no live entry remains. Rows whose ids follow each other (segments
// written in order) and hold no dead entry are concatenated, re-basing
// each row's first id; otherwise entries are decoded, filtered, sorted and
// encoded again.
func (m *merger) flush() (out mergedRow, ok bool, err error) {
	rows := m.rows
	m.rows = m.rows[:0]
	type bounds struct {
		first, last int64
		head, n     int
	}
	b := make([]bounds, len(rows))
	concat := true
	for i, data := range rows {
		first, head := int64(-1), 0
		var last int64
		n := 0
		if err := decodeEntries(data, func(p *posting, at int) {
			if first < 0 {
				first, head = p.id, at
			}
			if m.dead[p.id] {
				concat = false
			}
			last = p.id
			n++
		}); err != nil {
			return out, false, err
		}
		b[i] = bounds{first, last, head, n}
		if n == 0 || i > 0 && first <= b[i-1].last {
			concat = false
		}
	}
	if concat {
		prev := int64(0)
		for i, data := range rows {
			out.data = binary.AppendUvarint(out.data, uint64(b[i].first-prev))
			out.data = append(out.data, data[b[i].head:]...)
			out.n += b[i].n
			prev = b[i].last
		}
		return out, out.n > 0, nil
	}
	m.entries = m.entries[:0]
	for _, data := range rows {
		if err := decodePostings(data, func(p *posting) {
			if m.dead[p.id] {
				m.dropped++
				return
			}
			m.entries = append(m.entries, *p)
		}); err != nil {
			return out, false, err
		}
	}
	slices.SortFunc(m.entries, func(a, b posting) int { return cmp.Compare(a.id, b.id) })
	var prev int64
	for i := range m.entries {
		out.data = appendEntry(out.data, m.entries[i].id-prev, &m.entries[i].tf)
		prev = m.entries[i].id
	}
	out.n = len(m.entries)
	return out, out.n > 0, nil
}

// mergedRow is one term's merged postings.
type mergedRow struct {
	n    int
	data []byte
}
