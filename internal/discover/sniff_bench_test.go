// Benchmarks for content sniffing, which runs once on every file the index
// pipeline reads:
//
//	go test -run='^$' -bench=BenchmarkSniff -count=10 ./internal/discover
package discover

import (
	"bytes"
	"testing"
)

// BenchmarkSniff sniffs a 90 KiB Go file, which is kept: the whole file is
// scanned for line lengths.
func BenchmarkSniff(b *testing.B) {
	src := bytes.Repeat([]byte("\tif err := f(x); err != nil {\n\t\treturn err\n\t}\n"), 2000)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, _, skip := Sniff("a.go", src); skip {
			b.Fatal("skipped")
		}
	}
}
