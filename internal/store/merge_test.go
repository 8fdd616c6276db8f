package store

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mergeFixture writes batches of generated files, replacing some of them
// on the way so merges have dead entries to drop, and leaves batches+1
// segments unmerged.
func mergeFixture(t *testing.T, batches int) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rng := rand.New(rand.NewPCG(7, 9))
	for b := range batches {
		var updates []Update
		for f := range 30 {
			// Every third batch rewrites some files of the first.
			path := fmt.Sprintf("b%d/f%d.go", b, f)
			if b%3 == 2 && f < 10 {
				path = fmt.Sprintf("b0/f%d.go", f)
			}
			u := Update{File: File{Path: path, Language: "go", Hash: make([]byte, 32)}}
			for c := range 1 + rng.IntN(6) {
				var ch Chunk
				ch.Name = fmt.Sprintf("F%d", c)
				for col := range NumColumns {
					var terms []string
					for range rng.IntN(12) {
						terms = append(terms, fmt.Sprintf("t%d", rng.IntN(200)))
					}
					ch.Terms[col] = strings.Join(terms, " ")
				}
				u.Chunks = append(u.Chunks, ch)
			}
			updates = append(updates, u)
		}
		if err := db.Apply(t.Context(), updates); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// postingsRows returns the postings table in term order, each row's
// data in hex (long data read from postings_big).
func postingsRows(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := collect(t.Context(), db.r, "postings", `SELECT p.term, p.seg, p.n, hex(`+postingsData+`) FROM postings p LEFT JOIN postings_big b ON b.id = p.big ORDER BY p.term, p.seg`, nil, func(rows *sql.Rows, s *string) error {
		var term, data string
		var seg, n int64
		err := rows.Scan(&term, &seg, &n, &data)
		*s = fmt.Sprintf("%s %d %d %s", term, seg, n, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// liveEntries decodes the whole postings table: each term's live entries
// by ascending id, with their chunk's token count from doclens.
func liveEntries(t *testing.T, db *DB) map[string][]posting {
	t.Helper()
	ctx := t.Context()
	dead, err := deadChunks(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][][]byte{}
	if err := each(ctx, db.r, "postings", `SELECT p.term, `+postingsData+` FROM postings p LEFT JOIN postings_big b ON b.id = p.big ORDER BY p.term, p.seg`, nil, func(r *sql.Rows) error {
		var term string
		var data []byte
		err := r.Scan(&term, &data)
		rows[term] = append(rows[term], data)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	lens := docLenReader{cache: &docLenCache{}, conn: db.r, t: &docLenTable{}}
	out := map[string][]posting{}
	for term, rs := range rows {
		var es []posting
		if err := livePostings(rs, dead, allColumns, func(p *posting) { es = append(es, *p) }); err != nil {
			t.Fatalf("term %q: %v", term, err)
		}
		for i := range es {
			if es[i].dl, err = lens.get(ctx, es[i].id); err != nil {
				t.Fatalf("term %q, chunk %d: %v", term, es[i].id, err)
			}
		}
		slices.SortFunc(es, func(a, b posting) int { return cmpInt(a.id, b.id) })
		if len(es) > 0 {
			out[term] = es
		}
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestMergeRows checks that a merge of every segment reads the same rows
// whether it lists them or reads the whole table, and that a full merge
// keeps exactly the live entries.
func TestMergeRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := mergeFixture(t, 7)
	want := liveEntries(t, db)
	segs, err := collect(ctx, db.r, "segments", `SELECT seg FROM segments ORDER BY seg`, nil, func(rows *sql.Rows, s *int64) error { return rows.Scan(s) })
	if err != nil {
		t.Fatal(err)
	}
	merged := func(all bool) []termRow {
		tx, err := db.w.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		dead, err := deadChunks(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		var out []termRow
		m := merger{dead: dead}
		if err := mergeRows(ctx, tx, segs, all, &m, func(r termRow) error {
			out = append(out, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	listed, whole := merged(false), merged(true)
	if len(listed) == 0 {
		t.Fatal("merge emitted nothing")
	}
	if diff := cmp.Diff(listed, whole, cmp.AllowUnexported(termRow{})); diff != "" {
		t.Errorf("merge of the listed segments and of the whole table differ (-listed +whole):\n%s", diff)
	}
	if st, err := db.CompactPostings(ctx); err != nil || st.Segments != len(segs) || st.Dropped == 0 {
		t.Fatalf("CompactPostings = %+v, %v; want %d segments merged, dead entries dropped", st, err, len(segs))
	}
	if diff := cmp.Diff(want, liveEntries(t, db), cmp.AllowUnexported(posting{})); diff != "" {
		t.Errorf("live entries changed by the merge (-before +after):\n%s", diff)
	}
}
