package store

import "math"

// BM25IDF returns the inverse document frequency [DB.SearchBM25] gives a
// term held by df of docs documents: ln((docs − df + 0.5) / (df + 0.5)),
// or 1e-6 when that is not positive (a term in more than half of the
// documents still counts a little, as in FTS5's bm25()).
func BM25IDF(docs, df int) float64 {
	idf := math.Log((float64(docs) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// BM25TermScore returns one term's contribution to a document's BM25
// score as [DB.SearchBM25] computes it: idf · f·(k1+1) / (f + k1·(1 − b +
// b·dl/avgdl)) with FTS5's k1 = 1.2 and b = 0.75, where f is the
// column-weighted term frequency, dl the document's length in terms and
// avgdl the mean length. Scorers that keep their documents outside the
// index (memories) use it so their scores mean what the index's do.
func BM25TermScore(idf, f, dl, avgdl float64) float64 {
	if avgdl <= 0 {
		avgdl = 1
	}
	return idf * (f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*dl/avgdl))
}
