// Command weaviate-layout measures the two ways of keeping many
// repositories in one Weaviate cluster: a tenant per repository (what
// ctx does, internal/wvstore) against one sharded collection whose
// objects carry a repo property that every query filters on. It copies
// the chunk objects of the given repositories' tenants (written by `ctx
// index --backend weaviate`) into one single-tenant collection, then runs
// each annotated semble query's BM25 and vector searches both ways and
// reports file-level NDCG@10 of the BM25 top 10, how many of the top 10
// agree, and the median latency of each.
//
//	go run ./scripts/weaviate-layout -url $CTX_WEAVIATE_URL -checkouts /work/checkouts \
//	  -repos ../shared/bench/semble/repos.json -annotations ../shared/bench/semble/annotations
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/builtin"
	"github.com/ctx-dev/ctx/internal/weaviate"
	"github.com/ctx-dev/ctx/internal/wvstore"
)

func main() {
	base := flag.String("url", os.Getenv("CTX_WEAVIATE_URL"), "Weaviate base URL")
	prefix := flag.String("prefix", wvstore.DefaultPrefix, "ctx's collection prefix")
	checkouts := flag.String("checkouts", "", "directory of the semble checkouts")
	reposFile := flag.String("repos", "", "semble repos.json")
	annDir := flag.String("annotations", "", "semble annotations directory")
	shards := flag.Int("shards", 3, "shards of the shared collection")
	keep := flag.Bool("keep", false, "keep the shared collection afterwards")
	settle := flag.Duration("settle", time.Minute, "wait after copying, before querying (the server compacts a fresh ingest in the background)")
	flag.Parse()
	ctx := context.Background()
	c, err := weaviate.New(*base, "")
	if err != nil {
		log.Fatal(err)
	}
	var repos []struct {
		Name string `json:"name"`
		Root string `json:"benchmark_root"`
	}
	readJSON(*reposFile, &repos)

	shared := "LayoutChunk"
	props := []weaviate.Property{{Name: "repo", DataType: "text", Tokenization: "field"}, {Name: "path", DataType: "text", Tokenization: "field"}}
	for _, p := range []string{"tName", "tPath", "tDoc", "tBody"} {
		props = append(props, weaviate.Property{Name: p, DataType: "text", Tokenization: "whitespace"})
	}
	_ = c.DeleteClass(ctx, shared)
	if err := c.EnsureClass(ctx, weaviate.Class{Name: shared, Properties: props, Shards: *shards}); err != nil {
		log.Fatal(err)
	}
	if !*keep {
		defer c.DeleteClass(ctx, shared)
	}
	tenants := map[string]string{}
	total := 0
	start := time.Now()
	for _, r := range repos {
		root := filepath.Join(*checkouts, r.Name, r.Root)
		t := wvstore.TenantFor(root, "")
		tenants[r.Name] = t
		n, err := copyTenant(ctx, c, *base, *prefix+"Chunk", t, shared, r.Name)
		if err != nil {
			log.Fatalf("%s: %v", r.Name, err)
		}
		total += n
	}
	fmt.Printf("copied %d objects of %d repositories into %s (%d shards) in %s\n", total, len(repos), shared, *shards, time.Since(start).Round(time.Second))

	time.Sleep(*settle)
	emb, err := builtin.New()
	if err != nil {
		log.Fatal(err)
	}
	weights := []string{"tName^3", "tPath^2", "tDoc^2", "tBody"}
	var ndcgT, ndcgS, agree []float64
	var latT, latS, vlatT, vlatS []float64
	for _, r := range repos {
		var anns []struct {
			Query     string   `json:"query"`
			Relevant  []target `json:"relevant"`
			Secondary []target `json:"secondary"`
		}
		readJSON(filepath.Join(*annDir, r.Name+".json"), &anns)
		for _, a := range anns {
			var terms []string
			for _, t := range analyze.Analyze(a.Query).TopTerms(32) {
				terms = append(terms, t.Text)
			}
			bm := &weaviate.BM25{Query: strings.Join(terms, " "), Properties: weights}
			s := time.Now()
			th, err := c.Get(ctx, weaviate.Query{Class: *prefix + "Chunk", Tenant: tenants[r.Name], Fields: []string{"path"}, BM25: bm, Limit: 10})
			if err != nil {
				log.Fatal(err)
			}
			latT = append(latT, ms(s))
			f := weaviate.Equal("repo", r.Name)
			s = time.Now()
			sh, err := c.Get(ctx, weaviate.Query{Class: shared, Fields: []string{"path"}, BM25: bm, Where: &f, Limit: 10})
			if err != nil {
				log.Fatal(err)
			}
			latS = append(latS, ms(s))
			var rel []string
			for _, t := range append(slices.Clone(a.Relevant), a.Secondary...) {
				rel = append(rel, string(t))
			}
			pt, ps := paths(th, r.Root), paths(sh, r.Root)
			ndcgT = append(ndcgT, ndcg(pt, rel))
			ndcgS = append(ndcgS, ndcg(ps, rel))
			agree = append(agree, overlap(th, sh))

			vec, err := emb.Embed(ctx, []string{a.Query}, embed.Query)
			if err != nil {
				log.Fatal(err)
			}
			nv := &weaviate.NearVector{Vector: vec[0]}
			s = time.Now()
			if _, err := c.Get(ctx, weaviate.Query{Class: *prefix + "Chunk", Tenant: tenants[r.Name], Fields: []string{"path"}, NearVector: nv, Limit: 100}); err != nil {
				log.Fatal(err)
			}
			vlatT = append(vlatT, ms(s))
			s = time.Now()
			if _, err := c.Get(ctx, weaviate.Query{Class: shared, Fields: []string{"path"}, NearVector: nv, Where: &f, Limit: 100}); err != nil {
				log.Fatal(err)
			}
			vlatS = append(vlatS, ms(s))
		}
	}
	fmt.Printf("%d queries\n", len(ndcgT))
	fmt.Printf("BM25 top 10, file NDCG@10: tenant %.3f, shared collection + repo filter %.3f; top-10 chunks in common %.2f\n", mean(ndcgT), mean(ndcgS), mean(agree))
	fmt.Printf("BM25 top 10 latency p50/p95: tenant %.1f/%.1f ms, shared + filter %.1f/%.1f ms\n", pct(latT, .5), pct(latT, .95), pct(latS, .5), pct(latS, .95))
	fmt.Printf("vector top 100 latency p50/p95: tenant %.1f/%.1f ms, shared + filter %.1f/%.1f ms\n", pct(vlatT, .5), pct(vlatT, .95), pct(vlatS, .5), pct(vlatS, .95))
}

// copyTenant copies a tenant's chunk objects (with vectors) into the
// shared class, tagging each with repo. It returns the objects copied.
func copyTenant(ctx context.Context, c *weaviate.Client, base, class, tenant, shared, repo string) (int, error) {
	after, n := "", 0
	for {
		q := url.Values{"class": {class}, "tenant": {tenant}, "limit": {"500"}, "include": {"vector"}}
		if after != "" {
			q.Set("after", after)
		}
		resp, err := http.Get(strings.TrimRight(base, "/") + "/v1/objects?" + q.Encode())
		if err != nil {
			return n, err
		}
		var page struct {
			Objects []struct {
				ID         string         `json:"id"`
				Properties map[string]any `json:"properties"`
				Vector     []float32      `json:"vector"`
			} `json:"objects"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return n, err
		}
		var objs []weaviate.Object
		for _, o := range page.Objects {
			props := map[string]any{"repo": repo}
			for _, k := range []string{"path", "tName", "tPath", "tDoc", "tBody"} {
				props[k] = o.Properties[k]
			}
			objs = append(objs, weaviate.Object{ID: o.ID, Class: shared, Properties: props, Vector: o.Vector})
		}
		if err := c.BatchPut(ctx, objs); err != nil {
			return n, err
		}
		n += len(objs)
		if len(page.Objects) < 500 {
			return n, nil
		}
		after = page.Objects[len(page.Objects)-1].ID
	}
}

// target is an annotated file: a path, or an object with one (a line
// range of it; scored here by its file).
type target string

func (t *target) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = target(s)
		return nil
	}
	var o struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*t = target(o.Path)
	return nil
}

func paths(hs []weaviate.Hit, root string) []string {
	var out []string
	for _, h := range hs {
		var p string
		_ = json.Unmarshal(h.Props["path"], &p)
		if root != "" && root != "." {
			p = path.Join(root, p)
		}
		out = append(out, p)
	}
	return out
}

// ndcg is file-level NDCG@10 with binary gains (a file counts once).
func ndcg(got, rel []string) float64 {
	seen := map[string]bool{}
	dcg, idcg := 0.0, 0.0
	rank := 0
	for _, p := range got {
		if seen[p] {
			continue
		}
		seen[p] = true
		rank++
		if rank > 10 {
			break
		}
		if slices.Contains(rel, p) {
			dcg += 1 / math.Log2(float64(rank)+1)
		}
	}
	for i := range min(len(rel), 10) {
		idcg += 1 / math.Log2(float64(i)+2)
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func overlap(a, b []weaviate.Hit) float64 {
	ids := map[string]bool{}
	for _, h := range a {
		ids[h.ID] = true
	}
	n := 0
	for _, h := range b {
		if ids[h.ID] {
			n++
		}
	}
	return float64(n) / float64(max(len(a), 1))
}

func ms(s time.Time) float64 { return float64(time.Since(s).Microseconds()) / 1000 }

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

func pct(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[min(len(s)-1, int(math.Round(q*float64(len(s)-1))))]
}

func readJSON(p string, v any) {
	b, err := os.ReadFile(p)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %v", p, err)
	}
}
