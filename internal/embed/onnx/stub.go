//go:build !onnx

package onnx

import (
	"context"

	"github.com/ctx-dev/ctx/internal/embed"
)

var _ embed.Provider = (*Provider)(nil)

// Provider is the ONNX embedding provider; in a ctx built without the onnx
// build tag it cannot be created.
type Provider struct{}

// New returns [ErrNotBuilt]: this ctx was built without the onnx build
// tag.
func New(opts Options) (*Provider, error) { return nil, ErrNotBuilt }

// Embed returns [ErrNotBuilt].
func (p *Provider) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	return nil, ErrNotBuilt
}

// Model returns the zero identity.
func (p *Provider) Model() embed.Model { return embed.Model{} }

// Close does nothing.
func (p *Provider) Close() error { return nil }
