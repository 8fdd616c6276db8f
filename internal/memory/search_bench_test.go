// Memory search latency over generated stores:
//
//	go test -run='^$' -bench=FindMemories -benchmem ./internal/memory
package memory

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed/builtin"
)

// benchWords are the vocabulary of generated memories.
var benchWords = strings.Fields(`parcel courier webhook retry backoff signature cache redis postgres
migration schema index partition query label printer token bucket rate limit merchant billing
invoice email notification template queue worker lease idempotent deploy helm rollback alert
metric histogram latency bucket profile pprof trace span log attribute error wrap layer test
fixture sandbox record replay cursor pagination validation request response timeout context
cancel goroutine channel mutex lock deadlock transaction isolation snapshot vacuum analyze`)

// BenchmarkFindMemories measures [DB.Search] with the built-in model over
// n generated memories of about 30 words (the query's embedding and the
// whole in-memory scan: reading, analysing and scoring every memory).
func BenchmarkFindMemories(b *testing.B) {
	p, err := builtin.New()
	if err != nil {
		b.Fatal(err)
	}
	emb := &Embedder{Provider: p}
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			ctx := b.Context()
			db, err := Open(ctx, b.TempDir()+"/bench.memories", nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := rand.New(rand.NewPCG(1, uint64(n)))
			var lines strings.Builder
			enc := json.NewEncoder(&lines)
			for i := range n {
				words := make([]string, 30)
				for j := range words {
					words[j] = benchWords[r.IntN(len(benchWords))]
				}
				enc.Encode(map[string]any{"text": fmt.Sprintf("%d %s.", i, strings.Join(words, " ")),
					"tags": []string{benchWords[r.IntN(len(benchWords))]}, "path": "internal/" + benchWords[r.IntN(len(benchWords))] + ".go"})
			}
			rep, err := db.Import(ctx, strings.NewReader(lines.String()), emb)
			if err != nil || rep.Added != n || rep.Embedded != n {
				b.Fatalf("import: %+v, %v", rep, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				hits, _, err := db.Search(ctx, Query{Text: "why does the webhook retry with backoff", Limit: 10}, emb)
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(n), "memories/op")
		})
	}
}
