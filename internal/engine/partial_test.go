package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
)

// TestFindDuringFirstIndex: while another run builds the first index, a
// query answers at once: an error with the progress before any file is
// committed, then results from the files committed so far, marked
// partial with the progress.
func TestFindDuringFirstIndex(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 2200, "alpha")
	cfg := testConfig(t)
	builder := open(t, cfg, root, embedtest.New(32))
	asker := open(t, cfg, root, embedtest.New(32))

	paused, resume := make(chan int), make(chan struct{})
	pauseAt := map[int]bool{5: true, 1100: true} // before and after the first batch (1024 files) commits
	done := make(chan error, 1)
	go func() {
		_, err := builder.Index(t.Context(), engine.IndexOptions{Progress: func(n, total int) {
			if pauseAt[n+1] {
				// The progress is published at most twice a second: let
				// the pause point's be.
				time.Sleep(600 * time.Millisecond)
			}
			if pauseAt[n] {
				paused <- n
				<-resume
			}
		}})
		done <- err
	}()

	<-paused
	start := time.Now()
	_, err := asker.Find(t.Context(), engine.FindRequest{Query: "alpha requests", Limit: 5})
	if !errors.Is(err, engine.ErrNotIndexed) || !strings.Contains(err.Error(), "being built") {
		t.Errorf("find before any file is committed: %v; want ErrNotIndexed saying the index is being built", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("find before any file is committed took %v; want an answer within 1 s", d)
	}
	if f := engine.Classify(err); f.Code != engine.CodeIndexing || f.Progress == nil {
		t.Errorf("find before any file is committed: classified %+v; want indexing with the progress", f)
	}
	_, err = asker.Definitions(t.Context(), "Handler12", "", 5, false)
	if f := engine.Classify(err); f.Code != engine.CodeIndexing {
		t.Errorf("a lookup before any file is committed: %v (%s); want indexing", err, f.Code)
	}
	resume <- struct{}{}

	<-paused
	// The first batch is written, and the progress published, by
	// goroutines of their own, which go on while the run is paused: ask
	// until the answer comes from the committed files.
	var resp *engine.FindResponse
	for deadline := time.Now().Add(30 * time.Second); ; {
		start = time.Now()
		resp, err = asker.Find(t.Context(), engine.FindRequest{Query: "Handler12 alpha requests", Limit: 5})
		if d := time.Since(start); d > time.Second {
			t.Errorf("find during the first index took %v; want an answer within 1 s", d)
		}
		if err == nil && resp.Stats.Progress != nil && resp.Stats.Progress.FilesDone >= 1024 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("find during the first index: %v", err)
	}
	st := resp.Stats
	if st.IndexState != "partial" || st.Fresh || st.Progress == nil || st.Progress.FilesTotal < 2200 || st.Progress.FilesDone < 1024 || !strings.Contains(st.Stale, "being built") {
		t.Errorf("partial answer stats = %+v (progress %+v); want partial, not fresh, with progress of 2200 files", st, st.Progress)
	}
	if len(resp.Results) == 0 {
		t.Error("partial answer has no results")
	}
	if !st.Partial {
		t.Error("partial answer not marked Partial")
	}
	// A lookup needs the whole index: it says the index is partial, with
	// the progress, instead of answering from part of it.
	_, err = asker.Definitions(t.Context(), "Handler12", "", 5, false)
	if f := engine.Classify(err); f.Code != engine.CodePartial || f.Progress == nil || !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("a lookup during the first index: %v, classified %+v; want partial with the progress", err, f)
	}
	resume <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if resp := find(t, asker, engine.FindRequest{Query: "alpha requests", Limit: 5}); resp.Stats.IndexState != "" || !resp.Stats.Fresh {
		t.Errorf("after the first index: state %q, fresh %v", resp.Stats.IndexState, resp.Stats.Fresh)
	}
}
