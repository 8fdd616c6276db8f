package store

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// BenchmarkSegBuilderAdd measures building one segment's postings in
// memory ([segBuilder.add], the writer goroutine's share of a cold index)
// from the columns of real code: three files of the Go standard library
// cut into 2 kB chunks, each chunk's terms in the body column (each term
// at most 3 times, as indexing caps them), its first line's in the name
// column and the file's path in the path column.
//
//	go test -run='^$' -bench=SegBuilderAdd -count=10 ./internal/store
func BenchmarkSegBuilderAdd(b *testing.B) {
	var chunks [][NumColumns]string
	var size int64
	for _, name := range []string{"net/http/server.go", "fmt/print.go", "strings/strings.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", name))
		if err != nil {
			b.Skipf("the Go toolchain's source is not here: %v", err)
		}
		for len(src) > 0 {
			n := min(len(src), 2048)
			text := string(src[:n])
			src = src[n:]
			line, _, _ := strings.Cut(text, "\n")
			var cols [NumColumns]string
			cols[ColName] = strings.Join(analyze.TermList(line), " ")
			cols[ColPath] = strings.Join(analyze.TermList(name), " ")
			cols[ColBody] = cappedJoin(text, 3)
			for _, c := range cols {
				size += int64(len(c))
			}
			chunks = append(chunks, cols)
		}
	}
	b.SetBytes(size)
	b.ReportMetric(float64(len(chunks)), "chunks/op")
	b.ReportAllocs()
	for b.Loop() {
		sb := newSegBuilder()
		for i, cols := range chunks {
			sb.add(int64(i), cols)
		}
	}
}

// cappedJoin returns the terms of text, each at most max times,
// space-separated.
func cappedJoin(text string, max int) string {
	counts := map[string]int{}
	var out []string
	analyze.Terms(text, func(t string) {
		if counts[t] < max {
			counts[t]++
			out = append(out, t)
		}
	})
	return strings.Join(out, " ")
}
