package eval

// The grep baseline over a real tree, one query per iteration:
//
//	CTX_BENCH_REPO="$(go env GOROOT)/src" go test -run='^$' -bench=Grep ./internal/eval
//
// Without CTX_BENCH_REPO the benchmark skips.

import (
	"os"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
)

func BenchmarkGrep(b *testing.B) {
	dir := os.Getenv("CTX_BENCH_REPO")
	if dir == "" {
		b.Skip("set CTX_BENCH_REPO to a source tree")
	}
	walk, err := discover.Walk(b.Context(), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewGrep(b.Context(), walk.Files)
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, f := range g.files {
		bytes += int64(len(f.text))
	}
	queries := []string{
		"reads a MIME-style header from r",
		"read mime header (Reader)",
		"close idle connections after the timeout",
		"returns the number of bytes written",
	}
	b.ReportAllocs()
	b.SetBytes(bytes)
	i := 0
	for b.Loop() {
		g.Search(queries[i%len(queries)], Cutoff)
		i++
	}
	b.ReportMetric(float64(len(g.files)), "files")
}
