package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
)

// randomVectors returns n random L2-normalised vectors with ids 1000+i.
func randomVectors(rng *rand.Rand, n, dims int) *Vectors {
	v := &Vectors{dims: dims}
	for i := range n {
		row := make([]float32, dims)
		for j := range row {
			row[j] = float32(rng.NormFloat64())
		}
		embed.Normalize(row)
		v.ids = append(v.ids, int64(1000+i))
		v.data = append(v.data, row...)
	}
	return v
}

// nearestBySort is the reference: score every vector, sort, keep k. It
// also returns every vector's score by id.
func nearestBySort(v *Vectors, q []float32, k int) ([]float64, map[int64]float64) {
	byID := make(map[int64]float64, len(v.ids))
	all := make([]float64, len(v.ids))
	for i, id := range v.ids {
		var dot float64
		for j := range v.dims {
			dot += float64(q[j]) * float64(v.data[i*v.dims+j])
		}
		all[i], byID[id] = dot, dot
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(all)))
	return all[:min(k, len(all))], byID
}

func TestNearest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, dims int }{{1, 8}, {50, 16}, {1000, 64}} {
		for _, k := range []int{1, 5, 50, 999, 2000} {
			t.Run(fmt.Sprintf("n=%d/dims=%d/k=%d", tc.n, tc.dims, k), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(k)))
				v := randomVectors(rng, tc.n, tc.dims)
				if v.Len() != tc.n {
					t.Fatalf("Len = %d, want %d", v.Len(), tc.n)
				}
				for range 5 {
					q := randomVectors(rng, 1, tc.dims).data
					gotIDs, gotScores := v.Nearest(q, k)
					wantScores, score := nearestBySort(v, q, k)
					// The k best scores, best first; ids may swap only
					// where scores tie within float32 rounding.
					if diff := cmp.Diff(wantScores, gotScores, cmpopts.EquateApprox(0, 1e-5)); diff != "" {
						t.Errorf("scores (-want +got):\n%s", diff)
					}
					seen := map[int64]bool{}
					for i, id := range gotIDs {
						if seen[id] {
							t.Errorf("id %d returned twice", id)
						}
						seen[id] = true
						if s, ok := score[id]; !ok || math.Abs(s-gotScores[i]) > 1e-5 {
							t.Errorf("result %d: id %d with score %v, but its similarity is %v", i, id, gotScores[i], s)
						}
					}
				}
			})
		}
	}
}

func TestNearestEdges(t *testing.T) {
	t.Parallel()
	v := randomVectors(rand.New(rand.NewPCG(1, 2)), 10, 4)
	q := v.data[:4] // the first stored vector
	cases := []struct {
		name string
		q    []float32
		k    int
		want int
	}{
		{"k zero", q, 0, 0},
		{"k negative", q, -3, 0},
		{"wrong dimensions", []float32{1, 0}, 3, 0},
		{"nil query", nil, 3, 0},
		{"k larger than the set", q, 100, 10},
	}
	for _, c := range cases {
		ids, scores := v.Nearest(c.q, c.k)
		if len(ids) != c.want || len(scores) != c.want {
			t.Errorf("%s: %d ids, %d scores, want %d", c.name, len(ids), len(scores), c.want)
		}
	}
	// A stored vector is its own nearest neighbour, at similarity 1.
	ids, scores := v.Nearest(q, 1)
	if len(ids) != 1 || ids[0] != 1000 || scores[0] < 0.9999 {
		t.Errorf("Nearest(stored vector) = %v %v, want [1000] [1]", ids, scores)
	}
	empty := &Vectors{dims: 4}
	if ids, _ := empty.Nearest(q, 5); len(ids) != 0 {
		t.Errorf("empty Nearest = %v", ids)
	}
}
