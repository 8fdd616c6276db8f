package embed

import "crypto/sha256"

// CacheKey returns the content-addressed key of the embedding of text by
// model m: the SHA-256 digest of m.String() ("provider/name@dims"), a zero
// byte, and text.
//
// The key covers everything that determines the vector, so the cache never
// needs invalidating: re-indexing, switching branches or reverting a change
// finds the vectors of text it has seen before, and a change of provider,
// model or dimensions yields new keys instead of mixing vectors of two
// models. The zero byte separates the identity from the text, so no pair
// of (identity, text) can produce the bytes of another pair.
func CacheKey(m Model, text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(m.String()))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var key [32]byte
	h.Sum(key[:0])
	return key
}
