package engine

import "github.com/ctx-dev/ctx/internal/pack"

// PackHits packs ranked hits into budget tokens: pack.Select groups them
// by file, cuts weak ones and merges touching ones, then segments are
// taken from the front while their cost fits (pack.Fill). Each packed
// hit is the best hit of its segment widened to the segment's lines and
// score, with its code read and Stale set when any merged hit was. cost
// returns a packed hit's tokens as the caller renders it. It returns the
// packed hits, the tokens they use and how many selected segments did not
// fit.
func (e *Engine) PackHits(hits []Hit, budget int, cost func(Hit) int) (packed []Hit, used, left int) {
	return packHits(hits, budget, cost, func(h Hit) string { return h.Path }, func(Hit) *Engine { return e })
}

// packHits is PackHits for hits that may come from several roots: key
// names a hit's file uniquely (segments never merge across keys) and
// engine is the engine that reads its code.
func packHits(hits []Hit, budget int, cost func(Hit) int, key func(Hit) string, engine func(Hit) *Engine) (packed []Hit, used, left int) {
	segs := make([]pack.Segment, len(hits))
	for i, h := range hits {
		segs[i] = pack.Segment{Path: key(h), StartLine: h.StartLine, EndLine: h.EndLine, StartByte: h.StartByte, EndByte: h.EndByte, Score: h.Score, Context: h.Expanded()}
	}
	segs = pack.Select(segs, pack.SelectOptions{})
	out := make([]Hit, len(segs))
	n, used := pack.Fill(len(segs), budget, 0, func(i int) int {
		s := segs[i]
		h := hits[s.Hits[0]]
		for _, j := range s.Hits {
			h.Stale = h.Stale || hits[j].Stale
		}
		h.StartLine, h.EndLine, h.Score = s.StartLine, s.EndLine, s.Score
		h.StartByte, h.EndByte = s.StartByte, s.EndByte
		h.Code = engine(h).CodeSpan(h.Path, s.StartByte, s.EndByte, s.StartLine, s.EndLine, h.Stale)
		out[i] = h
		return cost(h)
	}, nil)
	return out[:n], used, len(segs) - n
}
