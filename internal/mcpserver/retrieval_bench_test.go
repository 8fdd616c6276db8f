// Benchmark of codebase_retrieval's server-side work on a real index: the
// 50 queries of scripts/goroot-queries.txt against an index of
// $(go env GOROOT)/src, per mode, with the server watching the tree as
// ctx mcp does. No call is answered from the query cache: each round over
// the queries gets a new server (opened, its watcher caught up, and
// warmed by a query outside the set, with the timer stopped).
//
//	CTX_BENCH_GOROOT_CACHE=/path/to/cache-dir \
//	  go test -run='^$' -bench=BenchmarkRetrievalGoroot -benchmem -count=10 ./internal/mcpserver > new.txt
//	benchstat old.txt new.txt
//
// The cache directory must hold an index of $(go env GOROOT)/src built by
// this ctx (ctx index --repo $(go env GOROOT)/src with CTX_CACHE_DIR set
// to it); the benchmark only reads it. Unset means skip.
package mcpserver

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
)

func BenchmarkRetrievalGoroot(b *testing.B) {
	cacheDir := os.Getenv("CTX_BENCH_GOROOT_CACHE")
	if cacheDir == "" || testing.Short() {
		b.Skip("CTX_BENCH_GOROOT_CACHE is unset (or -short)")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	queries := benchQueryFile(b, "../../scripts/goroot-queries.txt")
	cfg := config.Default()
	cfg.CacheDir = cacheDir
	for _, mode := range []string{"quick", "balanced"} {
		b.Run("mode="+mode, func(b *testing.B) {
			var s *Server
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if i%len(queries) == 0 {
					b.StopTimer()
					if s != nil {
						s.Close()
					}
					if s, err = New(Options{Root: root, Config: cfg}); err != nil {
						b.Fatal(err)
					}
					s.Watch(b.Context())
					warmRetrieval(b, s, mode)
					b.StartTimer()
				}
				_, o, err := s.retrieve(b.Context(), nil, RetrievalInput{InformationRequest: queries[i%len(queries)], Mode: mode})
				if err != nil {
					b.Fatal(err)
				}
				if o.Stats.Cached {
					b.Fatal("answered from the query cache")
				}
				i++
			}
			s.Close()
		})
	}
}

// warmRetrieval calls codebase_retrieval with a query outside the set
// until the answer is fresh (the watcher has caught up): the vectors,
// tokenizer and page cache are then loaded. A function of its own, so
// profiles can leave it out (pprof -ignore=warmRetrieval).
func warmRetrieval(b *testing.B, s *Server, mode string) {
	warm := RetrievalInput{InformationRequest: "benchmark warm-up call", Mode: mode}
	for start := time.Now(); ; {
		_, o, err := s.retrieve(b.Context(), nil, warm)
		if err != nil {
			b.Fatal(err)
		}
		if o.Freshness.Fresh {
			return
		}
		if time.Since(start) > time.Minute {
			b.Fatal("the watcher did not catch up in a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// benchQueryFile reads one query per non-blank line.
func benchQueryFile(b *testing.B, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			qs = append(qs, l)
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return qs
}
