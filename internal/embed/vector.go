package embed

import (
	"encoding/binary"
	"fmt"
	"math"
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

// EncodeVector returns v as a blob of len(v)*4 bytes: each float32 in IEEE
// 754 binary32, little-endian, in order. It is the on-disk form of a vector;
// [DecodeVector] reverses it.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector parses a blob written by [EncodeVector]. It returns an error
// when the blob's length is not a multiple of 4. The result does not alias
// b. Callers that know the model should also check the length against
// [Model].Dims.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("decoding vector: %d bytes is not a multiple of 4", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
