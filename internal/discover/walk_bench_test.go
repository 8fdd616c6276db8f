// Benchmarks for the file walk. The corpus is the Go source tree:
//
//	go test -run='^$' -bench=BenchmarkWalk -count=10 ./internal/discover
//
// CTX_BENCH_REPO=/path/to/repo walks another tree instead. The benchmark is
// skipped when neither is available.
package discover

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchRoot returns the tree to walk: $CTX_BENCH_REPO, else $(go env
// GOROOT)/src.
func benchRoot(b *testing.B) string {
	if r := os.Getenv("CTX_BENCH_REPO"); r != "" {
		return r
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		b.Skipf("no Go source tree at %s", src)
	}
	return src
}

func BenchmarkWalk(b *testing.B) {
	root := benchRoot(b)
	b.ReportAllocs()
	var files, skips int
	for b.Loop() {
		res, err := Walk(b.Context(), root, nil)
		if err != nil {
			b.Fatal(err)
		}
		files, skips = len(res.Files), len(res.Skips)
	}
	b.ReportMetric(float64(files), "files/op")
	b.ReportMetric(float64(skips), "skips/op")
}
