package embed_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float32
		want []float32
	}{
		{"empty", []float32{}, []float32{}},
		{"zero stays zero", []float32{0, 0, 0}, []float32{0, 0, 0}},
		{"3-4-5", []float32{3, 4}, []float32{0.6, 0.8}},
		{"negative", []float32{0, -2, 0}, []float32{0, -1, 0}},
		{"already unit", []float32{1, 0, 0, 0}, []float32{1, 0, 0, 0}},
		{"tiny", []float32{1e-30, 1e-30}, []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)}},
		{"huge", []float32{3e30, 4e30}, []float32{0.6, 0.8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := append([]float32(nil), tc.in...)
			embed.Normalize(v)
			if diff := cmp.Diff(tc.want, v, cmpopts.EquateApprox(0, 1e-6), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Normalize(%v) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestDot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"empty", nil, nil, 0},
		{"one", []float32{2}, []float32{3}, 6},
		{"tail only", []float32{1, 2, 3}, []float32{4, 5, 6}, 32},
		{"four", []float32{1, 2, 3, 4}, []float32{1, 1, 1, 1}, 10},
		{"four plus tail", []float32{1, 2, 3, 4, 5, 6, 7}, []float32{1, -1, 1, -1, 1, -1, 1}, 4},
		{"orthogonal", []float32{1, 0, 0, 0, 0}, []float32{0, 1, 0, 0, 0}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := embed.Dot(tc.a, tc.b); got != tc.want {
				t.Errorf("Dot(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestDotMatchesNaive checks the unrolled loop against a plain one on
// every length around the unroll width.
func TestDotMatchesNaive(t *testing.T) {
	t.Parallel()
	for n := range 20 {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range n {
			a[i] = float32(i) - 3.5
			b[i] = float32(n-i) * 0.25
			want += float64(a[i]) * float64(b[i])
		}
		if got := embed.Dot(a, b); math.Abs(float64(got)-want) > 1e-4 {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}

func TestDotLengthMismatchPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Dot of vectors of length 2 and 3 did not panic")
		}
	}()
	embed.Dot([]float32{1, 2}, []float32{1, 2, 3})
}

func TestDotNoAlloc(t *testing.T) {
	a, b := make([]float32, 768), make([]float32, 768)
	if n := testing.AllocsPerRun(100, func() { embed.Dot(a, b) }); n != 0 {
		t.Errorf("Dot allocates %v times per call, want 0", n)
	}
}

func TestVectorRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    []float32
	}{
		{"empty", []float32{}},
		{"one", []float32{1}},
		{"mixed", []float32{0.6, -0.8, 0, 1e-38, -3.4028235e38}},
		{"special", []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := embed.EncodeVector(tc.v)
			if len(b) != 4*len(tc.v) {
				t.Fatalf("EncodeVector(%v) has %d bytes, want %d", tc.v, len(b), 4*len(tc.v))
			}
			got, err := embed.DecodeVector(b)
			if err != nil {
				t.Fatalf("DecodeVector: %v", err)
			}
			// Compare bit patterns so -0 and +0 are told apart.
			bits := func(v []float32) []uint32 {
				out := make([]uint32, len(v))
				for i, x := range v {
					out[i] = math.Float32bits(x)
				}
				return out
			}
			if diff := cmp.Diff(bits(tc.v), bits(got)); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeVectorLittleEndian(t *testing.T) {
	t.Parallel()
	// 1.0 is 0x3f800000; -2.0 is 0xc0000000.
	got := embed.EncodeVector([]float32{1, -2})
	want := []byte{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EncodeVector mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeVectorBadLength(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 5, 7} {
		if _, err := embed.DecodeVector(make([]byte, n)); err == nil {
			t.Errorf("DecodeVector of %d bytes: got nil error", n)
		}
	}
}
