package search

import (
	"runtime"
	"slices"
	"sync"
)

// Similarities returns, for each chunk id in ids, the cosine similarity of
// q (L2-normalised, of the index's dimensions) to that chunk's vector, or
// 0 for a chunk without one: the dense evidence for chunks another
// channel recalled. Cost: a binary search (ids sorted, as an index writes
// them) and one int8 dot product of dims elements per id, with the query
// quantised as [Vectors.Nearest] quantises it (a vector file's packed
// rows scored in one kernel call).
func (v *Vectors) Similarities(q []float32, ids []int64) []float64 {
	out := make([]float64, len(ids))
	if len(q) != v.dims || v.Len() == 0 {
		return out
	}
	find := v.rowOf()
	// The query quantised as [Vectors.Nearest] quantises it, and each
	// row's int8 dot product with it (from its packed form by the
	// kernel where there is one): the same similarity for a chunk
	// whatever the rows' form, and the dense channel's score for a
	// chunk it found.
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.releasing = false
	qscale := s.prepare(q, v)
	rows, at := s.cand[:0], s.ring[:0]
	for i, id := range ids {
		if r, ok := find(id); ok {
			rows = append(rows, int32(r))
			at = append(at, int32(i))
		}
	}
	s.cand, s.ring = rows, at
	for j, d := range s.score(v, rows) {
		out[at[j]] = float64(d) * qscale * float64(v.scales[rows[j]])
	}
	runtime.KeepAlive(v)
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
