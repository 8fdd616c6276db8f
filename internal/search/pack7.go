package search

import (
	"encoding/binary"
	"unsafe"
)

// A vector file stores each int8 row as 7-bit magnitudes: the row's sign
// bits, which the file holds anyway for the Hamming scan, give each
// element's sign (bit set: the element is > 0, else ≤ 0), so the eighth
// bit of every element would repeat them. [embed.Quantize] makes elements
// in [-127, 127], whose magnitudes fit 7 bits. For 256 dimensions a row
// takes 224 bytes instead of 256: 3.4 MB of the Go standard library's
// 106,596 rows. Element j's magnitude occupies bits [7j, 7j+7) of the
// row, least significant bit first (little-endian).

// packedRowBytes is the bytes of one packed row of dims elements.
func packedRowBytes(dims int) int { return (7*dims + 7) / 8 }

// packRow writes q's magnitudes into dst (packedRowBytes(len(q)) bytes).
// An element of -128, which [embed.Quantize] never makes, is stored as
// -127.
func packRow(dst []byte, q []int8) {
	clear(dst)
	j := 0
	// Eight elements a step fill 7 bytes.
	for ; j+8 <= len(q); j += 8 {
		var x uint64
		for k, e := range q[j : j+8 : j+8] {
			x |= uint64(magnitude(e)) << (7 * k)
		}
		off := 7 * j / 8
		for k := range 7 {
			dst[off+k] = byte(x >> (8 * k))
		}
	}
	for ; j < len(q); j++ {
		m := magnitude(q[j])
		pos := 7 * j
		dst[pos/8] |= byte(m << (pos % 8))
		if pos%8 > 1 {
			dst[pos/8+1] |= byte(m >> (8 - pos%8))
		}
	}
}

// magnitude is |e| capped at 127.
func magnitude(e int8) int {
	m := int(e)
	if m < 0 {
		m = min(-m, 127)
	}
	return m
}

// unpackRow writes into dst (len(dst) elements) the row that src (packed
// by packRow) and its sign bits signs hold.
func unpackRow(dst []int8, src []byte, signs []uint64) {
	j := 0
	// Eight elements a step: their magnitudes are the 56 bits at byte
	// 7·j/8, their signs 8 bits of one sign word (j is a multiple of 8).
	// The magnitudes are spread to one a byte in three shifts, and the
	// bytes whose sign bit is clear negated all at once: a byte b ≤ 127
	// is negated by (0x80 - b) ^ 0x80, which never borrows from its
	// neighbour.
	for ; j+8 <= len(dst); j += 8 {
		off := 7 * j / 8
		var x uint64
		if off+8 <= len(src) {
			x = binary.LittleEndian.Uint64(src[off:])
		} else {
			for k := 6; k >= 0; k-- {
				x = x<<8 | uint64(src[off+k])
			}
		}
		x = x&0x000000000FFFFFFF | x&0x00FFFFFFF0000000<<4
		x = x&0x00003FFF00003FFF | x&0x0FFFC0000FFFC000<<2
		x = x&0x007F007F007F007F | x&0x3F803F803F803F80<<1
		const high = 0x8080808080808080
		neg := (high - x) ^ high
		pos := signBytes[byte(signs[j/64]>>(j%64))]
		y := x&pos | neg&^pos
		binary.LittleEndian.PutUint64(unsafe.Slice((*byte)(unsafe.Pointer(&dst[j])), 8), y)
	}
	for ; j < len(dst); j++ {
		pos := 7 * j
		x := uint(src[pos/8]) >> (pos % 8)
		if pos%8 > 1 {
			x |= uint(src[pos/8+1]) << (8 - pos%8)
		}
		m := int8(x & 127)
		if signs[j/64]>>(j%64)&1 == 0 {
			m = -m
		}
		dst[j] = m
	}
}

// signBytes maps 8 sign bits to 8 bytes: byte k is 0xff when bit k is set.
var signBytes = func() (t [256]uint64) {
	for s := range t {
		for k := range 8 {
			if s>>k&1 == 1 {
				t[s] |= 0xff << (8 * k)
			}
		}
	}
	return t
}()
