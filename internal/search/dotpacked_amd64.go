//go:build amd64 && !purego

package search

import "golang.org/x/sys/cpu"

// hasDotPacked reports whether dotPacked runs the assembly kernel: AVX2
// for the 16-bit products and BMI2 for PDEP.
var hasDotPacked = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// dotPackedRowsAVX2 writes to dots[j] the dot product of q (16·blocks
// int16) with row rows[j] for j < n: the packed row at packed +
// rows[j]·rowBytes (14·blocks bytes of 7-bit magnitudes, see [packRow])
// and its sign bits at signs + rows[j]·signBytes (2·blocks bytes used,
// the row's sign words in little-endian order), prefetching the row eight
// places on. Every rows[j] must be a row of the two arrays, and
// blocks > 0.
//
//go:noescape
func dotPackedRowsAVX2(q *int16, packed *byte, signs *byte, rows *int32, dots *int32, n int, rowBytes int, signBytes int, blocks int)

// hasHamming4 reports whether hamming4 runs the AVX-512 kernel.
var hasHamming4 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ

// hammingAVX512 writes the Hamming distances of 2·pairs rows of four sign
// words (signs) to q's four words into ham, and counts them: the first
// row of each pair in count, the second in count2 (each 257 entries).
//
//go:noescape
func hammingAVX512(signs *uint64, q *uint64, ham *uint16, count *int32, count2 *int32, pairs int)
