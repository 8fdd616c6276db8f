package search

import (
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/ctx-dev/ctx/internal/embed"
)

// Similarities returns, for each chunk id in ids, the cosine similarity of
// q (L2-normalised, of the index's dimensions) to that chunk's vector, or
// 0 for a chunk without one: the dense evidence for chunks another
// channel recalled. Cost: a binary search (ids sorted, as an index writes
// them) and one int8 dot product of dims elements per id; a vector file's
// rows are scored packed, in one kernel call, with the query quantised
// as [Vectors.Nearest] quantises it (the same score for a chunk both
// find).
func (v *Vectors) Similarities(q []float32, ids []int64) []float64 {
	out := make([]float64, len(ids))
	if len(q) != v.dims || v.Len() == 0 {
		return out
	}
	find := v.rowOf()
	if packedKernel(v) {
		// The rows straight from their packed form, the query quantised
		// as [Vectors.Nearest] quantises it: a chunk both channels found
		// gets the same similarity from each.
		s := scratchPool.Get().(*scratch)
		defer scratchPool.Put(s)
		qscale := s.prepare(q, v)
		rows, at := s.cand[:0], s.ring[:0]
		for i, id := range ids {
			if r, ok := find(id); ok {
				rows = append(rows, int32(r))
				at = append(at, int32(i))
			}
		}
		s.cand, s.ring = rows, at
		if len(rows) == 0 {
			return out
		}
		dots := grow(s.dots, len(rows))
		s.dots = dots
		dotPackedRowsAVX2(&s.q16[0], &v.packed[0], (*byte)(unsafe.Pointer(&v.signs[0])), &rows[0], &dots[0], len(rows),
			packedRowBytes(v.dims), 8*v.words, v.dims/16)
		for j, r := range rows {
			out[at[j]] = float64(dots[j]) * qscale * float64(v.scales[r])
		}
		runtime.KeepAlive(v)
		return out
	}
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
