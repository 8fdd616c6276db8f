package search

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

// floatRows is a set of float32 unit vectors, the exact reference that
// [Vectors] quantises.
type floatRows struct {
	dims int
	ids  []int64
	data []float32 // len(ids)*dims, row-major
}

// quantised returns r as Vectors at generation 1.
func (r *floatRows) quantised() *Vectors {
	v := newVectors(1, r.dims, len(r.ids))
	for i, id := range r.ids {
		v.add(id, r.data[i*r.dims:(i+1)*r.dims])
	}
	v.computeWeights()
	return v
}

// nearestFloat32 is the float32 brute force that [Vectors.Nearest]
// replaced, kept as the exact reference and the benchmarks' baseline: one
// float32 dot product per row, a heap of the k best.
func (r *floatRows) nearestFloat32(q []float32, k int) ([]int64, []float64) {
	if len(q) != r.dims || k <= 0 {
		return nil, nil
	}
	h := &minHeap{}
	for i, id := range r.ids {
		s := float64(embed.Dot(q, r.data[i*r.dims:(i+1)*r.dims]))
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

// similarity returns the exact cosine of q and the row of id.
func (r *floatRows) similarity(q []float32, id int64) float64 {
	i := slices.Index(r.ids, id)
	if i < 0 {
		return math.NaN()
	}
	return float64(embed.Dot(q, r.data[i*r.dims:(i+1)*r.dims]))
}

func randomUnit(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

// randomRows returns n uniformly random unit vectors with ids 1000+i, and
// a generator of queries from the same distribution.
func randomRows(rng *rand.Rand, n, dims int) (*floatRows, func() []float32) {
	r := &floatRows{dims: dims}
	for i := range n {
		r.ids = append(r.ids, int64(1000+i))
		r.data = append(r.data, randomUnit(rng, dims)...)
	}
	return r, func() []float32 { return randomUnit(rng, dims) }
}

// clusteredRows returns n unit vectors drawn like code embeddings, with ids
// 1000+i, and a generator of queries from the same distribution. Rows are
// topics (one per 2000 rows) refined into clusters of about 40 rows, with
// skewed cluster sizes, plus a direction common to all; the parameters are
// calibrated to the real index (see vector_bench_test.go), where the mean
// query's best similarity is 0.62, its 100th best 0.31, a random row's
// -0.05 and the mean row's length 0.15: these rows give 0.59, 0.34, -0.01
// and 0.16.
func clusteredRows(rng *rand.Rand, n, dims int) (*floatRows, func() []float32) {
	sd := 1 / math.Sqrt(float64(dims))
	gauss := func(scale float64, base []float32) []float32 {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64() * scale * sd)
			if base != nil {
				v[j] += base[j]
			}
		}
		return v
	}
	common := gauss(0.3, nil)
	topics := make([][]float32, max(n/2000, 4))
	for i := range topics {
		topics[i] = gauss(1, common)
	}
	clusters := make([][]float32, max(n/40, 10))
	for i := range clusters {
		clusters[i] = gauss(1, topics[rng.IntN(len(topics))])
	}
	gen := func() []float32 {
		c := clusters[int(float64(len(clusters))*math.Pow(rng.Float64(), 1.5))]
		v := gauss(1.5*(0.6+0.8*rng.Float64()), c)
		embed.Normalize(v)
		return v
	}
	r := &floatRows{dims: dims}
	for i := range n {
		r.ids = append(r.ids, int64(1000+i))
		r.data = append(r.data, gen()...)
	}
	return r, gen
}

// scoreTolerance bounds |int8 score - float32 cosine| of q with any row of
// v: each row element is within half its scale (embed.Quantize), so a
// score is within Σ|q[j]|·scale/2, plus 1e-4 for the query's own rounding.
func scoreTolerance(v *Vectors, q []float32) float64 {
	var l1, scale float64
	for _, x := range q {
		l1 += math.Abs(float64(x))
	}
	for _, s := range v.scales {
		scale = max(scale, float64(s))
	}
	return l1*scale/2 + 1e-4
}

func TestNearest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, dims int }{{1, 8}, {50, 16}, {1000, 64}, {300, 100}} {
		for _, k := range []int{1, 5, 50, 999, 2000} {
			t.Run(fmt.Sprintf("n=%d/dims=%d/k=%d", tc.n, tc.dims, k), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(k)))
				r, query := randomRows(rng, tc.n, tc.dims)
				v := r.quantised()
				if v.Len() != tc.n {
					t.Fatalf("Len = %d, want %d", v.Len(), tc.n)
				}
				for range 3 {
					q := query()
					tol := scoreTolerance(v, q)
					gotIDs, gotScores := v.Nearest(q, k)
					_, wantScores := r.nearestFloat32(q, k)
					if len(gotIDs) != len(wantScores) || len(gotScores) != len(wantScores) {
						t.Fatalf("%d ids and %d scores, want %d", len(gotIDs), len(gotScores), len(wantScores))
					}
					seen := map[int64]bool{}
					for i, id := range gotIDs {
						if seen[id] {
							t.Errorf("id %d returned twice", id)
						}
						seen[id] = true
						if i > 0 && gotScores[i] > gotScores[i-1] {
							t.Errorf("result %d: score %v above the previous %v", i, gotScores[i], gotScores[i-1])
						}
						// Each score is its row's similarity, and the
						// i-th score the i-th best, within quantisation.
						if s := r.similarity(q, id); math.Abs(s-gotScores[i]) > tol {
							t.Errorf("result %d: id %d with score %v, but its similarity is %v", i, id, gotScores[i], s)
						}
						if math.Abs(wantScores[i]-gotScores[i]) > tol {
							t.Errorf("result %d: score %v, the %d-th best similarity is %v", i, gotScores[i], i+1, wantScores[i])
						}
					}
				}
			})
		}
	}
}

func TestNearestEdges(t *testing.T) {
	t.Parallel()
	r, _ := randomRows(rand.New(rand.NewPCG(1, 2)), 10, 4)
	v := r.quantised()
	q := r.data[:4] // the first stored vector
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
		{"zero query", []float32{0, 0, 0, 0}, 3, 3},
		{"NaN query", []float32{float32(math.NaN()), 0, 0, 0}, 3, 3},
	}
	for _, c := range cases {
		ids, scores := v.Nearest(c.q, c.k)
		if len(ids) != c.want || len(scores) != c.want {
			t.Errorf("%s: %d ids, %d scores, want %d", c.name, len(ids), len(scores), c.want)
		}
	}
	// A stored vector is its own nearest neighbour, at similarity 1.
	ids, scores := v.Nearest(q, 1)
	if len(ids) != 1 || ids[0] != 1000 || math.Abs(scores[0]-1) > scoreTolerance(v, q) {
		t.Errorf("Nearest(stored vector) = %v %v, want [1000] [1]", ids, scores)
	}
	empty := newVectors(1, 4, 0)
	empty.computeWeights()
	if ids, _ := empty.Nearest(q, 5); len(ids) != 0 {
		t.Errorf("empty Nearest = %v", ids)
	}
}

// TestNearestRecall measures recall@10 and recall@100 of Nearest against
// exact float32 search on sets large enough for the prefiltered path, on
// uniformly random vectors (the worst case: no structure) and on
// clustered ones like real embeddings, and checks that on clustered data
// the prefilter rescores a fraction of the rows.
func TestNearestRecall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("recall measurement in -short mode")
	}
	for _, tc := range []struct {
		data       string
		n, dims    int
		maxScored  float64 // mean fraction of rows scored exactly
		makeRows   func(*rand.Rand, int, int) (*floatRows, func() []float32)
		minRecall  float64
		queries, k int
	}{
		{"random", 20000, 256, 1, randomRows, 0.98, 20, 10},
		{"random", 20000, 256, 1, randomRows, 0.98, 20, 100},
		{"clustered", 20000, 256, 0.3, clusteredRows, 0.98, 20, 10},
		{"clustered", 20000, 256, 0.5, clusteredRows, 0.98, 20, 100},
		{"clustered", 20000, 100, 0.5, clusteredRows, 0.98, 20, 100},
	} {
		t.Run(fmt.Sprintf("%s/n=%d/dims=%d/k=%d", tc.data, tc.n, tc.dims, tc.k), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
			r, query := tc.makeRows(rng, tc.n, tc.dims)
			v := r.quantised()
			var recall, scored float64
			for range tc.queries {
				q := query()
				want, _ := r.nearestFloat32(q, tc.k)
				got, _, st := v.nearest(q, tc.k)
				recall += recallOf(got, want) / float64(tc.queries)
				scored += float64(st.scored) / float64(tc.n) / float64(tc.queries)
			}
			t.Logf("recall@%d %.3f, %.1f%% of rows scored exactly", tc.k, recall, 100*scored)
			if recall < tc.minRecall {
				t.Errorf("recall@%d = %.3f, want ≥ %.2f", tc.k, recall, tc.minRecall)
			}
			if scored > tc.maxScored {
				t.Errorf("%.1f%% of rows scored exactly, want ≤ %.0f%%", 100*scored, 100*tc.maxScored)
			}
		})
	}
}

// recallOf returns the fraction of want found in got.
func recallOf(got, want []int64) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[int64]bool, len(got))
	for _, id := range got {
		in[id] = true
	}
	n := 0
	for _, id := range want {
		if in[id] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func TestDotInt8(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		q, r := make([]int32, n), make([]int8, n)
		var want int64
		for i := range n {
			q[i] = int32(rng.IntN(65535) - 32767)
			r[i] = int8(rng.IntN(255) - 127)
			want += int64(q[i]) * int64(r[i])
		}
		if got := dotInt8(q, r); int64(got) != want {
			t.Errorf("n=%d: dotInt8 = %d, want %d", n, got, want)
		}
	}
}

// TestQueryBound checks the query's quantisation at its extremes: the
// largest dot product of the widest query and rows fits in an int32.
func TestQueryBound(t *testing.T) {
	t.Parallel()
	for _, dims := range []int{1, 256, 520, 4096, 65536} {
		v := newVectors(1, dims, 1)
		row := make([]float32, dims)
		for j := range row {
			row[j] = -1
		}
		v.add(1, row)
		v.computeWeights()
		var s scratch
		s.prepare(row, v)
		var sum int64
		for j, x := range s.q32 {
			sum += int64(x) * int64(v.rows[j])
		}
		if sum > math.MaxInt32 || sum <= 0 {
			t.Errorf("dims=%d: widest dot product %d does not fit an int32", dims, sum)
		}
		if got := dotInt8(s.q32, v.rows); int64(got) != sum {
			t.Errorf("dims=%d: dotInt8 = %d, want %d", dims, got, sum)
		}
	}
}

func TestFitLine(t *testing.T) {
	t.Parallel()
	a, b, sd := fitLine([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7})
	if math.Abs(a-2) > 1e-12 || math.Abs(b-1) > 1e-12 || sd > 1e-12 {
		t.Errorf("fitLine of y = 2x+1 = %v, %v, %v", a, b, sd)
	}
	if a, _, _ := fitLine([]float64{1, 1, 1}, []float64{1, 2, 3}); a != 0 {
		t.Errorf("fitLine of constant x: slope %v, want 0", a)
	}
	if a, _, _ := fitLine([]float64{1, 2}, []float64{1, 2}); a != 0 {
		t.Errorf("fitLine of 2 points: slope %v, want 0 (no residual estimate)", a)
	}
}
