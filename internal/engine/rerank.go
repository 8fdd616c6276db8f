package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// RerankStats reports the rerank stage of one search.
type RerankStats struct {
	Model    string  `json:"model"`
	Reranked int     `json:"reranked"` // how many of the first results it reordered
	MS       float64 `json:"rerank_ms"`
	CostUSD  float64 `json:"cost_usd"`
	// Skipped says why the results keep the search's own order (a
	// timeout, a failing service, a spend cap), with the fix; empty when
	// they were reranked.
	Skipped string `json:"skipped,omitempty"`
}

// rerankLocal reports whether the reranker runs on this machine.
func (e *Engine) rerankLocal() bool {
	return e.cfg.Rerank.URL != "" && spend.Local(e.cfg.Rerank.URL)
}

// rerankHits reorders the first TopN results of resp by the reranker's
// scores, within the configured timeout. On a timeout or a failure the
// order stays the search's and stats.rerank.skipped says so; the error is
// returned only for the caller to tell a cancelled request.
func (e *Engine) rerankHits(ctx context.Context, meter *spend.Meter, query string, resp *FindResponse) error {
	m, err := e.models()
	if err != nil {
		return err
	}
	st := &RerankStats{Model: m.rr.Model()}
	resp.Stats.Rerank = st
	n := min(len(resp.Results), e.cfg.Rerank.TopN)
	if n < 2 {
		return nil
	}
	local := e.rerankLocal()
	price, known := spend.Lookup(e.cfg.Spend, st.Model)
	metered := !local && known // only then are the texts' tokens counted
	docs := make([]string, n)
	toks := 0
	if metered {
		toks = tokens.Count(query) * n
	}
	for i, h := range resp.Results[:n] {
		code := h.Code
		if code == "" {
			code = e.Code(h)
		}
		doc := h.Path + "\n"
		if h.Symbol != "" {
			doc += h.Symbol + "\n"
		}
		doc += code
		if !local {
			maskText(&doc)
		}
		docs[i] = doc
		if metered {
			toks += tokens.Count(doc)
		}
	}
	if metered {
		if err := meter.Check(ctx, spend.Rerank, spend.Cost(price, toks, 0, 1)); err != nil {
			st.Skipped = err.Error()
			return err
		}
	}
	timeout := e.cfg.Rerank.Timeout
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	res, usage, err := m.rr.Rerank(rctx, query, docs)
	st.MS = float64(time.Since(start).Microseconds()) / 1000
	if err == nil && len(res) != n {
		err = fmt.Errorf("the reranker scored %d of %d results", len(res), n)
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			st.Skipped = fmt.Sprintf("the reranker did not answer within %s (CTX_RERANK_TIMEOUT); results keep the search's order", timeout)
		default:
			st.Skipped = fmt.Sprintf("the reranker failed (%v); results keep the search's order", err)
		}
		e.log.Info("rerank skipped", "err", err)
		return err
	}
	if metered {
		in := toks
		if usage.Tokens > 0 {
			in = usage.Tokens
		}
		reqs := max(usage.Requests, 1)
		if usage.SearchUnits > 0 {
			reqs = usage.SearchUnits
		}
		st.CostUSD = spend.Cost(price, in, 0, reqs)
		if err := meter.Record(ctx, spend.Rerank, st.Model, in, 0, reqs, st.CostUSD); err != nil {
			e.log.Warn("recording rerank spend", "err", err)
		}
	}
	// The reordered hits keep the search's scores in descending order (the
	// pack's cutoffs read them); the reranker's own score is shown by
	// --explain as the "rerank" channel.
	top := slices.Clone(resp.Results[:n])
	scores := make([]float64, n)
	for i := range top {
		scores[i] = top[i].Score
	}
	for i, r := range res {
		h := top[r.Index]
		h.Score = scores[i]
		// A copy: the query cache may hold the search's map.
		h.Channels = maps.Clone(h.Channels)
		if h.Channels == nil {
			h.Channels = map[string]search.ChannelHit{}
		}
		h.Channels["rerank"] = search.ChannelHit{Rank: i + 1, Score: round(r.Score)}
		resp.Results[i] = h
	}
	st.Reranked = n
	return nil
}
