//go:build !amd64 || purego

package static

// hasAxpyInt8 is false: rows are added in Go.
const hasAxpyInt8 = false

func axpyInt8AVX2(dst *float32, a float32, x *int8, n int) {
	panic("static: no int8 axpy kernel on this platform")
}
