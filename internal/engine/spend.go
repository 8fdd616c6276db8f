package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/ollama"
	"github.com/ctx-dev/ctx/internal/embed/openai"
	"github.com/ctx-dev/ctx/internal/embed/voyage"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// localURL reports whether an embedding endpoint is this machine, where
// embedding costs nothing ([spend.Local]). Tests replace it to treat
// their loopback servers as remote.
var localURL = spend.Local

// embedEndpoint returns the address the configured embedding provider
// sends texts to (its default when none is set), and false for
// providers that run in-process (builtin, model2vec, onnx, none).
func embedEndpoint(c config.Embed) (string, bool) {
	switch c.Provider {
	case "openai":
		return cmp.Or(c.BaseURL, openai.DefaultBaseURL), true
	case "ollama":
		return cmp.Or(c.BaseURL, ollama.DefaultBaseURL), true
	case "voyage":
		return cmp.Or(c.BaseURL, voyage.DefaultBaseURL), true
	}
	return "", false
}

// remoteEmbed reports whether the engine's embedder is the configured
// provider and sends texts off this machine, so embedding costs money
// and the spend caps apply.
func (e *Engine) remoteEmbed() bool {
	if e.emb == nil || e.emb.Model().Provider != e.cfg.Embed.Provider {
		return false
	}
	url, ok := embedEndpoint(e.cfg.Embed)
	return ok && !localURL(url)
}

// prefixer is a provider that prepends instructions to the texts it
// sends ([embed.Prefixes]); their tokens are paid for too.
type prefixer interface {
	Prefixes() embed.Prefixes
}

// embedPrefixes returns the instructions the engine's embedder prepends,
// none when it does not say.
func (e *Engine) embedPrefixes() embed.Prefixes {
	if p, ok := e.emb.(prefixer); ok {
		return p.Prefixes()
	}
	return embed.Prefixes{}
}

// embedTokens counts the o200k_base tokens ([tokens.Count]) of texts as
// a provider with prefixes p sends them for kind.
func embedTokens(p embed.Prefixes, texts []string, kind embed.InputKind) int {
	n := 0
	for _, t := range p.Apply(texts, kind) {
		n += tokens.Count(t)
	}
	return n
}

// indexEmbedder returns the provider an index run embeds with: the
// engine's own when it is local or absent, else the same provider behind
// a [meteredEmbedder] whose meter lives as long as the run. A remote
// model with no known price is embedded at $0 with a warning: its caps
// cannot be enforced until CTX_PRICES names it.
func (e *Engine) indexEmbedder() embed.Provider {
	if !e.remoteEmbed() {
		return e.emb
	}
	name := e.emb.Model().Name
	price, ok := spend.Lookup(e.cfg.Spend, name)
	if !ok {
		e.log.Warn("price unknown for the embedding model; spend caps cannot apply (set CTX_PRICES)", "model", name)
	}
	return &meteredEmbedder{Provider: e.emb, meter: spend.NewMeter(e.cfg.Spend, e.cfg.CacheDir), price: price, prefixes: e.embedPrefixes()}
}

// meteredEmbedder is an [embed.Provider] that checks the embedding spend
// caps before each batch it forwards and records the batch's cost after.
// Its Model is the wrapped provider's, so the index identity does not
// change. A batch's cost is estimated from its o200k_base tokens (with
// the provider's prefixes) at price: embed.Provider reports no usage, and
// the estimate is also what is recorded, for a batch cancelled in flight
// too. Once a cap stops a batch, every
// later batch fails the same way without a request.
type meteredEmbedder struct {
	embed.Provider
	meter    *spend.Meter
	price    config.Price
	prefixes embed.Prefixes

	mu      sync.Mutex // guards pending and stop; held across a cap check
	pending float64    // estimated US dollars of batches sent, not yet recorded
	stop    error      // the cap error that stopped a batch
}

var _ embed.Provider = (*meteredEmbedder)(nil)

// Embed forwards texts to the wrapped provider when their estimated cost,
// with what the run and the day already spent and the batches in flight,
// fits the embedding caps. Errors: one wrapping [spend.ErrCapExceeded]
// that names the setting to raise; the ledger's; the provider's.
func (m *meteredEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	n := embedTokens(m.prefixes, texts, kind)
	usd := spend.Cost(m.price, n, 0, 1)
	m.mu.Lock()
	if m.stop != nil {
		m.mu.Unlock()
		return nil, m.stop
	}
	pending := m.pending
	if err := m.meter.Check(ctx, spend.Embed, pending+usd); err != nil {
		if errors.Is(err, spend.ErrCapExceeded) {
			err = fmt.Errorf("embedding %d texts (%d tokens, $%.4f, $%.4f more in flight) with %s: %w",
				len(texts), n, usd, pending, m.Model().Name, err)
			m.stop = err
		}
		m.mu.Unlock()
		return nil, err
	}
	m.pending += usd
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.pending -= usd
		m.mu.Unlock()
	}()
	vecs, err := m.Provider.Embed(ctx, texts, kind)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	// A batch cancelled in flight counts as spent: the service may have
	// embedded (and billed) it before the connection closed.
	if rerr := m.meter.Record(ctx, spend.Embed, m.Model().Name, n, 0, 1, usd); rerr != nil && err == nil {
		return nil, rerr
	}
	return vecs, err
}

// AssumeDims passes the vector length on to the wrapped provider when it
// can take it ([dimsAssumer]).
func (m *meteredEmbedder) AssumeDims(n int) {
	if a, ok := m.Provider.(dimsAssumer); ok {
		a.AssumeDims(n)
	}
}
