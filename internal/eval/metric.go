package eval

import (
	"math"
	"slices"
)

// Metrics are the file-level retrieval scores of one query, or their
// means over many (N counts the queries). Each lies in [0, 1].
type Metrics struct {
	// RecallAtK is the share of the query's relevant files among the
	// first k distinct files of the answer.
	Recall1  float64 `json:"recall_at_1"`
	Recall5  float64 `json:"recall_at_5"`
	Recall10 float64 `json:"recall_at_10"`
	// MRR is 1/rank of the first relevant file among the first 10
	// distinct files, 0 when none is there.
	MRR float64 `json:"mrr"`
	// NDCG10 is the DCG of the relevant files' ranks (gain 1 each, rank
	// r discounted by 1/log2(r+1)) among the first 10 distinct files,
	// over the ideal DCG of min(10, relevant files).
	NDCG10 float64 `json:"ndcg_at_10"`
	N      int     `json:"queries"`
}

// Cutoff is the depth the metrics look at: the first 10 distinct files.
const Cutoff = 10

// Files returns the distinct paths of ranked in order of first
// appearance, at most [Cutoff] of them: a list of chunk results becomes
// the list of files an agent reads.
func Files(ranked []string) []string {
	var out []string
	for _, p := range ranked {
		if len(out) == Cutoff {
			break
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Rank returns the 1-based rank of path among the first [Cutoff]
// distinct files of ranked, 0 when it is not there.
func Rank(ranked []string, path string) int {
	return slices.Index(Files(ranked), path) + 1
}

// Score grades one answer: ranked holds its result paths best first
// (repeats allowed: they count once, at their first rank), relevant the
// files that answer the query. No relevant files scores 0.
func Score(ranked, relevant []string) Metrics {
	m := Metrics{N: 1}
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	if len(rel) == 0 {
		return m
	}
	var dcg float64
	found := 0
	for i, p := range Files(ranked) {
		if !rel[p] {
			continue
		}
		rank := i + 1
		found++
		if m.MRR == 0 {
			m.MRR = 1 / float64(rank)
		}
		dcg += 1 / math.Log2(float64(rank)+1)
		n := float64(len(rel))
		if rank <= 1 {
			m.Recall1 += 1 / n
		}
		if rank <= 5 {
			m.Recall5 += 1 / n
		}
		m.Recall10 += 1 / n
	}
	var ideal float64
	for i := range min(Cutoff, len(rel)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	m.NDCG10 = dcg / ideal
	return m
}

// Mean averages ms field by field, weighting each by its N; N of the
// result is the sum.
func Mean(ms []Metrics) Metrics {
	var s Metrics
	for _, m := range ms {
		w := float64(m.N)
		s.Recall1 += w * m.Recall1
		s.Recall5 += w * m.Recall5
		s.Recall10 += w * m.Recall10
		s.MRR += w * m.MRR
		s.NDCG10 += w * m.NDCG10
		s.N += m.N
	}
	if s.N == 0 {
		return Metrics{}
	}
	n := float64(s.N)
	s.Recall1 /= n
	s.Recall5 /= n
	s.Recall10 /= n
	s.MRR /= n
	s.NDCG10 /= n
	return s
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of xs by the
// nearest-rank method: the smallest x with at least p% of xs at or
// below it; 0 for no xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
