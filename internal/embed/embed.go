// Package embed holds the embedding contract ([Provider]), the
// content-addressed cache key ([CacheKey]), batching ([Batch]) and the
// vector helpers the rest of the pipeline shares ([Normalize], [Dot],
// [EncodeVector], [DecodeVector]); providers live in sub-packages
// (embed/ollama, embed/openai) and a deterministic fake for tests in
// embed/embedtest. The pieces every remote provider needs alike live here
// too: its request loop ([InBatches]), learned-then-enforced dimensions
// ([DimsChecker]) and instruction prefixes ([Prefixes]).
//
// Invariants: every vector a provider returns has [Model].Dims float32s
// and unit L2 length (or is all zeros), so a dot product is a cosine
// similarity; vectors of two model identities are never mixed.
package embed

import (
	"context"
	"errors"
	"fmt"
)

// InputKind tells a provider whether texts are queries or documents; some
// models embed the two differently (instruction prefixes, asymmetric heads).
type InputKind int

const (
	// Document is a chunk of code or text being indexed.
	Document InputKind = iota
	// Query is a search query.
	Query
)

// Model is the identity of an embedding model. Vectors of two different
// identities are never compared or mixed in one index.
type Model struct {
	// Provider is the provider name: "ollama", "openai", "builtin", "fake".
	Provider string
	// Name is the provider's model name, e.g. "nomic-embed-text".
	Name string
	// Dims is the vector length.
	Dims int
}

// String returns "provider/name@dims", the stored identity.
func (m Model) String() string { return fmt.Sprintf("%s/%s@%d", m.Provider, m.Name, m.Dims) }

// Provider embeds batches of texts. It is the one plug-in contract of the
// semantic layer.
type Provider interface {
	// Embed returns one vector of Model().Dims float32s per text, in order.
	// Errors: [ErrRateLimited] after retries are exhausted, [ErrDimension]
	// when the service returns vectors of another length, or a wrapped
	// transport or decoding error.
	Embed(ctx context.Context, texts []string, kind InputKind) ([][]float32, error)
	// Model reports the model identity.
	Model() Model
}

// ErrRateLimited is returned when a provider keeps answering 429 after all
// retries.
var ErrRateLimited = errors.New("embedding provider rate limit")

// ErrDimension is returned when a provider's vectors do not have the
// configured length.
var ErrDimension = errors.New("embedding dimension mismatch")
