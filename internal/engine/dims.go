package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

// dimsAssumer is a provider whose vector length may be learned from its
// first response (ollama, openai with Dims 0) and can instead be told it.
type dimsAssumer interface {
	// AssumeDims fixes the length to n when it is not known yet; the
	// provider then holds every response to it.
	AssumeDims(n int)
}

// storedDims gives a provider that does not know its vector length yet the
// length recorded in the index (the model identity under
// [store.MetaEmbedModel], "provider/name@dims"), when that identity is this
// provider's model. Queries and lookups use it so they never call the
// provider to compute the index identity: only building an index probes
// it ([Engine.ensureDims]). An index of another model leaves the length
// unknown, and the identity check then reports the index as stale, as it
// is.
func (e *Engine) storedDims(ctx context.Context, db *store.DB) error {
	if e.emb == nil || e.emb.Model().Dims > 0 {
		return nil
	}
	p, ok := e.emb.(dimsAssumer)
	if !ok {
		return nil
	}
	stored, err := db.Meta(ctx, store.MetaEmbedModel)
	if err != nil {
		return err
	}
	if n, ok := modelDims(stored, e.emb.Model()); ok {
		p.AssumeDims(n)
	}
	return nil
}

// modelDims returns the dimensions in a stored model identity (see
// [embed.Model.String]) when it names m's provider and model.
func modelDims(stored string, m embed.Model) (int, bool) {
	rest, ok := strings.CutPrefix(stored, m.Provider+"/"+m.Name+"@")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}
