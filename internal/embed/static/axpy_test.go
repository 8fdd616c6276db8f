package static

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpyInt8 checks the kernel against the Go loop bit for bit, for
// every length up to three 32-element steps and a few beyond, and that
// it leaves dst past the length alone.
func TestAxpyInt8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{256, 300, 512}
	for n := range 100 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		x := make([]int8, n)
		for i := range x {
			x[i] = int8(rng.IntN(256) - 128)
		}
		copy(x, []int8{-128, 127}) // the extremes
		base := make([]float32, n+1)
		for i := range base {
			base[i] = rng.Float32()*2 - 1
		}
		for _, a := range []float32{0.37, -1.5e-3, 0, float32(math.Inf(1))} {
			want := append([]float32(nil), base...)
			axpyInt8Go(want[:n], a, x)
			got := append([]float32(nil), base...)
			axpyInt8(got[:n], a, x)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("n=%d a=%g: dst[%d] = %v, want %v", n, a, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkAxpyInt8(b *testing.B) {
	dst := make([]float32, 256)
	x := make([]int8, 256)
	for i := range x {
		x[i] = int8(i*37 - 100)
	}
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		axpyInt8(dst, 0.001, x)
	}
}
