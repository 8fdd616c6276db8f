// Benchmark of a one-shot find through the weaviate backend, as
// `ctx find --backend weaviate --json --limit 10` runs it, over the 50
// queries of scripts/goroot-queries.txt against a tenant synced from
// $(go env GOROOT)/src:
//
//	CTX_CACHE_DIR=/path/to/cache-dir CTX_WEAVIATE_URL=http://127.0.0.1:PORT CTX_WEAVIATE_PREFIX=Bench \
//	  ctx index --backend weaviate --repo $(go env GOROOT)/src
//	CTX_BENCH_GOROOT_CACHE=/path/to/cache-dir CTX_WEAVIATE_URL=http://127.0.0.1:PORT CTX_BENCH_WEAVIATE_PREFIX=Bench \
//	  go test -run='^$' -bench=BenchmarkFindWeaviateGoroot -benchmem -count=10 ./internal/engine > new.txt
//
// Reported: search-ms/op, the engine's own search time (stats.search_ms).
// Any of the three variables unset means skip.
package engine

import (
	"os"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
)

func BenchmarkFindWeaviateGoroot(b *testing.B) {
	cacheDir, url, prefix := os.Getenv("CTX_BENCH_GOROOT_CACHE"), os.Getenv("CTX_WEAVIATE_URL"), os.Getenv("CTX_BENCH_WEAVIATE_PREFIX")
	if cacheDir == "" || url == "" || prefix == "" || testing.Short() {
		b.Skip("CTX_BENCH_GOROOT_CACHE, CTX_WEAVIATE_URL or CTX_BENCH_WEAVIATE_PREFIX is unset (or -short)")
	}
	cfg := config.Default()
	cfg.CacheDir = cacheDir
	cfg.Backend.Name = "weaviate"
	cfg.Backend.Weaviate.URL = url
	cfg.Backend.Prefix = prefix
	b.ReportMetric(findGoroot(b, cfg, FindRequest{Limit: 10}), "search-ms/op")
}
