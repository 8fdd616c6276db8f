package train

import (
	"container/heap"
	"context"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Evaluation constants: MRR cut-off, RRF k, and how deep each ranking is
// read for fusion.
const (
	mrrCutoff = 10
	rrfK      = 60
	fuseDepth = 100
)

// Eval holds held-out MRR@10 for each retriever.
type Eval struct {
	Queries int     `json:"queries"`
	Docs    int     `json:"docs"`
	Dense   float64 `json:"dense"`
	BM25    float64 `json:"bm25"`
	Fused   float64 `json:"fused"`
	// ByKind holds the same scores over the queries of each pair kind
	// (doc, comment, name): natural-language queries (doc, comment) are
	// what the model serves; name queries are split identifiers, where
	// BM25's exact term matches are hard to beat.
	ByKind map[string]KindEval `json:"by_kind,omitempty"`
	// ByLang holds them over the queries of each language's pairs (the
	// documents stay all held-out codes): where a language's training
	// data is thin, its row shows it.
	ByLang map[string]KindEval `json:"by_lang,omitempty"`
}

// KindEval is held-out MRR@10 over the queries of one pair kind or
// language.
type KindEval struct {
	Queries int     `json:"queries"`
	Dense   float64 `json:"dense"`
	BM25    float64 `json:"bm25"`
	Fused   float64 `json:"fused"`
}

// evalSet is the held-out retrieval task: distinct codes as documents,
// each query's target the document of its code.
type evalSet struct {
	queries []string
	kinds   []string // pair kind per query
	langs   []string // language per query
	target  []int
	docs    []string
	bm25    *bm25
	// bm25Rank and bm25Top cache BM25's target rank and top documents
	// per query: they do not change between epochs.
	bm25Rank []int
	bm25Top  [][]int
	qb, db   *bags // set once a tokenizer exists
}

func newEvalSet(pairs []Pair, maxQueries int, pathHeader bool) *evalSet {
	es := &evalSet{}
	doc := map[string]int{}
	for _, p := range pairs {
		text := p.Code
		if pathHeader && p.Path != "" {
			text = p.Path + "\n" + p.Code
		}
		id, ok := doc[text]
		if !ok {
			id = len(es.docs)
			doc[text] = id
			es.docs = append(es.docs, text)
		}
		if maxQueries <= 0 || len(es.queries) < maxQueries {
			es.queries = append(es.queries, p.Query)
			es.kinds = append(es.kinds, p.Kind)
			es.langs = append(es.langs, p.Lang)
			es.target = append(es.target, id)
		}
	}
	return es
}

// groupEval scores the queries of each group (a kind or a language,
// group[i] that of query i; "" is no group) from their dense, BM25 and
// fused ranks; nil when no query has a group.
func groupEval(group []string, dense, bm25, fused []int) map[string]KindEval {
	ranks := map[string][3][]int{}
	for i, g := range group {
		if g == "" {
			continue
		}
		r := ranks[g]
		r[0], r[1], r[2] = append(r[0], dense[i]), append(r[1], bm25[i]), append(r[2], fused[i])
		ranks[g] = r
	}
	if len(ranks) == 0 {
		return nil
	}
	out := make(map[string]KindEval, len(ranks))
	for g, r := range ranks {
		out[g] = KindEval{Queries: len(r[0]), Dense: mrr(r[0], mrrCutoff), BM25: mrr(r[1], mrrCutoff), Fused: mrr(r[2], mrrCutoff)}
	}
	return out
}

// rankOf returns the 1-based rank of document t under scores: one plus
// the documents scoring higher, or equal with a smaller index.
func rankOf(scores []float32, t int) int {
	st := scores[t]
	r := 1
	for i, s := range scores {
		if s > st || s == st && i < t {
			r++
		}
	}
	return r
}

// topK returns the indices of the k best documents under scores, best
// first, ties to the smaller index.
func topK(scores []float32, k int) []int {
	h := &minHeap{s: scores}
	for i := range scores {
		if h.Len() < k {
			heap.Push(h, i)
		} else if h.better(i, h.ix[0]) {
			h.ix[0] = i
			heap.Fix(h, 0)
		}
	}
	out := slices.Clone(h.ix)
	slices.SortFunc(out, func(a, b int) int {
		if h.better(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// minHeap keeps the worst of the current top documents at the root.
type minHeap struct {
	s  []float32
	ix []int
}

func (h *minHeap) better(a, b int) bool {
	return h.s[a] > h.s[b] || h.s[a] == h.s[b] && a < b
}
func (h *minHeap) Len() int           { return len(h.ix) }
func (h *minHeap) Less(i, j int) bool { return h.better(h.ix[j], h.ix[i]) }
func (h *minHeap) Swap(i, j int)      { h.ix[i], h.ix[j] = h.ix[j], h.ix[i] }
func (h *minHeap) Push(x any)         { h.ix = append(h.ix, x.(int)) }
func (h *minHeap) Pop() any {
	x := h.ix[len(h.ix)-1]
	h.ix = h.ix[:len(h.ix)-1]
	return x
}

// mrr returns the mean over ranks of 1/rank, counting ranks beyond
// cutoff as 0.
func mrr(ranks []int, cutoff int) float64 {
	if len(ranks) == 0 {
		return 0
	}
	var s float64
	for _, r := range ranks {
		if r >= 1 && r <= cutoff {
			s += 1 / float64(r)
		}
	}
	return s / float64(len(ranks))
}

// fusedRank returns the rank of target in the reciprocal rank fusion of
// the rankings a and b (best first): score(d) = Σ 1/(k + rank(d)) over
// the rankings that list d. Ties go to the smaller document index; a
// target in neither list ranks after every listed document.
func fusedRank(a, b []int, target, k int) int {
	score := map[int]float64{}
	for _, r := range [][]int{a, b} {
		for i, d := range r {
			score[d] += 1 / float64(k+i+1)
		}
	}
	st, ok := score[target]
	if !ok {
		return len(score) + 1
	}
	rank := 1
	for d, s := range score {
		if s > st || s == st && d < target {
			rank++
		}
	}
	return rank
}

// evaluate scores every query against every document with the model and
// (cached) BM25, on workers goroutines.
func (es *evalSet) evaluate(ctx context.Context, m *model, workers int) (Eval, error) {
	nq, nd, d := len(es.queries), len(es.docs), m.d
	dv := make([]float32, nd*d)
	qv := make([]float32, nq*d)
	denseRank := make([]int, nq)
	fused := make([]int, nq)
	needBM25 := es.bm25Rank == nil
	if needBM25 {
		es.bm25 = newBM25(es.docs)
		es.bm25Rank = make([]int, nq)
		es.bm25Top = make([][]int, nq)
	}
	run := func(n int, f func(i int, scores []float32)) error {
		g, ctx := errgroup.WithContext(ctx)
		for w := range workers {
			g.Go(func() error {
				scores := make([]float32, nd)
				for i := w; i < n; i += workers {
					if i%256 == 0 {
						if err := ctx.Err(); err != nil {
							return err
						}
					}
					f(i, scores)
				}
				return nil
			})
		}
		return g.Wait()
	}
	if err := run(nd, func(i int, _ []float32) { m.embed(dv[i*d:i*d+d], es.db, i) }); err != nil {
		return Eval{}, err
	}
	if err := run(nq, func(i int, _ []float32) { m.embed(qv[i*d:i*d+d], es.qb, i) }); err != nil {
		return Eval{}, err
	}
	err := run(nq, func(i int, scores []float32) {
		if needBM25 {
			es.bm25.score(scores, es.queries[i])
			es.bm25Rank[i] = rankOf(scores, es.target[i])
			es.bm25Top[i] = topK(scores, fuseDepth)
		}
		q := qv[i*d : i*d+d]
		for j := range nd {
			scores[j] = dot(q, dv[j*d:j*d+d])
		}
		denseRank[i] = rankOf(scores, es.target[i])
		fused[i] = fusedRank(topK(scores, fuseDepth), es.bm25Top[i], es.target[i], rrfK)
	})
	if err != nil {
		return Eval{}, err
	}
	ev := Eval{
		Queries: nq, Docs: nd,
		Dense: mrr(denseRank, mrrCutoff),
		BM25:  mrr(es.bm25Rank, mrrCutoff),
		Fused: mrr(fused, mrrCutoff),
	}
	ev.ByKind = groupEval(es.kinds, denseRank, es.bm25Rank, fused)
	ev.ByLang = groupEval(es.langs, denseRank, es.bm25Rank, fused)
	return ev, nil
}
