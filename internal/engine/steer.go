package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/steer"
	"github.com/ctx-dev/ctx/internal/store"
)

// Decompose says whether [Engine.Find] splits a question into
// sub-queries through the LLM.
type Decompose int

const (
	// DecomposeAuto splits complex questions (steer.Complex) when an LLM
	// is configured.
	DecomposeAuto Decompose = iota
	// DecomposeOff never splits.
	DecomposeOff
	// DecomposeOn always splits; it needs an LLM.
	DecomposeOn
)

// Fusion of sub-query lists (reciprocal rank fusion, Cormack, Clarke and
// Büttcher, SIGIR 2009, with its k = 60). The question's own list keeps
// weight 1 and the sub-queries share weight 1 between them, so the
// question keeps at least half the say: sub-queries add what it missed
// rather than replace what it found. No LLM is reachable from this
// project's machines, so these weights are a reasoned default, not a
// measured one.
const (
	subRRFK        = 60
	subTotalWeight = 1.0
)

// steered reports whether a request uses the model layer at all.
func (e *Engine) steered(req FindRequest) bool {
	return req.ExplainResults || e.mayDecompose(req) || e.reranks(req)
}

// mayDecompose reports whether the request may be split into sub-queries
// (always with DecomposeOn; with DecomposeAuto, complex questions when an
// LLM is configured).
func (e *Engine) mayDecompose(req FindRequest) bool {
	return req.Decompose == DecomposeOn || req.Decompose == DecomposeAuto && e.HasLLM()
}

// reranks reports whether the request goes through the configured
// reranker.
func (e *Engine) reranks(req FindRequest) bool {
	return e.cfg.Rerank.Provider != "" && !req.NoRerank
}

// findSteered runs a search through the model layer: sub-queries fused
// with the question's own results, the reranker over the top results, the
// cut to the limit, context expansion, then result summaries. A failing
// LLM or reranker never fails the search: its step is skipped and the
// answer says why (stats.steering, stats.rerank.skipped).
func (e *Engine) findSteered(ctx context.Context, req FindRequest) (*FindResponse, error) {
	if (req.ExplainResults || req.Decompose == DecomposeOn) && !e.HasLLM() {
		return nil, ErrNoLLM
	}
	if _, err := e.models(); err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 10
	}
	base := req
	base.Expand = ExpandOptions{}
	rerankOn := e.reranks(req)
	if rerankOn {
		base.Limit = max(limit, e.cfg.Rerank.TopN)
	}
	resp, err := e.find(ctx, base)
	if err != nil {
		return nil, err
	}
	meter := e.newMeter()
	usage := &LLMUsage{}
	query, _ := e.CutQuery(req.Query)
	// The model steps stop at the request's cut: the answer then goes
	// without them, marked partial.
	cctx, ccancel := cutContext(ctx, req.cut)
	defer ccancel()
	if e.mayDecompose(req) && (req.Decompose == DecomposeOn || steer.Complex(analyze.Analyze(query))) {
		if err := e.decompose(cctx, meter, usage, query, base, resp); err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case wasCut(ctx, cctx):
				resp.Stats.Steering = "the question was searched as it is, not split: the request deadline came first"
				resp.Stats.markPartial(cutNote("the question's sub-queries were searched"))
			default:
				resp.Stats.Steering = "the question was searched as it is, not split: " + steerCause(err)
			}
		}
	}
	if rerankOn {
		if err := e.rerankHits(cctx, meter, query, resp); err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case wasCut(ctx, cctx):
				if resp.Stats.Rerank != nil {
					resp.Stats.Rerank.Skipped = "the request deadline came before the reranker answered; results keep the search's order"
				}
				resp.Stats.markPartial(cutNote("the reranker answered"))
			}
		}
	}
	if len(resp.Results) > limit {
		resp.Results = resp.Results[:limit]
	}
	if req.Expand.Seeds > 0 {
		if err := e.expandCut(ctx, cctx, nil, query, req, resp); err != nil {
			return nil, err
		}
	}
	if req.ExplainResults {
		if err := e.explainResults(cctx, meter, usage, resp, req.Full); err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case wasCut(ctx, cctx):
				resp.Stats.Steering = joinNote(resp.Stats.Steering, "no result summaries: the request deadline came first")
				resp.Stats.markPartial(cutNote("the results were summarised"))
			default:
				resp.Stats.Steering = joinNote(resp.Stats.Steering, "no result summaries: "+steerCause(err))
			}
		}
	}
	if usage.Requests > 0 || usage.Model != "" {
		resp.Stats.LLM = usage
	}
	return resp, nil
}

// steerCause words an LLM failure for a note, naming the fix of a spend
// cap.
func steerCause(err error) string {
	if errors.Is(err, spend.ErrCapExceeded) {
		return err.Error()
	}
	return err.Error() + " (check CTX_LLM_URL and CTX_LLM_MODEL, or pass --decompose off)"
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// decompose asks the LLM for sub-queries, searches each, and fuses their
// results into resp with the question's own.
func (e *Engine) decompose(ctx context.Context, meter *spend.Meter, usage *LLMUsage, query string, base FindRequest, resp *FindResponse) error {
	system, user := steer.DecomposePrompt(query)
	r, err := e.chat(ctx, meter, llm.Request{System: system, Messages: []llm.Message{{Role: "user", Content: user}}, MaxTokens: 200, JSON: true}, usage)
	if err != nil {
		return err
	}
	subs, err := steer.ParseSubQueries(r.Text)
	if err != nil {
		return err
	}
	lists := [][]Hit{resp.Results}
	var used []string
	for _, q := range subs {
		sreq := base
		sreq.Query = q
		sreq.AutoIndex = false
		sr, err := e.find(ctx, sreq)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			e.log.Info("sub-query failed", "query", q, "err", err)
			continue
		}
		lists = append(lists, sr.Results)
		used = append(used, q)
		if !sr.Stats.Fresh {
			resp.Stats.Fresh = false
		}
	}
	resp.Stats.SubQueries = used
	if len(used) > 0 {
		resp.Results = fuseHits(lists, subTotalWeight/float64(len(used)))
	}
	return nil
}

// fuseHits fuses ranked hit lists by reciprocal rank: lists[0] with
// weight 1, the others with subWeight each. A hit is the same across
// lists when its path and lines are; the first list's copy is kept. The
// fused list keeps the original scores, reassigned in the new order so
// they still descend (the pack's cutoffs read them).
func fuseHits(lists [][]Hit, subWeight float64) []Hit {
	type key struct {
		path       string
		start, end int
	}
	type acc struct {
		hit   Hit
		score float64
	}
	byKey := map[key]*acc{}
	var order []*acc
	var scores []float64
	for li, l := range lists {
		w := 1.0
		if li > 0 {
			w = subWeight
		}
		for rank, h := range l {
			k := key{h.Path, h.StartLine, h.EndLine}
			a := byKey[k]
			if a == nil {
				a = &acc{hit: h}
				byKey[k] = a
				order = append(order, a)
				scores = append(scores, h.Score)
			}
			a.score += w / float64(subRRFK+rank+1)
		}
	}
	// Stable: ties keep the order of first appearance.
	slices.SortStableFunc(order, func(a, b *acc) int { return cmp.Compare(b.score, a.score) })
	slices.Sort(scores)
	slices.Reverse(scores)
	out := make([]Hit, len(order))
	for i, a := range order {
		out[i] = a.hit
		out[i].Score = scores[i]
	}
	return out
}

// maxSummaryBatch is the most results summarised in one LLM request.
const maxSummaryBatch = 20

// explainResults adds a one-line LLM summary to each found result
// (context pieces excluded), reading cached ones by the hash of the model,
// the prompt version and the code, and asking for the others in one
// request.
func (e *Engine) explainResults(ctx context.Context, meter *spend.Meter, usage *LLMUsage, resp *FindResponse, full bool) error {
	m, err := e.models()
	if err != nil {
		return err
	}
	kv, err := store.OpenKV(ctx, filepath.Join(e.cfg.CacheDir, "summaries.db"))
	if err != nil {
		return err
	}
	defer kv.Close()
	var todo []int
	var keys []string
	var excerpts []steer.Excerpt
	for i := range resp.Results {
		h := &resp.Results[i]
		if h.Expanded() {
			continue
		}
		code := h.Code
		if code == "" {
			code = e.Code(*h)
		}
		sum := sha256.Sum256([]byte(m.llm.Model() + "\x00" + strconv.Itoa(steer.PromptVersion) + "\x00" + code))
		key := hex.EncodeToString(sum[:])
		if s, ok, err := kv.Get(ctx, key); err == nil && ok {
			h.Explanation = s
			continue
		}
		if len(todo) == maxSummaryBatch {
			continue
		}
		todo = append(todo, i)
		keys = append(keys, key)
		excerpts = append(excerpts, steer.Excerpt{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Language: h.Language, Symbol: h.Symbol, Code: code})
	}
	if len(todo) == 0 {
		return nil
	}
	system, user := steer.SummaryPrompt(excerpts)
	r, err := e.chat(ctx, meter, llm.Request{System: system, Messages: []llm.Message{{Role: "user", Content: user}}, MaxTokens: 60 * len(todo), JSON: true}, usage)
	if err != nil {
		return err
	}
	lines, err := steer.ParseSummaries(r.Text, len(todo))
	if err != nil {
		return err
	}
	for j, i := range todo {
		resp.Results[i].Explanation = lines[j]
		if err := kv.Put(ctx, keys[j], lines[j]); err != nil {
			e.log.Warn("caching a result summary", "err", err)
		}
	}
	return nil
}
