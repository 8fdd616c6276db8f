//go:build !amd64 || purego

package search

// hasDotPacked is false: rows are unpacked and scored in Go.
const hasDotPacked = false

func dotPackedRowsAVX2(q *int16, packed *byte, signs *byte, rows *int32, dots *int32, n int, rowBytes int, signBytes int, blocks int) {
	panic("search: no packed-row kernel on this platform")
}

// hasHamming4 is false: distances are counted in Go.
const hasHamming4 = false

func hammingAVX512(signs *uint64, q *uint64, ham *uint16, count *int32, count2 *int32, pairs int) {
	panic("search: no Hamming kernel on this platform")
}
