// Benchmarks for the FTS5 query path over a synthetic index. Run with:
//
//	go test -run='^$' -bench=SearchFTS -count=10 ./internal/store > new.txt
package store_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

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

// buildBenchStore fills a new store with benchFiles files whose chunk bodies
// draw terms from a Zipf distribution (s = 1.1), like code identifiers.
func buildBenchStore(b *testing.B) *store.DB {
	b.Helper()
	db := openDB(b)
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
			ch.FTSName = benchTerm(zipf.Uint64()) + " " + benchTerm(zipf.Uint64())
			ch.FTSPath = fmt.Sprintf("pkg%d file%d go", f%50, f)
			u.Chunks = append(u.Chunks, ch)
		}
		updates = append(updates, u)
		if len(updates) == cap(updates) {
			apply(b, db, updates...)
			updates = updates[:0]
		}
	}
	apply(b, db, updates...)
	return db
}

// orMatch is the expression the search package builds: quoted terms joined
// by OR.
func orMatch(ranks ...uint64) string {
	terms := make([]string, len(ranks))
	for i, r := range ranks {
		terms[i] = `"` + benchTerm(r) + `"`
	}
	return strings.Join(terms, " OR ")
}

func BenchmarkSearchFTS(b *testing.B) {
	db := buildBenchStore(b)
	// 30 terms from common to rare, as a long query picks them: search
	// leaves out terms in more than a quarter of the chunks, so the most
	// common one is rank 40 (in about 14% of the chunks).
	var long []uint64
	for i := range 30 {
		long = append(long, uint64(40+i*i*7))
	}
	queries := []struct {
		name  string
		match string
	}{
		{"terms=2", orMatch(40, 900)},
		{"terms=30", orMatch(long...)},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			var hits int
			for b.Loop() {
				h, err := db.SearchFTS(b.Context(), q.match, weights, benchLimit)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(h)
			}
			if hits == 0 {
				b.Fatalf("%s matched nothing", q.match)
			}
			b.ReportMetric(float64(hits), "hits/op")
		})
		// The same query as two halves of the chunk id range on two
		// connections, merged (what search does on large indexes).
		b.Run(q.name+"/split=2", func(b *testing.B) {
			end, err := db.ChunkIDEnd(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				parts := make([][]store.Hit, 2)
				var g errgroup.Group
				for i := range parts {
					g.Go(func() (err error) {
						parts[i], err = db.SearchFTSRange(b.Context(), q.match, weights, benchLimit, nil, end*int64(i)/2, end*int64(i+1)/2)
						return err
					})
				}
				if err := g.Wait(); err != nil {
					b.Fatal(err)
				}
				store.MergeHits(parts, benchLimit)
			}
		})
	}
}
