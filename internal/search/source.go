package search

import (
	"context"

	"github.com/ctx-dev/ctx/internal/store"
)

// Source is the index a [Searcher] reads: its chunks, BM25 postings,
// defined names and files. *store.DB (the local SQLite index) is one; the
// Weaviate backend (internal/wvstore) is another, so both answer through
// the same recall, fusion and ranking code. Chunk and file ids are the
// source's own; lines are 1-based and inclusive, bytes 0-based.
type Source interface {
	// Count returns the index's counts; only Chunks is read here (the N
	// of BM25's IDF).
	Count(ctx context.Context) (store.Counts, error)
	// AllFiles returns every indexed file, for language and path filters.
	AllFiles(ctx context.Context) ([]store.FileInfo, error)
	// Chunks returns the rows of the chunks with the given ids, in any
	// order; an unknown id is left out.
	Chunks(ctx context.Context, ids []int64) ([]store.ChunkRow, error)
	// ChunksByName returns up to limit chunks whose bare defined name
	// equals one of names, ignoring case, in path and position order.
	ChunksByName(ctx context.Context, names []string, limit int) ([]store.ChunkRow, error)
	// SearchBM25 returns the best chunks for a BM25 query (see
	// [store.BM25Query]), best first.
	SearchBM25(ctx context.Context, q store.BM25Query) ([]store.Hit, error)
	// DocFreqs returns how many chunks hold each term (absent: none).
	DocFreqs(ctx context.Context, terms []string) (map[string]int, error)
	// FilesByPathSuffixes returns, for each path a query mentions, the
	// files it refers to (see [store.DB.FilesByPathSuffixes]).
	FilesByPathSuffixes(ctx context.Context, mentions []string) ([][]store.FileRef, error)
	// ChunkAtLine returns the chunk of a file holding the 1-based line, or
	// its first chunk when line is 0 or outside every chunk; 0 when the
	// file has none.
	ChunkAtLine(ctx context.Context, fileID int64, line int) (int64, error)
}

var _ Source = (*store.DB)(nil)

// DeclaredSource is a [Source] that also knows the names declared inside
// chunks that are not the chunks' own (a Go const group's later entries,
// an interface's methods, an enum's variants, C prototypes): the symbol
// channel then finds the chunk declaring a name a symbol query asks for.
// *store.DB (the names table) and the Weaviate backend (the names kept on
// each chunk object) are; a source without it finds only chunks' own
// names.
type DeclaredSource interface {
	// DeclaredChunks returns up to limit declared names equal to one of
	// names, ignoring case, each with the chunk holding it, by path and
	// line (see [store.DB.DeclaredChunks]).
	DeclaredChunks(ctx context.Context, names []string, limit int) ([]store.Declared, error)
}

var _ DeclaredSource = (*store.DB)(nil)

// VectorIndex is the dense channel's index: the chunks' embeddings, of the
// same model as the query's. [Vectors] (the local memory-mapped matrix) is
// one; the Weaviate backend's vector search is another.
type VectorIndex interface {
	// Len is the number of chunks with a vector (0: no dense channel).
	Len() int
	// TopK returns up to k chunk ids nearest to the L2-normalised query
	// q, best first, with their cosine similarities.
	TopK(ctx context.Context, q []float32, k int) ([]int64, []float64, error)
	// Cosines returns q's cosine similarity to each chunk in ids (0 for a
	// chunk without a vector), in ids' order.
	Cosines(ctx context.Context, q []float32, ids []int64) ([]float64, error)
}

var _ VectorIndex = (*Vectors)(nil)

// TopK is [Vectors.Nearest] as a [VectorIndex]; it never fails.
func (v *Vectors) TopK(_ context.Context, q []float32, k int) ([]int64, []float64, error) {
	ids, scores := v.Nearest(q, k)
	return ids, scores, nil
}

// Cosines is [Vectors.Similarities] as a [VectorIndex]; it never fails.
func (v *Vectors) Cosines(_ context.Context, q []float32, ids []int64) ([]float64, error) {
	return v.Similarities(q, ids), nil
}
