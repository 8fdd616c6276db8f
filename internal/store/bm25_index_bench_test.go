// BM25 search over a real index (opt-in): the 50 queries of
// scripts/goroot-queries.txt against an index database, such as the Go
// standard library's (ctx index $(go env GOROOT)/src, 106k chunks).
//
//	CTX_BENCH_BM25_DB=/path/to/index.db \
//	  go test -run='^$' -bench=BenchmarkSearchBM25Index -benchmem -count=10 ./internal/store > new.txt
//	benchstat old.txt new.txt
//
// TestSearchBM25IndexDump writes every hit of those queries (three column
// masks, with and without groups, with and without a file filter) with
// its score's bits to $CTX_BM25_DUMP_OUT, or compares them with a dump in
// $CTX_BM25_DUMP_WANT, so two builds' scores can be checked bit for bit:
//
//	CTX_BENCH_BM25_DB=... CTX_BM25_DUMP_OUT=old.txt go test -run=TestSearchBM25IndexDump ./internal/store   (old build)
//	CTX_BENCH_BM25_DB=... CTX_BM25_DUMP_WANT=old.txt go test -run=TestSearchBM25IndexDump ./internal/store  (new build)
//
// Unset CTX_BENCH_BM25_DB means skip.
package store

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// indexQuery is one benchmark query's terms as search would send them:
// the query's terms without stopwords and without terms in more than a
// quarter of the chunks, at most 10.
type indexQuery struct {
	text  string
	terms []string
}

// openIndexDB opens the database $CTX_BENCH_BM25_DB names read-only and
// reads the query set, or skips.
func openIndexDB(tb testing.TB) (*DB, []indexQuery) {
	tb.Helper()
	path := os.Getenv("CTX_BENCH_BM25_DB")
	if path == "" || testing.Short() {
		tb.Skip("CTX_BENCH_BM25_DB is unset (or -short)")
	}
	db, err := Open(context.Background(), path, &Options{ReadOnly: true, MustExist: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	f, err := os.Open("../../scripts/goroot-queries.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var docs int
	if err := db.r.QueryRow(`SELECT docs FROM bm25_stats`).Scan(&docs); err != nil {
		tb.Fatal(err)
	}
	var out []indexQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		seen := map[string]bool{}
		var terms []string
		for _, t := range analyze.TermList(text) {
			if !seen[t] && !analyze.IsStopword(t) {
				seen[t] = true
				terms = append(terms, t)
			}
		}
		dfs, err := db.DocFreqs(context.Background(), terms)
		if err != nil {
			tb.Fatal(err)
		}
		q := indexQuery{text: text}
		for _, t := range terms {
			if len(q.terms) < 10 && dfs[t] > 0 && dfs[t] <= docs/4 {
				q.terms = append(q.terms, t)
			}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return db, out
}

var indexWeights = BM25Weights{3, 2, 2, 1} // search's

// BenchmarkSearchBM25Index runs one query per iteration, in turn: over
// every column as search's main BM25 channel does (limit 200), and over
// the path column as its path channel does (limit 150).
func BenchmarkSearchBM25Index(b *testing.B) {
	db, queries := openIndexDB(b)
	for _, bc := range []struct {
		name  string
		cols  uint8
		limit int
	}{
		{"cols=all", 0, 200},
		{"cols=path", 1 << ColPath, 150},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				if _, err := db.SearchBM25(b.Context(), BM25Query{Terms: q.terms, Weights: indexWeights, Columns: bc.cols, Limit: bc.limit}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestSearchBM25IndexDump writes or checks every hit of the query set
// (see the file comment).
func TestSearchBM25IndexDump(t *testing.T) {
	outPath, wantPath := os.Getenv("CTX_BM25_DUMP_OUT"), os.Getenv("CTX_BM25_DUMP_WANT")
	if outPath == "" && wantPath == "" {
		t.Skip("neither CTX_BM25_DUMP_OUT nor CTX_BM25_DUMP_WANT is set")
	}
	db, queries := openIndexDB(t)
	// A file filter: every seventh file.
	var fileIDs []int64
	rows, err := db.r.Query(`SELECT id FROM files WHERE id % 7 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		fileIDs = append(fileIDs, id)
	}
	rows.Close()
	// Every hit: a limit of the id range.
	var limit int
	if err := db.r.QueryRow(`SELECT next_chunk FROM bm25_stats`).Scan(&limit); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	hits := 0
	for qi, q := range queries {
		// Groups: each pair of neighbouring terms, as a phrase query has
		// them.
		var groups [][]int
		for i := 1; i < len(q.terms); i++ {
			groups = append(groups, []int{i - 1, i})
		}
		for _, cols := range []uint8{0, 1 << ColPath, 1<<ColName | 1<<ColBody} {
			for _, grouped := range []bool{false, true} {
				for _, filtered := range []bool{false, true} {
					bq := BM25Query{Terms: q.terms, Weights: indexWeights, Columns: cols, Limit: limit}
					if grouped {
						bq.Groups = groups
					}
					if filtered {
						bq.FileIDs = fileIDs
					}
					hs, err := db.SearchBM25(t.Context(), bq)
					if err != nil {
						t.Fatalf("query %d %q: %v", qi, q.text, err)
					}
					for r, h := range hs {
						fmt.Fprintf(&got, "q%d cols=%d grouped=%v filtered=%v #%d chunk=%d score=%016x\n", qi, cols, grouped, filtered, r, h.ChunkID, math.Float64bits(h.Score))
					}
					hits += len(hs)
				}
			}
		}
	}
	t.Logf("%d queries, %d hits", len(queries), hits)
	if outPath != "" {
		if err := os.WriteFile(outPath, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if wantPath != "" {
		want, err := os.ReadFile(wantPath)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != got.String() {
			wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
			for i := range min(len(wl), len(gl)) {
				if wl[i] != gl[i] {
					t.Fatalf("hits differ at line %d:\nwant %s\n got %s\n(%d lines wanted, %d got)", i+1, wl[i], gl[i], len(wl), len(gl))
				}
			}
			t.Fatalf("hits differ: %d lines wanted, %d got", len(wl), len(gl))
		}
	}
}
