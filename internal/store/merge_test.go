package store

import (
	"database/sql"
	"encoding/json"
	"errors"
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

// TestMergeRows checks that the k-way merge of the segments' cursors
// gives the rows a merge of the whole table sorted by SQLite gives, for
// every segment and for a subset, and that a full merge keeps exactly the
// live entries.
func TestMergeRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := mergeFixture(t, 7)
	want := liveEntries(t, db)
	segs, err := segmentList(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 3 {
		t.Fatalf("fixture has %d segments, want several", len(segs))
	}
	merged := func(segs []int64, sorted bool) []termRow {
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
		emit := func(r termRow) error {
			out = append(out, r)
			return nil
		}
		if !sorted {
			rtx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer rtx.Rollback()
			if err := mergeRows(ctx, rtx, segs, &m, emit); err != nil {
				t.Fatal(err)
			}
			return out
		}
		// The reference: SQLite sorts the listed segments' rows.
		list, _ := json.Marshal(segs)
		var cur string
		flush := func() {
			if r, ok, err := m.flush(); err != nil {
				t.Fatal(err)
			} else if ok {
				emit(termRow{cur, r.n, r.data})
			}
		}
		if err := each(ctx, tx, "postings", `SELECT p.term, `+postingsData+` FROM postings p LEFT JOIN postings_big b ON b.id = p.big WHERE p.seg IN (SELECT value FROM json_each(?)) ORDER BY p.term, p.seg`, []any{string(list)}, func(rows *sql.Rows) error {
			var term string
			var data []byte
			if err := rows.Scan(&term, &data); err != nil {
				return err
			}
			if term != cur {
				flush()
				cur = term
			}
			m.rows = append(m.rows, data)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		flush()
		return out
	}
	for _, some := range [][]int64{segs, segs[1:], {segs[0], segs[len(segs)-1]}} {
		got, ref := merged(some, false), merged(some, true)
		if len(got) == 0 {
			t.Fatalf("merge of segments %v emitted nothing", some)
		}
		if diff := cmp.Diff(ref, got, cmp.AllowUnexported(termRow{})); diff != "" {
			t.Errorf("merge of segments %v differs from SQLite's sorted rows (-sorted +merged):\n%s", some, diff)
		}
	}
	if st, err := db.CompactPostings(ctx); err != nil || st.Segments != len(segs) || st.Dropped == 0 {
		t.Fatalf("CompactPostings = %+v, %v; want %d segments merged, dead entries dropped", st, err, len(segs))
	}
	if diff := cmp.Diff(want, liveEntries(t, db), cmp.AllowUnexported(posting{})); diff != "" {
		t.Errorf("live entries changed by the merge (-before +after):\n%s", diff)
	}
}

// TestPostingsQueryPlans checks that every read of the postings table
// looks its rows up by key: a term in a segment, or one segment's range,
// never a scan of the table (a plan that scanned each segment for the
// query's terms gave the same answers, only slower).
func TestPostingsQueryPlans(t *testing.T) {
	t.Parallel()
	db := mergeFixture(t, 2)
	for _, q := range []struct {
		query string
		args  []any
		want  string
	}{
		{postingsQuery, []any{`["a","b"]`}, "SEARCH p USING PRIMARY KEY (seg=? AND term=?)"},
		{termRowsQuery(2), []any{"a", "b"}, "SEARCH p USING PRIMARY KEY (seg=? AND term=?)"},
		{docFreqsQuery, []any{`["a","b"]`}, "SEARCH p USING PRIMARY KEY (seg=? AND term=?)"},
		{segRowsQuery, []any{1}, "SEARCH p USING PRIMARY KEY (seg=?)"},
		{segCountsQuery, []any{1}, "SEARCH p USING PRIMARY KEY (seg=?)"},
	} {
		var plan []string
		if err := each(t.Context(), db.r, "plan", "EXPLAIN QUERY PLAN "+q.query, q.args, func(rows *sql.Rows) error {
			var id, parent, unused int
			var detail string
			err := rows.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(plan, q.want) || slices.ContainsFunc(plan, func(s string) bool { return strings.Contains(s, "TEMP B-TREE FOR ORDER BY") }) {
			t.Errorf("plan of %s:\n  %s\nwant a step %q and no sort", q.query, strings.Join(plan, "\n  "), q.want)
		}
	}
}

// TestCompactCapped: with more segments than one merge reads at once,
// CompactPostings merges the smallest first, a transaction each, and
// still ends with the policy met and every live entry kept.
func TestCompactCapped(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := mergeFixture(t, 7)
	want := liveEntries(t, db)
	before, err := segmentList(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	db.mergeCap = 3
	st, err := db.CompactPostings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, err := segmentList(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	// Every segment was merged at least once, the smallest before the
	// last merge took the rest: more merges than segments.
	if len(after) != 1 || st.Segments <= len(before) || st.Dropped == 0 {
		t.Errorf("CompactPostings over %d segments, at most 3 a merge = %+v, leaving %d segments; want one segment, more than %d merged, dead entries dropped",
			len(before), st, len(after), len(before))
	}
	if diff := cmp.Diff(want, liveEntries(t, db), cmp.AllowUnexported(posting{})); diff != "" {
		t.Errorf("live entries changed by the capped merges (-before +after):\n%s", diff)
	}
}

// TestMergeRowsStops checks the reading half of mergeRows against its
// writing half over several batches of rows: every row arrives once and
// in term order, and a failing emit ends the merge with its error at
// once (no row after it), also when it fails in a later batch while the
// reader waits to send the next one.
func TestMergeRowsStops(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const terms = 5*mergeBatch + 7
	for b := range 2 {
		var ch Chunk
		var words []string
		for i := range terms {
			words = append(words, fmt.Sprintf("w%05d", i))
		}
		ch.Terms[ColBody] = strings.Join(words, " ")
		if err := db.Apply(ctx, []Update{{File: File{Path: fmt.Sprintf("f%d.go", b), Language: "go", Hash: make([]byte, 32)}, Chunks: []Chunk{ch}}}); err != nil {
			t.Fatal(err)
		}
	}
	segs, err := segmentList(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("stop")
	// merge returns the terms emit saw and mergeRows' error; emit fails
	// on its failAt-th call (never when 0).
	merge := func(failAt int) ([]string, error) {
		rtx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer rtx.Rollback()
		var got []string
		err = mergeRows(ctx, rtx, segs, &merger{}, func(r termRow) error {
			got = append(got, r.term)
			if r.n != 2 {
				t.Errorf("term %s: %d entries, want 2 (one per segment)", r.term, r.n)
			}
			if len(got) == failAt {
				return errStop
			}
			return nil
		})
		return got, err
	}
	all, err := merge(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != terms || !slices.IsSorted(all) {
		t.Fatalf("merge emitted %d terms (sorted: %v), want %d in order", len(all), slices.IsSorted(all), terms)
	}
	for _, failAt := range []int{1, mergeBatch + 3, 4 * mergeBatch} {
		got, err := merge(failAt)
		if !errors.Is(err, errStop) {
			t.Errorf("emit failing at row %d: mergeRows = %v, want its error", failAt, err)
		}
		if len(got) != failAt {
			t.Errorf("emit failing at row %d was called %d times", failAt, len(got))
		}
	}
}
