package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Mode names reported in [State.Mode].
const (
	// ModeEvents means changes are seen through kernel events (inotify).
	ModeEvents = "events"
	// ModePolling means the watch limit was reached: the handler gets a
	// Full batch every Options.Reconcile instead.
	ModePolling = "polling"
)

// Defaults for the zero fields of [Options].
const (
	DefaultDebounce  = 300 * time.Millisecond
	DefaultMaxDelay  = 2 * time.Second
	DefaultReconcile = 2 * time.Second
	// pollDuty bounds polling's cost: the wait before the next Full batch
	// is at least this many times the last one's duration.
	pollDuty = 10
)

// maxRetryDelay caps the back-off between retries of a batch whose handler
// keeps failing.
const maxRetryDelay = 30 * time.Second

// ErrClosed is returned by [Watcher.Sync], [Watcher.Flush] and
// [Watcher.Run] once Run has returned.
var ErrClosed = errors.New("watch: watcher closed")

// Options configures a [Watcher]. A nil *Options means all defaults.
type Options struct {
	// Debounce is the quiet period after the last event before a batch is
	// handed over (default 300 ms).
	Debounce time.Duration
	// MaxDelay bounds how long a continuous stream of events can postpone
	// a batch (default 2 s), so a long checkout still makes progress.
	MaxDelay time.Duration
	// Ignore reports whether a root-relative slash path (dir true for
	// directories) is outside the index: ignored directories are never
	// watched, and events for ignored paths never count or trigger a batch.
	// It is applied before any other work on an event, except one Lstat of
	// a newly created path to learn whether it is a directory. nil: nothing
	// is ignored. It is called from one goroutine at a time.
	Ignore func(rel string, dir bool) bool
	// Reconcile is the interval of the periodic full-scan fallback used in
	// polling mode (default 2 s), measured from the end of one Full batch
	// to the start of the next, and at least 10 times that batch's
	// duration, so a big tree is not compared back to back. (After an
	// overflow or a watch error in events mode the watches are repaired
	// and one Full batch follows, debounced like any other; events are
	// trusted again after it.)
	Reconcile time.Duration
	// BarrierDir is a private directory, outside the root (for example in
	// the index cache), in which [Watcher.Sync] creates short-lived files;
	// it is created if missing and must be on a local file system, where
	// inotify sees changes. "" means a fresh directory under [os.TempDir]
	// that Run removes when it returns. Watchers may share one BarrierDir:
	// each names its files with its process ID and a counter.
	BarrierDir string
	// MaxWatches caps the number of directories watched under the root
	// (0: only the kernel's fs.inotify.max_user_watches applies). Reaching
	// it acts exactly like the kernel's limit: the watcher falls back to
	// polling. It lets tests exercise the fallback, and a caller leave
	// watches for other programs.
	MaxWatches int
	// Logger receives warnings (watch errors, handler errors, the switch to
	// polling) and debug records for each batch. nil: logs are discarded.
	Logger *slog.Logger
}

// Batch is what the handler passed to [Watcher.Run] receives.
type Batch struct {
	// Paths are the root-relative slash paths (files or directories) that
	// were created, written, removed or renamed (both the old and the new
	// name of a rename), de-duplicated and sorted. A directory path means
	// everything under it; a path that no longer exists was deleted.
	// Files found inside a directory that was created or moved in are
	// listed too.
	Paths []string
	// Full is set when the whole tree must be rescanned: the first batch
	// of Run, after an event queue overflow or a watch error, and every
	// batch in polling mode. Paths may still be set; they are a subset.
	Full bool
	// Events is the number of file system events folded into the batch
	// (events for ignored paths and attribute-only changes are not
	// counted).
	Events int
}

// State is a snapshot of a [Watcher], returned by [Watcher.State].
type State struct {
	// Mode is [ModeEvents] or [ModePolling].
	Mode string
	// Reason says why the mode is polling, or in events mode what last
	// made events untrustworthy (an overflow or a watch error, with its
	// time); "" if nothing did.
	Reason string
	// Pending is the number of paths waiting for a batch, plus one if a
	// Full rescan is pending.
	Pending int
	// Running reports whether the handler is running.
	Running bool
	// Watched is the number of directories under the root that have a
	// watch (0 in polling mode).
	Watched int
	// Batches is the number of handler calls that have returned, Events the
	// number of events counted (see [Batch.Events]), Overflows the number
	// of event queue overflows and Errors the number of other watch errors.
	Batches, Events, Overflows, Errors int64
	// LastBatch is when the last handler call returned (zero before).
	LastBatch time.Time
}

// Quiet reports whether nothing is pending and the handler is idle: after
// [Watcher.Sync] in events mode, the index then reflects every edit made
// before the Sync call. In polling mode Quiet says only that no batch is
// due; it is no evidence of freshness.
func (s State) Quiet() bool { return s.Pending == 0 && !s.Running }

// A Watcher watches one root directory tree. Create it with [New] and
// start it with [Watcher.Run]; the other methods are safe to call from any
// goroutine, also while Run is running.
type Watcher struct {
	root       string // absolute and clean
	debounce   time.Duration
	maxDelay   time.Duration
	reconcile  time.Duration
	ignore     func(rel string, dir bool) bool
	maxWatches int
	log        *slog.Logger

	barrierDir    string // absolute
	ownBarrierDir bool   // barrierDir was made by New, and Run removes it
	barrierPrefix string // name prefix of this watcher's barrier files

	q       *queue        // events and errors read from fsw, in order
	kick    chan struct{} // capacity 1: Flush asks the loop to dispatch now
	started atomic.Bool   // Run was called
	cleanup sync.Once     // releases fsw and the barrier files

	// Owned by New and then by Run's goroutine; never read elsewhere.
	fsw           *fsnotify.Watcher // nil in polling mode
	watched       map[string]bool   // root-relative slash dirs with a watch; "" is the root
	ignoredDirs   map[string]bool   // ignored dirs seen in watched dirs, so their removal is told from a file's
	failures      int               // consecutive handler errors
	rewatchWanted bool              // events were lost: walk the tree to repair the watches
	cur           Batch             // the batch the handler is running

	mu       sync.Mutex          // guards the fields below
	pending  map[string]struct{} // paths for the next batch
	full     bool                // the next batch is Full
	pendEvs  int                 // events folded into pending
	firstAt  time.Time           // when pending became non-empty
	lastAt   time.Time           // the last event added to pending
	flushNow bool                // dispatch pending without waiting for the debounce
	running  *batchRun           // the handler call in progress
	next     *batchRun           // the call Flush waits for, made before it starts
	st       State               // Mode, Reason, Watched and the counters
	closed   bool                // Run has returned
	syncSeq  uint64              // the last barrier sequence number handed out
	seenSeq  uint64              // the highest barrier sequence number read back
	open     *round              // the Sync round whose barrier file is not yet created
	inflight []*round            // rounds whose barrier file exists, waiting for its event
	untrust  int64               // overflows and errors so far, for rounds to notice one
}

// batchRun is one handler call; done is closed when it returns.
type batchRun struct {
	done chan struct{}
	err  error
}

func newRun() *batchRun { return &batchRun{done: make(chan struct{})} }

// New watches root recursively, skipping the directories that
// opts.Ignore excludes, and returns a Watcher to be started with
// [Watcher.Run]. When the kernel's watch or instance limit is reached
// (ENOSPC or EMFILE from inotify) New does not fail: the Watcher starts in
// polling mode and [State.Reason] says how to raise the limit. Errors: root
// is not a readable directory, the barrier directory cannot be made, or
// inotify fails for another reason. Subdirectories that cannot be read are
// logged and left out.
func New(root string, opts *Options) (*Watcher, error) {
	if opts == nil {
		opts = &Options{}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watch %s: not a directory", root)
	}
	w := &Watcher{
		root:        abs,
		debounce:    orDefault(opts.Debounce, DefaultDebounce),
		maxDelay:    orDefault(opts.MaxDelay, DefaultMaxDelay),
		reconcile:   orDefault(opts.Reconcile, DefaultReconcile),
		ignore:      opts.Ignore,
		maxWatches:  opts.MaxWatches,
		log:         opts.Logger,
		q:           newQueue(),
		kick:        make(chan struct{}, 1),
		watched:     map[string]bool{},
		ignoredDirs: map[string]bool{},
		pending:     map[string]struct{}{},
		// The first batch is a Full rescan, at once: it catches up with
		// whatever changed before the watches were in place.
		full:     true,
		flushNow: true,
		st:       State{Mode: ModeEvents},
	}
	if w.ignore == nil {
		w.ignore = func(string, bool) bool { return false }
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.maxDelay < w.debounce {
		w.maxDelay = w.debounce
	}
	now := time.Now()
	w.firstAt, w.lastAt = now, now

	if err := w.setupBarrier(opts.BarrierDir); err != nil {
		return nil, err
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		if isLimit(err) {
			w.toPolling(w.limitReason(err))
			return w, nil
		}
		w.removeBarrier()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w.fsw = fsw
	if err := fsw.Add(w.barrierDir); err != nil {
		if isLimit(err) {
			w.toPolling(w.limitReason(err))
			return w, nil
		}
		w.release()
		return nil, fmt.Errorf("watch barrier dir %s: %w", w.barrierDir, err)
	}
	if _, err := w.addTree("", nil); err != nil {
		if isLimit(err) {
			w.toPolling(w.limitReason(err))
			return w, nil
		}
		w.release()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if !w.watched[""] {
		w.release()
		return nil, fmt.Errorf("watch %s: cannot watch the root", root)
	}
	w.st.Watched = len(w.watched)
	return w, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Close releases the watches and the barrier directory of a Watcher whose
// Run will never be called. Once Run has been called, Run owns them and
// releases them when it returns, and Close does nothing.
func (w *Watcher) Close() error {
	if w.started.CompareAndSwap(false, true) {
		w.release()
		w.mu.Lock()
		w.shutLocked()
		w.mu.Unlock()
	}
	return nil
}

// release closes the fsnotify watcher and removes the barrier files.
func (w *Watcher) release() {
	w.cleanup.Do(func() {
		if w.fsw != nil {
			w.fsw.Close()
			w.fsw = nil
		}
		w.removeBarrier()
	})
}

// State returns a snapshot of the watcher. It never waits for the handler.
func (w *Watcher) State() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.st
	s.Pending = len(w.pending)
	if w.full {
		s.Pending++
	}
	s.Running = w.running != nil
	return s
}

// Run reads events and hands batches to handle until ctx is done, then
// waits for a running handler call to return, releases the watches and
// returns ctx.Err(). handle is called from one goroutine at a time, never
// concurrently, with ctx; when it returns an error the error is logged and
// the batch's paths (and its Full flag) are retried in the next batch,
// after a back-off that doubles from Options.Debounce up to 30 s. Run may
// be called once; later calls return [ErrClosed].
func (w *Watcher) Run(ctx context.Context, handle func(ctx context.Context, b Batch) error) error {
	if !w.started.CompareAndSwap(false, true) {
		return ErrClosed
	}
	var fwd sync.WaitGroup
	if w.fsw != nil {
		fsw := w.fsw
		fwd.Go(func() { forward(fsw, w.q) })
	}
	defer func() {
		w.release() // ends forward
		fwd.Wait()
		w.mu.Lock()
		w.shutLocked()
		w.mu.Unlock()
	}()

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	poll := time.NewTimer(time.Hour)
	poll.Stop()
	defer poll.Stop()

	hdone := make(chan error, 1)
	busy := false          // a handler goroutine is running; loop-owned
	var runStart time.Time // when it started
	var items []item
	for {
		if !busy {
			if b, ok, wait := w.take(time.Now()); ok {
				busy = true
				w.cur = b
				w.log.Debug("watch batch", "paths", len(b.Paths), "full", b.Full, "events", b.Events)
				runStart = time.Now()
				go func() { hdone <- handle(ctx, b) }()
			} else if wait > 0 {
				debounce.Reset(wait)
			}
		}
		select {
		case <-ctx.Done():
			if busy {
				w.finish(<-hdone, ctx.Err() == nil)
			}
			return ctx.Err()
		case <-w.q.ready:
			items = w.q.take(items)
			w.process(items)
			clear(items)
		case <-debounce.C:
		case <-w.kick:
		case <-poll.C:
			w.mu.Lock()
			w.markLocked(time.Now())
			w.full, w.flushNow = true, true
			w.mu.Unlock()
		case err := <-hdone:
			busy = false
			w.finish(err, true)
			if w.fsw == nil && !w.hasPending() {
				// A whole-tree comparison of a big tree can take seconds:
				// the next one waits at least pollDuty times as long, so
				// polling keeps to about a tenth of a core.
				poll.Reset(max(w.reconcile, pollDuty*time.Since(runStart)))
			}
		}
	}
}

// shutLocked marks the watcher closed and releases every waiter.
func (w *Watcher) shutLocked() {
	if w.closed {
		return
	}
	w.closed = true
	for _, r := range w.inflight {
		r.release(ErrClosed)
	}
	w.inflight = nil
	if w.open != nil {
		w.open.release(ErrClosed)
		w.open = nil
	}
	if w.next != nil {
		w.next.err = ErrClosed
		close(w.next.done)
		w.next = nil
	}
}

// take returns the batch to hand over now, or how long until one is due
// (0: nothing pending, or the handler is running).
func (w *Watcher) take(now time.Time) (b Batch, ok bool, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running != nil || (len(w.pending) == 0 && !w.full) {
		return Batch{}, false, 0
	}
	if !w.flushNow {
		quiet, maxDelay := w.debounce, w.maxDelay
		if w.failures > 0 {
			quiet = min(w.debounce<<min(w.failures, 10), max(maxRetryDelay, w.debounce))
			maxDelay = max(maxDelay, quiet)
		}
		due := w.lastAt.Add(quiet)
		if limit := w.firstAt.Add(maxDelay); limit.Before(due) {
			due = limit
		}
		if now.Before(due) {
			return Batch{}, false, due.Sub(now)
		}
	}
	b = Batch{Paths: slices.Sorted(maps.Keys(w.pending)), Full: w.full, Events: w.pendEvs}
	clear(w.pending)
	w.full, w.pendEvs, w.flushNow = false, 0, false
	w.running = w.next
	if w.running == nil {
		w.running = newRun()
	}
	w.next = nil
	return b, true, 0
}

// finish records the end of the handler call for w.cur; logErr is false
// when Run is returning and an error is only the handler's cancellation.
func (w *Watcher) finish(err error, logErr bool) {
	b := w.cur
	w.cur = Batch{}
	if err != nil && logErr {
		w.log.Warn("watch batch failed; retrying its paths", "paths", len(b.Paths), "full", b.Full, "err", err)
	}
	if err != nil {
		w.failures++
	} else {
		w.failures = 0
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.running
	w.running = nil
	w.st.Batches++
	w.st.LastBatch = now
	if err != nil {
		r.err = fmt.Errorf("watch batch: %w", err)
		for _, p := range b.Paths {
			w.pending[p] = struct{}{}
		}
		w.full = w.full || b.Full
		w.pendEvs += b.Events
		// Retry after the back-off, measured from now.
		w.firstAt, w.lastAt = now, now
	}
	close(r.done)
}

func (w *Watcher) hasPending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending) > 0 || w.full
}

// markLocked notes that something is about to be added to pending at now:
// it starts the debounce and, if pending is empty, the MaxDelay clock.
func (w *Watcher) markLocked(now time.Time) {
	if len(w.pending) == 0 && !w.full {
		w.firstAt = now
	}
	w.lastAt = now
}

// Flush hands over whatever is pending now without waiting for the
// debounce, and waits until the handler has returned for it; if the
// handler is running, Flush waits for it and then for a follow-up call
// with the paths that arrived meanwhile. It returns nil at once when
// nothing is pending and the handler is idle, the handler's error
// (wrapped) if that call failed (its paths are pending again), ctx.Err(),
// or [ErrClosed]. Events the kernel has queued but the watcher has not yet
// read are not included: call [Watcher.Sync] first for read-your-writes.
// Paths that arrive while Flush waits are not waited for.
func (w *Watcher) Flush(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	var r *batchRun
	switch {
	case len(w.pending) > 0 || w.full:
		if w.next == nil {
			w.next = newRun()
		}
		r = w.next
		w.flushNow = true
	case w.running != nil:
		r = w.running
	default:
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rel returns the root-relative slash path of an absolute name, and false
// if name is outside the root.
func (w *Watcher) rel(name string) (string, bool) {
	if name == w.root {
		return "", true
	}
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(name, prefix) {
		return "", false
	}
	return filepath.ToSlash(name[len(prefix):]), true
}

// abs returns the absolute path of a root-relative slash path.
func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
