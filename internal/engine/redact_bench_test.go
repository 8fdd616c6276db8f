package engine

// The cost of masking code read back from disk: reading a chunk-sized byte
// range of a Go file of net/http with and without masking.
//
//	go test -run='^$' -bench=CodeRange -benchmem ./internal/engine

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
)

func BenchmarkCodeRange(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	names, err := filepath.Glob(filepath.Join(root, "*.go"))
	if err != nil || len(names) == 0 {
		b.Skip("no net/http sources")
	}
	type span struct {
		rel        string
		start, end int
	}
	var spans []span
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(root, n)
		// 1.5 KB ranges (a typical chunk) every 16 KB.
		for at := int64(0); at+1536 <= fi.Size(); at += 16 << 10 {
			spans = append(spans, span{rel, int(at), int(at) + 1536})
		}
	}
	for _, tc := range []struct {
		name string
		keep bool
	}{{"masked", false}, {"raw", true}} {
		b.Run(tc.name, func(b *testing.B) {
			e := &Engine{cfg: config.Config{IncludeSecrets: tc.keep}, root: root}
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range spans {
					e.readRange(s.rel, s.start, s.end, 0, 0, false)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans))/1e3, "µs/range")
		})
	}
}
