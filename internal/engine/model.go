package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/llm"
	_ "github.com/ctx-dev/ctx/internal/llm/providers" // registers openai, anthropic, ollama
	"github.com/ctx-dev/ctx/internal/rerank"
	_ "github.com/ctx-dev/ctx/internal/rerank/providers" // registers cohere, jina, voyage, tei
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// The optional model layer: an LLM (sub-queries, result summaries,
// answers) and a reranker, both off unless configured (config.LLM,
// config.Rerank). With neither configured nothing here runs and no
// request leaves the machine.

// models holds the layer's clients, built on first use.
type models struct {
	once sync.Once
	llm  llm.Client      // nil: no LLM configured
	rr   rerank.Reranker // nil: no reranker configured
	err  error
}

// models builds the configured clients once.
func (e *Engine) models() (*models, error) {
	m := &e.ml
	m.once.Do(func() {
		m.llm, m.rr = e.opts.LLM, e.opts.Reranker
		if m.llm == nil {
			if m.llm, m.err = llm.FromConfig(e.cfg.LLM); m.err != nil {
				m.err = fmt.Errorf("configuring the LLM (CTX_LLM_PROVIDER %s): %w", e.cfg.LLM.Provider, m.err)
				return
			}
		}
		if m.rr == nil {
			if m.rr, m.err = rerank.FromConfig(e.cfg.Rerank); m.err != nil {
				m.err = fmt.Errorf("configuring the reranker (CTX_RERANK_PROVIDER %s): %w", e.cfg.Rerank.Provider, m.err)
			}
		}
	})
	return m, m.err
}

// HasLLM reports whether an LLM is configured.
func (e *Engine) HasLLM() bool { return e.cfg.LLM.Provider != "" }

// ErrNoLLM means a command needs the LLM and none is configured; the fix
// names the settings.
var ErrNoLLM = errors.New("no LLM configured: set CTX_LLM_PROVIDER (openai, anthropic or ollama), CTX_LLM_MODEL and, for a hosted service, CTX_LLM_API_KEY")

// LLMUsage is what the LLM did for one request: the footer's numbers.
type LLMUsage struct {
	Model        string  `json:"model"`
	Requests     int     `json:"requests"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	MS           float64 `json:"llm_ms"`
	// CostUSD is the cost at the price table's prices (0 for a server on
	// this machine); PriceUnknown is set when the model has no price
	// (CTX_PRICES adds one), and the cost is then 0.
	CostUSD      float64 `json:"cost_usd"`
	PriceUnknown bool    `json:"price_unknown,omitempty"`
	// SecretsMasked counts spans the secret detector masked in the text
	// sent.
	SecretsMasked int `json:"secrets_masked,omitempty"`
}

// llmLocal reports whether the configured LLM runs on this machine, so
// it costs nothing and caps do not apply.
func (e *Engine) llmLocal() bool {
	if e.cfg.LLM.URL == "" {
		return e.cfg.LLM.Provider == "ollama"
	}
	return spend.Local(e.cfg.LLM.URL)
}

// chat sends one request through the LLM after checking the spend caps
// against its worst case (the prompt's tokens and the output cap), and
// records what it cost. Text sent to a service off this machine is
// masked by the secret detector first, whatever CTX_INCLUDE_SECRETS says.
// u accumulates the usage. Errors: [ErrNoLLM], spend.ErrCapExceeded,
// the client's errors.
func (e *Engine) chat(ctx context.Context, meter *spend.Meter, req llm.Request, u *LLMUsage) (llm.Response, error) {
	m, err := e.models()
	if err != nil {
		return llm.Response{}, err
	}
	if m.llm == nil {
		return llm.Response{}, ErrNoLLM
	}
	local := e.llmLocal()
	if !local {
		u.SecretsMasked += maskText(&req.System)
		for i := range req.Messages {
			u.SecretsMasked += maskText(&req.Messages[i].Content)
		}
	}
	model := m.llm.Model()
	u.Model = model
	maxOut := req.MaxTokens
	if maxOut <= 0 {
		maxOut = e.cfg.LLM.MaxTokens
	}
	in := tokens.Count(req.System)
	for _, msg := range req.Messages {
		in += tokens.Count(msg.Content) + 4 // a message's framing, as OpenAI's own estimate counts it
	}
	price, known := spend.Lookup(e.cfg.Spend, model)
	if !local && !known {
		u.PriceUnknown = true
	}
	if !local && known {
		if err := meter.Check(ctx, spend.LLM, spend.Cost(price, in, maxOut, 1)); err != nil {
			return llm.Response{}, err
		}
	}
	start := time.Now()
	resp, err := m.llm.Chat(ctx, req)
	u.MS += float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return resp, err
	}
	u.Requests++
	gotIn, gotOut := resp.Usage.InputTokens, resp.Usage.OutputTokens
	if gotIn == 0 && gotOut == 0 {
		// The server reported no usage: count what was sent and written.
		gotIn, gotOut = in, tokens.Count(resp.Text)
	}
	u.InputTokens += gotIn
	u.OutputTokens += gotOut
	if !local && known {
		usd := spend.Cost(price, gotIn, gotOut, 1)
		u.CostUSD += usd
		if err := meter.Record(ctx, spend.LLM, model, gotIn, gotOut, 1, usd); err != nil {
			e.log.Warn("recording LLM spend", "err", err)
		}
	}
	return resp, nil
}

// maskText masks the secrets in *s in place and returns how many spans it
// masked.
func maskText(s *string) int {
	b := []byte(*s)
	fs := secrets.Redact("", b)
	if len(fs) > 0 {
		*s = string(b)
	}
	return len(fs)
}

// newMeter returns the spend meter of one request (a CLI command or one
// server call).
func (e *Engine) newMeter() *spend.Meter { return spend.NewMeter(e.cfg.Spend, e.cfg.CacheDir) }

// Footer returns the line an LLM-using command ends with: results, index
// ms, LLM ms, tokens and cost, e.g. "3 results · 4ms index lookup · 320ms
// LLM · 1,840 tokens · $0.0008".
func Footer(results int, indexMS float64, u *LLMUsage, rr *RerankStats) string {
	s := fmt.Sprintf("%d results · %sms index lookup", results, fmtMS(indexMS))
	usd := 0.0
	if rr != nil && rr.Skipped == "" {
		s += fmt.Sprintf(" · %sms rerank", fmtMS(rr.MS))
		usd += rr.CostUSD
	}
	if u != nil && u.Requests > 0 {
		s += fmt.Sprintf(" · %sms LLM · %s tokens", fmtMS(u.MS), thousands(u.InputTokens+u.OutputTokens))
		usd += u.CostUSD
	}
	cost := fmt.Sprintf("$%.4f", usd)
	if u != nil && u.PriceUnknown {
		cost += " (price unknown for " + u.Model + ": set CTX_PRICES)"
	}
	return s + " · " + cost
}

func fmtMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
