package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestSimilarities(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 2))
	unit := func() []float32 {
		v := make([]float32, 64)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		embed.Normalize(v)
		return v
	}
	for _, ids := range [][]int64{{3, 8, 20, 41}, {41, 3, 20, 8}} { // sorted, then not
		v := newVectors(1, 64, len(ids))
		vecs := map[int64][]float32{}
		for _, id := range ids {
			vecs[id] = unit()
			v.add(id, vecs[id])
		}
		q := unit()
		ask := []int64{20, 99, 3, 41, 8}
		got := v.Similarities(q, ask)
		for i, id := range ask {
			want := 0.0
			if x, ok := vecs[id]; ok {
				want = float64(embed.Dot(q, x))
			}
			if math.Abs(got[i]-want) > 0.01 {
				t.Errorf("ids %v: similarity of chunk %d = %.4f, want %.4f", ids, id, got[i], want)
			}
		}
	}
	empty := newVectors(1, 64, 0)
	if got := empty.Similarities(make([]float32, 64), []int64{1}); got[0] != 0 {
		t.Errorf("similarity in an empty Vectors = %v, want 0", got[0])
	}
}

func TestDenseRerank(t *testing.T) {
	t.Parallel()
	cands := []Result{
		{ChunkID: 1, Score: 0.5, Fused: 0.5, Channels: map[string]ChannelHit{}},
		{ChunkID: 2, Score: 0.5, Fused: 0.5, Channels: map[string]ChannelHit{}},
		{ChunkID: 3, Score: 0.5, Fused: 0.5, Channels: map[string]ChannelHit{}},
	}
	denseRerank(cands, []float64{0.1, 0.7, -0.2}, 2)
	if !(cands[1].Score > cands[0].Score && cands[0].Score > cands[2].Score) {
		t.Errorf("scores %v, %v, %v: want the most similar first and no lift for a negative cosine", cands[0].Score, cands[1].Score, cands[2].Score)
	}
	if h := cands[1].Channels["dense-rerank"]; h.Rank != 1 || h.Score != 0.7 {
		t.Errorf("dense-rerank hit of the best candidate = %+v, want rank 1, score 0.7", h)
	}
	if _, ok := cands[2].Channels["dense-rerank"]; ok {
		t.Error("a candidate with a negative cosine got a dense-rerank hit")
	}
	if want := 0.5 + 2.0/float64(RRFK+1); math.Abs(cands[1].Score-want) > 1e-12 || cands[1].Fused != cands[1].Score {
		t.Errorf("best candidate score %v (fused %v), want %v", cands[1].Score, cands[1].Fused, want)
	}
}

// TestSimilaritiesPacked checks the packed rows of a vector file: each
// similarity is the float dot product within the rows' int8 steps, and
// exactly the score the dense channel gives the same chunk, whatever the
// order of ids and with ids the file lacks.
func TestSimilaritiesPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows, query := randomRows(rng, 3000, 64)
	_, v := mappedFile(t, rows.quantised())
	if !packedKernel(v) {
		t.Skip("no packed-row kernel on this platform or CPU")
	}
	for range 5 {
		q := query()
		ids, scores := v.Nearest(q, 20)
		ask := append([]int64{7, 99999}, ids...)
		rng.Shuffle(len(ask), func(i, j int) { ask[i], ask[j] = ask[j], ask[i] })
		got := v.Similarities(q, ask)
		for i, id := range ask {
			j := slices.Index(ids, id)
			if j < 0 {
				if got[i] != 0 {
					t.Errorf("similarity of absent chunk %d = %v, want 0", id, got[i])
				}
				continue
			}
			if got[i] != scores[j] {
				t.Errorf("chunk %d: similarity %v, dense channel score %v", id, got[i], scores[j])
			}
			k := int(id - 1000)
			if want := float64(embed.Dot(q, rows.data[k*64:(k+1)*64])); math.Abs(got[i]-want) > 0.01 {
				t.Errorf("chunk %d: similarity %.4f, float dot product %.4f", id, got[i], want)
			}
		}
	}
}
