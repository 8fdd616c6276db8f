// Benchmarks of nearest-neighbour search: Vectors.Nearest (int8 rows,
// sign-bit prefilter) against the float32 brute force it replaced, at
// N = 10k, 100k and 1M rows of 256 dimensions, k = 100 (the dense
// channel's limit), on clustered vectors calibrated to real code
// embeddings and on uniformly random ones (the prefilter's worst case):
//
//	go test -run='^$' -bench='BenchmarkNearest$' -benchtime=20x -count=5 ./internal/search
//
// A CLI query maps the vector file afresh; BenchmarkOpenNearest measures
// ReadVectorFile plus one Nearest against reading a version 1 style
// float32 file whole plus the brute force:
//
//	go test -run='^$' -bench=BenchmarkOpenNearest -benchtime=20x -count=5 ./internal/search
//
// On real vectors (opt-in): point CTX_BENCH_VECDB at an index database
// built with the built-in model, e.g. GOROOT/src's under CTX_CACHE_DIR;
// its vector file beside it is read. The queries are 300 stored vectors
// (each query's own row left out of both answers) and the questions of
// scripts/goroot-queries.txt embedded as a search embeds them:
//
//	CTX_BENCH_VECDB=/path/to/index.db go test -run=TestNearestRecallIndex -v ./internal/search
//	CTX_BENCH_VECDB=/path/to/index.db go test -run='^$' -bench=BenchmarkNearestIndex -benchtime=500x -count=6 ./internal/search
package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/builtin"
)

// benchSet is a data set built once per process and shared by
// sub-benchmarks.
type benchSet struct {
	rows    *floatRows
	vecs    *Vectors
	queries [][]float32
	texts   [][]float32 // query texts' embeddings (indexSet only)
}

var (
	benchSetsMu sync.Mutex
	benchSets   = map[string]*benchSet{}
)

func getBenchSet(b testing.TB, data string, n int) *benchSet {
	benchSetsMu.Lock()
	defer benchSetsMu.Unlock()
	key := fmt.Sprintf("%s/%d", data, n)
	if s, ok := benchSets[key]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	gen := clusteredRows
	if data == "random" {
		gen = randomRows
	}
	r, query := gen(rng, n, 256)
	s := &benchSet{rows: r, vecs: r.quantised()}
	for range 64 {
		s.queries = append(s.queries, query())
	}
	benchSets[key] = s
	return s
}

func BenchmarkNearest(b *testing.B) {
	const k = 100
	for _, data := range []string{"clustered", "random"} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			if data == "random" && n > 100_000 {
				continue
			}
			b.Run(fmt.Sprintf("data=%s/n=%d/float32", data, n), func(b *testing.B) {
				s := getBenchSet(b, data, n)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s.rows.nearestFloat32(s.queries[i%len(s.queries)], k)
					i++
				}
			})
			b.Run(fmt.Sprintf("data=%s/n=%d/int8", data, n), func(b *testing.B) {
				s := getBenchSet(b, data, n)
				b.ReportAllocs()
				var st nearestStats
				i := 0
				for b.Loop() {
					_, _, x := s.vecs.nearest(s.queries[i%len(s.queries)], k)
					st.estimated += x.estimated
					st.scored += x.scored
					i++
				}
				b.ReportMetric(float64(st.estimated)/float64(i), "estimated/op")
				b.ReportMetric(float64(st.scored)/float64(i), "scored/op")
			})
		}
	}
}

// BenchmarkOpenNearest is what one CLI query pays for the dense channel
// once the vector file is in the page cache: open the file, then search.
func BenchmarkOpenNearest(b *testing.B) {
	const k, n = 100, 100_000
	s := getBenchSet(b, "clustered", n)
	dir := b.TempDir()
	path := filepath.Join(dir, "x.db.vec")
	if err := WriteVectorFile(path, "m", s.vecs); err != nil {
		b.Fatal(err)
	}
	// The float32 rows as version 1 stored them, read as it did.
	f32 := filepath.Join(dir, "x.f32")
	raw := make([]byte, 0, 4*len(s.rows.data))
	for _, x := range s.rows.data {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	if err := os.WriteFile(f32, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("float32-readfile", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			raw, err := os.ReadFile(f32)
			if err != nil {
				b.Fatal(err)
			}
			r := &floatRows{dims: 256, ids: s.rows.ids, data: view(raw, len(raw)/4, float32LE)}
			r.nearestFloat32(s.queries[i%len(s.queries)], k)
			i++
		}
	})
	b.Run("int8-mmap", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v, err := ReadVectorFile(path, "m", 256, 1)
			if err != nil {
				b.Fatal(err)
			}
			v.Nearest(s.queries[i%len(s.queries)], k)
			i++
		}
	})
}

// indexSet loads the vector file beside the index database at
// $CTX_BENCH_VECDB (<db>.vec, which holds every vector since the store
// stopped keeping a copy), or skips. queries are 300 stored rows; texts
// are the questions of scripts/goroot-queries.txt embedded by the
// built-in model, as a search embeds its query.
func indexSet(tb testing.TB) *benchSet {
	path := os.Getenv("CTX_BENCH_VECDB")
	if path == "" {
		tb.Skip("CTX_BENCH_VECDB is not set")
	}
	benchSetsMu.Lock()
	defer benchSetsMu.Unlock()
	if s, ok := benchSets[path]; ok {
		return s
	}
	vecPath := path + ".vec"
	raw, err := os.ReadFile(vecPath)
	if err != nil {
		tb.Fatal(err)
	}
	if len(raw) < vecHeader || string(raw[:len(vecMagic)]) != vecMagic {
		tb.Fatalf("%s is not a vector file of this version", vecPath)
	}
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(raw[len(vecMagic)+8*i:])) }
	dims, ml := int(word(1)), word(3)
	tail := int64(len(raw)) - align8(ml)
	model := string(raw[tail : tail+ml])
	v, err := ReadVectorFile(vecPath, model, dims, -1)
	if err != nil {
		tb.Fatal(err)
	}
	v.computeWeights()
	r := &floatRows{dims: dims, ids: v.allIDs()}
	buf := make([]int8, dims)
	for i := range v.Len() {
		for _, x := range v.row(i, buf) {
			r.data = append(r.data, float32(x)*v.scales[i])
		}
	}
	s := &benchSet{rows: r, vecs: v}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		i := rng.IntN(len(r.ids))
		s.queries = append(s.queries, r.data[i*r.dims:(i+1)*r.dims])
	}
	p, err := builtin.New()
	if err != nil {
		tb.Fatal(err)
	}
	texts := readLines(tb, "../../scripts/goroot-queries.txt")
	if s.texts, err = p.Embed(tb.Context(), texts, embed.Query); err != nil {
		tb.Fatal(err)
	}
	benchSets[path] = s
	return s
}

// TestNearestRecallIndex measures recall@10 and recall@100 on the real
// vectors of $CTX_BENCH_VECDB.
func TestNearestRecallIndex(t *testing.T) {
	s := indexSet(t)
	for _, k := range []int{10, 100} {
		var recall, scored, estimated float64
		for _, q := range s.queries {
			// k+1 and the query's own row left out.
			want, _ := s.rows.nearestFloat32(q, k+1)
			got, _, st := s.vecs.nearest(q, k+1)
			self := want[0]
			recall += recallOf(without(got, self)[:k], without(want, self)[:k]) / float64(len(s.queries))
			scored += float64(st.scored) / float64(len(s.queries))
			estimated += float64(st.estimated) / float64(len(s.queries))
		}
		t.Logf("%d rows of %d dims, %d stored rows as queries: recall@%d %.4f; %.0f rows estimated, %.0f scored exactly a query",
			s.vecs.Len(), s.vecs.dims, len(s.queries), k, recall, estimated, scored)
		if recall < 0.98 {
			t.Errorf("recall@%d = %.4f, want ≥ 0.98", k, recall)
		}
		recall, scored, estimated = 0, 0, 0
		for _, q := range s.texts {
			want, _ := s.rows.nearestFloat32(q, k)
			got, _, st := s.vecs.nearest(q, k)
			recall += recallOf(got, want) / float64(len(s.texts))
			scored += float64(st.scored) / float64(len(s.texts))
			estimated += float64(st.estimated) / float64(len(s.texts))
		}
		t.Logf("%d query texts: recall@%d %.4f; %.0f rows estimated, %.0f scored exactly a query", len(s.texts), k, recall, estimated, scored)
		if recall < 0.98 {
			t.Errorf("query texts: recall@%d = %.4f, want ≥ 0.98", k, recall)
		}
	}
}

// without returns ids without id (the first occurrence), or its first
// len(ids)-1 elements when id is absent.
func without(ids []int64, id int64) []int64 {
	for i, x := range ids {
		if x == id {
			return append(ids[:i:i], ids[i+1:]...)
		}
	}
	return ids[:len(ids)-1]
}

func BenchmarkNearestIndex(b *testing.B) {
	s := indexSet(b)
	b.Logf("%d rows of %d dims", s.vecs.Len(), s.vecs.dims)
	for _, set := range []struct {
		name    string
		queries [][]float32
	}{{"rows", s.queries}, {"texts", s.texts}} {
		b.Run("queries="+set.name+"/float32", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s.rows.nearestFloat32(set.queries[i%len(set.queries)], 100)
				i++
			}
		})
		b.Run("queries="+set.name+"/int8", func(b *testing.B) {
			b.ReportAllocs()
			var st nearestStats
			i := 0
			for b.Loop() {
				_, _, x := s.vecs.nearest(set.queries[i%len(set.queries)], 100)
				st.estimated += x.estimated
				st.scored += x.scored
				i++
			}
			b.ReportMetric(float64(st.estimated)/float64(i), "estimated/op")
			b.ReportMetric(float64(st.scored)/float64(i), "scored/op")
		})
	}
}
