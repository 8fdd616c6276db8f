package embed

import "crypto/sha256"

// KeyBytes is the length of a [CacheKey]: the first 16 bytes of a SHA-256
// digest. 128 bits keep a collision between two texts improbable (about
// 10⁻¹⁸ for a billion distinct texts) at half the size of the whole digest,
// which every chunk row of an index stores (1.7 MB of the Go standard
// library's 106,596 chunks).
const KeyBytes = 16

// CacheKey returns the content-addressed key of the embedding of text by
// model m: the first [KeyBytes] bytes of the SHA-256 digest of m.String()
// ("provider/name@dims"), a zero byte, and text.
//
// The key covers everything that determines the vector, so the cache never
// needs invalidating: re-indexing, switching branches or reverting a change
// finds the vectors of text it has seen before, and a change of provider,
// model or dimensions yields new keys instead of mixing vectors of two
// models. The zero byte separates the identity from the text, so no pair
// of (identity, text) can produce the bytes of another pair.
func CacheKey(m Model, text string) [KeyBytes]byte {
	h := sha256.New()
	h.Write([]byte(m.String()))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return [KeyBytes]byte(sum[:KeyBytes])
}
