package static

import (
	"context"
	"sync"

	"github.com/ctx-dev/ctx/internal/embed"
)

var _ embed.Provider = (*Provider)(nil)

// Provider serves a [Model] as an [embed.Provider]. It is safe for
// concurrent use: the model is immutable and each call has its own
// scratch buffers.
type Provider struct {
	m     *Model
	model embed.Model
}

// New returns a provider for m. Its identity is {Provider: "model2vec"
// for a model from [LoadModel2Vec], else "static"; Name:
// "<name>@<checksum>"; Dims}, so swapping the weights changes the
// identity and an index built with other weights is seen as stale. An
// empty name means the model's own.
func New(m *Model, name string) *Provider {
	if name == "" {
		name = m.id.Name
	}
	return &Provider{m: m, model: embed.Model{Provider: m.format, Name: name + "@" + m.id.Checksum, Dims: m.mat.Dims}}
}

// Model reports the model identity.
func (p *Provider) Model() embed.Model { return p.model }

// Embed returns one vector per text, in order, as [Model.Embed] computes
// it but always unit length (the [embed.Provider] contract), whatever the
// model's "normalize" setting. A text with no known token (empty, only
// punctuation the vocabulary lacks, only unknown words) gets the zero
// vector. kind does not change the vector. Embed checks ctx between
// texts. It allocates two slices per call whatever the number of texts:
// the vectors share one backing array, and one pooled scratch serves
// every text.
func (p *Provider) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	d := p.m.mat.Dims
	out := make([][]float32, len(texts))
	back := make([]float32, len(texts)*d)
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := back[i*d : (i+1)*d : (i+1)*d]
		p.m.embedInto(v, s, t)
		if !p.m.normalize {
			embed.Normalize(v)
		}
		out[i] = v
	}
	return out, nil
}

// scratchPool recycles scratches between calls; embedInto leaves a
// scratch's bag empty, so any pooled scratch is ready for use.
var scratchPool = sync.Pool{New: func() any { return newScratch() }}
