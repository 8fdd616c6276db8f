// Benchmark of a one-shot find as `ctx find --json --limit 10` runs it:
// a new engine per query (no kept handle, no query cache), over the 50
// queries of scripts/goroot-queries.txt against an index of
// $(go env GOROOT)/src.
//
//	CTX_BENCH_GOROOT_CACHE=/path/to/cache-dir \
//	  go test -run='^$' -bench=BenchmarkFindGoroot -benchmem -count=10 ./internal/engine > new.txt
//	benchstat old.txt new.txt
//
// The cache directory must hold an index of $(go env GOROOT)/src built by
// this ctx (ctx index --repo $(go env GOROOT)/src with CTX_CACHE_DIR set
// to it). Unset means skip.
package engine

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
)

func BenchmarkFindGoroot(b *testing.B) { benchGoroot(b, false) }

// benchGoroot runs the 50 queries in turn, a new engine for each, with
// the explanation when explain is set (FindRequest.Explain).
func benchGoroot(b *testing.B, explain bool) {
	cacheDir := os.Getenv("CTX_BENCH_GOROOT_CACHE")
	if cacheDir == "" || testing.Short() {
		b.Skip("CTX_BENCH_GOROOT_CACHE is unset (or -short)")
	}
	cfg := config.Default()
	cfg.CacheDir = cacheDir
	findGoroot(b, cfg, FindRequest{Limit: 10, AutoIndex: true, Explain: explain})
}

// findGoroot runs the 50 queries of scripts/goroot-queries.txt in turn
// over $(go env GOROOT)/src, each as req with its Query set and a new
// engine of cfg, and returns the mean of their Stats.SearchMS (ms).
func findGoroot(b *testing.B, cfg config.Config, req FindRequest) float64 {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	queries := benchQueries(b, "../../scripts/goroot-queries.txt")
	b.ReportAllocs()
	var ms float64
	i := 0
	for b.Loop() {
		e, err := Open(cfg, root, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Query = queries[i%len(queries)]
		resp, err := e.Find(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		ms += resp.Stats.SearchMS
		e.Close()
		i++
	}
	return ms / float64(max(i, 1))
}

// benchQueries reads one query per non-blank line.
func benchQueries(b *testing.B, path string) []string {
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

// BenchmarkExplainGoroot is BenchmarkFindGoroot with the explanation
// (FindRequest.Explain: understood query, why-lines and each result's
// definition, callers, importers and tests), as `ctx find --explain` and
// MCP info_request compute it. Same setup and command, with
// -bench=BenchmarkExplainGoroot.
func BenchmarkExplainGoroot(b *testing.B) { benchGoroot(b, true) }
