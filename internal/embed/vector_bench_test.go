// Benchmarks for the vector hot paths. Run with:
//
//	go test -run='^$' -bench=. -count=10 ./internal/embed > new.txt
package embed_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

var sink float32

func BenchmarkDot(b *testing.B) {
	for _, dims := range []int{256, 384, 768, 1536} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			x, y := make([]float32, dims), make([]float32, dims)
			for i := range dims {
				x[i] = float32(i%7) - 3
				y[i] = float32(i%5) - 2
			}
			b.ReportAllocs()
			b.SetBytes(int64(8 * dims))
			for b.Loop() {
				sink += embed.Dot(x, y)
			}
		})
	}
}

// BenchmarkDotNaive is the baseline that BenchmarkDot is measured against.
func BenchmarkDotNaive(b *testing.B) {
	for _, dims := range []int{256, 384, 768, 1536} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			x, y := make([]float32, dims), make([]float32, dims)
			for i := range dims {
				x[i] = float32(i%7) - 3
				y[i] = float32(i%5) - 2
			}
			b.ReportAllocs()
			b.SetBytes(int64(8 * dims))
			for b.Loop() {
				sink += dotNaive(x, y)
			}
		})
	}
}

// dotNaive is the one-accumulator loop that Dot unrolls.
func dotNaive(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func BenchmarkDecodeVector(b *testing.B) {
	v := make([]float32, 768)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	embed.Normalize(v)
	for _, form := range []struct {
		name string
		blob []byte
	}{
		{"int8", embed.EncodeVector(v)},
		{"float32", embed.EncodeVector(append(v[:767:767], float32(math.Inf(1))))},
	} {
		b.Run(form.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(form.blob)))
			for b.Loop() {
				if _, err := embed.DecodeVector(form.blob); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeVector(b *testing.B) {
	v := make([]float32, 768)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	embed.Normalize(v)
	b.ReportAllocs()
	for b.Loop() {
		if len(embed.EncodeVector(v)) == 0 {
			b.Fatal("empty blob")
		}
	}
}
