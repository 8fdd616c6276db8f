package search

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/store"
)

// hangingEmbedder embeds nothing: every call waits for its context to end,
// as a provider that accepted the connection and never answers does.
type hangingEmbedder struct{ model embed.Model }

func (h hangingEmbedder) Model() embed.Model { return h.model }

func (h hangingEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSearchDenseUnavailable: when embedding the query fails (an error, or
// no answer within EmbedTimeout), the search answers from the lexical
// channels alone, exactly as a lexical-only search would, and reports the
// provider's error in Stats.DenseErr.
func TestSearchDenseUnavailable(t *testing.T) {
	t.Parallel()
	const dims = 32
	fake := embedtest.New(dims)
	db, vecs := denseIndex(t, fake)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const query = "write the user to the database"
	lexical, _ := search(t, &Searcher{DB: db, TotalChunks: c.Chunks}, Request{Query: query, Limit: 8})
	if len(lexical) == 0 {
		t.Fatal("no lexical results")
	}

	down := embedtest.New(dims)
	refused := errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
	down.SetErr(refused)
	limited := embedtest.New(dims)
	limited.SetErr(embed.ErrRateLimited)
	for _, tc := range []struct {
		name    string
		s       *Searcher
		wantErr error
	}{
		{"error", &Searcher{DB: db, Embedder: down, Vectors: vecs, TotalChunks: c.Chunks}, refused},
		{"rate limited", &Searcher{DB: db, Embedder: limited, Vectors: vecs, TotalChunks: c.Chunks}, embed.ErrRateLimited},
		{"timeout", &Searcher{DB: db, Embedder: hangingEmbedder{fake.Model()}, Vectors: vecs, TotalChunks: c.Chunks, EmbedTimeout: 50 * time.Millisecond}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, st := search(t, tc.s, Request{Query: query, Limit: 8})
			if !errors.Is(st.DenseErr, tc.wantErr) {
				t.Errorf("Stats.DenseErr = %v, want %v", st.DenseErr, tc.wantErr)
			}
			if d := cmp.Diff(lexical, res); d != "" {
				t.Errorf("degraded results differ from lexical-only ones (-lexical +degraded):\n%s", d)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("search took %s", el)
			}
		})
	}

	// A working provider reports no error.
	_, st := search(t, &Searcher{DB: db, Embedder: fake, Vectors: vecs, TotalChunks: c.Chunks}, Request{Query: query, Limit: 8})
	if st.DenseErr != nil {
		t.Errorf("Stats.DenseErr = %v with a working provider", st.DenseErr)
	}
}

// TestSearchCanceledWhileEmbedding: the caller's own cancellation is the
// search's error, not a degraded answer.
func TestSearchCanceledWhileEmbedding(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(32)
	db, vecs := denseIndex(t, fake)
	s := &Searcher{DB: db, Embedder: hangingEmbedder{fake.Model()}, Vectors: vecs, EmbedTimeout: time.Minute}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	res, st, err := s.Search(ctx, Request{Query: "write the user to the database"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Search with its context ended = %d results, DenseErr %v, err %v; want context.DeadlineExceeded", len(res), st.DenseErr, err)
	}
}

// denseIndex indexes the repo fixture with emb and loads its vectors.
func denseIndex(t *testing.T, emb embed.Provider) (*store.DB, *Vectors) {
	t.Helper()
	db := buildIndex(t, extract(t, "repo.txtar"), emb)
	vecs, _, err := LoadVectors(t.Context(), db, emb.Model().Dims, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, vecs
}
