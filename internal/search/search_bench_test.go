// Benchmarks for fusion and for whole searches.
//
// RRF over 4 channel lists of 200 ids each, and Searcher.Search over an
// index of $(go env GOROOT)/src/net/http (a real corpus subset, built once
// per run with index.Run and the deterministic fake embedder), per query
// kind, lexical-only and hybrid:
//
//	go test -run='^$' -bench='BenchmarkFuse|BenchmarkSearch' -benchmem -count=10 ./internal/search > new.txt
//	benchstat old.txt new.txt
package search

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/store"
)

func BenchmarkFuse(b *testing.B) {
	const lists, per = 4, 200
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([]Ranked, lists)
	for i := range in {
		in[i] = Ranked{Channel: []string{"bm25", "symbol", "path", "dense"}[i], Weight: 1, IDs: make([]int64, per), Scores: make([]float64, per)}
		for j := range per {
			// Ids from a pool of 400, so lists overlap as channels do.
			in[i].IDs[j] = int64(rng.IntN(2 * per))
			in[i].Scores[j] = float64(per - j)
		}
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(Fuse(in))
	}
	b.ReportMetric(float64(lists*per), "ids/op")
	b.ReportMetric(float64(n), "fused/op")
}

// benchQueries are one query of each kind over net/http.
var benchQueries = []struct{ name, query string }{
	{"symbol", "ServeMux"},
	{"qualified", "http.Transport.RoundTrip"},
	{"natural", "how does the server handle request timeouts and keep-alive connections"},
	{"long", `http: panic serving 127.0.0.1:50412: runtime error: invalid memory address or nil pointer dereference
goroutine 35 [running]:
net/http.(*conn).serve.func1()
	/usr/local/go/src/net/http/server.go:1903 +0xbe
panic({0x6b5f20?, 0x9a8e40?})
	/usr/local/go/src/runtime/panic.go:770 +0x132
net/http.HandlerFunc.ServeHTTP(0xc0000a6000?, {0x7a7f38?, 0xc0001be000?}, 0xc0000b4000?)
	/usr/local/go/src/net/http/server.go:2171 +0x29
net/http.serverHandler.ServeHTTP({0xc0000b2000?}, {0x7a7f38?, 0xc0001be000?}, 0xc0001b8000)
	/usr/local/go/src/net/http/server.go:3142 +0x8e
The handler registered with ServeMux dereferences a nil request body when the
client closes the connection before sending headers.`},
}

func BenchmarkSearch(b *testing.B) {
	src := filepath.Join(goroot(b), "src", "net", "http")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("GOROOT source missing: %v", err)
	}
	const dims = 256
	fake := embedtest.New(dims)
	db, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "index.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st, err := index.Run(b.Context(), db, src, &index.Options{Embedder: fake})
	if err != nil {
		b.Fatal(err)
	}
	vecs, _, err := LoadVectors(b.Context(), db, dims, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("net/http: %d files, %d chunks, indexed in %v", st.Added, st.Chunks, st.Duration)

	for _, mode := range []struct {
		name string
		s    *Searcher
	}{
		{"lexical", &Searcher{DB: db, TotalChunks: st.Chunks}},
		{"hybrid", &Searcher{DB: db, TotalChunks: st.Chunks, Embedder: fake, Vectors: vecs}},
	} {
		for _, q := range benchQueries {
			b.Run(mode.name+"/"+q.name, func(b *testing.B) {
				b.ReportAllocs()
				var cands int
				for b.Loop() {
					res, stats, err := mode.s.Search(b.Context(), Request{Query: q.query, Limit: 10})
					if err != nil {
						b.Fatal(err)
					}
					if len(res) == 0 {
						b.Fatalf("no results for %q", q.query)
					}
					cands = stats.Candidates
				}
				b.ReportMetric(float64(cands), "candidates/op")
			})
		}
	}
}

// BenchmarkSearchIndex runs the lexical channels and ranking over a real
// index (opt-in): point CTX_BENCH_SEARCHDB at an index database, such as
// the one `ctx index` builds for $(go env GOROOT)/src (106k chunks). Each
// op is one pass over the queries of scripts/goroot-queries.txt:
//
//	CTX_BENCH_SEARCHDB=/path/to/index.db go test -run='^$' -bench=BenchmarkSearchIndex -benchtime=5x -count=5 ./internal/search
func BenchmarkSearchIndex(b *testing.B) {
	path := os.Getenv("CTX_BENCH_SEARCHDB")
	if path == "" {
		b.Skip("CTX_BENCH_SEARCHDB is not set")
	}
	queries := readLines(b, filepath.Join("..", "..", "scripts", "goroot-queries.txt"))
	db, err := store.Open(b.Context(), path, &store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c, err := db.Count(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	s := &Searcher{DB: db, TotalChunks: c.Chunks}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range queries {
			if _, _, err := s.Search(b.Context(), Request{Query: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(queries)), "ms/query")
}

// readLines returns the non-empty lines of a file.
func readLines(tb testing.TB, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
