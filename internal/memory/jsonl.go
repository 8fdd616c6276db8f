package memory

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Export writes every memory to w as JSON Lines, by ascending id: one
// object per line with id, kind, text, tags, path, priority, and created
// and updated in RFC 3339 (vectors are left out: they belong to a model
// and are made again on import). It returns how many it wrote. Errors:
// SQLite failures, w's.
func (db *DB) Export(ctx context.Context, w io.Writer) (int, error) {
	recs, err := db.records(ctx, withText)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, r := range recs {
		if err := enc.Encode(r.Memory); err != nil {
			return i, fmt.Errorf("exporting memories: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("exporting memories: %w", err)
	}
	return len(recs), nil
}

// ImportReport says what an import did.
type ImportReport struct {
	// Added counts memories stored.
	Added int `json:"added"`
	// Skipped counts lines not stored: duplicates of stored memories (or of
	// earlier lines) and bad lines.
	Skipped int `json:"skipped"`
	// Errors names each bad line: "line N: why".
	Errors []string `json:"errors"`
	// Embedded counts memories embedded after the import.
	Embedded int `json:"embedded,omitempty"`
}

// MaxImportLine is the longest line [DB.Import] reads: 1 MiB, room for a
// [MaxTextBytes] text with every byte escaped. A longer line is skipped
// and reported.
const MaxImportLine = 1 << 20

// Import reads memories from r as written by [DB.Export] (id is ignored:
// imported memories get new ids; missing times are the time of import)
// and stores them in one transaction, then embeds them with emb. A line
// that does not parse or fails [Normalize] is skipped and reported with
// its number; a duplicate (same kind, text and path) is skipped; blank
// lines are ignored. Neither aborts the import. Errors: r's, SQLite
// failures (nothing is stored then). An embedding failure is not an
// error: the memories are stored and embedded by a later search.
func (db *DB) Import(ctx context.Context, r io.Reader, emb *Embedder) (ImportReport, error) {
	rep := ImportReport{Errors: []string{}}
	if err := db.writable("importing memories"); err != nil {
		return rep, err
	}
	tx, err := db.conn.BeginTx(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("importing memories: %v", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO memories (kind, text, tags, path, priority, created, updated, key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING id`)
	if err != nil {
		return rep, fmt.Errorf("importing memories: %v", err)
	}
	defer stmt.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	now := time.Now().UnixMilli()
	bad := func(n int, format string, args ...any) {
		rep.Skipped++
		rep.Errors = append(rep.Errors, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		line, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, fmt.Errorf("importing memories: reading line %d: %w", n, err)
		}
		eof := errors.Is(err, io.EOF)
		switch {
		case tooLong:
			bad(n, "longer than %d bytes", MaxImportLine)
		case len(bytes.TrimSpace(line)) == 0:
		default:
			var e Memory
			dec := json.NewDecoder(bytes.NewReader(line))
			if err := dec.Decode(&e); err != nil {
				bad(n, "%v", err)
				break
			}
			in, err := Normalize(Input{Text: e.Text, Kind: e.Kind, Tags: e.Tags, Path: e.Path, Priority: e.Priority})
			if err != nil {
				bad(n, "%v", err)
				break
			}
			created, updated := now, now
			if !e.Created.IsZero() {
				created = e.Created.UnixMilli()
			}
			if !e.Updated.IsZero() {
				updated = e.Updated.UnixMilli()
			}
			var id int64
			err = stmt.QueryRowContext(ctx, in.Kind, in.Text, strings.Join(in.Tags, ","), in.Path, in.Priority, created, updated, dupKey(in.Kind, in.Path, in.Text)).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				rep.Skipped++
				break
			}
			if err != nil {
				return rep, fmt.Errorf("importing memories: line %d: %v", n, err)
			}
			m := Memory{Text: in.Text, Tags: in.Tags, Path: in.Path}
			if err := writeTerms(ctx, tx, id, &m); err != nil {
				return rep, fmt.Errorf("importing memories: line %d: %w", n, err)
			}
			rep.Added++
		}
		if eof {
			break
		}
	}
	if err := tx.Commit(); err != nil {
		return rep, fmt.Errorf("importing memories: %v", err)
	}
	if rep.Added > 0 {
		// The new memories have no vector yet: embed them now, so the
		// first search does not pay for it.
		rep.Embedded, _ = db.Refresh(ctx, emb)
	}
	return rep, nil
}

// readLine reads one line without its end ("\n" or "\r\n"). A line over
// [MaxImportLine] bytes is read to its end and dropped (tooLong). err is
// io.EOF after the last line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxImportLine+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		return buf, tooLong, err
	}
}
