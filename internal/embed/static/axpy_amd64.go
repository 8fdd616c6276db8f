//go:build amd64 && !purego

package static

import "golang.org/x/sys/cpu"

// hasAxpyInt8 reports whether axpyInt8 runs the AVX2 kernel.
var hasAxpyInt8 = cpu.X86.HasAVX2

// axpyInt8AVX2 adds a·x[i] to dst[i] for i < n, eight lanes at a time: each
// int8 widened to int32, converted to float32, multiplied by a and added,
// in that order, so the sums are the same bits as the Go loop's (the Go
// compiler does not fuse the multiply and add on amd64). n must be a
// positive multiple of 8.
//
//go:noescape
func axpyInt8AVX2(dst *float32, a float32, x *int8, n int)
