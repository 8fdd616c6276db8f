package engine_test

import (
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestConcurrentIndexRuns: two index runs of one root at once (two
// engines, as two processes would have) both succeed, and the root's files
// are indexed once: the second run waits for the first and finds nothing
// left to add.
func TestConcurrentIndexRuns(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	engines := []*engine.Engine{open(t, cfg, root, nil), open(t, cfg, root, nil)}
	reps := make([]*engine.IndexReport, len(engines))
	errs := make([]error, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
		wg.Go(func() { reps[i], errs[i] = e.Index(t.Context(), engine.IndexOptions{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	added := reps[0].Stats.Added + reps[1].Stats.Added
	if want := max(reps[0].Stats.Discovered, reps[1].Stats.Discovered); added == 0 || added > want {
		t.Errorf("files added across both runs = %d, want each of the %d files added once", added, want)
	}
	if reps[0].Stats.Added > 0 && reps[1].Stats.Added > 0 {
		t.Errorf("both runs added files (%d and %d): they indexed at the same time", reps[0].Stats.Added, reps[1].Stats.Added)
	}
}
