package search

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSortResultsMatchesSliceStable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		scores int // distinct scores drawn from: few means many ties
	}{
		{"empty", 0, 1},
		{"one", 1, 1},
		{"all tied", 50, 1},
		{"many ties", 400, 5},
		{"few ties", 400, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.scores)))
			rs := make([]Result, tc.n)
			for i := range rs {
				rs[i] = Result{ChunkID: int64(rng.IntN(3 * (tc.n + 1))), Score: float64(rng.IntN(tc.scores)) / 7}
			}
			want := append([]Result(nil), rs...)
			sort.SliceStable(want, func(i, j int) bool { return want[i].Score > want[j].Score })
			got := append([]Result(nil), rs...)
			sortResults(got, byScore)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("by score (-sort.SliceStable +sortResults):\n%s", diff)
			}
		})
	}
}
