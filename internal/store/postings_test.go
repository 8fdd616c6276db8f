package store_test

import (
	"database/sql"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/store"
)

// fts5 is a reference FTS5 table holding the same chunks as a store,
// under the same ids, to check ctx's BM25 against SQLite's bm25().
type fts5 struct {
	t  testing.TB
	db *sql.DB
}

func newFTS5(t testing.TB) *fts5 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "fts5.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(name, path, doc, body, tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`); err != nil {
		t.Fatal(err)
	}
	return &fts5{t, db}
}

// applyBoth applies updates to db and mirrors them into the FTS5 table.
func (f *fts5) applyBoth(db *store.DB, updates ...store.Update) {
	f.t.Helper()
	for _, u := range updates {
		rows, err := db.FileChunks(f.t.Context(), u.File.Path)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, r := range rows {
			if _, err := f.db.Exec(`DELETE FROM f WHERE rowid = ?`, r.ID); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	apply(f.t, db, updates...)
	for _, u := range updates {
		if u.Delete {
			continue
		}
		rows, err := db.FileChunks(f.t.Context(), u.File.Path)
		if err != nil {
			f.t.Fatal(err)
		}
		if len(rows) != len(u.Chunks) {
			f.t.Fatalf("%s: %d chunks stored, %d written", u.File.Path, len(rows), len(u.Chunks))
		}
		// FileChunks orders by start line; match the written chunks so.
		chunks := slices.Clone(u.Chunks)
		slices.SortStableFunc(chunks, func(a, b store.Chunk) int { return a.StartLine - b.StartLine })
		for i, r := range rows {
			c := chunks[i].Terms
			if _, err := f.db.Exec(`INSERT INTO f(rowid, name, path, doc, body) VALUES(?,?,?,?,?)`, r.ID, c[0], c[1], c[2], c[3]); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

// search runs q through FTS5 (same terms, columns and groups).
func (f *fts5) search(q store.BM25Query) []store.Hit {
	f.t.Helper()
	quote := func(i int) string { return `"` + q.Terms[i] + `"` }
	var parts []string
	if q.Groups != nil {
		for _, g := range q.Groups {
			var and []string
			for _, i := range g {
				and = append(and, quote(i))
			}
			parts = append(parts, "("+strings.Join(and, " AND ")+")")
		}
	} else {
		for i := range q.Terms {
			parts = append(parts, quote(i))
		}
	}
	match := strings.Join(parts, " OR ")
	if q.Columns != 0 {
		var cols []string
		for c, name := range []string{"name", "path", "doc", "body"} {
			if q.Columns&(1<<c) != 0 {
				cols = append(cols, name)
			}
		}
		match = "{" + strings.Join(cols, " ") + "} : (" + match + ")"
	}
	w := q.Weights
	rows, err := f.db.Query(fmt.Sprintf(`SELECT rowid, -bm25(f, %g, %g, %g, %g) FROM f WHERE f MATCH ? ORDER BY bm25(f, %g, %g, %g, %g), rowid LIMIT ?`,
		w[0], w[1], w[2], w[3], w[0], w[1], w[2], w[3]), match, q.Limit)
	if err != nil {
		f.t.Fatalf("FTS5 %q: %v", match, err)
	}
	defer rows.Close()
	var out []store.Hit
	for rows.Next() {
		var h store.Hit
		if err := rows.Scan(&h.ChunkID, &h.Score); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// goChunks splits real Go files into chunks of 25 lines whose columns are
// analyzed as the indexer does (name: the first identifier of the chunk;
// path; doc: its comment lines; body: everything).
func goChunks(t testing.TB, dir string, files int) []store.Update {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
	if err != nil || len(paths) == 0 {
		t.Skipf("no Go sources in GOROOT/src/%s: %v", dir, err)
	}
	slices.Sort(paths)
	var out []store.Update
	for _, p := range paths[:min(files, len(paths))] {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel := dir + "/" + filepath.Base(p)
		u := file(rel, "go")
		lines := strings.Split(string(src), "\n")
		for start := 0; start < len(lines); start += 25 {
			part := lines[start:min(start+25, len(lines))]
			var doc []string
			for _, l := range part {
				if s := strings.TrimSpace(l); strings.HasPrefix(s, "//") {
					doc = append(doc, s)
				}
			}
			body := strings.Join(part, "\n")
			name := ""
			analyze.Words(body, func(w string, _ int) {
				if name == "" && len(w) > 3 {
					name = w
				}
			})
			c := chunk(name, start*40, "")
			c.StartLine, c.EndLine = start+1, start+len(part)
			c.Terms = [store.NumColumns]string{
				strings.Join(analyze.TermList(name), " "),
				strings.Join(analyze.TermList(rel), " "),
				strings.Join(analyze.TermList(strings.Join(doc, "\n")), " "),
				strings.Join(analyze.TermList(body), " "),
			}
			u.Chunks = append(u.Chunks, c)
		}
		out = append(out, u)
	}
	return out
}

// TestBM25MatchesFTS5 checks ctx's BM25 against SQLite FTS5's bm25() over
// real Go code: the same hits in the same order with the same scores, for
// plain, column-restricted and grouped (AND) queries with column weights
// and a file filter, after several segments, replaced and deleted files,
// and compaction.
func TestBM25MatchesFTS5(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ref := newFTS5(t)
	updates := goChunks(t, "strings", 40)
	// Several batches make several segments.
	for i := 0; i < len(updates); i += 7 {
		ref.applyBoth(db, updates[i:min(i+7, len(updates))]...)
	}
	queries := []store.BM25Query{
		{Terms: []string{"builder", "grow"}},
		{Terms: []string{"index", "byte", "rune", "utf8", "replacer", "unknownterm"}},
		{Terms: []string{"strings", "reader"}, Columns: 1 << store.ColPath},
		{Terms: []string{"returns", "string"}, Columns: 1<<store.ColDoc | 1<<store.ColName},
		{Terms: []string{"fold", "equal", "lower", "upper"}, Groups: [][]int{{0, 1}, {2, 3}}},
		{Terms: []string{"func", "return", "if"}},
	}
	check := func(stage string) {
		t.Helper()
		for _, q := range queries {
			for _, w := range []store.BM25Weights{weights, {1, 0, 0, 1}, {1, 1, 1, 1}} {
				for _, limit := range []int{5, 200} {
					q.Weights, q.Limit = w, limit
					got, err := db.SearchBM25(t.Context(), q)
					if err != nil {
						t.Fatal(err)
					}
					want := ref.search(q)
					if len(want) == 0 {
						t.Fatalf("%s: %v matched nothing in FTS5", stage, q.Terms)
					}
					approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) })
					if diff := cmp.Diff(want, got, approx); diff != "" {
						t.Errorf("%s: %v weights %v columns %b groups %v limit %d (-FTS5 +ctx):\n%s", stage, q.Terms, w, q.Columns, q.Groups, limit, diff)
					}
				}
			}
		}
	}
	check("segments")

	// Replace some files and delete others: their postings are dead until
	// compaction, and must not count.
	replaced := goChunks(t, "bytes", 6)
	for i := range replaced {
		replaced[i].File.Path = updates[i].File.Path
	}
	ref.applyBoth(db, replaced...)
	ref.applyBoth(db, deletion(updates[10].File.Path), deletion(updates[11].File.Path))
	check("dead")

	// A file filter restricts the hits, not the statistics.
	files, err := db.AllFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, f := range files {
		if f.Path == updates[12].File.Path || f.Path == updates[13].File.Path {
			ids = append(ids, f.ID)
		}
	}
	q := store.BM25Query{Terms: []string{"func", "string"}, Weights: weights, Limit: 1000}
	all, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	q.FileIDs = ids
	some, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(some) == 0 || len(some) >= len(all) {
		t.Errorf("file filter kept %d of %d hits", len(some), len(all))
	}
	score := map[int64]float64{}
	for _, h := range all {
		score[h.ChunkID] = h.Score
	}
	for _, h := range some {
		if s, ok := score[h.ChunkID]; !ok || s != h.Score {
			t.Errorf("filtered hit %d score %v, unfiltered %v (%v)", h.ChunkID, h.Score, s, ok)
		}
	}

	st, err := db.CompactPostings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Segments < 2 || st.Dropped == 0 {
		t.Errorf("CompactPostings = %+v, want a merge that dropped dead postings", st)
	}
	check("compacted")
}

// TestCompactPartial checks the small-segment merge: once there are more
// than 8 segments, all but the largest merge into one, and searches
// answer exactly as before.
func TestCompactPartial(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	// One large segment, then 9 of one small file each: together under a
	// quarter of the large one (a full merge otherwise).
	updates := goChunks(t, "go/types", 107)
	big, small := updates[:90], updates[90:99]
	apply(t, db, big...)
	for _, u := range small {
		if len(u.Chunks) > 4 {
			u.Chunks = u.Chunks[:4]
		}
		apply(t, db, u)
	}
	q := store.BM25Query{Terms: []string{"type", "check", "scope", "object", "unified"}, Weights: weights, Limit: 300}
	before, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.CompactPostings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Segments != len(small) || st.Dropped != 0 {
		t.Errorf("CompactPostings = %+v, want the %d small segments merged", st, len(small))
	}
	after, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("search changed by compaction (-before +after):\n%s", diff)
	}
	if st, err := db.CompactPostings(t.Context()); err != nil || st.Segments != 0 {
		t.Errorf("second CompactPostings = %+v, %v; want nothing to do", st, err)
	}
}

// TestChunkIDsNeverReused checks that a chunk written after the newest
// one was deleted gets a new id, so the deleted chunk's postings (dead
// until compaction) can never be taken for it.
func TestChunkIDsNeverReused(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	apply(t, db, file("a.go", "go", chunk("A", 0, "alpha")), file("b.go", "go", chunk("B", 0, "beta")))
	rows, err := db.FileChunks(t.Context(), "b.go")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, db, deletion("b.go"))
	apply(t, db, file("c.go", "go", chunk("C", 0, "gamma")))
	got, err := db.FileChunks(t.Context(), "c.go")
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID <= rows[0].ID {
		t.Errorf("new chunk id %d, deleted chunk id %d: reused", got[0].ID, rows[0].ID)
	}
	if names := search(t, db, "beta gamma", weights); !slices.Equal(names, []string{"C"}) {
		t.Errorf("search beta gamma = %q, want [C]", names)
	}
}

// TestCorruptPostings checks that a damaged postings row is an error that
// names the fix, not a silent empty result.
func TestCorruptPostings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.db")
	db := openAt(t, path, nil)
	apply(t, db, file("a.go", "go", chunk("A", 0, "alpha")))
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE postings SET data = x'ff' WHERE term = 'alpha'`); err != nil {
		t.Fatal(err)
	}
	_, err = db.SearchBM25(t.Context(), store.BM25Query{Terms: []string{"alpha"}, Weights: weights, Limit: 10})
	if err == nil || !strings.Contains(err.Error(), "ctx index --rebuild") {
		t.Errorf("SearchBM25 over a corrupt row = %v, want an error naming ctx index --rebuild", err)
	}
}

// TestCompactLight checks that the light policy never merges everything:
// dead entries past the ratio wait for a full CompactPostings, and the
// search skips them meanwhile.
func TestCompactLight(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	updates := goChunks(t, "go/types", 40)
	apply(t, db, updates...)
	// Re-applying a fifth of the files leaves their old chunks dead: more
	// than deadMergeRatio of the live ones.
	apply(t, db, updates[:8]...)
	q := store.BM25Query{Terms: []string{"type", "check", "scope", "object"}, Weights: weights, Limit: 300}
	before, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := db.CompactPostingsLight(t.Context()); err != nil || st.Segments != 0 {
		t.Errorf("CompactPostingsLight = %+v, %v; want nothing merged (2 segments)", st, err)
	}
	st, err := db.CompactPostings(t.Context())
	if err != nil || st.Segments != 2 || st.Dropped == 0 {
		t.Errorf("CompactPostings = %+v, %v; want a full merge dropping the dead entries", st, err)
	}
	after, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("search changed by compaction (-before +after):\n%s", diff)
	}
}

// TestVocabulary: the vocabulary lists every term with the document
// frequency DocFreqs gives, before and after deletions leave dead
// postings, and leaves out terms only deleted chunks held.
func TestVocabulary(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	updates := goChunks(t, "container/list", 3)
	apply(t, db, updates...)
	check := func(when string) map[string]int {
		t.Helper()
		vocab := map[string]int{}
		prev := ""
		if err := db.Vocabulary(t.Context(), func(term string, df int) error {
			if term <= prev {
				t.Fatalf("%s: %q after %q: not in term order", when, term, prev)
			}
			prev, vocab[term] = term, df
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(vocab) == 0 {
			t.Fatalf("%s: empty vocabulary", when)
		}
		terms := slices.Collect(maps.Keys(vocab))
		want, err := db.DocFreqs(t.Context(), terms)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, vocab); diff != "" {
			t.Errorf("%s: Vocabulary differs from DocFreqs (-DocFreqs +Vocabulary):\n%s", when, diff)
		}
		return vocab
	}
	before := check("after writing")
	apply(t, db, store.Update{File: store.File{Path: updates[0].File.Path}, Delete: true})
	after := check("after a deletion")
	if len(after) >= len(before) {
		t.Errorf("vocabulary has %d terms after a deletion, %d before: want the deleted file's own terms gone", len(after), len(before))
	}
}
