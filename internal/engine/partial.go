package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IndexProgress is how far a first index run has come, as it publishes it
// (at most twice a second) for queries it cannot fully answer yet.
type IndexProgress struct {
	FilesDone  int     `json:"files_done"`
	FilesTotal int     `json:"files_total"`
	Percent    float64 `json:"percent"`
	// ETASeconds is the time left at the rate so far, in seconds; absent
	// until a file is done.
	ETASeconds float64 `json:"eta_s,omitempty"`
}

// String reads "12% (1100 of 9100 files), about 45 s left".
func (p *IndexProgress) String() string {
	if p == nil || p.FilesTotal == 0 {
		return "just started"
	}
	s := fmt.Sprintf("%.0f%% (%d of %d files)", p.Percent, p.FilesDone, p.FilesTotal)
	if p.ETASeconds > 0 {
		s += fmt.Sprintf(", about %.0f s left", p.ETASeconds)
	}
	return s
}

// progress reads the view's published progress of the run in progress.
func (v *view) progress() *IndexProgress {
	done, total, ok := strings.Cut(v.runProgress, "/")
	if !ok {
		return nil
	}
	p := &IndexProgress{}
	p.FilesDone, _ = strconv.Atoi(done)
	p.FilesTotal, _ = strconv.Atoi(total)
	if p.FilesTotal <= 0 {
		return nil
	}
	p.Percent = float64(int(1000*float64(p.FilesDone)/float64(p.FilesTotal))) / 10
	if p.FilesDone > 0 && v.runStarted > 0 {
		elapsed := time.Since(time.Unix(0, v.runStarted)).Seconds()
		p.ETASeconds = float64(int(10*elapsed*float64(p.FilesTotal-p.FilesDone)/float64(p.FilesDone))) / 10
	}
	return p
}

// checkPartial checks that a view of a first index still being built can
// give a partial answer, and returns its committed chunks: the run must
// build this build's identity, and some chunks must be committed. Errors
// wrap [ErrIndexing] and carry the progress and the time left.
func (e *Engine) checkPartial(ctx context.Context, v *view) (int, error) {
	if v.runIdentity != "" && v.runIdentity != e.Identity().Hash {
		return 0, withProgress(fmt.Errorf("%w: another ctx build or embedding model is building the first index of %s; run `ctx index` when it is done", ErrIndexing, e.root), v.progress())
	}
	c, err := v.db.Count(ctx)
	if err != nil {
		return 0, err
	}
	if c.Chunks == 0 {
		return 0, withProgress(fmt.Errorf("%w: the first index of %s is being built (%s) and no file is searchable yet; ask again shortly", ErrIndexing, e.root, v.progress()), v.progress())
	}
	return c.Chunks, nil
}

// firstRunError says why a view whose index never finished a run cannot
// answer a request that needs the whole index: a run is building it
// ([ErrIndexing] or [ErrPartialIndex], with its progress), or the run
// stopped before it finished ([ErrInterrupted]).
func (e *Engine) firstRunError(ctx context.Context, v *view) error {
	if !indexRunning(e.dbPath) {
		return fmt.Errorf("%w: the first index of %s did not finish; run `ctx index`", ErrInterrupted, e.root)
	}
	if _, err := e.checkPartial(ctx, v); err != nil {
		return err
	}
	return withProgress(fmt.Errorf("%w: the first index of %s is being built (%s) and this lookup needs all of it; ask again when it is done (ctx find answers from the files indexed so far)", ErrPartialIndex, e.root, v.progress()), v.progress())
}
