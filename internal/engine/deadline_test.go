package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
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

// gatedEmbedder answers its first pass calls as its Fake does (an index
// run makes one a file); every call after them waits for its context to
// end, as an index run stalled on a provider does.
type gatedEmbedder struct {
	*embedtest.Fake
	pass int64
	seen atomic.Int64
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	if g.seen.Add(1) > g.pass {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return g.Fake.Embed(ctx, texts, kind)
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

	cfg.RequestTimeout = 5 * time.Second // the lexical channels answer well within it
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

// TestFindDeadlineFirstIndex: a find on an unindexed repository whose
// automatic index outlasts the request deadline answers from the batches
// the run has committed, marked partial with the progress; the run stops
// with the call (the CLI process would exit), leaving an index that says
// it is incomplete and that the next run completes. The test, not a
// clock, says when the deadline comes: once the first batch is committed
// and the run has stalled on its provider.
func TestFindDeadlineFirstIndex(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 2200, "alpha")
	cfg := testConfig(t)
	cfg.RequestTimeout = time.Hour
	// The first batch (1024 files) is embedded and committed; the run
	// then stalls on the provider.
	gate := &gatedEmbedder{Fake: embedtest.New(32), pass: 1100}
	e := open(t, cfg, root, gate)
	cut := make(chan struct{})
	engine.CutNow(e, cut)
	watcher := open(t, cfg, root, embedtest.New(32))
	go func() {
		defer close(cut)
		for ctx := t.Context(); ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
			if gate.seen.Load() <= gate.pass {
				continue
			}
			// Stalled: cut once the first batch answers queries.
			if r, err := watcher.Find(ctx, engine.FindRequest{Query: "alpha"}); err == nil && r.Stats.IndexState == "partial" {
				return
			}
		}
	}()
	resp, err := e.Find(t.Context(), engine.FindRequest{Query: "Handler12 alpha requests", Limit: 5, AutoIndex: true})
	if err != nil {
		t.Fatalf("find while the automatic index stalls: %v; want a partial answer", err)
	}
	st := resp.Stats
	if !st.Partial || st.IndexState != "partial" || st.Progress == nil || st.Progress.FilesDone < 1024 || st.Progress.FilesTotal < 2200 || !strings.Contains(st.PartialReason, "request deadline") {
		t.Errorf("stats %+v (progress %+v); want a partial answer cut by the request deadline, with the progress of 2200 files", st, st.Progress)
	}
	if len(resp.Results) == 0 || resp.Indexed != nil {
		t.Errorf("%d results, Indexed %+v; want results from the committed batch and no finished run", len(resp.Results), resp.Indexed)
	}

	// The run stopped when Find returned: nothing holds the index lock,
	// and the index says its first run did not finish.
	fresh := embedtest.New(32)
	if st := status(t, open(t, cfg, root, fresh)); !st.Incomplete || st.Indexing {
		t.Errorf("status after the cut run: incomplete %v, indexing %v; want incomplete and not indexing", st.Incomplete, st.Indexing)
	}
	_, err = open(t, cfg, root, fresh).Find(t.Context(), engine.FindRequest{Query: "alpha requests"})
	if f := engine.Classify(err); !errors.Is(err, engine.ErrInterrupted) || f.Code != engine.CodeInterrupted {
		t.Errorf("find without AutoIndex after the cut run: %v (%s); want interrupted", err, f.Code)
	}
	// The next run completes it.
	index(t, open(t, cfg, root, fresh), engine.IndexOptions{})
	if resp := find(t, open(t, cfg, root, fresh), engine.FindRequest{Query: "alpha requests"}); resp.Stats.Partial || resp.Stats.IndexState != "" {
		t.Errorf("after the next run: partial %v, state %q", resp.Stats.Partial, resp.Stats.IndexState)
	}
}

// TestFindDeadlineNothingCommitted: when the automatic index has
// committed nothing by the deadline, find fails with the indexing error
// and the run's progress, not with an empty answer.
func TestFindDeadlineNothingCommitted(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 1500, "alpha")
	cfg := testConfig(t)
	cfg.RequestTimeout = time.Hour
	// Some files are done (the progress is published), none committed.
	gate := &gatedEmbedder{Fake: embedtest.New(32), pass: 200}
	e := open(t, cfg, root, gate)
	cut := make(chan struct{})
	engine.CutNow(e, cut)
	go func() {
		defer close(cut)
		for ctx := t.Context(); ctx.Err() == nil && gate.seen.Load() <= gate.pass; {
			time.Sleep(20 * time.Millisecond)
		}
	}()
	resp, err := e.Find(t.Context(), engine.FindRequest{Query: "alpha requests", AutoIndex: true})
	f := engine.Classify(err)
	if !errors.Is(err, engine.ErrIndexing) || f.Code != engine.CodeIndexing || f.Fix == "" {
		t.Fatalf("find with nothing committed = %v, err %v (%+v); want the indexing error with its fix", resp, err, f)
	}
	if f.Progress == nil || f.Progress.FilesTotal < 1500 {
		t.Errorf("Failure.Progress = %+v, want the run's progress over 1500 files", f.Progress)
	}
}
