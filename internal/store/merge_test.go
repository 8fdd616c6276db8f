package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
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

// mergeOutput returns what a merge of every segment emits, through
// mergeSegments (with its ok) or mergeByTerm.
func mergeOutput(t *testing.T, db *DB, bySegment bool) ([]termRow, bool) {
	t.Helper()
	ctx := t.Context()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	dead, err := deadChunks(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[int64]int64{}
	var segs []int64
	if err := each(ctx, tx, "segments", `SELECT seg, postings FROM segments`, nil, func(rows *sql.Rows) error {
		var s, n int64
		err := rows.Scan(&s, &n)
		segs = append(segs, s)
		entries[s] = n
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var out []termRow
	emit := func(r termRow) error {
		out = append(out, r)
		return nil
	}
	m := merger{dead: dead}
	if !bySegment {
		if err := mergeByTerm(ctx, tx, segs, &m, emit); err != nil {
			t.Fatal(err)
		}
		return out, true
	}
	ok, err := mergeSegments(ctx, tx, segs, entries, &m, emit)
	if err != nil {
		t.Fatal(err)
	}
	return out, ok
}

// postingsRows returns the postings table in term order.
func postingsRows(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := collect(t.Context(), db.r, "postings", `SELECT term, seg, n, hex(data) FROM postings ORDER BY term, seg`, nil, func(rows *sql.Rows, s *string) error {
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

func TestMergeSegments(t *testing.T) {
	t.Parallel()
	exec := func(t *testing.T, db *DB, q string) {
		t.Helper()
		if _, err := db.w.ExecContext(context.WithoutCancel(t.Context()), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tc := range []struct {
		name string
		// disorder rewrites the postings table of a fixture.
		disorder func(t *testing.T, db *DB)
		wantOK   bool
	}{
		{name: "as written", disorder: func(*testing.T, *DB) {}, wantOK: true},
		{
			// A segment's rows in descending term order.
			name: "terms descending",
			disorder: func(t *testing.T, db *DB) {
				exec(t, db, `CREATE TEMP TABLE moved AS SELECT term, seg, n, data FROM postings WHERE seg = 2 ORDER BY term DESC`)
				exec(t, db, `DELETE FROM postings WHERE seg = 2`)
				exec(t, db, `INSERT INTO postings(term, seg, n, data) SELECT term, seg, n, data FROM temp.moved ORDER BY term DESC`)
			},
		},
		{
			// The first segment's rows after the last one's.
			name: "segments out of order",
			disorder: func(t *testing.T, db *DB) {
				exec(t, db, `CREATE TEMP TABLE moved AS SELECT term, seg, n, data FROM postings WHERE seg = 1 ORDER BY term`)
				exec(t, db, `DELETE FROM postings WHERE seg = 1`)
				exec(t, db, `INSERT INTO postings(term, seg, n, data) SELECT term, seg, n, data FROM temp.moved ORDER BY term`)
			},
		},
		{
			// One row of the first segment after the last one's.
			name: "row moved",
			disorder: func(t *testing.T, db *DB) {
				exec(t, db, `CREATE TEMP TABLE moved AS SELECT term, seg, n, data FROM postings WHERE id = (SELECT min(id) + 3 FROM postings)`)
				exec(t, db, `DELETE FROM postings WHERE id = (SELECT min(id) + 3 FROM postings)`)
				exec(t, db, `INSERT INTO postings(term, seg, n, data) SELECT term, seg, n, data FROM temp.moved`)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := mergeFixture(t, 7)
			db := mergeFixture(t, 7)
			tc.disorder(t, db)

			byTerm, _ := mergeOutput(t, db, false)
			bySeg, ok := mergeOutput(t, db, true)
			if ok != tc.wantOK {
				t.Errorf("mergeSegments ok = %v, want %v", ok, tc.wantOK)
			}
			if ok {
				if diff := cmp.Diff(byTerm, bySeg, cmp.AllowUnexported(termRow{})); diff != "" {
					t.Errorf("mergeSegments and mergeByTerm disagree (-byTerm +bySegment):\n%s", diff)
				}
			}

			// Whichever way it reads them, a full merge writes the
			// same rows.
			for _, d := range []*DB{want, db} {
				if st, err := d.CompactPostings(t.Context()); err != nil || st.Segments != 7 || st.Dropped == 0 {
					t.Fatalf("CompactPostings = %+v, %v; want 7 segments merged, dead entries dropped", st, err)
				}
			}
			if diff := cmp.Diff(postingsRows(t, want), postingsRows(t, db)); diff != "" {
				t.Errorf("merged postings differ (-in order +%s):\n%s", tc.name, diff)
			}
		})
	}
}
