package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/mmap"
)

// The doc-length file. A one-shot search reads every doclens page before
// it can score BM25 (27 pages, 213 kB on the Go standard library; 261
// pages, 2 MB on ten copies of it), and reading them out of SQLite costs
// three copies of each into fresh memory: 4.6-11.7 ms and 91 ms on these
// machines. An index run therefore also writes the pages into a file
// beside the database (DB path + ".dl"), stamped with the index state it
// read them at, which a one-shot reader maps instead: no copy, and only
// the pages of the ids it looks up are read from disk.
//
//	"ctx-doclens-1\n"
//	u32 len(state), state         the [Version] string the pages are of
//	u32 n                         pages 0 … n-1
//	n × u32 length                each page's data length (0: absent)
//	the pages' data, in order     as the doclens table holds it
//
// All integers are little-endian. A file whose state is not the state a
// search reads at is not used (the search reads SQLite, as before), nor
// is one that does not parse. Like the vector file, it is replaced by
// rename, so a reader maps a whole file or none.
const docLensMagic = "ctx-doclens-1\n"

// docLensPath is db's doc-length file.
func (db *DB) docLensPath() string { return db.path + ".dl" }

// WriteDocLens writes db's doc-length file from its committed doclens
// pages, read in one transaction with the index state they belong to,
// replacing any older file by rename (a reader maps either whole).
// Errors: SQLite's, and the file system's (the old file then stays; a
// search does not use a file of another state).
func (db *DB) WriteDocLens(ctx context.Context) error {
	path := db.docLensPath()
	var state string
	var pages [][]byte
	current := false
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		kv, err := metaRows(ctx, tx, `SELECT key, value FROM meta WHERE key IN (?, ?)`, MetaIndexID, MetaContentVersion)
		if err != nil {
			return err
		}
		state = versionOf(kv).String()
		if fileState(path) == state {
			current = true // a run that changed nothing
			return nil
		}
		pages, err = readDocPages(ctx, tx, 0, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the doc-length file: %w", err)
	}
	if current {
		return nil
	}
	if err := atomicfile.Write(path, encodeDocLens(state, pages), 0o600); err != nil {
		return fmt.Errorf("writing the doc-length file: %w", err)
	}
	return nil
}

// fileState returns the state a doc-length file at path is stamped with,
// "" when there is none or it does not start as one.
func fileState(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, len(docLensMagic)+4+256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(docLensMagic)) || len(head) < len(docLensMagic)+4 {
		return ""
	}
	l := int(binary.LittleEndian.Uint32(head[len(docLensMagic):]))
	rest := head[len(docLensMagic)+4:]
	if l > len(rest) {
		return ""
	}
	return string(rest[:l])
}

// encodeDocLens is the doc-length file of pages at state.
func encodeDocLens(state string, pages [][]byte) []byte {
	n := len(docLensMagic) + 4 + len(state) + 4 + 4*len(pages)
	for _, p := range pages {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, docLensMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(state)))
	b = append(b, state...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(pages)))
	for _, p := range pages {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	}
	for _, p := range pages {
		b = append(b, p...)
	}
	return b
}

// decodeDocLens returns the state and pages (views of b) of a doc-length
// file; ok is false when b is not one.
func decodeDocLens(b []byte) (state string, pages [][]byte, ok bool) {
	if !bytes.HasPrefix(b, []byte(docLensMagic)) {
		return "", nil, false
	}
	off := len(docLensMagic)
	u32 := func() (int, bool) {
		if off+4 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b[off:])
		off += 4
		return int(v), true
	}
	sl, ok := u32()
	if !ok || sl > len(b)-off {
		return "", nil, false
	}
	state = string(b[off : off+sl])
	off += sl
	n, ok := u32()
	if !ok || n > (len(b)-off)/4 || n > 1<<28 {
		return "", nil, false
	}
	lens := make([]int, n)
	for i := range lens {
		lens[i], _ = u32()
	}
	pages = make([][]byte, n)
	for i, l := range lens {
		if l > len(b)-off {
			return "", nil, false
		}
		if l > 0 {
			if err := checkDocPage(b[off : off+l]); err != nil {
				return "", nil, false
			}
			pages[i] = b[off : off+l : off+l]
		}
		off += l
	}
	if off != len(b) {
		return "", nil, false
	}
	return state, pages, true
}

// docLensFile is a mapped doc-length file.
type docLensFile struct {
	state string
	pages [][]byte // views of the mapping
	unmap func()
}

// fileTable returns the doc-length table the mapped file holds for state,
// mapping the file on first use (a one-shot reader only); nil when there
// is no file of that state. The mapping lasts until [DB.Close].
func (c *docLenCache) fileTable(path, state string) *docLenTable {
	c.fileOnce.Do(func() {
		b, unmap, err := mmap.Map(path)
		if err != nil {
			return
		}
		st, pages, ok := decodeDocLens(b)
		if !ok {
			unmap()
			return
		}
		c.file = &docLensFile{state: st, pages: pages, unmap: unmap}
	})
	if c.file == nil || c.file.state != state {
		return nil
	}
	return &docLenTable{state: state, pages: c.file.pages}
}

// close unmaps the doc-length file, if one was mapped.
func (c *docLenCache) close() {
	c.fileOnce.Do(func() {})
	if c.file != nil && c.file.unmap != nil {
		c.file.unmap()
		c.file = nil
	}
}
