package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
)

// Doc lengths. BM25 needs each candidate chunk's token count D over all
// columns (chunks.ntok); the postings do not repeat it per entry (6.2 M
// entries on the Go standard library, 1.6 bytes each) but the doclens
// table holds it once per chunk id, in pages of docPageIDs consecutive
// ids:
//
//	doclens(page, data): page = id >> docPageBits
//	data = byte(w: 1, 2 or 4)
//	       w bytes little-endian for each id from page·docPageIDs up to
//	       the page's last written id: the chunk's tokens (0: no
//	       postings, for a chunk with no terms or an id never written)
//
// [DB.Apply] writes the counts of its chunks into their pages in its
// transaction (reading and rewriting the last page, which an earlier
// batch may have begun); a full [DB.CompactPostings] drops pages without a
// live chunk. On the Go standard library: 27 pages, 213 kB (w = 2: no
// chunk there has more than 1,180 tokens).
//
// Within one database, chunk ids are never reused and a chunk's count
// never changes, so a page only ever gains ids at its end or a wider w
// with the same values. A long-lived process keeps the pages it read
// ([docLenCache]) for the next search of the same index state (its
// [Version]: a database replaced with [DB.ReplaceWith] and caught up again
// may reuse ids for other chunks); a search that meets an id past them
// reads the pages again, in its own transaction.
const (
	docPageBits = 12
	docPageIDs  = 1 << docPageBits
)

// docLenTable is a read copy of doclens, indexed by page (nil: absent).
// It is never modified once published; a reload makes a new one.
type docLenTable struct {
	state string // the index state it was read for ([Version.String])
	pages [][]byte
}

// get returns chunk id's token count, or false when the table does not
// hold it (past its pages, or 0).
func (t *docLenTable) get(id int64) (uint32, bool) {
	p := id >> docPageBits
	if id < 0 || p >= int64(len(t.pages)) {
		return 0, false
	}
	d := t.pages[p]
	if len(d) == 0 {
		return 0, false
	}
	w := int(d[0])
	off := 1 + int(id&(docPageIDs-1))*w
	if off+w > len(d) {
		return 0, false
	}
	var v uint32
	switch w {
	case 1:
		v = uint32(d[off])
	case 2:
		v = uint32(binary.LittleEndian.Uint16(d[off:]))
	case 4:
		v = binary.LittleEndian.Uint32(d[off:])
	}
	return v, v > 0
}

// docLenCache holds the doc-length pages a DB read last, for the next
// search to reuse.
type docLenCache struct {
	// loading is held while pages are read, so searches running at once
	// (a find's channels) read them once, not once each.
	loading sync.Mutex
	mu      sync.Mutex // guards t
	t       *docLenTable
	// filePath is the doc-length file a one-shot reader maps before it
	// reads the pages out of SQLite (doclensfile.go); "" for others.
	filePath string
	fileOnce sync.Once
	file     *docLensFile // set by fileOnce; nil: none usable
}

// table returns the cached pages when they were read for state (an empty
// table otherwise).
func (c *docLenCache) table(state string) *docLenTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t == nil || c.t.state != state {
		return &docLenTable{state: state}
	}
	return c.t
}

// load returns a table holding chunk id's count: the cached one when
// another search loaded it meanwhile, else one read through conn with the
// pages from id's on (every page when t holds none), which keeps t's pages
// before those, and is cached.
func (c *docLenCache) load(ctx context.Context, conn querier, t *docLenTable, id int64) (*docLenTable, error) {
	c.loading.Lock()
	defer c.loading.Unlock()
	if ct := c.table(t.state); ct != t {
		if _, ok := ct.get(id); ok {
			return ct, nil
		}
	}
	if len(t.pages) == 0 && c.filePath != "" {
		// The file of this state holds every page this search can need.
		if ft := c.fileTable(c.filePath, t.state); ft != nil {
			c.mu.Lock()
			c.t = ft
			c.mu.Unlock()
			if _, ok := ft.get(id); ok {
				return ft, nil
			}
			t = ft
		}
	}
	from := id >> docPageBits
	if len(t.pages) == 0 {
		from = 0
	}
	keep := min(int64(len(t.pages)), from)
	pages, err := readDocPages(ctx, conn, from, t.pages[:keep:keep])
	if err != nil {
		return nil, err
	}
	nt := &docLenTable{state: t.state, pages: pages}
	c.mu.Lock()
	c.t = nt
	c.mu.Unlock()
	return nt, nil
}

// readDocPages appends to pages, which holds the pages before from, the
// doclens pages from from on, read through conn and copied, indexed by
// page (nil: absent).
func readDocPages(ctx context.Context, conn querier, from int64, pages [][]byte) ([][]byte, error) {
	err := each(ctx, conn, "document lengths", `SELECT page, data FROM doclens WHERE page >= ? ORDER BY page`, []any{from}, func(rows *sql.Rows) error {
		var p int64
		var data sql.RawBytes // the driver's copy, until the next row
		if err := rows.Scan(&p, &data); err != nil {
			return err
		}
		if p < from || p > 1<<28 {
			return errCorruptDocLens
		}
		for int64(len(pages)) <= p {
			pages = append(pages, nil)
		}
		pages[p] = bytes.Clone(data)
		return nil
	})
	return pages, err
}

var errCorruptDocLens = fmt.Errorf("%w: corrupt document lengths; run `ctx index --rebuild`", ErrCorrupt)

// docLenReader looks up chunks' token counts for one search, reading
// pages past its table once when an id is not in it.
type docLenReader struct {
	cache  *docLenCache
	conn   querier
	t      *docLenTable
	reread bool // pages were read during this search
}

// get returns id's token count. Errors: SQLite failures, and
// errCorruptDocLens when the committed pages do not hold it either.
func (r *docLenReader) get(ctx context.Context, id int64) (uint32, error) {
	if v, ok := r.t.get(id); ok {
		return v, nil
	}
	if r.reread {
		// Read at this search's commit already: the id has no count.
		return 0, errCorruptDocLens
	}
	t, err := r.cache.load(ctx, r.conn, r.t, id)
	if err != nil {
		return 0, err
	}
	r.t, r.reread = t, true
	if v, ok := r.t.get(id); ok {
		return v, nil
	}
	return 0, errCorruptDocLens
}

// writeDocLens stores the token counts of the chunks first, first+1, …
// (lens[i] for first+i) in tx.
func writeDocLens(ctx context.Context, tx *sql.Tx, first int64, lens []uint32) error {
	for i := 0; i < len(lens); {
		id := first + int64(i)
		page := id >> docPageBits
		at := int(id & (docPageIDs - 1))
		k := min(len(lens)-i, docPageIDs-at)
		var old []byte
		switch err := tx.QueryRowContext(ctx, `SELECT data FROM doclens WHERE page = ?`, page).Scan(&old); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		}
		vals, err := decodeDocPage(old)
		if err != nil {
			return err
		}
		if len(vals) < at+k {
			vals = append(vals, make([]uint32, at+k-len(vals))...)
		}
		copy(vals[at:], lens[i:i+k])
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO doclens(page, data) VALUES(?, ?)`, page, encodeDocPage(vals)); err != nil {
			return err
		}
		i += k
	}
	return nil
}

// decodeDocPage returns the counts of a doclens page's data.
func decodeDocPage(data []byte) ([]uint32, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if err := checkDocPage(data); err != nil {
		return nil, err
	}
	w := int(data[0])
	t := docLenTable{pages: [][]byte{data}}
	out := make([]uint32, (len(data)-1)/w)
	for i := range out {
		out[i], _ = t.get(int64(i))
	}
	return out, nil
}

// checkDocPage returns errCorruptDocLens unless data, a non-empty doclens
// page, has a known width and whole counts, at most docPageIDs of them.
func checkDocPage(data []byte) error {
	w := int(data[0])
	if w != 1 && w != 2 && w != 4 || (len(data)-1)%w != 0 || (len(data)-1)/w > docPageIDs {
		return errCorruptDocLens
	}
	return nil
}

// encodeDocPage returns a doclens page's data for counts vals, in the
// narrowest width that holds the largest.
func encodeDocPage(vals []uint32) []byte {
	w := 1
	for _, v := range vals {
		switch {
		case v > 0xffff:
			w = 4
		case v > 0xff && w < 2:
			w = 2
		}
	}
	out := make([]byte, 1, 1+w*len(vals))
	out[0] = byte(w)
	for _, v := range vals {
		switch w {
		case 1:
			out = append(out, byte(v))
		case 2:
			out = binary.LittleEndian.AppendUint16(out, uint16(v))
		default:
			out = binary.LittleEndian.AppendUint32(out, v)
		}
	}
	return out
}
