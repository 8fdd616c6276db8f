package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// barriers numbers the Watchers of this process, so that watchers sharing
// one BarrierDir never read each other's barrier files as their own.
var barriers atomic.Uint64

// round is one barrier round trip, shared by the Sync calls that joined it
// before its file was created.
type round struct {
	seq     uint64
	done    chan struct{}
	err     error
	untrust int64 // Watcher.untrust when the round began
	closed  bool  // done is closed
}

func (r *round) release(err error) {
	if !r.closed {
		r.closed = true
		r.err = err
		close(r.done)
	}
}

// setupBarrier makes (or adopts) the directory of the barrier files.
func (w *Watcher) setupBarrier(dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "ctx-watch-")
		if err != nil {
			return fmt.Errorf("making barrier dir: %w", err)
		}
		dir, w.ownBarrierDir = d, true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making barrier dir %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("barrier dir %s: %w", dir, err)
	}
	w.barrierDir = abs
	w.barrierPrefix = fmt.Sprintf("barrier-%d-%d-", os.Getpid(), barriers.Add(1))
	return nil
}

// removeBarrier removes the barrier directory if New made it, or else
// this watcher's leftover barrier files.
func (w *Watcher) removeBarrier() {
	if w.barrierDir == "" {
		return
	}
	if w.ownBarrierDir {
		os.RemoveAll(w.barrierDir)
		return
	}
	left, _ := filepath.Glob(filepath.Join(w.barrierDir, w.barrierPrefix+"*"))
	for _, f := range left {
		os.Remove(f)
	}
}

// barrierSeq reports whether name is one of this watcher's barrier files,
// and its sequence number.
func (w *Watcher) barrierSeq(name string) (uint64, bool) {
	if filepath.Dir(name) != w.barrierDir {
		return 0, false
	}
	s, ok := strings.CutPrefix(filepath.Base(name), w.barrierPrefix)
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseUint(s, 10, 64)
	return seq, err == nil
}

// reached releases the rounds up to seq, whose barrier event was read.
func (w *Watcher) reached(seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seenSeq = max(w.seenSeq, seq)
	keep := w.inflight[:0]
	for _, r := range w.inflight {
		if r.seq <= seq {
			r.release(nil)
		} else {
			keep = append(keep, r)
		}
	}
	clear(w.inflight[len(keep):])
	w.inflight = keep
}

// releaseWrittenLocked releases the rounds whose barrier file exists.
func (w *Watcher) releaseWrittenLocked() {
	for _, r := range w.inflight {
		r.release(nil)
	}
	w.inflight = nil
}

// releaseAllLocked releases every round, also one not yet written.
func (w *Watcher) releaseAllLocked(err error) {
	w.releaseWrittenLocked()
	if w.open != nil {
		w.open.release(err)
		w.open = nil
	}
}

// Sync is a barrier: it returns nil once every event that the kernel
// queued before the call has been read into the pending set, so that
// afterwards [State.Quiet] means the index reflects every edit made before
// the call. It creates a file in Options.BarrierDir, which the same
// inotify instance watches, and waits for that file's event: inotify
// delivers one instance's events in order. Concurrent callers share one
// round trip (typically well under a millisecond).
//
// In polling mode Sync returns nil at once: there are no events to wait
// for, and freshness is then for the caller's own scan to decide. After an
// event queue overflow Sync may return early, but then a Full batch is
// pending, so State is not Quiet. Errors: ctx.Err(), [ErrClosed] once Run
// has returned, or the error creating the barrier file. Before Run starts,
// Sync waits for it.
func (w *Watcher) Sync(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if w.st.Mode == ModePolling {
		w.mu.Unlock()
		return nil
	}
	r := w.open
	writer := r == nil
	if writer {
		w.syncSeq++
		r = &round{seq: w.syncSeq, done: make(chan struct{}), untrust: w.untrust}
		w.open = r
	}
	w.mu.Unlock()

	if writer {
		name := filepath.Join(w.barrierDir, w.barrierPrefix+strconv.FormatUint(r.seq, 10))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			err = f.Close()
		}
		w.mu.Lock()
		if w.open == r {
			w.open = nil
		}
		switch {
		case r.closed: // the watcher closed or switched to polling meanwhile
		case err != nil:
			r.release(fmt.Errorf("sync barrier: %w", err))
		case w.seenSeq >= r.seq || w.untrust != r.untrust:
			// Its event was read already, or events were lost since the
			// round began and the pending Full batch covers them.
			r.release(nil)
		default:
			w.inflight = append(w.inflight, r)
		}
		w.mu.Unlock()
	}

	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
