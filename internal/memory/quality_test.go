package memory

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/builtin"
)

var update = flag.Bool("update", false, "rewrite testdata/quality_stats.txt from this run")

// Floors of TestQuality for the hybrid search with the built-in model, a
// little below what testdata/quality_stats.txt records, so a retrained
// model may move them a little but not fall back.
const (
	floorNDCG10  = 0.88
	floorRecall5 = 0.78
)

type qualityFixture struct {
	Memories []struct {
		Kind     string   `json:"kind"`
		Text     string   `json:"text"`
		Tags     []string `json:"tags"`
		Path     string   `json:"path"`
		Priority int      `json:"priority"`
	} `json:"memories"`
	Queries []struct {
		Query    string         `json:"query"`
		Relevant map[string]int `json:"relevant"`
	} `json:"queries"`
}

// ndcg returns NDCG@k of ranked ids against graded relevance (gain
// 2^grade − 1, log2 discount).
func ndcg(ranked []int64, rel map[int64]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += (math.Pow(2, float64(rel[id])) - 1) / math.Log2(float64(i+2))
	}
	var grades []int
	for _, g := range rel {
		grades = append(grades, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	ideal := 0.0
	for i, g := range grades[:min(k, len(grades))] {
		ideal += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// recall returns the share of the relevant ids among the first k.
func recall(ranked []int64, rel map[int64]int, k int) float64 {
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(len(rel))
}

// TestQuality measures memory search on a labelled fixture
// (testdata/quality.json) with the built-in model: NDCG@10 and recall@5
// of the hybrid search and of each channel alone. It checks the hybrid
// numbers against floors and the whole table against
// testdata/quality_stats.txt (rewritten with -update), which is only
// compared when it was written with the same model.
func TestQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the built-in model")
	}
	ctx := t.Context()
	var fx qualityFixture
	b, err := os.ReadFile("testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	p, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	emb := &Embedder{Provider: p}
	db := openTest(t)
	for i, m := range fx.Memories {
		got, err := db.Add(ctx, Input{Text: m.Text, Kind: m.Kind, Tags: m.Tags, Path: m.Path, Priority: m.Priority}, emb)
		if err != nil || got.ID != int64(i+1) {
			t.Fatalf("memory %d: id %d, %v", i+1, got.ID, err)
		}
	}
	recs, err := db.records(ctx, withText|withVecs)
	if err != nil {
		t.Fatal(err)
	}

	type row struct {
		name          string
		ndcg, recall5 float64
	}
	var rows []row
	var perQuery strings.Builder
	var relSims, otherSims []float64
	for _, mode := range []string{"hybrid", "bm25", "dense"} {
		r := row{name: mode}
		for qi, q := range fx.Queries {
			rel := map[int64]int{}
			for id, g := range q.Relevant {
				n, _ := strconv.ParseInt(id, 10, 64)
				rel[n] = g
			}
			vecs, err := embed.Batch(ctx, p, []string{q.Query}, embed.Query, 0)
			if err != nil {
				t.Fatal(err)
			}
			var qvec []float32
			if mode != "bm25" {
				qvec = vecs[0]
			}
			hits := rank(recs, Query{Text: q.Query, Limit: 10}, qvec, mode != "dense", nil)
			ranked := hitIDs(hits)
			n, rc := ndcg(ranked, rel, 10), recall(ranked, rel, 5)
			r.ndcg += n / float64(len(fx.Queries))
			r.recall5 += rc / float64(len(fx.Queries))
			if mode == "hybrid" {
				// The store's search (term index, stored vectors) ranks
				// as the in-memory analysis does.
				viaDB, _, err := db.Search(ctx, Query{Text: q.Query, Limit: 10}, emb)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ranked, hitIDs(viaDB)); diff != "" {
					t.Errorf("%q: DB.Search differs from rank (-rank +search):\n%s", q.Query, diff)
				}
				fmt.Fprintf(&perQuery, "q%-2d ndcg@10 %.3f recall@5 %.2f top5 %v  %s\n", qi+1, n, rc, ranked[:min(5, len(ranked))], q.Query)
				for _, rec := range recs {
					sim := float64(embed.Dot(vecs[0], rec.vec))
					if rel[rec.ID] == 2 {
						relSims = append(relSims, sim)
					} else if rel[rec.ID] == 0 {
						otherSims = append(otherSims, sim)
					}
				}
			}
		}
		rows = append(rows, r)
	}
	slices.Sort(relSims)
	slices.Sort(otherSims)
	pct := func(s []float64, p float64) float64 { return s[int(p*float64(len(s)-1))] }
	t.Logf("dense cosines of the answers: min %.3f, p10 %.3f, median %.3f; of unrelated memories: median %.3f, p90 %.3f, p99 %.3f (floor %.2f)",
		relSims[0], pct(relSims, 0.1), pct(relSims, 0.5), pct(otherSims, 0.5), pct(otherSims, 0.9), pct(otherSims, 0.99), DenseFloor)

	var got strings.Builder
	fmt.Fprintf(&got, "# Memory search quality on testdata/quality.json: %d memories, %d queries, graded relevance.\n", len(fx.Memories), len(fx.Queries))
	fmt.Fprintf(&got, "# Rewrite with: go test ./internal/memory -run TestQuality -update\n")
	fmt.Fprintf(&got, "model %s\n\n", p.Model())
	fmt.Fprintf(&got, "%-8s %-8s %s\n", "channels", "ndcg@10", "recall@5")
	for _, r := range rows {
		fmt.Fprintf(&got, "%-8s %.3f    %.3f\n", r.name, r.ndcg, r.recall5)
	}
	fmt.Fprintf(&got, "\nhybrid, per query:\n%s", perQuery.String())
	t.Logf("\n%s", got.String())

	if rows[0].ndcg < floorNDCG10 || rows[0].recall5 < floorRecall5 {
		t.Errorf("hybrid NDCG@10 %.3f, recall@5 %.3f; floors %.2f and %.2f", rows[0].ndcg, rows[0].recall5, floorNDCG10, floorRecall5)
	}
	const file = "testdata/quality_stats.txt"
	if *update {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (write it with -update)", err)
	}
	if !strings.Contains(string(want), "model "+p.Model().String()+"\n") {
		t.Skipf("%s was measured with another model; not compared (rewrite it with -update)", file)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("quality changed (-%s +now); if intended, rewrite with -update and commit the diff:\n%s", file, diff)
	}
}
