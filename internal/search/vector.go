package search

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

// Vectors is an in-memory copy of an index's chunk embeddings for
// brute-force nearest-neighbour search: a derived cache of the store,
// rebuilt when the index generation changes.
type Vectors struct {
	// Generation is the index generation the copy was loaded at.
	Generation int64
	ids        []int64
	dims       int
	data       []float32 // len(ids)*dims, row-major, L2-normalised rows
}

// LoadVectors reads every chunk embedding of db. Vectors whose length is not
// dims are an error (the index mixes models and needs a rebuild).
func LoadVectors(ctx context.Context, db *store.DB, dims int, generation int64) (*Vectors, error) {
	v := &Vectors{Generation: generation, dims: dims}
	err := db.Vectors(ctx, func(id int64, blob []byte) error {
		vec, err := embed.DecodeVector(blob)
		if err != nil {
			return fmt.Errorf("chunk %d: %w", id, err)
		}
		if len(vec) != dims {
			return fmt.Errorf("chunk %d: %w: %d dimensions, want %d; run `ctx index --rebuild`", id, embed.ErrDimension, len(vec), dims)
		}
		v.ids = append(v.ids, id)
		v.data = append(v.data, vec...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading vectors: %w", err)
	}
	return v, nil
}

// Len returns the number of vectors.
func (v *Vectors) Len() int { return len(v.ids) }

// Nearest returns the ids and cosine similarities of the k vectors closest
// to q (which must be L2-normalised and of the index's dimensions), best
// first. Cost is one dot product per stored vector.
func (v *Vectors) Nearest(q []float32, k int) ([]int64, []float64) {
	if len(q) != v.dims || k <= 0 {
		return nil, nil
	}
	h := &minHeap{}
	for i, id := range v.ids {
		s := float64(embed.Dot(q, v.data[i*v.dims:(i+1)*v.dims]))
		if h.Len() < k {
			heap.Push(h, scored{id, s})
		} else if s > (*h)[0].s {
			(*h)[0] = scored{id, s}
			heap.Fix(h, 0)
		}
	}
	n := h.Len()
	ids := make([]int64, n)
	scores := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		x := heap.Pop(h).(scored)
		ids[i], scores[i] = x.id, x.s
	}
	return ids, scores
}

type scored struct {
	id int64
	s  float64
}

type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].s < h[j].s }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
