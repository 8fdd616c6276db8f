package search

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestDotPacked checks the packed-row kernel against unpacking the row and
// taking the int8 dot product in Go, on random rows and queries and on the
// extremes: every magnitude 127 against a query of ±32767, the largest
// [scratch.prepare] makes.
func TestDotPacked(t *testing.T) {
	if !hasDotPacked {
		t.Skip("no packed-row kernel on this platform or CPU")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dims := range []int{16, 32, 256, 1024} {
		words := (dims + 63) / 64
		for trial := range 200 {
			row := make([]int8, dims)
			q32 := make([]int32, dims)
			qmax := int32(min(32767, (1<<31-1)/(127*dims)))
			for j := range row {
				switch trial {
				case 0:
					row[j], q32[j] = 127, qmax
				case 1:
					row[j], q32[j] = -127, qmax
				case 2:
					row[j] = 127
					q32[j] = qmax
					if j%2 == 1 {
						row[j], q32[j] = -127, -qmax
					}
				default:
					row[j] = int8(rng.IntN(255) - 127)
					q32[j] = rng.Int32N(2*qmax+1) - qmax
				}
			}
			packed := make([]byte, packedRowBytes(dims))
			packRow(packed, row)
			signs := make([]uint64, words)
			setSigns(signs, row)
			got := dotPacked(q16Of(q32), packed, signs)
			unpacked := make([]int8, dims)
			unpackRow(unpacked, packed, signs)
			if want := dotInt8(q32, unpacked); got != want {
				t.Fatalf("dims %d, trial %d: kernel %d, Go %d", dims, trial, got, want)
			}
		}
	}
}

// TestDotPackedRows checks the kernel on lists of rows against scoring
// each row alone, in any order and with repeats, for lists shorter and
// longer than its prefetch distance.
func TestDotPackedRows(t *testing.T) {
	if !hasDotPacked {
		t.Skip("no packed-row kernel on this platform or CPU")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range []int{16, 80, 256} {
		const n = 300
		words := (dims + 63) / 64
		pb := packedRowBytes(dims)
		packed := make([]byte, n*pb)
		signs := make([]uint64, n*words)
		row := make([]int8, dims)
		for i := range n {
			for j := range row {
				row[j] = int8(rng.IntN(255) - 127)
			}
			packRow(packed[i*pb:(i+1)*pb], row)
			setSigns(signs[i*words:(i+1)*words], row)
		}
		q := make([]int16, dims)
		for j := range q {
			q[j] = int16(rng.IntN(2001) - 1000)
		}
		for _, m := range []int{1, 7, 8, 9, 64, 2 * n} {
			rows := make([]int32, m)
			for j := range rows {
				rows[j] = int32(rng.IntN(n))
			}
			rows[m-1] = n - 1 // the last row: its bytes end the arrays
			dots := make([]int32, m)
			dotPackedRowsAVX2(&q[0], &packed[0], (*byte)(unsafe.Pointer(&signs[0])), &rows[0], &dots[0], m, pb, 8*words, dims/16)
			for j, r := range rows {
				want := dotPacked(q, packed[int(r)*pb:(int(r)+1)*pb], signs[int(r)*words:(int(r)+1)*words])
				if dots[j] != want {
					t.Fatalf("dims %d, %d rows: row %d (list place %d) scored %d, alone %d", dims, m, r, j, dots[j], want)
				}
			}
		}
	}
}

func q16Of(q32 []int32) []int16 {
	q := make([]int16, len(q32))
	for i, x := range q32 {
		q[i] = int16(x)
	}
	return q
}

// dotPacked calls the kernel on one row.
func dotPacked(q []int16, packed []byte, signs []uint64) int32 {
	var row, dot int32
	dotPackedRowsAVX2(&q[0], &packed[0], (*byte)(unsafe.Pointer(&signs[0])), &row, &dot, 1, len(packed), 8*len(signs), len(q)/16)
	return dot
}

// TestHammingKernel checks the AVX-512 Hamming kernel against popcounts
// in Go: every distance and both histograms, on random sign words and on
// rows equal to and opposite the query (distances 0 and 256).
func TestHammingKernel(t *testing.T) {
	if !hasHamming4 {
		t.Skip("no Hamming kernel on this platform or CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	q := []uint64{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
	const pairs = 500
	signs := make([]uint64, 8*pairs)
	for i := range signs {
		signs[i] = rng.Uint64() & rng.Uint64() // popcounts off centre
	}
	copy(signs[0:4], q)
	for w := range 4 {
		signs[12+w] = ^q[w]
	}
	ham := make([]uint16, 2*pairs)
	var c1, c2 [257]int32
	hammingAVX512(&signs[0], &q[0], &ham[0], &c1[0], &c2[0], pairs)
	var w1, w2 [257]int32
	for i := range 2 * pairs {
		h := 0
		for w := range 4 {
			h += bits.OnesCount64(signs[4*i+w] ^ q[w])
		}
		if int(ham[i]) != h {
			t.Fatalf("row %d: kernel %d, Go %d", i, ham[i], h)
		}
		if i%2 == 0 {
			w1[h]++
		} else {
			w2[h]++
		}
	}
	if ham[0] != 0 || ham[3] != 256 {
		t.Fatalf("equal and opposite rows: %d and %d, want 0 and 256", ham[0], ham[3])
	}
	if c1 != w1 || c2 != w2 {
		t.Fatal("histograms differ from Go's")
	}
}

// TestRowsWithin checks the branch-free filter against a plain one, at
// the edges of the distance range and with empty ranges.
func TestRowsWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ham := make([]uint16, 3000)
	for i := range ham {
		ham[i] = uint16(rng.IntN(257))
	}
	ham[0], ham[1] = 0, 256
	var buf []int32
	for _, r := range [][2]int{{0, 0}, {0, 100}, {0, 256}, {1, 256}, {101, 140}, {128, 128}, {200, 199}, {256, 256}, {257, 300}} {
		lo, hi := r[0], r[1]
		var want []int32
		for i, h := range ham {
			if int(h) >= lo && int(h) <= hi {
				want = append(want, int32(i))
			}
		}
		buf = rowsWithin(buf, ham, lo, hi, len(want))
		if !slices.Equal(buf, want) {
			t.Fatalf("[%d, %d]: %d rows, want %d", lo, hi, len(buf), len(want))
		}
	}
}
