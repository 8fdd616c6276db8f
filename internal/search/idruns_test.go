package search

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestVectorFileIDRuns writes vector files whose ids have gaps (stored
// as runs), are scattered (more runs than half the rows: listed) or do
// not ascend (listed), and checks that every id finds its row, ids
// between and around the runs find none, and the rows read back in
// order. (Row and Has rely on ids that ascend, as every writer keeps
// them.)
func TestVectorFileIDRuns(t *testing.T) {
	t.Parallel()
	gapped := []int64{}
	for _, r := range [][2]int64{{5, 40}, {41, 42}, {100, 160}, {161, 162}, {500, 501}} {
		for id := r[0]; id < r[1]; id++ {
			gapped = append(gapped, id)
		}
	}
	scattered := []int64{}
	for i := range 40 {
		scattered = append(scattered, int64(3*i+1))
	}
	for _, tc := range []struct {
		name  string
		ids   []int64
		runs  int // -1: listed
		probe []int64
	}{
		{"gapped", gapped, 5, []int64{0, 4, 40, 42, 43, 99, 160, 162, 163, 499, 501, 1000}},
		{"scattered", scattered, -1, []int64{0, 2, 3, 200}},
		{"descending", []int64{9, 8, 7, 3}, -1, nil},
		{"one run", []int64{77, 78, 79}, 1, []int64{76, 80}},
		{"one row", []int64{77}, -1, []int64{76, 78}}, // a run takes 16 bytes
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, _ := randomRows(rand.New(rand.NewPCG(5, 6)), len(tc.ids), 16)
			r.ids = tc.ids
			v := r.quantised()
			path := filepath.Join(t.TempDir(), "x.db.vec")
			if err := WriteVectorFile(path, "m", v); err != nil {
				t.Fatal(err)
			}
			got, err := ReadVectorFile(path, "m", 16, v.Generation)
			if err != nil {
				t.Fatal(err)
			}
			if runs := len(got.runs.first); tc.runs >= 0 && (got.ids != nil || runs != tc.runs) || tc.runs < 0 && got.ids == nil {
				t.Errorf("ids listed %v, %d runs; want %d runs (-1: listed)", got.ids != nil, runs, tc.runs)
			}
			sameVectors(t, v, got)
			buf := make([]int8, 16)
			for i, id := range tc.ids {
				if got.idAt(i) != id {
					t.Errorf("idAt(%d) = %d, want %d", i, got.idAt(i), id)
				}
				if !slices.IsSorted(tc.ids) {
					continue // Row relies on ascending ids
				}
				q, scale, ok := got.Row(id)
				if !ok || !slices.Equal(q, v.row(i, buf)) || scale != v.scales[i] {
					t.Errorf("Row(%d) = %v, %v, %v; want row %d", id, q, scale, ok, i)
				}
			}
			for _, id := range tc.probe {
				if slices.Contains(tc.ids, id) {
					t.Fatalf("probe %d is an id", id)
				}
				if got.Has(id) {
					t.Errorf("Has(%d) = true for an id no row holds", id)
				}
			}
		})
	}
}
