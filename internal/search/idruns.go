package search

import (
	"slices"
	"sort"
)

// idRuns holds the chunk ids of a vector file's rows as runs of
// consecutive ids: run r's rows, from row[r] up to the next run's first
// row (or the row count), hold the ids first[r], first[r]+1, … Both
// slices ascend, and so do the ids over all rows. An index run writes
// its chunks' ids in order, a file's chunks taking consecutive ids, so a
// cold index of the Go standard library is one run (16 bytes where the
// ids took 0.85 MB), and each later change of a file adds about two.
type idRuns struct {
	first []int64
	row   []int64
}

// runsOf returns the runs of ids and true, or false when ids do not
// ascend or take more than maxRuns runs.
func runsOf(ids []int64, maxRuns int) (idRuns, bool) {
	var r idRuns
	for i, id := range ids {
		if i > 0 && id <= ids[i-1] {
			return idRuns{}, false
		}
		if i == 0 || id != ids[i-1]+1 {
			if len(r.first) == maxRuns {
				return idRuns{}, false
			}
			r.first = append(r.first, id)
			r.row = append(r.row, int64(i))
		}
	}
	return r, true
}

// at returns the id of row i (0 ≤ i < the row count).
func (r *idRuns) at(i int) int64 {
	k := sort.Search(len(r.row), func(k int) bool { return r.row[k] > int64(i) }) - 1
	return r.first[k] + int64(i) - r.row[k]
}

// find returns the row of chunk id among n rows, and false when no row
// holds it.
func (r *idRuns) find(id int64, n int) (int, bool) {
	k := sort.Search(len(r.first), func(k int) bool { return r.first[k] > id }) - 1
	if k < 0 {
		return 0, false
	}
	end := int64(n)
	if k+1 < len(r.row) {
		end = r.row[k+1]
	}
	i := r.row[k] + id - r.first[k]
	if i >= end {
		return 0, false
	}
	return int(i), true
}

// idAt returns the chunk id of row i.
func (v *Vectors) idAt(i int) int64 {
	if v.ids != nil {
		return v.ids[i]
	}
	return v.runs.at(i)
}

// allIDs returns the chunk id of every row, in row order (a copy when
// runs hold them).
func (v *Vectors) allIDs() []int64 {
	if v.ids != nil || len(v.scales) == 0 {
		return v.ids
	}
	out := make([]int64, len(v.scales))
	k := 0
	for i := range out {
		if k+1 < len(v.runs.row) && int64(i) == v.runs.row[k+1] {
			k++
		}
		out[i] = v.runs.first[k] + int64(i) - v.runs.row[k]
	}
	return out
}

// findRow returns the row of chunk id, relying on the ids ascending (as
// every writer and reader of vectors keeps them), and false when no row
// holds it.
func (v *Vectors) findRow(id int64) (int, bool) {
	if v.ids == nil {
		return v.runs.find(id, len(v.scales))
	}
	return slices.BinarySearch(v.ids, id)
}

// valid reports whether r is well formed for n rows: runs that start at
// row 0 (unless there are no rows), rows and ids that ascend, and ids
// that ascend across runs too.
func (r *idRuns) valid(n int) bool {
	if len(r.first) != len(r.row) || (n == 0) != (len(r.row) == 0) {
		return false
	}
	for k := range r.row {
		if k == 0 {
			if r.row[0] != 0 {
				return false
			}
			continue
		}
		rows := r.row[k] - r.row[k-1]
		if rows <= 0 || r.row[k] >= int64(n) || r.first[k] < r.first[k-1]+rows {
			return false
		}
	}
	return true
}
