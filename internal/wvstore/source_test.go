package wvstore

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/weaviate"
)

// fakeChunks is a Weaviate stand-in holding chunks 1..9, chunk i at
// cosine distance i/10 from any query vector. It answers a GraphQL Get
// on the chunk class with the chunks its chunkId filter names (the first
// limit when there is none) and records each query's text.
type fakeChunks struct {
	mu      sync.Mutex // guards queries
	queries []string
	// vectors, when set, gives chunk id's stored embedding, put in its
	// row's vector field as a sync of objectsVersion 4 writes it.
	vectors func(id int) []float32
}

var (
	idsRE   = regexp.MustCompile(`valueText:\[([^\]]*)\]`)
	limitRE = regexp.MustCompile(`limit:(\d+)`)
)

func (f *fakeChunks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct{ Query string }
	json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.queries = append(f.queries, body.Query)
	f.mu.Unlock()
	var ids []int
	if m := idsRE.FindStringSubmatch(body.Query); m != nil {
		for _, s := range strings.Split(m[1], ",") {
			var id int
			fmt.Sscanf(strings.Trim(s, `\"`), "%d", &id)
			ids = append(ids, id)
		}
	} else {
		var n int
		fmt.Sscan(limitRE.FindStringSubmatch(body.Query)[1], &n)
		for i := 1; i <= min(n, 9); i++ {
			ids = append(ids, i)
		}
	}
	var rows []map[string]any
	for _, id := range ids {
		r := store.ChunkRow{Chunk: store.Chunk{ID: int64(id), FileID: int64(id)}, Path: fmt.Sprintf("f%d.go", id)}
		var vec []byte
		if f.vectors != nil {
			vec = embed.EncodeVector(f.vectors(id))
		}
		rows = append(rows, map[string]any{
			"_additional": map[string]any{"id": fmt.Sprint(id), "distance": float64(id) / 10},
			"chunkId":     fmt.Sprint(id), rowProp: encodeRow(&r, "", vec),
		})
	}
	out, _ := json.Marshal(map[string]any{"data": map[string]any{"Get": map[string]any{"TChunk": rows}}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// fakeSource returns a Source of tenant "t" whose chunk class TChunk f
// serves.
func fakeSource(t *testing.T, f *fakeChunks) *Source {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := weaviate.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	return &Source{c: c, tenant: "t", chunk: "TChunk", rows: map[int64]store.ChunkRow{}, hashes: map[string]string{}, vecs: map[int64]string{}}
}

func (f *fakeChunks) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.queries
	f.queries = nil
	return q
}

// TestCosinesWithoutRowVectors: chunks whose rows carry no stored
// embedding (no query returned them with one) are scored by one vector
// search restricted to them, with the server's similarities, for any
// query vector.
func TestCosinesWithoutRowVectors(t *testing.T) {
	f := &fakeChunks{}
	s := fakeSource(t, f)
	ctx := t.Context()
	for _, q := range [][]float32{{1, 0}, {0, 1}} {
		got, err := s.Cosines(ctx, q, []int64{3, 5, 1})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]float64{0.7, 0.5, 0.9}, got); diff != "" {
			t.Errorf("Cosines (-want +got):\n%s", diff)
		}
		if sent := f.take(); len(sent) != 1 || !strings.Contains(sent[0], `valueText:["3","5","1"]`) || !strings.Contains(sent[0], "nearVector") {
			t.Errorf("Cosines sent %q, want one vector search naming chunks 3, 5 and 1", sent)
		}
	}
}

// TestCosinesFromRows: rows that carry their chunk's stored embedding are
// scored here, as the local store scores them (the query's dot product
// with the decoded int8 vector), with no request, whatever the vector and
// whether or not TopK returned them; a chunk whose row was never read is
// still asked of the server.
func TestCosinesFromRows(t *testing.T) {
	unit := func(id int) []float32 {
		a := float64(id) / 5
		return []float32{float32(math.Cos(a)), float32(math.Sin(a)), 0}
	}
	f := &fakeChunks{vectors: unit}
	s := fakeSource(t, f)
	ctx := t.Context()
	if _, err := s.Chunks(ctx, []int64{4, 7}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.TopK(ctx, []float32{1, 0, 0}, 3); err != nil {
		t.Fatal(err)
	}
	f.take()
	for _, q := range [][]float32{{1, 0, 0}, {0, 0.6, 0.8}} {
		got, err := s.Cosines(ctx, q, []int64{7, 1, 4, 3})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range []int{7, 1, 4, 3} {
			x, scale, _ := embed.Int8View(embed.EncodeVector(unit(id)))
			if want := float64(embed.DotInt8(q, x, scale)); got[i] != want {
				t.Errorf("Cosines(%v) of chunk %d = %v, want %v (the stored vector's)", q, id, got[i], want)
			}
		}
		if sent := f.take(); len(sent) != 0 {
			t.Errorf("Cosines(%v) of chunks whose rows carry vectors sent %q", q, sent)
		}
	}
	if _, err := s.Cosines(ctx, []float32{1, 0, 0}, []int64{4, 8}); err != nil {
		t.Fatal(err)
	}
	if sent := f.take(); len(sent) != 1 || !strings.Contains(sent[0], `valueText:["8"]`) {
		t.Errorf("Cosines sent %q, want one request naming chunk 8, whose row was never read", sent)
	}
}
