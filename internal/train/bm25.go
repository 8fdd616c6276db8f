package train

import (
	"math"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// BM25 parameters of the evaluation baseline.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25 is a small in-memory BM25 index over documents' [analyze.Terms],
// the lexical baseline the trained model is measured against. It is for
// evaluation only; ctx's search uses the store's BM25 index.
type bm25 struct {
	post  map[string][]posting
	len   []float64 // document lengths in terms
	avgdl float64
}

type posting struct {
	doc int32
	tf  float32
}

func newBM25(docs []string) *bm25 {
	x := &bm25{post: map[string][]posting{}, len: make([]float64, len(docs))}
	tf := map[string]int{}
	var total float64
	for i, d := range docs {
		clear(tf)
		n := 0
		analyze.Terms(d, func(t string) { tf[t]++; n++ })
		for t, c := range tf {
			x.post[t] = append(x.post[t], posting{int32(i), float32(c)})
		}
		x.len[i] = float64(n)
		total += float64(n)
	}
	if len(docs) > 0 {
		x.avgdl = total / float64(len(docs))
	}
	return x
}

// idf is Lucene's BM25 idf, ln(1 + (N − df + 0.5)/(df + 0.5)), never
// negative.
func (x *bm25) idf(df int) float64 {
	n := float64(len(x.len))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// score writes into scores (len documents) the BM25 score of each
// document for query: the sum over the query's distinct terms t of
// idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl)).
func (x *bm25) score(scores []float32, query string) {
	clear(scores)
	seen := map[string]bool{}
	analyze.Terms(query, func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		ps := x.post[t]
		if len(ps) == 0 {
			return
		}
		idf := x.idf(len(ps))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*x.len[p.doc]/x.avgdl)
			scores[p.doc] += float32(idf * tf * (bm25K1 + 1) / (tf + norm))
		}
	})
}
