package search

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

func TestPackRowRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dims := range []int{1, 7, 8, 9, 63, 64, 65, 200, 256, 300} {
		q := make([]int8, dims)
		for j := range q {
			q[j] = int8(rng.IntN(255) - 127)
		}
		// The extremes and zero at fixed places.
		q[0] = -127
		if dims > 2 {
			q[1], q[2] = 127, 0
		}
		signs := make([]uint64, (dims+63)/64)
		setSigns(signs, q)
		packed := make([]byte, packedRowBytes(dims))
		packRow(packed, q)
		got := make([]int8, dims)
		unpackRow(got, packed, signs)
		if !slices.Equal(got, q) {
			t.Errorf("dims %d: unpacked %v, want %v", dims, got, q)
		}
	}
}

func TestPackRowClampsMinus128(t *testing.T) {
	t.Parallel()
	q := []int8{-128, 5, -128, 0, 1, 2, 3, 4, -128}
	signs := make([]uint64, 1)
	setSigns(signs, q)
	packed := make([]byte, packedRowBytes(len(q)))
	packRow(packed, q)
	got := make([]int8, len(q))
	unpackRow(got, packed, signs)
	want := []int8{-127, 5, -127, 0, 1, 2, 3, 4, -127}
	if !slices.Equal(got, want) {
		t.Errorf("unpacked %v, want %v", got, want)
	}
}

func TestVectorFileRowAndHas(t *testing.T) {
	t.Parallel()
	r, _ := clusteredRows(rand.New(rand.NewPCG(9, 1)), 40, 64)
	v := r.quantised()
	path := filepath.Join(t.TempDir(), "x.db.vec")
	if err := WriteVectorFile(path, "m", v); err != nil {
		t.Fatal(err)
	}
	got, err := ReadVectorFile(path, "m", 64, v.Generation)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range v.ids {
		q, scale, ok := got.Row(id)
		if !ok || !got.Has(id) {
			t.Fatalf("chunk %d: Row ok %v, Has %v; want both true", id, ok, got.Has(id))
		}
		if want := v.rows[i*64 : (i+1)*64]; !slices.Equal(q, want) || scale != v.scales[i] {
			t.Errorf("chunk %d: Row = %v, %v; want %v, %v", id, q, scale, want, v.scales[i])
		}
	}
	missing := v.ids[len(v.ids)-1] + 1
	if _, _, ok := got.Row(missing); ok || got.Has(missing) {
		t.Errorf("chunk %d (not written): Row or Has reports a row", missing)
	}
}

// BenchmarkUnpackRow is the cost a rescored row of a vector file adds:
//
//	go test -run='^$' -bench='PackRow' -count=5 ./internal/search
func BenchmarkUnpackRow(b *testing.B) {
	q, signs, packed := benchPackedRow()
	dst := make([]int8, len(q))
	for b.Loop() {
		unpackRow(dst, packed, signs)
	}
}

// BenchmarkPackRow is what writing a row of a vector file adds.
func BenchmarkPackRow(b *testing.B) {
	q, _, packed := benchPackedRow()
	for b.Loop() {
		packRow(packed, q)
	}
}

func benchPackedRow() ([]int8, []uint64, []byte) {
	rng := rand.New(rand.NewPCG(3, 4))
	q := make([]int8, 256)
	for j := range q {
		q[j] = int8(rng.IntN(255) - 127)
	}
	signs := make([]uint64, 4)
	setSigns(signs, q)
	packed := make([]byte, packedRowBytes(len(q)))
	packRow(packed, q)
	return q, signs, packed
}
