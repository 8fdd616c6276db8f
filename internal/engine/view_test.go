package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

func openKept(t *testing.T, cfg config.Config, root string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(cfg, root, &engine.Options{KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestKeepOpenSeesNewGenerations: a server's engine keeps its database
// handle, yet every query answers from the latest committed index: after
// an incremental run, after a rebuild that replaces the database file,
// and after the index is removed (then the error says what to run).
func TestKeepOpenSeesNewGenerations(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 1)}
	server := openKept(t, cfg, root)
	if _, err := server.Find(t.Context(), engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Fatalf("Find before any index: %v, want ErrNotIndexed", err)
	}
	indexer := open(t, cfg, root, nil)
	index(t, indexer, engine.IndexOptions{})
	first := find(t, server, engine.FindRequest{Query: "backoff retry", Limit: 20})
	if slices.Contains(hitPaths(first), "extra/more.go") {
		t.Fatalf("results name a file that does not exist yet")
	}

	writeFile(t, root, "extra/more.go", "package extra\n\n// Backoff waits longer after each retry.\nfunc Backoff() {}\n")
	index(t, indexer, engine.IndexOptions{})
	resp := find(t, server, engine.FindRequest{Query: "backoff retry", Limit: 20})
	if !slices.Contains(hitPaths(resp), "extra/more.go") {
		t.Errorf("after an incremental run, results %v lack the new file", hitPaths(resp))
	}
	if resp.Stats.IndexGeneration <= first.Stats.IndexGeneration {
		t.Errorf("generation %d after a changing run, was %d", resp.Stats.IndexGeneration, first.Stats.IndexGeneration)
	}

	writeFile(t, root, "extra/later.go", "package extra\n\n// Jitter spreads retries apart.\nfunc Jitter() {}\n")
	index(t, indexer, engine.IndexOptions{Rebuild: true})
	resp = find(t, server, engine.FindRequest{Query: "jitter spreads retries", Limit: 20})
	if !slices.Contains(hitPaths(resp), "extra/later.go") {
		t.Errorf("after a rebuild, results %v lack the new file", hitPaths(resp))
	}

	if err := indexer.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Find(t.Context(), engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Find after the index was removed: %v, want ErrNotIndexed", err)
	}
}

// TestKeepOpenConcurrent: parallel queries on one kept engine while
// another engine re-indexes the root never fail (run with -race).
func TestKeepOpenConcurrent(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 1)}
	indexer := open(t, cfg, root, nil)
	index(t, indexer, engine.IndexOptions{})
	server := openKept(t, cfg, root)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 8 {
		wg.Go(func() {
			for i := range 10 {
				resp, err := server.Find(t.Context(), engine.FindRequest{Query: "retry with exponential backoff"})
				if err == nil && len(resp.Results) == 0 {
					err = fmt.Errorf("worker %d call %d: no results", w, i)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range 5 {
		writeFile(t, root, fmt.Sprintf("gen/f%d.go", i), fmt.Sprintf("package gen\n\n// F%d retries.\nfunc F%d() {}\n", i, i))
		index(t, indexer, engine.IndexOptions{})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
