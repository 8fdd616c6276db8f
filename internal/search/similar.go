package search

import (
	"slices"
	"sync"

	"github.com/ctx-dev/ctx/internal/embed"
)

// Similarities returns, for each chunk id in ids, the cosine similarity of
// q (L2-normalised, of the index's dimensions) to that chunk's vector, or
// 0 for a chunk without one: the dense evidence for chunks another
// channel recalled. Cost: a binary search (ids sorted, as an index writes
// them) and one int8 dot product of dims elements per id.
func (v *Vectors) Similarities(q []float32, ids []int64) []float64 {
	out := make([]float64, len(ids))
	if len(q) != v.dims || v.Len() == 0 {
		return out
	}
	find := v.rowOf()
	buf := make([]int8, v.dims)
	for i, id := range ids {
		r, ok := find(id)
		if !ok {
			continue
		}
		out[i] = float64(embed.DotInt8(q, v.row(r, buf), v.scales[r]))
	}
	return out
}

// rowOf returns a function from chunk id to row: a binary search when the
// ids are sorted (the common case), else a map built once.
func (v *Vectors) rowOf() func(int64) (int, bool) {
	if v.ids == nil {
		return v.findRow // runs ascend
	}
	v.rowOnce.Do(func() {
		if slices.IsSorted(v.ids) {
			return
		}
		v.rowMap = make(map[int64]int, len(v.ids))
		for i, id := range v.ids {
			v.rowMap[id] = i
		}
	})
	if v.rowMap != nil {
		return func(id int64) (int, bool) { r, ok := v.rowMap[id]; return r, ok }
	}
	return func(id int64) (int, bool) { return slices.BinarySearch(v.ids, id) }
}

// rowIndex is the lazily built id → row map of an unsorted Vectors.
type rowIndex struct {
	rowOnce sync.Once
	rowMap  map[int64]int
}
