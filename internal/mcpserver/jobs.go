package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/engine"
)

// indexJob is one background index run of a repository.
type indexJob struct {
	root    string
	rebuild bool
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed when the run ends
	// checked is closed once the root has passed
	// engine.Engine.CheckFirstIndex (a refused run ends instead).
	checked chan struct{}

	mu       sync.Mutex
	phase    string // scanning, indexing, finished, failed, canceled
	files    int    // processed so far
	total    int    // files to process (0 until the scan ends)
	firstAt  time.Time
	ended    time.Time
	err      error
	report   *engine.IndexReport
	finished bool
}

// IndexingStatus is what get_indexing_status reports about a run.
type IndexingStatus struct {
	RepoPath string `json:"repo_path" jsonschema:"the repository root the run indexes"`
	// Phase is idle (no run since the server started), scanning (walking
	// and hashing files), indexing (chunking, embedding and writing),
	// finished, failed or canceled.
	Phase        string  `json:"phase" jsonschema:"idle, scanning, indexing, finished, failed or canceled"`
	FilesDone    int     `json:"files_done" jsonschema:"files processed so far in this run"`
	FilesTotal   int     `json:"files_total" jsonschema:"files this run processes (0 while scanning); unchanged files are not counted"`
	Percent      float64 `json:"percent" jsonschema:"files_done / files_total x 100"`
	FilesPerSec  float64 `json:"files_per_second" jsonschema:"processing rate since the first file"`
	ETASeconds   float64 `json:"eta_seconds" jsonschema:"estimated seconds to the end at the current rate (0 when unknown or done)"`
	ElapsedSec   float64 `json:"elapsed_seconds" jsonschema:"seconds since the run started"`
	Error        string  `json:"error,omitempty" jsonschema:"why the run failed"`
	Generation   int64   `json:"generation,omitempty" jsonschema:"index generation after a finished run"`
	Skipped      int     `json:"skipped,omitempty" jsonschema:"files skipped with a reason (see index_status)"`
	ChunksStored int     `json:"chunks_written,omitempty" jsonschema:"chunks written by a finished run"`
}

// startIndex starts a background index run of e's root unless one is
// running, and returns the running job.
func (s *Server) startIndex(e *engine.Engine, rebuild bool) *indexJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[e.Root()]; ok && !j.isFinished() {
		return j
	}
	ctx, cancel := context.WithCancel(context.Background())
	j := &indexJob{root: e.Root(), rebuild: rebuild, started: time.Now(), cancel: cancel, done: make(chan struct{}), checked: make(chan struct{}), phase: "scanning"}
	if s.closed {
		cancel()
		j.phase, j.finished, j.err = "canceled", true, fmt.Errorf("server is shutting down")
		close(j.done)
		return j
	}
	s.jobs[e.Root()] = j
	go func() {
		defer close(j.done)
		var rep *engine.IndexReport
		err := e.CheckFirstIndex(ctx)
		if err == nil {
			close(j.checked)
			rep, err = e.Index(ctx, engine.IndexOptions{Rebuild: rebuild, Progress: j.progress})
		}
		switch {
		case errors.Is(err, engine.ErrTooManyFiles):
			s.setRefused(j.root, err)
			err = s.refusal(j.root)
		case err == nil:
			s.setRefused(j.root, nil)
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.ended, j.finished, j.report, j.err = time.Now(), true, rep, err
		switch {
		case err == nil:
			j.phase = "finished"
		case ctx.Err() != nil:
			j.phase = "canceled"
		default:
			j.phase = "failed"
		}
		s.log.Info("background index run ended", "root", j.root, "phase", j.phase, "err", err)
	}()
	return j
}

// waitChecked waits until the run has passed engine.Engine.CheckFirstIndex
// or ended, whichever comes first: a walk of at most
// config.Config.NonRepoMaxFiles files, and none for a root inside a git
// work tree or with an index.
func (j *indexJob) waitChecked() {
	select {
	case <-j.checked:
	case <-j.done:
	}
}

func (j *indexJob) progress(done, total int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.firstAt.IsZero() {
		j.firstAt = time.Now()
	}
	j.phase, j.files, j.total = "indexing", done, total
}

func (j *indexJob) isFinished() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.finished
}

// status snapshots the run.
func (j *indexJob) status() IndexingStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := IndexingStatus{RepoPath: j.root, Phase: j.phase, FilesDone: j.files, FilesTotal: j.total}
	end := time.Now()
	if j.finished {
		end = j.ended
	}
	st.ElapsedSec = round1(end.Sub(j.started).Seconds())
	if j.total > 0 {
		st.Percent = round1(100 * float64(j.files) / float64(j.total))
	}
	if !j.firstAt.IsZero() && j.files > 0 {
		if secs := end.Sub(j.firstAt).Seconds(); secs > 0 {
			st.FilesPerSec = round1(float64(j.files) / secs)
			if !j.finished && st.FilesPerSec > 0 {
				st.ETASeconds = round1(float64(j.total-j.files) / st.FilesPerSec)
			}
		}
	}
	if j.err != nil {
		st.Error = j.err.Error()
	}
	if j.report != nil {
		st.Generation = j.report.Generation
		if j.report.Stats != nil {
			st.Skipped = len(j.report.Stats.Skips)
			st.ChunksStored = j.report.Stats.Chunks
		}
		if j.finished && j.total == 0 {
			st.Percent = 100
		}
	}
	return st
}

// describe is a one-line account of the run for messages.
func (j *indexJob) describe() string {
	st := j.status()
	switch st.Phase {
	case "scanning":
		return fmt.Sprintf("scanning files, %.0fs in", st.ElapsedSec)
	case "indexing":
		return fmt.Sprintf("%d of %d files, %.0f%%", st.FilesDone, st.FilesTotal, st.Percent)
	}
	return st.Phase
}

// job returns the latest index run of root, or nil.
func (s *Server) job(root string) *indexJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[root]
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
