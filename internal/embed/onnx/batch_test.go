package onnx

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewBatch(t *testing.T) {
	t.Parallel()
	b := newBatch([][]int32{{2, 5, 3}, {2, 3}, {}}, 9)
	want := batch{
		n: 3, seq: 3,
		ids:   []int64{2, 5, 3, 2, 3, 9, 9, 9, 9},
		mask:  []int64{1, 1, 1, 1, 1, 0, 0, 0, 0},
		types: []int64{0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	if diff := cmp.Diff(want, b, cmp.AllowUnexported(batch{})); diff != "" {
		t.Errorf("newBatch (-want +got):\n%s", diff)
	}
	if b := newBatch([][]int32{{}}, 0); b.seq != 1 || b.mask[0] != 0 {
		t.Errorf("batch of an empty sequence: seq %d, mask %v; want 1, [0]", b.seq, b.mask)
	}
}

func TestPool(t *testing.T) {
	t.Parallel()
	b := newBatch([][]int32{{1, 2, 3}, {1, 2}, {}}, 0)
	// hidden[i][j] is the vector of token j of sequence i; padded
	// positions hold junk that pooling must ignore.
	hidden := []float32{
		3, 0, 1, 4, 2, 0, // sequence 0: (3,0) (1,4) (2,0)
		0, 2, 0, 1, 99, 99, // sequence 1: (0,2) (0,1), pad
		99, 99, 99, 99, 99, 99, // sequence 2: all pad
	}
	norm := float32(math.Sqrt(6*6 + 4*4))
	tests := []struct {
		name string
		i    int
		cls  bool
		want []float32
	}{
		{"mean", 0, false, []float32{6 / norm, 4 / norm}}, // sum (6,4)
		{"mean padded", 1, false, []float32{0, 1}},        // sum (0,3)
		{"cls", 0, true, []float32{1, 0}},
		{"cls padded", 1, true, []float32{0, 1}},
		{"empty", 2, false, []float32{0, 0}},
		{"empty cls", 2, true, []float32{0, 0}},
	}
	for _, tt := range tests {
		got := make([]float32, 2)
		b.pool(got, hidden, tt.i, tt.cls)
		if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float32) bool { return a-b < 1e-6 && b-a < 1e-6 })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
