package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
)

// hangingQueries is a provider that embeds documents as its Fake does
// and never answers a query: each query waits for its context to end.
type hangingQueries struct{ *embedtest.Fake }

func (h hangingQueries) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	if kind == embed.Query {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.Fake.Embed(ctx, texts, kind)
}

// TestFindDeadlineSlowChannel: with a provider that never answers a query
// and an embedding timeout longer than the request deadline, find
// answers from the lexical channels when the deadline cuts the dense
// channel, marked partial with the reason; asked for the dense channel
// alone, it fails with the timeout error and its fix.
func TestFindDeadlineSlowChannel(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	fake := embedtest.New(16)
	index(t, open(t, cfg, root, fake), engine.IndexOptions{})
	const query = "retry with exponential backoff between attempts"
	lexical := find(t, open(t, cfg, root, fake), engine.FindRequest{Query: query, Channels: search.LexicalChannels})

	// The lexical channels answer well within it, even under a loaded
	// go test -race ./... (5 s and then 10 s were each cut once in CI with
	// nothing found, while the package's parallel tests shared 2 cores).
	// The test waits for the cut (90% of it): it runs in parallel.
	cfg.RequestTimeout = 30 * time.Second
	cfg.Embed.QueryTimeout = time.Hour
	e := open(t, cfg, root, hangingQueries{fake})
	resp := find(t, e, engine.FindRequest{Query: query})
	if !resp.Stats.Partial || !strings.Contains(resp.Stats.PartialReason, "dense channel") {
		t.Errorf("Stats.Partial %v, PartialReason %q; want partial, naming the dense channel", resp.Stats.Partial, resp.Stats.PartialReason)
	}
	if got, want := hitKeys(resp.Results), hitKeys(lexical.Results); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("partial results = %v, want the lexical channels' %v", got, want)
	}
	if notes := resp.Stats.Notes(); !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "partial: ") }) {
		t.Errorf("Notes() = %q, want a partial note", notes)
	}

	_, err := e.Find(t.Context(), engine.FindRequest{Query: query, Channels: []string{"dense"}})
	f := engine.Classify(err)
	if !errors.Is(err, engine.ErrTimeout) || f.Code != engine.CodeTimeout || f.Fix != engine.FixTimeout {
		t.Errorf("Find with only the hanging dense channel: %v, classified %+v; want the timeout error and its fix", err, f)
	}
}

// TestFindFirstIndexBeforeDeadline: the request deadline bounds
// answering, not the automatic first index a find asked for: a first index
// that takes longer than the deadline runs to the end, and the search
// after it gets a whole deadline of its own and a complete answer.
func TestFindFirstIndexBeforeDeadline(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 200, "alpha")
	cfg := testConfig(t)
	cfg.RequestTimeout = time.Second
	slow := &slowEmbedder{Fake: embedtest.New(32), delay: 1500 * time.Millisecond}
	e := open(t, cfg, root, slow)
	start := time.Now()
	resp, err := e.Find(t.Context(), engine.FindRequest{Query: "Handler12 alpha requests", Limit: 5, AutoIndex: true})
	if err != nil {
		t.Fatalf("find on an unindexed repository: %v", err)
	}
	if took := time.Since(start); took < slow.delay {
		t.Fatalf("find took %v, less than the index's %v: the test no longer outlasts the deadline", took, slow.delay)
	}
	if resp.Indexed == nil || resp.Stats.Partial || resp.Stats.IndexState != "" || len(resp.Results) == 0 {
		t.Errorf("Indexed %+v, partial %v (%s), state %q, %d results; want a finished first index and a whole answer",
			resp.Indexed, resp.Stats.Partial, resp.Stats.PartialReason, resp.Stats.IndexState, len(resp.Results))
	}
	if st := status(t, open(t, cfg, root, embedtest.New(32))); st.Incomplete || st.Indexing {
		t.Errorf("status after the find: incomplete %v, indexing %v; want a finished index", st.Incomplete, st.Indexing)
	}
}

// slowEmbedder is a fake provider whose first call waits delay: an index
// run that outlasts a short request deadline.
type slowEmbedder struct {
	*embedtest.Fake
	delay time.Duration
	once  sync.Once
}

func (s *slowEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	s.once.Do(func() {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
		}
	})
	return s.Fake.Embed(ctx, texts, kind)
}
