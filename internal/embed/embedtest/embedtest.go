// Package embedtest provides [Fake], a deterministic [embed.Provider] for
// tests: no network, no model files, the same vector for the same text on
// every run and machine.
//
// Fake is a feature-hashing embedder. Each lower-cased word of a text (a
// maximal run of letters and digits) is hashed with 64-bit FNV-1a into one
// of Dims buckets with a sign taken from the hash, and the sum is
// normalised. Texts that share words therefore get similar vectors and
// texts with no words in common get near-orthogonal ones, which is enough
// for search tests to rank a chunk that mentions the query's words first.
package embedtest

import (
	"context"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/ctx-dev/ctx/internal/embed"
)

var _ embed.Provider = (*Fake)(nil)

// Fake is a deterministic, hash-based [embed.Provider] that counts its work.
// It is safe for concurrent use.
type Fake struct {
	model embed.Model
	calls atomic.Int64
	texts atomic.Int64

	mu  sync.Mutex // guards err
	err error
}

// New returns a Fake whose vectors have dims float32s and whose model
// identity is {Provider: "fake", Name: "hash", Dims: dims}. It panics if
// dims is not positive.
func New(dims int) *Fake {
	if dims <= 0 {
		panic("embedtest.New: dims must be positive")
	}
	return &Fake{model: embed.Model{Provider: "fake", Name: "hash", Dims: dims}}
}

// Model reports {Provider: "fake", Name: "hash", Dims: dims}.
func (f *Fake) Model() embed.Model { return f.model }

// Embed returns one normalised vector per text, in order; kind does not
// change the vector, so a query and a document with the same words match
// exactly. A text with no letters or digits gets the zero vector.
//
// Embed counts the call and its texts, then returns the error set by
// [Fake.SetErr] if there is one, or ctx.Err() if ctx is done. Calls that
// fail still count, as a real provider's failed requests would.
func (f *Fake) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	f.calls.Add(1)
	f.texts.Add(int64(len(texts)))
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.vector(t)
	}
	return out, nil
}

// vector hashes the words of text into a normalised vector.
func (f *Fake) vector(text string) []float32 {
	v := make([]float32, f.model.Dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		// The low bits pick the bucket and the top bit the sign, so two
		// words that collide in a bucket cancel as often as they add.
		bucket := sum % uint64(len(v))
		if sum>>63 == 1 {
			v[bucket]--
		} else {
			v[bucket]++
		}
	}
	embed.Normalize(v)
	return v
}

// Calls reports how many times Embed has been called.
func (f *Fake) Calls() int { return int(f.calls.Load()) }

// Texts reports how many texts Embed has been asked to embed, summed over
// all calls. Tests use it to check that a cache avoided re-embedding.
func (f *Fake) Texts() int { return int(f.texts.Load()) }

// SetErr makes every later Embed call return err; nil restores normal
// operation. Use it to simulate an outage, e.g. SetErr(embed.ErrRateLimited).
func (f *Fake) SetErr(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}
