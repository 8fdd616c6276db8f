package search

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/store"
)

// slowSource is a [Source] whose chosen calls wait for their context to
// end, as a query stuck behind a busy disk or a server that stopped
// answering does: deterministic, with no sleeps.
type slowSource struct {
	Source
	// hang says which BM25 queries hang (nil: none).
	hang func(q store.BM25Query) bool
	// hangNames makes the symbol channel's lookup hang.
	hangNames bool
	// answered counts the BM25 queries answered.
	answered atomic.Int32
}

func (s *slowSource) SearchBM25(ctx context.Context, q store.BM25Query) ([]store.Hit, error) {
	if s.hang != nil && s.hang(q) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	defer s.answered.Add(1)
	return s.Source.SearchBM25(ctx, q)
}

// cutAfter returns a channel closed once src has answered n BM25
// queries: the test's "deadline", reached only when the channels that do
// not hang have finished.
func cutAfter(t *testing.T, src *slowSource, n int32) <-chan struct{} {
	cut := make(chan struct{})
	go func() {
		defer close(cut)
		for ctx := t.Context(); ctx.Err() == nil && src.answered.Load() < n; {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return cut
}

func (s *slowSource) ChunksByName(ctx context.Context, names []string, limit int) ([]store.ChunkRow, error) {
	if s.hangNames {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Source.ChunksByName(ctx, names, limit)
}

func pathQuery(q store.BM25Query) bool { return q.Columns == 1<<store.ColPath }

// TestSearchDeadline: past Searcher.Deadline, a recall channel that has
// not finished is left out and named in Stats.Unfinished, and the search
// answers from the others exactly as a search without that channel
// would; when the channels that finished found nothing, it fails with
// ErrDeadline. The caller's context is never given the deadline, so the
// rows of what was found are still read and ranked.
func TestSearchDeadline(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(32)
	db, vecs := denseIndex(t, fake)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const query = "write the user to the database"
	without := func(ch string, all []string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(c string) bool { return c == ch })
	}
	lexical, _ := search(t, &Searcher{DB: db, TotalChunks: c.Chunks}, Request{Query: query, Limit: 8})
	noPath, _ := search(t, &Searcher{DB: db, TotalChunks: c.Chunks}, Request{Query: query, Limit: 8, Channels: without("path", ChannelNames)})
	if len(lexical) == 0 || len(noPath) == 0 {
		t.Fatal("no results without a deadline")
	}
	// The deadline is far off; the test cuts recall once the channels
	// that do not hang have answered (cutNow), so no clock decides.
	later := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name           string
		src            *slowSource
		answered       int32 // BM25 queries that must be answered first
		s              func(*slowSource) *Searcher
		want           []Result
		wantUnfinished []string
	}{
		{"path channel hangs", &slowSource{Source: db, hang: pathQuery}, 1, func(src *slowSource) *Searcher {
			return &Searcher{DB: src, TotalChunks: c.Chunks, Deadline: later}
		}, noPath, []string{"path"}},
		// A provider that never answers, with no embedding timeout of
		// its own: the deadline cuts the dense channel.
		{"dense channel hangs", &slowSource{Source: db}, 2, func(src *slowSource) *Searcher {
			return &Searcher{DB: src, Embedder: hangingEmbedder{fake.Model()}, Vectors: vecs, TotalChunks: c.Chunks, Deadline: later}
		}, lexical, []string{"dense"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.s(tc.src)
			s.cutNow = cutAfter(t, tc.src, tc.answered)
			res, st, err := s.Search(t.Context(), Request{Query: query, Limit: 8})
			if err != nil {
				t.Fatalf("Search past the deadline: %v, want the other channels' answer", err)
			}
			if d := cmp.Diff(tc.wantUnfinished, st.Unfinished); d != "" {
				t.Errorf("Stats.Unfinished (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, res); d != "" {
				t.Errorf("results differ from a search without the cut channel (-want +got):\n%s", d)
			}
		})
	}

	t.Run("nothing found in time", func(t *testing.T) {
		t.Parallel()
		s := &Searcher{DB: &slowSource{Source: db, hang: func(store.BM25Query) bool { return true }, hangNames: true}, TotalChunks: c.Chunks, Deadline: time.Now().Add(50 * time.Millisecond)}
		res, st, err := s.Search(t.Context(), Request{Query: query, Limit: 8})
		if !errors.Is(err, ErrDeadline) {
			t.Fatalf("Search with every channel hanging = %d results, %v; want ErrDeadline", len(res), err)
		}
		if !slices.Contains(st.Unfinished, "bm25") || !slices.Contains(st.Unfinished, "path") {
			t.Errorf("Stats.Unfinished = %v, want bm25 and path", st.Unfinished)
		}
	})

	t.Run("no deadline, no cut", func(t *testing.T) {
		t.Parallel()
		_, st := search(t, &Searcher{DB: db, Embedder: fake, Vectors: vecs, TotalChunks: c.Chunks, Deadline: time.Now().Add(time.Hour)}, Request{Query: query, Limit: 8})
		if st.Unfinished != nil {
			t.Errorf("Stats.Unfinished = %v with the deadline far off", st.Unfinished)
		}
	})

	// The caller's own cancellation stays the search's error, not a cut.
	t.Run("caller cancels", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		s := &Searcher{DB: &slowSource{Source: db, hang: pathQuery}, TotalChunks: c.Chunks, Deadline: time.Now().Add(time.Hour)}
		if res, st, err := s.Search(ctx, Request{Query: query, Limit: 8}); err == nil || errors.Is(err, ErrDeadline) {
			t.Errorf("Search with its context ended = %d results, unfinished %v, err %v; want the context's error", len(res), st.Unfinished, err)
		}
	})
}

// TestSearchDeadlineTitle: a long query's title search that does not
// finish in time is left out ("title" in Stats.Unfinished) and the
// whole text's channels that finished answer.
func TestSearchDeadlineTitle(t *testing.T) {
	t.Parallel()
	db, _ := denseIndex(t, embedtest.New(32))
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// An issue: a title line, then a body long enough to be a long query.
	const issue = "Users are not written to the database\n\nWhen I call the save function with a new user record the row never appears in the users table, and no error is returned to the caller either. I expected the insert to happen or an error to come back. Steps: create a user, save it, query the table."
	// The title's search is the one whose BM25 query holds few terms:
	// hang every query of at most 6 terms.
	hang := func(q store.BM25Query) bool { return len(q.Terms) <= 6 }
	src := &slowSource{Source: db, hang: hang}
	s := &Searcher{DB: src, TotalChunks: c.Chunks, Deadline: time.Now().Add(time.Hour)}
	s.cutNow = cutAfter(t, src, 1)
	res, st, err := s.Search(t.Context(), Request{Query: issue, Limit: 5})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(res) == 0 {
		t.Error("no results from the whole text")
	}
	if !slices.Contains(st.Unfinished, "title") {
		t.Errorf("Stats.Unfinished = %v, want the title search named", st.Unfinished)
	}
}
