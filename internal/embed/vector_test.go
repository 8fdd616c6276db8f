package embed_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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

// randomUnit returns a random unit vector of n Gaussian elements.
func randomUnit(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestVectorRoundTripInt8 checks the int8 form's size and error bounds on
// random unit vectors, including lengths that need padding.
func TestVectorRoundTripInt8(t *testing.T) {
	t.Parallel()
	for _, dims := range []int{64, 65, 66, 67, 100, 128, 255, 256, 384, 768, 1023, 1024} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(dims), 1))
			worst := 1.0
			for range 200 {
				v := randomUnit(rng, dims)
				b := embed.EncodeVector(v)
				if len(b)%4 != 1 || len(b) < dims+5 || len(b) > dims+8 {
					t.Fatalf("EncodeVector of %d dims has %d bytes, want dims+5 rounded up to 1 mod 4", dims, len(b))
				}
				got, err := embed.DecodeVector(b)
				if err != nil {
					t.Fatalf("DecodeVector: %v", err)
				}
				if len(got) != dims {
					t.Fatalf("decoded %d dims, want %d", len(got), dims)
				}
				var m float64
				for _, x := range v {
					m = max(m, math.Abs(float64(x)))
				}
				for i := range v {
					if d := math.Abs(float64(got[i] - v[i])); d > m/254*1.0001 {
						t.Fatalf("element %d: %v decoded as %v, error %v > max/254 = %v", i, v[i], got[i], d, m/254)
					}
				}
				worst = min(worst, cosine(v, got))
			}
			t.Logf("worst cosine over 200 vectors: %.6f", worst)
			if worst < 0.999 {
				t.Errorf("worst cosine between a vector and its decoding = %v, want ≥ 0.999", worst)
			}
		})
	}
}

func TestVectorRoundTripEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    []float32
	}{
		{"empty", []float32{}},
		{"zero", []float32{0, 0, 0, 0}},
		{"one", []float32{1}},
		{"one negative", []float32{-0.25}},
		{"tiny", []float32{1e-38, -1e-38}},
		{"huge", []float32{3e38, -1e38}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := embed.EncodeVector(tc.v)
			if len(b)%4 != 1 {
				t.Fatalf("EncodeVector(%v) has %d bytes, want the int8 form (1 mod 4)", tc.v, len(b))
			}
			got, err := embed.DecodeVector(b)
			if err != nil {
				t.Fatalf("DecodeVector: %v", err)
			}
			// The largest element is exact (±127·scale), the rest within
			// half a step.
			var m float64
			for _, x := range tc.v {
				m = max(m, math.Abs(float64(x)))
			}
			if diff := cmp.Diff(tc.v, got, cmpopts.EquateApprox(0, m/254*1.0001), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVectorRoundTripFloat32Fallback checks that vectors int8 cannot hold
// are stored exactly in the float32 form.
func TestVectorRoundTripFloat32Fallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    []float32
	}{
		{"inf", []float32{float32(math.Inf(1)), 0.5}},
		{"minus inf", []float32{float32(math.Inf(-1)), float32(math.Copysign(0, -1))}},
		{"nan", []float32{float32(math.NaN()), 1}},
		{"denormal underflow", []float32{math.SmallestNonzeroFloat32, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := embed.EncodeVector(tc.v)
			if len(b) != 4*len(tc.v) {
				t.Fatalf("EncodeVector(%v) has %d bytes, want the float32 form (%d)", tc.v, len(b), 4*len(tc.v))
			}
			got, err := embed.DecodeVector(b)
			if err != nil {
				t.Fatalf("DecodeVector: %v", err)
			}
			// Compare bit patterns so -0 and +0, and NaNs, are told apart.
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

// TestEncodeVectorLayout pins the int8 form byte by byte.
func TestEncodeVectorLayout(t *testing.T) {
	t.Parallel()
	// Three dimensions need one byte of padding (tag 0xC1); the scale is
	// 1/127 = 0x3c010204; -0.5·127 = -63.5 rounds to even, -64 = 0xc0.
	got := embed.EncodeVector([]float32{1, -0.5, 0})
	want := []byte{0xc1, 0x04, 0x02, 0x01, 0x3c, 0x7f, 0xc0, 0x00, 0x00}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EncodeVector mismatch (-want +got):\n%s", diff)
	}
}

// TestDecodeVectorFloat32Form reads blobs in the float32 form that indexes
// written before the int8 form hold.
func TestDecodeVectorFloat32Form(t *testing.T) {
	t.Parallel()
	// 1.0 is 0x3f800000; -2.0 is 0xc0000000; 0.6 is 0x3f19999a.
	blob := []byte{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x9a, 0x99, 0x19, 0x3f}
	got, err := embed.DecodeVector(blob)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float32{1, -2, 0.6}, got); diff != "" {
		t.Errorf("DecodeVector mismatch (-want +got):\n%s", diff)
	}
	if got, err := embed.DecodeVector(nil); err != nil || len(got) != 0 {
		t.Errorf("DecodeVector(nil) = %v, %v; want an empty vector", got, err)
	}
}

func TestDecodeVectorMalformed(t *testing.T) {
	t.Parallel()
	scale := func(f float32) []byte {
		return []byte{byte(math.Float32bits(f)), byte(math.Float32bits(f) >> 8), byte(math.Float32bits(f) >> 16), byte(math.Float32bits(f) >> 24)}
	}
	blob := func(tag byte, s float32, rest ...byte) []byte {
		return append(append([]byte{tag}, scale(s)...), rest...)
	}
	tests := []struct {
		name string
		b    []byte
	}{
		{"2 bytes", make([]byte, 2)},
		{"3 bytes", make([]byte, 3)},
		{"6 bytes", blob(0xc0, 1, 0)},
		{"7 bytes", blob(0xc0, 1, 0, 0)},
		{"1 byte", []byte{0xc0}},
		{"untagged", blob(0x00, 1, 1, 2, 3, 4)},
		{"other tag", blob(0x40, 1, 1, 2, 3, 4)},
		{"padding longer than the blob", blob(0xc3, 1)},
		{"non-zero padding", blob(0xc3, 1, 5, 0, 0, 1)},
		{"negative scale", blob(0xc0, -1, 1, 2, 3, 4)},
		{"nan scale", blob(0xc0, float32(math.NaN()), 1, 2, 3, 4)},
		{"infinite scale", blob(0xc0, float32(math.Inf(1)), 1, 2, 3, 4)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if v, err := embed.DecodeVector(tc.b); !errors.Is(err, embed.ErrBadVector) {
				t.Errorf("DecodeVector(% x) = %v, %v; want ErrBadVector", tc.b, v, err)
			}
			if q, s, ok := embed.Int8View(tc.b); ok {
				t.Errorf("Int8View(% x) = %v, %v, true; want not ok", tc.b, q, s)
			}
		})
	}
}

// TestInt8View: the view of an int8 blob decodes to what DecodeVector
// returns, and a float32-form blob is not viewed.
func TestInt8View(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	for _, dims := range []int{1, 3, 64, 255, 256} {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		b := embed.EncodeVector(v)
		want, err := embed.DecodeVector(b)
		if err != nil {
			t.Fatal(err)
		}
		q, scale, ok := embed.Int8View(b)
		if !ok || len(q) != dims {
			t.Fatalf("Int8View of a %d-dim int8 blob: %d elements, ok %v", dims, len(q), ok)
		}
		for i := range q {
			if got := float32(q[i]) * scale; got != want[i] {
				t.Fatalf("dims %d element %d: view decodes to %v, DecodeVector to %v", dims, i, got, want[i])
			}
		}
	}
	nan := []float32{1, float32(math.NaN())}
	if _, _, ok := embed.Int8View(embed.EncodeVector(nan)); ok {
		t.Error("Int8View viewed a float32-form blob")
	}
}

func TestQuantize(t *testing.T) {
	t.Parallel()
	q := make([]int8, 4)
	if s := embed.Quantize([]float32{0.5, -0.25, 0.125, 0}, q); s != 0.5/127 {
		t.Errorf("scale = %v, want %v", s, 0.5/127)
	}
	if diff := cmp.Diff([]int8{127, -64, 32, 0}, q); diff != "" {
		// -0.25·254 = -63.5 and 0.125·254 = 31.75.
		t.Errorf("Quantize mismatch (-want +got):\n%s", diff)
	}
	if s := embed.Quantize([]float32{0, 0, 0, 0}, q); s != 0 || q[0] != 0 {
		t.Errorf("zero vector: scale %v, q %v; want 0 and zeros", s, q)
	}
	if s := embed.Quantize([]float32{1, float32(math.NaN()), 0, 0}, q); s >= 0 {
		t.Errorf("NaN: scale %v, want negative", s)
	}
}
