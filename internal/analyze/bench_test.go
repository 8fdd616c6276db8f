package analyze_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// corpus reads the Go files of a few standard library packages (about
// 2 MB of real code) from the toolchain that runs the test.
func corpus(tb testing.TB) []string {
	tb.Helper()
	var texts []string
	for _, dir := range []string{"net/http", "go/types", "encoding/json", "strings"} {
		files, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		if err != nil || len(files) == 0 {
			tb.Skipf("no Go sources under GOROOT: %v", err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	return texts
}

// BenchmarkTerms measures [analyze.Terms] over real code; its throughput
// is per byte of source.
func BenchmarkTerms(b *testing.B) {
	texts := corpus(b)
	var size int64
	for _, t := range texts {
		size += int64(len(t))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, t := range texts {
			analyze.Terms(t, func(string) { n++ })
		}
	}
}
