package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/watch"
)

// WatchOptions configures [Engine.Watch]; nil means defaults.
type WatchOptions struct {
	// OnRun is called after each index run the watcher starts (ctx watch
	// logs them), from the watcher's goroutine.
	OnRun func(WatchRun)
	// Ready is closed once the watches are in place (tests wait for it
	// before they edit files).
	Ready chan<- struct{}
	// MaxWatches caps the directories watched (0: the kernel's limit
	// only); tests use it to reach the polling fallback.
	MaxWatches int
	// IdleMaintenance is how long the watcher must have been idle before
	// it does what its runs of a few paths left for later: the full BM25
	// merge and the vector file (default 10 s).
	IdleMaintenance time.Duration
}

// WatchRun is one index run a watcher started.
type WatchRun struct {
	// Paths is the number of changed paths the batch named; Full is set
	// when the whole tree was compared (the first batch, an overflow, or
	// polling mode).
	Paths  int
	Full   bool
	Events int // file system events folded into the batch
	// Report is the run's outcome, nil when Err is set.
	Report *IndexReport
	Err    error
	// Duration is the run's wall time.
	Duration time.Duration
}

// WatchState is what `ctx status` and index_status say about a watcher of
// the root: in this process, or recorded by another one that still runs.
type WatchState struct {
	// PID is the watching process.
	PID int `json:"pid"`
	// Mode is "events" (kernel file events) or "polling" (the watch limit
	// was reached: the whole tree is compared every few seconds).
	Mode string `json:"mode"`
	// Reason says why the mode is polling, or what last made events
	// untrustworthy (a queue overflow), with its fix.
	Reason string `json:"reason,omitempty"`
	// Pending counts changed paths not yet indexed; Running is set while
	// a run is in progress (this process's watcher only).
	Pending int  `json:"pending"`
	Running bool `json:"running,omitempty"`
	// Batches is the number of runs the watcher started, Overflows the
	// number of event queue overflows.
	Batches   int64 `json:"batches"`
	Overflows int64 `json:"overflows,omitempty"`
	// Since is when the watcher started.
	Since time.Time `json:"since"`
}

// watching is the engine's running watcher.
type watching struct {
	w     *watch.Watcher
	since time.Time
	// caughtUp is closed when the first batch (the whole tree compared
	// with the index) has been indexed: until then the watcher cannot
	// vouch for anything.
	caughtUp chan struct{}
	once     sync.Once
}

// Watch keeps the root's index fresh until ctx is done: it watches the
// tree (package watch: debounced, coalescing, falling back to periodic
// full comparisons when the kernel's watch limit is reached) and runs an
// index update of the changed paths after each burst; the first batch
// compares the whole tree, so changes made while nothing watched are
// picked up (and a missing index is built). While it runs, [Engine.Find]
// on this engine asks the watcher whether every edit made before the
// query is indexed (read-your-writes, waiting at most the configured
// FreshWait) instead of guessing from file times. Runs of a few paths
// leave the full BM25 merge and the vector file for when the watcher has
// been idle a while. It returns ctx's error when ctx ends it, or the
// watcher's setup error; a root whose first index [Engine.CheckFirstIndex]
// refuses is not watched ([ErrTooManyFiles]). One Watch per engine at a
// time.
func (e *Engine) Watch(ctx context.Context, opts *WatchOptions) error {
	if opts == nil {
		opts = &WatchOptions{}
	}
	if err := e.CheckFirstIndex(ctx); err != nil {
		return err
	}
	idle := opts.IdleMaintenance
	if idle <= 0 {
		idle = 10 * time.Second
	}
	ig, err := e.newIgnorer(ctx)
	if err != nil {
		return err
	}
	barrier := filepath.Join(dirOf(e.dbPath), fmt.Sprintf(".watch-%d", os.Getpid()))
	w, err := watch.New(e.root, &watch.Options{
		Debounce:   cmp.Or(e.cfg.WatchDebounce, config.DefaultWatchDebounce),
		Ignore:     ig.ignored,
		BarrierDir: barrier,
		MaxWatches: opts.MaxWatches,
		Logger:     e.log,
	})
	if err != nil {
		return fmt.Errorf("watching %s: %w", e.root, err)
	}
	defer os.RemoveAll(barrier)
	ws := &watching{w: w, since: time.Now(), caughtUp: make(chan struct{})}
	e.mu.Lock()
	if e.watch != nil {
		e.mu.Unlock()
		w.Close()
		return errors.New("the engine is already watching")
	}
	e.watch = ws
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.watch = nil
		e.mu.Unlock()
		os.Remove(e.watchFile())
	}()
	e.recordWatch(ws)
	if opts.Ready != nil {
		close(opts.Ready)
	}
	asks := make(chan error, 1)
	askCtx, stopAsks := context.WithCancel(ctx)
	go func() { asks <- e.serveAsks(askCtx) }()
	defer func() {
		stopAsks()
		if err := <-asks; err != nil {
			e.log.Warn("answering other processes' freshness requests", "err", err)
		}
		os.RemoveAll(e.askDir())
	}()

	var mu sync.Mutex // guards owed
	owed := false     // a run of some paths left maintenance to do
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(idle / 4)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			st := w.State()
			mu.Lock()
			due := owed && st.Quiet() && time.Since(st.LastBatch) >= idle
			mu.Unlock()
			if !due {
				continue
			}
			if err := e.maintain(ctx); err != nil {
				e.log.Warn("index maintenance after watched runs", "err", err)
				continue
			}
			mu.Lock()
			owed = false
			mu.Unlock()
		}
	}()
	err = w.Run(ctx, func(ctx context.Context, b watch.Batch) error {
		start := time.Now()
		io := IndexOptions{}
		if !b.Full {
			io.Paths = ig.withLinks(b.Paths)
		}
		rep, err := e.Index(ctx, io)
		run := WatchRun{Paths: len(b.Paths), Full: b.Full, Events: b.Events, Report: rep, Err: err, Duration: time.Since(start)}
		if err == nil {
			if b.Full {
				ws.once.Do(func() { close(ws.caughtUp) })
				// A whole-tree comparison allocates for every file; a
				// server holds the memory otherwise (bench-fresh: 42 MB
				// over a server without a watcher after the first one).
				debug.FreeOSMemory()
			}
			ig.learn(rep.Stats.Skips, io.Paths)
			if io.Paths != nil {
				mu.Lock()
				owed = true
				mu.Unlock()
			}
		}
		// Other processes (ctx status, and ctx find asking for
		// freshness) read the state from disk.
		e.recordWatch(ws)
		if opts.OnRun != nil {
			opts.OnRun(run)
		}
		return err
	})
	cancel()
	<-done
	return err
}

// maintain does what runs of a few paths put off: the full BM25 merge
// (when the compaction policy asks for it) and the vector file, under the
// index lock.
func (e *Engine) maintain(ctx context.Context) error {
	unlock, err := lockIndex(ctx, e.dbPath, nil)
	if err != nil {
		return err
	}
	defer unlock()
	db, err := e.openDB(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.CompactPostings(ctx); err != nil {
		return err
	}
	if e.emb != nil {
		e.writeVectorFile(ctx, db)
	}
	// The runs and the merge left a large heap behind; an idle server
	// gives it back rather than hold it until the runtime's scavenger
	// does (measured: 317 MB more than a server that did not index,
	// after bench-fresh's 1,650 watched runs on the Go tree).
	debug.FreeOSMemory()
	return nil
}

// watcher returns the engine's running watcher, or nil.
func (e *Engine) watcher() *watching {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.watch
}

// WatchState returns the state of this engine's watcher, else of another
// process's watcher of the root that still runs, else nil.
func (e *Engine) WatchState() *WatchState {
	if ws := e.watcher(); ws != nil {
		return ws.state()
	}
	b, err := os.ReadFile(e.watchFile())
	if err != nil {
		return nil
	}
	var st WatchState
	if json.Unmarshal(b, &st) != nil || st.PID <= 0 || !alive(st.PID) {
		return nil
	}
	return &st
}

func (ws *watching) state() *WatchState {
	st := ws.w.State()
	return &WatchState{PID: os.Getpid(), Mode: st.Mode, Reason: st.Reason, Pending: st.Pending, Running: st.Running,
		Batches: st.Batches, Overflows: st.Overflows, Since: ws.since}
}

// watchFile is where a watching process records its state for `ctx
// status` in other processes.
func (e *Engine) watchFile() string { return e.dbPath + ".watch" }

// recordWatch writes the watcher's state for other processes, whole or
// not at all (a reader must never find it half written and take the
// watcher for gone); a failure only costs `ctx status` the line.
func (e *Engine) recordWatch(ws *watching) {
	b, _ := json.Marshal(ws.state())
	if err := atomicfile.Write(e.watchFile(), b, 0o644); err != nil {
		e.log.Debug("recording the watcher's state", "err", err)
	}
}

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// watchFreshness asks the engine's watcher whether every edit made before
// the call is indexed, waiting at most FreshWait for a pending batch to be
// indexed. ok is false when there is no watcher whose word counts (none,
// or polling): the caller falls back to its own checks. note says what is
// still pending when fresh is false.
func (e *Engine) watchFreshness(ctx context.Context) (fresh, ok bool, note string) {
	ws := e.watcher()
	if ws == nil {
		return false, false, ""
	}
	if ws.w.State().Mode != watch.ModeEvents {
		return false, false, ""
	}
	const catchingUp = "the watcher is still comparing the tree with the index (it just started); results may miss recent changes"
	select {
	case <-ws.caughtUp:
	default:
		if indexRunning(e.dbPath) {
			// The comparison (or a first index) is running: waiting for
			// it could take long, so the answer comes now, labelled.
			return false, true, catchingUp
		}
		wait, cancel := context.WithTimeout(ctx, e.cfg.FreshWait)
		defer cancel()
		select {
		case <-ws.caughtUp:
		case <-wait.Done():
			return false, true, catchingUp
		}
	}
	if err := ws.w.Sync(ctx); err != nil {
		return false, false, ""
	}
	st := ws.w.State()
	if !st.Quiet() && e.cfg.FreshWait > 0 {
		fctx, cancel := context.WithTimeout(ctx, e.cfg.FreshWait)
		err := ws.w.Flush(fctx)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			e.log.Debug("waiting for the watcher", "err", err)
		}
		st = ws.w.State()
	}
	if st.Quiet() {
		return true, true, ""
	}
	what := fmt.Sprintf("%d changed paths are waiting to be indexed", st.Pending)
	if st.Pending == 0 {
		what = "an index run of the latest changes is finishing"
	}
	return false, true, what + " (ctx is watching); results may miss them: ask again in a moment"
}

// ignorer decides which paths the watcher leaves alone: those at or below
// a directory the last walk skipped (version control, dependencies,
// ignore rules) or that the built-in rules exclude by name, files the
// walk skipped, and the index's own cache when it lies inside the root. Files a rule skips that no walk has
// seen yet do reach a run, which finds them skipped and changes nothing.
type ignorer struct {
	mu    sync.Mutex      // guards dirs and files
	dirs  map[string]bool // skipped directories, root-relative
	files map[string]bool // skipped files
	cache string          // the cache directory, root-relative, or ""
	// links maps the root-relative target of each indexed file link
	// under the root to the links' paths: an event names the target, and
	// the links must be indexed again too. Read-only after newIgnorer.
	links map[string][]string
}

func (e *Engine) newIgnorer(ctx context.Context) (*ignorer, error) {
	ig := &ignorer{dirs: map[string]bool{}, files: map[string]bool{}}
	if rel, err := filepath.Rel(e.root, dirOf(e.dbPath)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		ig.cache = filepath.ToSlash(rel)
	}
	res, err := discover.Walk(ctx, e.root, walkOptions(e.cfg))
	if err != nil {
		return nil, err
	}
	ig.learn(res.Skips, nil)
	ig.links = map[string][]string{}
	for _, f := range res.Files {
		fi, err := os.Lstat(f.Abs)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(f.Abs)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(e.root, target); err == nil && !strings.HasPrefix(rel, "..") {
			t := filepath.ToSlash(rel)
			ig.links[t] = append(ig.links[t], f.Path)
		}
	}
	return ig, nil
}

// withLinks returns paths and the paths of the indexed links whose
// targets are at or below one of them (as of the watcher's start).
func (ig *ignorer) withLinks(paths []string) []string {
	if len(ig.links) == 0 {
		return paths
	}
	out := paths
	for t, ls := range ig.links {
		if atOrBelowAny(t, paths) {
			out = append(out, ls...)
		}
	}
	return out
}

// learn records a walk's skips; with paths (a run of some paths), the
// records at or below them are replaced first.
func (ig *ignorer) learn(skips []discover.Skip, paths []string) {
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if paths != nil {
		for _, m := range []map[string]bool{ig.dirs, ig.files} {
			for k := range m {
				if atOrBelowAny(k, paths) {
					delete(m, k)
				}
			}
		}
	}
	for _, s := range skips {
		if s.Reason == discover.ReasonUnreadable {
			continue // transient: a later event should try again
		}
		if s.Dir {
			ig.dirs[s.Path] = true
		} else {
			ig.files[s.Path] = true
		}
	}
}

func (ig *ignorer) ignored(rel string, dir bool) bool {
	if ig.cache != "" && (rel == ig.cache || strings.HasPrefix(rel, ig.cache+"/")) || discover.BuiltinExcluded(rel) {
		return true
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if !dir && ig.files[rel] {
		return true
	}
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if ig.dirs[p] {
			return true
		}
	}
	return false
}

// String is a one-line account of the run, for logs.
func (r WatchRun) String() string {
	if r.Err != nil {
		return fmt.Sprintf("index run of %d paths failed after %s: %v", r.Paths, r.Duration.Round(time.Millisecond), r.Err)
	}
	st := r.Report.Stats
	what := strconv.Itoa(r.Paths) + " changed paths"
	if r.Full {
		what = "the whole tree"
	}
	return fmt.Sprintf("indexed %s in %s: %d added, %d changed, %d deleted, %d embedded; generation %d",
		what, r.Duration.Round(time.Millisecond), st.Added, st.Changed, st.Deleted, st.Embedded, r.Report.Generation)
}
