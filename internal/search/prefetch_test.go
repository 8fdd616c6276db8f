package search

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/store"
)

// rowsSource is a [Source] that records the ids of each Chunks call and
// closes read at the first.
type rowsSource struct {
	Source
	mu    sync.Mutex
	calls [][]int64
	read  chan struct{}
}

func (s *rowsSource) Chunks(ctx context.Context, ids []int64) ([]store.ChunkRow, error) {
	s.mu.Lock()
	s.calls = append(s.calls, slices.Clone(ids))
	if len(s.calls) == 1 {
		close(s.read)
	}
	s.mu.Unlock()
	return s.Source.Chunks(ctx, ids)
}

// gatedEmbedder embeds as its Provider does, but a query only once
// open is closed: a dense channel still running when the lexical ones end.
type gatedEmbedder struct {
	embed.Provider
	open <-chan struct{}
}

func (g gatedEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	if kind == embed.Query {
		select {
		case <-g.open:
		case <-time.After(30 * time.Second):
			// Only reached when the rows were not read while the scan
			// waited: the test then fails on its calls.
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Provider.Embed(ctx, texts, kind)
}

// denseFixture is the repo fixture indexed with a fake 32-dimension
// model: the model, the index, its vectors and its chunk count.
func denseFixture(t *testing.T) (*embedtest.Fake, *store.DB, *Vectors, int) {
	t.Helper()
	fake := embedtest.New(32)
	db, vecs := denseIndex(t, fake)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return fake, db, vecs, c.Chunks
}

// TestRowsReadWhileDenseRuns: when the lexical channels end before the
// dense one, the rows of their hits are read while it runs, the rows read
// after fusion are only the others, and the answer is the one a search
// reading every row at the end gives.
func TestRowsReadWhileDenseRuns(t *testing.T) {
	t.Parallel()
	fake, db, vecs, chunks := denseFixture(t)
	const query = "write the user to the database"
	want, _ := search(t, &Searcher{DB: db, Embedder: fake, Vectors: vecs, TotalChunks: chunks}, Request{Query: query, Limit: 8})

	src := &rowsSource{Source: db, read: make(chan struct{})}
	got, _ := search(t, &Searcher{DB: src, Embedder: gatedEmbedder{fake, src.read}, Vectors: vecs, TotalChunks: chunks}, Request{Query: query, Limit: 8})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results differ from a search that reads every row after fusion (-want +got):\n%s", d)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.calls) != 2 {
		t.Fatalf("%d Chunks calls, want 2: the lexical hits' rows while the dense channel ran, then the rest", len(src.calls))
	}
	if len(src.calls[0]) == 0 || len(src.calls[1]) == 0 {
		t.Errorf("Chunks calls of %d and %d ids; want both non-empty (the dense channel finds chunks the lexical ones did not)", len(src.calls[0]), len(src.calls[1]))
	}
	for _, id := range src.calls[1] {
		if slices.Contains(src.calls[0], id) {
			t.Errorf("chunk %d read twice", id)
		}
	}
}

// memRowsSource is a rowsSource whose rows are in memory.
type memRowsSource struct{ *rowsSource }

func (memRowsSource) RowsInMemory() {}

// TestRowsInMemoryNotReadAhead: a source whose rows are in memory has
// them read once, after fusion, whichever channel ends first.
func TestRowsInMemoryNotReadAhead(t *testing.T) {
	t.Parallel()
	fake, db, vecs, chunks := denseFixture(t)
	src := &rowsSource{Source: db, read: make(chan struct{})}
	open := make(chan struct{})
	go func() {
		// The dense channel waits until the lexical rows could have been
		// read ahead: the first Chunks call, or a while without one.
		select {
		case <-src.read:
		case <-time.After(200 * time.Millisecond):
		}
		close(open)
	}()
	search(t, &Searcher{DB: memRowsSource{src}, Embedder: gatedEmbedder{fake, open}, Vectors: vecs, TotalChunks: chunks}, Request{Query: "write the user to the database", Limit: 8})
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.calls) != 1 {
		t.Errorf("%d Chunks calls, want 1 (after fusion)", len(src.calls))
	}
}
