// Benchmarks for the BM25 query path over a synthetic index, against
// SQLite FTS5's bm25() over the same chunks as the baseline (ctx's BM25
// index replaced FTS5 in schema 6). Run with:
//
//	go test -run='^$' -bench=SearchBM25 -count=10 ./internal/store > new.txt
package store_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

const (
	benchFiles         = 1000
	benchChunksPerFile = 20 // 20,000 chunks
	benchVocab         = 20000
	benchBodyTerms     = 60
	benchLimit         = 200 // search.bm25Limit
)

// benchTerm is the term of Zipf rank r: rank 0 is the most frequent.
func benchTerm(r uint64) string { return fmt.Sprintf("t%d", r) }

// buildBenchStore fills a new store, and an FTS5 table with the same
// chunks, with benchFiles files whose chunk bodies draw terms from a Zipf
// distribution (s = 1.1), like code identifiers.
func buildBenchStore(b *testing.B) (*store.DB, *fts5) {
	b.Helper()
	db := openDB(b)
	ref := newFTS5(b)
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, benchVocab-1)
	var body strings.Builder
	updates := make([]store.Update, 0, 100)
	for f := range benchFiles {
		path := fmt.Sprintf("pkg%d/file%d.go", f%50, f)
		u := file(path, "go")
		for c := range benchChunksPerFile {
			body.Reset()
			for i := range benchBodyTerms {
				if i > 0 {
					body.WriteByte(' ')
				}
				body.WriteString(benchTerm(zipf.Uint64()))
			}
			ch := chunk(fmt.Sprintf("F%d_%d", f, c), 100*c, body.String())
			ch.StartLine = 10*c + 1
			ch.Terms[store.ColName] = benchTerm(zipf.Uint64()) + " " + benchTerm(zipf.Uint64())
			ch.Terms[store.ColPath] = fmt.Sprintf("pkg%d file%d go", f%50, f)
			u.Chunks = append(u.Chunks, ch)
		}
		updates = append(updates, u)
		if len(updates) == cap(updates) {
			ref.applyBoth(db, updates...)
			updates = updates[:0]
		}
	}
	ref.applyBoth(db, updates...)
	if _, err := db.CompactPostings(b.Context()); err != nil {
		b.Fatal(err)
	}
	return db, ref
}

func BenchmarkSearchBM25(b *testing.B) {
	db, ref := buildBenchStore(b)
	// 30 terms from common to rare, as a long query picks them: search
	// leaves out terms in more than a quarter of the chunks, so the most
	// common one is rank 40 (in about 14% of the chunks).
	var long []uint64
	for i := range 30 {
		long = append(long, uint64(40+i*i*7))
	}
	query := func(ranks ...uint64) store.BM25Query {
		q := store.BM25Query{Weights: weights, Limit: benchLimit}
		for _, r := range ranks {
			q.Terms = append(q.Terms, benchTerm(r))
		}
		return q
	}
	queries := []struct {
		name string
		q    store.BM25Query
	}{
		{"terms=2", query(40, 900)},
		{"terms=30", query(long...)},
	}
	for _, q := range queries {
		b.Run(q.name+"/ctx", func(b *testing.B) {
			b.ReportAllocs()
			var hits int
			for b.Loop() {
				h, err := db.SearchBM25(b.Context(), q.q)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(h)
			}
			if hits == 0 {
				b.Fatalf("%v matched nothing", q.q.Terms)
			}
			b.ReportMetric(float64(hits), "hits/op")
		})
		b.Run(q.name+"/fts5", func(b *testing.B) {
			b.ReportAllocs()
			var hits int
			for b.Loop() {
				hits = len(ref.search(q.q))
			}
			b.ReportMetric(float64(hits), "hits/op")
		})
	}
}
