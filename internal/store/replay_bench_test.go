// BenchmarkReplay measures the index writer alone on a real corpus: it
// reads back an index ctx built (its files, chunks, names, imports,
// secrets, embeddings and, from the postings, each chunk's terms) and
// writes it again into a new database the way a cold `ctx index` does
// (batches of up to 1024 files or 16384 chunks, then CompactPostings).
// Run it on the Go standard library's index with:
//
//	go test -run='^$' -bench=Replay -benchtime=1x -cpuprofile=cpu.out \
//	  ./internal/store -replay=$CTX_CACHE_DIR/src-e773e9a53ba0.db
package store_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"flag"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/store"
)

var replayDB = flag.String("replay", "", "an index database whose content BenchmarkReplay writes again")

// Batch limits of a cold index run (index.writeBatchFiles and
// writeBatchChunks).
const (
	replayBatchFiles  = 1024
	replayBatchChunks = 16384
)

func BenchmarkReplay(b *testing.B) {
	if *replayDB == "" {
		b.Skip("no -replay database")
	}
	batches := loadReplay(b, *replayDB)
	var apply, merge, applyCPU, mergeCPU time.Duration
	for i := 0; b.Loop(); i++ {
		db := openAt(b, filepath.Join(b.TempDir(), "index.db"), nil)
		start, startCPU := time.Now(), cpuTime(b)
		for _, batch := range batches {
			// The indexer's writer applies batches with a context that
			// is never canceled (index.Run).
			if err := db.Apply(context.WithoutCancel(b.Context()), batch); err != nil {
				b.Fatal(err)
			}
		}
		mid, midCPU := time.Now(), cpuTime(b)
		if _, err := db.CompactPostings(b.Context()); err != nil {
			b.Fatal(err)
		}
		apply += mid.Sub(start)
		merge += time.Since(mid)
		applyCPU += midCPU - startCPU
		mergeCPU += cpuTime(b) - midCPU
	}
	n := float64(b.N)
	b.ReportMetric(apply.Seconds()/n, "apply-s/op")
	b.ReportMetric(merge.Seconds()/n, "merge-s/op")
	b.ReportMetric(applyCPU.Seconds()/n, "apply-cpu-s/op")
	b.ReportMetric(mergeCPU.Seconds()/n, "merge-cpu-s/op")
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadReplay reads the database at path into write batches.
func loadReplay(b *testing.B, path string) [][]store.Update {
	b.Helper()
	src, err := sql.Open("sqlite", store.FileURI(path)+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	query := func(q string, f func(*sql.Rows) error) {
		rows, err := src.Query(q)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := f(rows); err != nil {
				b.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
	}

	// Each chunk's terms, per column, from the postings.
	terms := map[int64]*[store.NumColumns]strings.Builder{}
	query(`SELECT p.term, coalesce(p.data, b.data) FROM postings p LEFT JOIN postings_big b ON b.id = p.big ORDER BY p.term, p.seg`, func(rows *sql.Rows) error {
		var t string
		var data []byte
		if err := rows.Scan(&t, &data); err != nil {
			return err
		}
		// Entries as postings.go lays them out.
		var id int64
		for off := 0; off < len(data); {
			d, n := binary.Uvarint(data[off:])
			off += n
			e := data[off]
			off++
			id += int64(d)
			cols := terms[id]
			if cols == nil {
				cols = &[store.NumColumns]strings.Builder{}
				terms[id] = cols
			}
			var tf [store.NumColumns]uint64
			if e < 0xF0 {
				tf[e&3] = uint64(e>>2) + 1
			} else {
				for c := range store.NumColumns {
					if e&(1<<c) != 0 {
						tf[c], n = binary.Uvarint(data[off:])
						off += n
					}
				}
			}
			for c, k := range tf {
				for range k {
					if cols[c].Len() > 0 {
						cols[c].WriteByte(' ')
					}
					cols[c].WriteString(t)
				}
			}
		}
		return nil
	})

	vecs := map[string][]byte{}
	query(`SELECT key, vec FROM embeddings`, func(rows *sql.Rows) error {
		var k, v []byte
		err := rows.Scan(&k, &v)
		vecs[string(k)] = v
		return err
	})
	var updates []store.Update
	byID := map[int64]int{}
	query(`SELECT id, path, language, size, mtime, hash, lines FROM files ORDER BY id`, func(rows *sql.Rows) error {
		var f store.File
		if err := rows.Scan(&f.ID, &f.Path, &f.Language, &f.Size, &f.ModTime, &f.Hash, &f.Lines); err != nil {
			return err
		}
		byID[f.ID] = len(updates)
		updates = append(updates, store.Update{File: f, Vectors: map[string][]byte{}})
		return nil
	})
	query(`SELECT id, file_id, kind, symbol, name, breadcrumb, summary, start_line, end_line, start_byte, end_byte, part, embed_key FROM chunks ORDER BY id`, func(rows *sql.Rows) error {
		var c store.Chunk
		if err := rows.Scan(&c.ID, &c.FileID, &c.Kind, &c.Symbol, &c.Name, &c.Breadcrumb, &c.Summary, &c.StartLine, &c.EndLine, &c.StartByte, &c.EndByte, &c.Part, &c.EmbedKey); err != nil {
			return err
		}
		if cols := terms[c.ID]; cols != nil {
			for i := range cols {
				c.Terms[i] = cols[i].String()
			}
		}
		u := &updates[byID[c.FileID]]
		if v, ok := vecs[string(c.EmbedKey)]; ok {
			u.Vectors[string(c.EmbedKey)] = v
		}
		c.ID, c.FileID = 0, 0
		u.Chunks = append(u.Chunks, c)
		return nil
	})
	query(`SELECT file_id, name, kind, line, symbol, breadcrumb, end_line FROM names ORDER BY rowid`, func(rows *sql.Rows) error {
		var id int64
		var n store.Name
		err := rows.Scan(&id, &n.Name, &n.Kind, &n.Line, &n.Symbol, &n.Breadcrumb, &n.EndLine)
		u := &updates[byID[id]]
		u.Names = append(u.Names, n)
		return err
	})
	query(`SELECT file_id, spec, line FROM imports ORDER BY rowid`, func(rows *sql.Rows) error {
		var id int64
		var im store.Import
		err := rows.Scan(&id, &im.Spec, &im.Line)
		u := &updates[byID[id]]
		u.Imports = append(u.Imports, im)
		return err
	})
	query(`SELECT file_id, rule, line, start_byte, end_byte FROM secrets ORDER BY rowid`, func(rows *sql.Rows) error {
		var id int64
		var s store.Secret
		err := rows.Scan(&id, &s.Rule, &s.Line, &s.StartByte, &s.EndByte)
		u := &updates[byID[id]]
		u.Secrets = append(u.Secrets, s)
		return err
	})
	// Skip records go first, as if those files came back before the
	// others.
	var skips []store.Update
	query(`SELECT path, size, mtime, reason, detail FROM skipped`, func(rows *sql.Rows) error {
		u := store.Update{Delete: true, Skip: &store.Skipped{}}
		err := rows.Scan(&u.File.Path, &u.Skip.Size, &u.Skip.ModTime, &u.Skip.Reason, &u.Skip.Detail)
		skips = append(skips, u)
		return err
	})
	var batches [][]store.Update
	var batch []store.Update
	chunks := 0
	for _, u := range append(skips, updates...) {
		u.File.ID = 0
		batch = append(batch, u)
		chunks += len(u.Chunks)
		if len(batch) >= replayBatchFiles || chunks >= replayBatchChunks {
			batches = append(batches, batch)
			batch, chunks = nil, 0
		}
	}
	if len(batch) > 0 {
		batches = append(batches, batch)
	}
	return batches
}
