package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Normalize scales v in place to unit L2 length, so that [Dot] of two
// normalised vectors is their cosine similarity. A zero vector stays zero.
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// Dot returns the dot product of a and b, which is their cosine similarity
// when both are normalised. It is the inner loop of vector search: it
// allocates nothing and sums four lanes at a time.
//
// Dot panics if a and b differ in length: vectors of one index share the
// model's dimensions, which [Batch], the providers and the readers of
// stored vectors check at their boundaries, so a mismatch here is a
// programming error.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("embed.Dot: vectors of length %d and %d", len(a), len(b)))
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		// Re-slicing to 4 lets the compiler drop the bounds checks.
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// DotInt8 returns the dot product of q with the vector whose int8
// elements are x and whose scale is scale (element i is
// float32(x[i])*scale, as [Quantize] makes them): the sum of q[i]·x[i],
// then times scale. For a unit q it is the cosine similarity up to
// quantisation. It is the one formula every reader of stored int8 rows
// scores them by, so the local store and a remote one agree to the bit.
// It panics if q and x differ in length, as [Dot] does.
func DotInt8(q []float32, x []int8, scale float32) float32 {
	if len(q) != len(x) {
		panic(fmt.Sprintf("embed.DotInt8: vectors of length %d and %d", len(q), len(x)))
	}
	var s float32
	for j, e := range x {
		s += q[j] * float32(e)
	}
	return s * scale
}

// Stored vector blobs. A blob is one of two forms, told apart by its
// length alone (no form is a prefix or reinterpretation of the other):
//
//   - int8 form, written by [EncodeVector]: len(blob) % 4 == 1.
//     byte 0 is a tag, 0xC0|pad, where pad (0..3) is the number of zero
//     bytes appended at the end to make the length 1 mod 4;
//     bytes 1..4 are the scale, a float32 (IEEE 754 binary32, little-endian);
//     then one int8 per dimension; then pad zero bytes.
//     Element i decodes to float32(q[i]) * scale. Size: dims + 5 bytes,
//     rounded up to 1 mod 4 (261 bytes for 256 dimensions, against 1024).
//   - float32 form, written by ctx before the int8 form existed and still
//     by EncodeVector for a vector holding NaN, ±Inf or values too small to
//     scale: len(blob) % 4 == 0, one little-endian float32 per dimension.
//
// Any other length, tag or non-zero padding is an [ErrBadVector].
const (
	int8Tag     = 0xC0 // the high six bits of an int8 blob's tag byte
	int8TagMask = 0xFC // selects them; the low two bits are the pad count
	int8Header  = 5    // tag byte + float32 scale
)

// ErrBadVector is returned by [DecodeVector] for a blob that is neither
// form of a stored vector (truncated, corrupt, or not a vector).
var ErrBadVector = errors.New("malformed vector blob")

// Quantize writes the symmetric int8 quantisation of v into q (which must
// have len(v) elements) and returns its scale: q[i] = round(v[i]·127/m) and
// scale = m/127, where m = max|v[i]|, so float32(q[i])*scale is within
// scale/2 of v[i]. The error vector of a unit vector of d dimensions is
// thus at most sqrt(d)/254 long and the cosine between v and its decoding
// at least sqrt(1 - d/254²) (0.992 at d = 1024); for the Gaussian-like
// elements of real embeddings it is above 0.9999 (the worst of 200 random
// unit vectors of each of 64..1024 dimensions in the tests is 0.99993).
//
// Quantize returns 0 and leaves q zero when v is all zeros. It returns a
// negative scale, and leaves q unspecified, when v holds NaN or ±Inf or
// when m/127 underflows float32: the vectors int8 cannot represent.
// Quantize panics if len(q) != len(v), a programming error.
func Quantize(v []float32, q []int8) float32 {
	if len(q) != len(v) {
		panic(fmt.Sprintf("embed.Quantize: %d values into %d bytes", len(v), len(q)))
	}
	var m float32
	for _, x := range v {
		if x != x || math.IsInf(float64(x), 0) {
			return -1
		}
		m = max(m, float32(math.Abs(float64(x))))
	}
	clear(q)
	if m == 0 {
		return 0
	}
	scale := m / 127
	if scale == 0 {
		return -1
	}
	inv := 127 / float64(m)
	for i, x := range v {
		// |x|·127/m ≤ 127, so the rounded value always fits an int8.
		q[i] = int8(math.RoundToEven(float64(x) * inv))
	}
	return scale
}

// EncodeVector returns the stored blob of v: the int8 form (see
// [ErrBadVector] for both layouts) quantised by [Quantize], or the float32
// form when v holds values int8 cannot represent. [DecodeVector] reverses
// it, exactly for the float32 form and within Quantize's error bound for
// the int8 form.
func EncodeVector(v []float32) []byte {
	q := make([]int8, len(v))
	scale := Quantize(v, q)
	if scale < 0 {
		return encodeFloat32(v)
	}
	return EncodeInt8(q, scale)
}

// EncodeInt8 returns the int8-form blob of elements q and scale (as
// [Quantize] makes them; scale ≥ 0): what [EncodeVector] stores for a
// vector that quantises to them, and what [Int8View] reads back exactly.
func EncodeInt8(q []int8, scale float32) []byte {
	pad := (4 - len(q)%4) % 4 // makes int8Header+len(q)+pad ≡ 1 (mod 4)
	b := make([]byte, int8Header+len(q)+pad)
	b[0] = int8Tag | byte(pad)
	binary.LittleEndian.PutUint32(b[1:], math.Float32bits(scale))
	for i, x := range q {
		b[int8Header+i] = byte(x)
	}
	return b
}

// encodeFloat32 returns v in the float32 form: len(v)*4 bytes, each
// float32 little-endian, in order.
func encodeFloat32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Int8View returns the int8 elements (a view of b, not a copy) and the
// scale of a well-formed int8-form blob, and ok false for anything else
// (a float32-form blob, or a malformed one: [DecodeVector] reports why).
// Element i is float32(q[i])*scale, as DecodeVector would decode it; a
// reader that keeps int8 rows copies them instead of decoding and
// quantising again.
func Int8View(b []byte) (q []int8, scale float32, ok bool) {
	if len(b)%4 != 1 || len(b) < int8Header || b[0]&int8TagMask != int8Tag {
		return nil, 0, false
	}
	pad := int(b[0] &^ int8TagMask)
	n := len(b) - int8Header - pad
	if n < 0 {
		return nil, 0, false
	}
	for _, x := range b[int8Header+n:] {
		if x != 0 {
			return nil, 0, false
		}
	}
	scale = math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))
	if !(scale >= 0) || math.IsInf(float64(scale), 0) {
		return nil, 0, false
	}
	if n == 0 {
		return []int8{}, scale, true
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[int8Header])), n), scale, true
}

// DecodeVector parses a blob in either stored form (see [ErrBadVector] for
// the layouts) into a new slice that does not alias b. Errors wrap
// [ErrBadVector] and name the length and the fault. Callers that know the
// model should also check the result's length against [Model].Dims.
func DecodeVector(b []byte) ([]float32, error) {
	switch len(b) % 4 {
	case 0:
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	case 1:
		if len(b) < int8Header {
			return nil, fmt.Errorf("decoding vector: %w: %d bytes is shorter than the int8 header", ErrBadVector, len(b))
		}
		tag := b[0]
		if tag&int8TagMask != int8Tag {
			return nil, fmt.Errorf("decoding vector: %w: %d bytes with tag %#x, want an int8 tag", ErrBadVector, len(b), tag)
		}
		pad := int(tag &^ int8TagMask)
		n := len(b) - int8Header - pad
		if n < 0 {
			return nil, fmt.Errorf("decoding vector: %w: %d bytes cannot hold %d bytes of padding", ErrBadVector, len(b), pad)
		}
		for _, x := range b[int8Header+n:] {
			if x != 0 {
				return nil, fmt.Errorf("decoding vector: %w: %d bytes with non-zero padding", ErrBadVector, len(b))
			}
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))
		if !(scale >= 0) || math.IsInf(float64(scale), 0) {
			return nil, fmt.Errorf("decoding vector: %w: %d bytes with scale %v", ErrBadVector, len(b), scale)
		}
		v := make([]float32, n)
		for i, x := range b[int8Header : int8Header+n] {
			v[i] = float32(int8(x)) * scale
		}
		return v, nil
	}
	return nil, fmt.Errorf("decoding vector: %w: %d bytes is neither 0 nor 1 mod 4", ErrBadVector, len(b))
}
