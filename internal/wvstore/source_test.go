package wvstore

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/weaviate"
)

// fakeChunks is a Weaviate stand-in holding chunks 1..9, chunk i at
// cosine distance i/10 from any query vector. It answers a GraphQL Get
// on the chunk class with the chunks its chunkId filter names (all when
// there is none), with exactly the fields asked for, and records each
// query's text.
type fakeChunks struct {
	mu      sync.Mutex // guards queries
	queries []string
}

var (
	idsRE    = regexp.MustCompile(`valueText:\[([^\]]*)\]`)
	fieldsRE = regexp.MustCompile(`\)\{(.*) _additional\{`)
)

func (f *fakeChunks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct{ Query string }
	json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.queries = append(f.queries, body.Query)
	f.mu.Unlock()
	ids := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if m := idsRE.FindStringSubmatch(body.Query); m != nil {
		ids = nil
		for _, s := range strings.Split(m[1], ",") {
			var id int
			fmt.Sscanf(strings.Trim(s, `\"`), "%d", &id)
			ids = append(ids, id)
		}
	}
	fields := strings.Fields(fieldsRE.FindStringSubmatch(body.Query)[1])
	var rows []map[string]any
	for _, id := range ids {
		row := map[string]any{"_additional": map[string]any{"id": fmt.Sprint(id), "distance": float64(id) / 10, "score": fmt.Sprint(10 - id)}}
		for _, p := range fields {
			switch p {
			case "chunkId", "fileId":
				row[p] = fmt.Sprint(id)
			case "path":
				row[p] = fmt.Sprintf("f%d.go", id)
			case "startLine", "endLine":
				row[p] = id
			}
		}
		rows = append(rows, row)
	}
	out, _ := json.Marshal(map[string]any{"data": map[string]any{"Get": map[string]any{"TChunk": rows}}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func (f *fakeChunks) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.queries
	f.queries = nil
	return q
}

// TestRecallThenRows: recall queries ask for ids alone; Chunks then
// fetches the rows it lacks in one vector search for TopK's query, which
// also scores them, so Cosines for that query sends nothing.
func TestRecallThenRows(t *testing.T) {
	f := &fakeChunks{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, err := weaviate.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	s := &Source{c: c, tenant: "t", chunk: "TChunk", rows: map[int64]store.ChunkRow{}, hashes: map[string]string{}}
	ctx := t.Context()
	q := []float32{1, 0}

	hits, err := s.SearchBM25(ctx, store.BM25Query{Terms: []string{"x"}, Limit: 3})
	if err != nil || len(hits) != 9 {
		t.Fatalf("SearchBM25 = %v, %v; want 9 hits", hits, err)
	}
	ids, sims, err := s.TopK(ctx, q, 3)
	if err != nil || len(ids) != 9 || sims[0] != 0.9 {
		t.Fatalf("TopK = %v, %v, %v", ids, sims, err)
	}
	for _, text := range f.take() {
		if !strings.Contains(text, "){chunkId _additional{") {
			t.Errorf("a recall query asked for more than ids: %s", text)
		}
	}

	rows, err := s.Chunks(ctx, []int64{2, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.take(); len(got) != 1 || !strings.Contains(got[0], "nearVector") || !strings.Contains(got[0], " path ") {
		t.Errorf("Chunks sent %q, want one vector search asking for rows", got)
	}
	if len(rows) != 2 || rows[0].Path != "f2.go" || rows[1].Path != "f4.go" {
		t.Errorf("Chunks = %+v", rows)
	}

	got, err := s.Cosines(ctx, q, []int64{4, 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{0.6, 0.8}, got); diff != "" {
		t.Errorf("Cosines (-want +got):\n%s", diff)
	}
	if sent := f.take(); len(sent) != 0 {
		t.Errorf("Cosines of scored chunks sent %q", sent)
	}
	// Rows already held are not fetched again; another vector is asked for.
	if _, err := s.Chunks(ctx, []int64{2}); err != nil {
		t.Fatal(err)
	}
	if sent := f.take(); len(sent) != 0 {
		t.Errorf("Chunks of held rows sent %q", sent)
	}
	if _, err := s.Cosines(ctx, []float32{0, 1}, []int64{2}); err != nil {
		t.Fatal(err)
	}
	if sent := f.take(); len(sent) != 1 {
		t.Errorf("Cosines for another vector sent %d requests, want 1", len(sent))
	}
}
