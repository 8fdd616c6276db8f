package engine

import (
	"context"
	"time"

	"github.com/ctx-dev/ctx/internal/cite"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/steer"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// DefaultAnswerBudget is the token budget (o200k_base) of the code shown
// to the model by [Engine.Answer] when the request gives none: the
// balanced mode's pack, which held every gold file of SWE-bench Lite DEV
// 50 as often as 16k did (README, Measured).
const DefaultAnswerBudget = 8000

// AnswerRequest is one question for [Engine.Answer].
type AnswerRequest struct {
	Question  string
	Budget    int      // o200k_base tokens of code shown to the model; 0 means DefaultAnswerBudget
	Languages []string // as FindRequest
	PathGlobs []string
	AutoIndex bool
	Phase     func(Phase) // the phases of an automatic index run
	// Stream, when set, receives the answer's text as the model writes
	// it, before citations are checked (for progress display only).
	Stream func(delta string)
}

// AnswerResponse is the answer JSON of `ctx answer --json` and MCP
// context_answer.
type AnswerResponse struct {
	Question string `json:"question"`
	// Answer is the model's text with every citation that named a file or
	// lines outside the pack replaced by cite.Removed.
	Answer string `json:"answer"`
	// Citations holds the citations verified against the pack, in order
	// of first appearance: paths relative to the root, lines 1-based and
	// inclusive.
	Citations []cite.Citation `json:"citations"`
	// DroppedCitations counts the citations removed from Answer.
	DroppedCitations int `json:"dropped_citations"`
	// Context holds the code shown to the model (the pack), best first.
	Context []cite.Span `json:"context"`
	Usage   AnswerUsage `json:"usage"`
	CostUSD float64     `json:"cost_usd"`
	// Stats is the retrieval's stats (freshness, notes), as find's.
	Stats FindStats `json:"stats"`
}

// AnswerUsage is the footer's numbers of an answer.
type AnswerUsage struct {
	LLMUsage
	// IndexMS is the retrieval's time, ms.
	IndexMS float64 `json:"index_ms"`
	// PackTokens is the o200k_base tokens of the code shown.
	PackTokens int `json:"pack_tokens"`
}

// Answer retrieves code for a question, packs it to the budget, asks the
// LLM to answer from it, and checks every citation in the answer against
// the pack. When nothing is retrieved the model is not asked. Errors:
// [ErrNoLLM], the errors of [Engine.Find], spend.ErrCapExceeded, the
// LLM client's errors.
func (e *Engine) Answer(ctx context.Context, req AnswerRequest) (*AnswerResponse, error) {
	if !e.HasLLM() {
		return nil, ErrNoLLM
	}
	if _, err := e.models(); err != nil {
		return nil, err
	}
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultAnswerBudget
	}
	start := time.Now()
	resp, err := e.Find(ctx, FindRequest{
		Query: req.Question, Limit: 30, Languages: req.Languages, PathGlobs: req.PathGlobs,
		AutoIndex: req.AutoIndex, Phase: req.Phase, Expand: Modes["balanced"].Expand, Decompose: DecomposeOff,
	})
	if err != nil {
		return nil, err
	}
	out := &AnswerResponse{Question: EchoQuery(req.Question), Citations: []cite.Citation{}, Context: []cite.Span{}, Stats: resp.Stats}
	out.Usage.IndexMS = float64(time.Since(start).Microseconds()) / 1000
	excerpts, packTokens := e.packExcerpts(resp.Results, budget)
	out.Usage.PackTokens = packTokens
	for _, x := range excerpts {
		out.Context = append(out.Context, cite.Span{Path: x.Path, StartLine: x.StartLine, EndLine: x.EndLine})
	}
	if len(excerpts) == 0 {
		out.Answer = "No code in the index matched the question, so the model was not asked. Try other words, or check `ctx status`."
		return out, nil
	}
	question, _ := e.CutQuery(req.Question)
	system, user := steer.AnswerPrompt(question, excerpts)
	r, err := e.chat(ctx, e.newMeter(), llm.Request{System: system, Messages: []llm.Message{{Role: "user", Content: user}}, Stream: req.Stream}, &out.Usage.LLMUsage)
	if err != nil {
		return nil, err
	}
	checked := cite.Check(r.Text, out.Context)
	out.Answer = checked.Answer
	out.Citations = append(out.Citations, checked.Citations...)
	out.DroppedCitations = len(checked.Dropped)
	out.CostUSD = out.Usage.CostUSD
	return out, nil
}

// packExcerpts picks the code shown to the model ([Engine.PackHits]),
// each hit counted as its rendered excerpt, and returns the excerpts and
// their tokens.
func (e *Engine) packExcerpts(hits []Hit, budget int) ([]steer.Excerpt, int) {
	packed, used, _ := e.PackHits(hits, budget, func(h Hit) int { return tokens.Count(excerpt(h).Format()) })
	out := make([]steer.Excerpt, len(packed))
	for i, h := range packed {
		out[i] = excerpt(h)
	}
	return out, used
}

// excerpt is a packed hit as the prompts show it.
func excerpt(h Hit) steer.Excerpt {
	return steer.Excerpt{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Language: h.Language, Symbol: h.Symbol, Code: h.Code}
}
