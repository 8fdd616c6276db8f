package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// wait bounds every wait for a batch: generous, because CI machines are
// loaded and -race is slow. Tests never assert on tight timings.
const wait = 20 * time.Second

// recorder is a handler that records the batches it gets.
type recorder struct {
	mu      sync.Mutex // guards batches and fail
	batches []Batch
	fail    func(Batch) error // nil: every call succeeds
	got     chan struct{}     // capacity 1: a batch arrived
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 1)} }

func (r *recorder) handle(_ context.Context, b Batch) error {
	r.mu.Lock()
	r.batches = append(r.batches, b)
	fail := r.fail
	r.mu.Unlock()
	select {
	case r.got <- struct{}{}:
	default:
	}
	if fail != nil {
		return fail(b)
	}
	return nil
}

func (r *recorder) all() []Batch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

// since returns the batches after the first n.
func (r *recorder) since(n int) []Batch { return r.all()[n:] }

// waitUntil waits until ok holds for the batches recorded so far.
func (r *recorder) waitUntil(t *testing.T, what string, ok func([]Batch) bool) []Batch {
	t.Helper()
	deadline := time.After(wait)
	for {
		bs := r.all()
		if ok(bs) {
			return bs
		}
		select {
		case <-r.got:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s; batches: %+v", what, bs)
		}
	}
}

// paths returns the union of the paths of bs.
func paths(bs []Batch) map[string]bool {
	m := map[string]bool{}
	for _, b := range bs {
		for _, p := range b.Paths {
			m[p] = true
		}
	}
	return m
}

// waitPaths waits until every path in want was reported after batch n.
func (r *recorder) waitPaths(t *testing.T, n int, want ...string) []Batch {
	t.Helper()
	return r.waitUntil(t, fmt.Sprintf("paths %q", want), func(bs []Batch) bool {
		if len(bs) < n {
			return false
		}
		got := paths(bs[n:])
		for _, p := range want {
			if !got[p] {
				return false
			}
		}
		return true
	})
}

// start runs a watcher on root until the test ends and waits for its first
// (Full) batch.
func start(t *testing.T, root string, opts *Options) (*Watcher, *recorder) {
	t.Helper()
	if opts.BarrierDir == "" {
		opts.BarrierDir = t.TempDir()
	}
	w, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, rec.handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	})
	bs := rec.waitUntil(t, "the initial batch", func(bs []Batch) bool { return len(bs) > 0 })
	if !bs[0].Full {
		t.Fatalf("first batch %+v is not Full", bs[0])
	}
	waitQuiet(t, w)
	return w, rec
}

// waitQuiet waits until the handler is idle and nothing is pending.
func waitQuiet(t *testing.T, w *Watcher) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !w.State().Quiet() {
		if time.Now().After(deadline) {
			t.Fatalf("watcher never quiet: %+v", w.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func write(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, root, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

func fastOpts() *Options {
	return &Options{Debounce: 100 * time.Millisecond, MaxDelay: 2 * time.Second}
}

// TestEditorSaves checks the ways editors save a file: whatever the dance,
// the file's own path is reported.
func TestEditorSaves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		save func(t *testing.T, root string)
	}{
		{"in place", func(t *testing.T, root string) {
			write(t, root, "pkg/a.go", "package a // v2")
		}},
		{"temp then rename (vim writebackup, JetBrains safe write)", func(t *testing.T, root string) {
			write(t, root, "pkg/a.go___jb_tmp___", "package a // v2")
			rename(t, root, "pkg/a.go___jb_tmp___", "pkg/a.go")
		}},
		{"hidden temp then rename (atomic writers)", func(t *testing.T, root string) {
			write(t, root, "pkg/.a.go.tmp123", "package a // v2")
			rename(t, root, "pkg/.a.go.tmp123", "pkg/a.go")
		}},
		{"backup rename then write (vim backupcopy=no)", func(t *testing.T, root string) {
			rename(t, root, "pkg/a.go", "pkg/a.go~")
			write(t, root, "pkg/a.go", "package a // v2")
			remove(t, root, "pkg/a.go~")
		}},
		{"delete then create", func(t *testing.T, root string) {
			remove(t, root, "pkg/a.go")
			write(t, root, "pkg/a.go", "package a // v2")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, "pkg/a.go", "package a")
			_, rec := start(t, root, fastOpts())
			n := len(rec.all())
			tt.save(t, root)
			rec.waitPaths(t, n, "pkg/a.go")
		})
	}
}

// TestDirRename moves a watched directory: the old and the new path are
// reported, the files under the new one too, and the new one is watched.
func TestDirRename(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "old/sub/f.go", "package sub")
	w, rec := start(t, root, fastOpts())
	if got := w.State().Watched; got != 3 {
		t.Errorf("Watched = %d, want 3 (root, old, old/sub)", got)
	}
	n := len(rec.all())
	rename(t, root, "old", "new")
	rec.waitPaths(t, n, "old", "new", "new/sub", "new/sub/f.go")
	waitQuiet(t, w)
	if got := w.State().Watched; got != 3 {
		t.Errorf("after rename Watched = %d, want 3 (root, new, new/sub)", got)
	}

	n = len(rec.all())
	write(t, root, "new/sub/g.go", "package sub")
	bs := rec.waitPaths(t, n, "new/sub/g.go")
	for p := range paths(bs[n:]) {
		if strings.HasPrefix(p, "old") {
			t.Errorf("a write under new/ was reported as %s", p)
		}
	}

	// Moving it out of the root unwatches it.
	n = len(rec.all())
	if err := os.Rename(filepath.Join(root, "new"), filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
	}
	rec.waitPaths(t, n, "new")
	waitQuiet(t, w)
	if got := w.State().Watched; got != 1 {
		t.Errorf("after moving out Watched = %d, want 1", got)
	}
}

// TestMkdirAll creates nested directories and files in them at once,
// before the watcher can have watched them.
func TestMkdirAll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, fastOpts())
	n := len(rec.all())
	write(t, root, "a/b/c/f.go", "package c")
	write(t, root, "a/x.go", "package a")
	rec.waitPaths(t, n, "a/b/c/f.go", "a/x.go")
	waitQuiet(t, w)
	if got := w.State().Watched; got != 4 {
		t.Errorf("Watched = %d, want 4", got)
	}
	n = len(rec.all())
	write(t, root, "a/b/c/g.go", "package c")
	rec.waitPaths(t, n, "a/b/c/g.go")
}

// TestDirMovedIn moves a directory tree into the root, the way tar -x
// into a temporary directory or a package manager's rename would.
func TestDirMovedIn(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	write(t, outside, "tree/a/one.go", "package a")
	write(t, outside, "tree/a/b/two.go", "package b")
	_, rec := start(t, root, fastOpts())
	n := len(rec.all())
	if err := os.Rename(filepath.Join(outside, "tree"), filepath.Join(root, "tree")); err != nil {
		t.Fatal(err)
	}
	rec.waitPaths(t, n, "tree", "tree/a/one.go", "tree/a/b/two.go")
	n = len(rec.all())
	write(t, root, "tree/a/b/three.go", "package b")
	rec.waitPaths(t, n, "tree/a/b/three.go")
}

// TestBurst is a checkout: 600 files in nested directories written over
// about a second, shorter than MaxDelay, become one batch.
func TestBurst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "keep.go", "package keep")
	w, rec := start(t, root, &Options{Debounce: 700 * time.Millisecond, MaxDelay: time.Minute})
	n := len(rec.all())
	var want []string
	for d := range 12 {
		for f := range 50 {
			rel := fmt.Sprintf("pkg%d/sub%d/f%d.go", d%4, d, f)
			write(t, root, rel, "package sub")
			want = append(want, rel)
			if f%10 == 0 {
				time.Sleep(15 * time.Millisecond)
			}
		}
	}
	// Overwrite some: paths are de-duplicated.
	for _, rel := range want[:100] {
		write(t, root, rel, "package sub // v2")
	}
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	bs := rec.since(n)
	if len(bs) != 1 {
		t.Fatalf("got %d batches, want 1: %v", len(bs), bs)
	}
	b := bs[0]
	got := paths(bs)
	for _, p := range want {
		if !got[p] {
			t.Errorf("missing %s", p)
		}
	}
	if !slices.IsSorted(b.Paths) || len(slices.Compact(slices.Clone(b.Paths))) != len(b.Paths) {
		t.Errorf("paths not sorted and unique")
	}
	if b.Full {
		t.Errorf("burst batch is Full")
	}
	if b.Events < len(want) {
		t.Errorf("Events = %d, want at least %d", b.Events, len(want))
	}
}

// TestBurstOnePass checks the debounce alone (no Flush): the burst above
// is handed over as one batch when it goes quiet.
func TestBurstOnePass(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	_, rec := start(t, root, &Options{Debounce: 700 * time.Millisecond, MaxDelay: time.Minute})
	n := len(rec.all())
	var want []string
	for i := range 500 {
		rel := fmt.Sprintf("d%d/e%d/f%d.go", i%5, i%25, i)
		write(t, root, rel, "package f")
		want = append(want, rel)
		if i%10 == 0 {
			time.Sleep(15 * time.Millisecond)
		}
	}
	rec.waitPaths(t, n, want...)
	time.Sleep(3 * 700 * time.Millisecond)
	if bs := rec.since(n); len(bs) != 1 {
		t.Errorf("got %d batches, want 1", len(bs))
	}
}

func ignoreDeps(rel string, dir bool) bool {
	base := rel[strings.LastIndex(rel, "/")+1:]
	return base == ".git" || (dir && base == "node_modules")
}

// TestIgnored checks that ignored directories are not watched and that
// nothing under them, nor an ignored directory appearing, makes a batch.
func TestIgnored(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".git/HEAD", "ref: refs/heads/main")
	write(t, root, "node_modules/left-pad/index.js", "module.exports = 1")
	write(t, root, "web/app.js", "x")
	opts := fastOpts()
	opts.Ignore = ignoreDeps
	w, rec := start(t, root, opts)
	if got := w.State().Watched; got != 2 {
		t.Errorf("Watched = %d, want 2 (root, web)", got)
	}
	n := len(rec.all())
	write(t, root, ".git/index", "x")
	write(t, root, ".git/HEAD.lock", "x")
	rename(t, root, ".git/HEAD.lock", ".git/HEAD")
	write(t, root, "node_modules/left-pad/index.js", "module.exports = 2")
	write(t, root, "node_modules/new-pkg/a/b.js", "x")
	write(t, root, "web/node_modules/dep/index.js", "x")
	// A path gone before its Create event is read cannot be told from a
	// deleted file and is reported; let the watcher see the new directory
	// before it goes.
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	remove(t, root, "node_modules/left-pad")
	remove(t, root, "web/node_modules")
	remove(t, root, ".git")
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * opts.Debounce)
	if bs := rec.since(n); len(bs) != 0 {
		t.Errorf("ignored paths made batches: %+v", bs)
	}
	s := w.State()
	if s.Events != 0 || s.Pending != 0 || s.Watched != 2 {
		t.Errorf("State = %+v, want no events, nothing pending, 2 watched", s)
	}

	// A file named like a directory-only rule is not ignored.
	write(t, root, "web/node_modules", "a file")
	rec.waitPaths(t, n, "web/node_modules")
}

// TestOverflow injects a queue overflow: the next batch is Full and State
// says what happened. A directory created meanwhile is still watched.
func TestOverflow(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, fastOpts())
	n := len(rec.all())
	w.q.push(item{err: fsnotify.ErrEventOverflow})
	rec.waitUntil(t, "a Full batch", func(bs []Batch) bool {
		return len(bs) > n && bs[len(bs)-1].Full
	})
	s := w.State()
	if s.Overflows != 1 || !strings.Contains(s.Reason, "overflow") || s.Mode != ModeEvents {
		t.Errorf("State = %+v, want 1 overflow, a Reason naming it, events mode", s)
	}

	// Any other watch error also asks for a Full rescan.
	waitQuiet(t, w)
	n = len(rec.all())
	w.q.push(item{err: errors.New("short read")})
	rec.waitUntil(t, "a Full batch", func(bs []Batch) bool {
		return len(bs) > n && bs[len(bs)-1].Full
	})
	if s := w.State(); s.Errors != 1 || !strings.Contains(s.Reason, "short read") {
		t.Errorf("State = %+v, want 1 error, a Reason naming it", s)
	}
	n = len(rec.all())
	write(t, root, "after/f.go", "package after")
	rec.waitPaths(t, n, "after/f.go")

	// Lose a watch behind the watcher's back, as a lost event would: the
	// overflow's rewatch restores it.
	waitQuiet(t, w)
	if err := w.fsw.Remove(filepath.Join(root, "after")); err != nil {
		t.Fatal(err)
	}
	n = len(rec.all())
	w.q.push(item{err: fsnotify.ErrEventOverflow})
	rec.waitUntil(t, "a Full batch", func(bs []Batch) bool {
		return len(bs) > n && bs[len(bs)-1].Full
	})
	waitQuiet(t, w)
	n = len(rec.all())
	write(t, root, "after/g.go", "package after")
	rec.waitPaths(t, n, "after/g.go")
}

// TestWatchLimit reaches the watch limit, at start and later: the watcher
// polls, says why, and hands over Full batches every Reconcile.
func TestWatchLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		after func(t *testing.T, root string) // what runs into the limit after start
	}{
		{"at start", nil},
		{"on mkdir", func(t *testing.T, root string) { write(t, root, "x/y/z/f.go", "package z") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, "a/f.go", "package a")
			max := 2 // root and a
			if tt.after == nil {
				write(t, root, "b/f.go", "package b")
			}
			opts := fastOpts()
			opts.MaxWatches = max
			opts.Reconcile = 200 * time.Millisecond
			w, rec := start(t, root, opts)
			if tt.after != nil {
				if s := w.State(); s.Mode != ModeEvents {
					t.Fatalf("State = %+v, want events mode", s)
				}
				tt.after(t, root)
			}
			n := len(rec.all())
			rec.waitUntil(t, "3 Full batches", func(bs []Batch) bool {
				full := 0
				for _, b := range bs[n:] {
					if b.Full {
						full++
					}
				}
				return full >= 3
			})
			s := w.State()
			if s.Mode != ModePolling || !strings.Contains(s.Reason, "fs.inotify.max_user_watches") || s.Watched != 0 {
				t.Errorf("State = %+v, want polling mode, a Reason naming max_user_watches", s)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			if err := w.Sync(ctx); err != nil {
				t.Errorf("Sync in polling mode: %v", err)
			}
		})
	}
}

// TestSyncBarrier checks the read-your-writes contract: after a write and
// a Sync, either the write is pending (or being handled) or it was handed
// over already; never quiet with the edit missing.
func TestSyncBarrier(t *testing.T) {
	t.Parallel()
	for _, debounce := range []time.Duration{time.Millisecond, 20 * time.Millisecond, time.Hour} {
		t.Run(debounce.String(), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			w, rec := start(t, root, &Options{Debounce: debounce, MaxDelay: debounce})
			pendingSeen := 0
			for i := range 30 {
				rel := fmt.Sprintf("d%d/f%d.go", i%3, i)
				write(t, root, rel, "package d")
				if err := w.Sync(t.Context()); err != nil {
					t.Fatal(err)
				}
				s := w.State()
				if s.Quiet() && !paths(rec.all())[rel] {
					t.Fatalf("quiet after Sync but %s was never handed over; State %+v", rel, s)
				}
				if !s.Quiet() {
					pendingSeen++
				}
			}
			if debounce == time.Hour && pendingSeen != 30 {
				t.Errorf("with a 1h debounce only %d of 30 Syncs saw the write pending", pendingSeen)
			}
		})
	}
}

// TestSyncConcurrent has many callers share barrier round trips.
func TestSyncConcurrent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, _ := start(t, root, fastOpts())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			errs <- w.Sync(ctx)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(w.barrierDir, "*"))
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(left) > 1 {
		t.Errorf("barrier files left behind: %q", left)
	}
}

// TestFlush hands the pending paths over without waiting for the debounce.
func TestFlush(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, &Options{Debounce: time.Hour, MaxDelay: time.Hour})
	if err := w.Flush(t.Context()); err != nil {
		t.Fatalf("Flush with nothing pending: %v", err)
	}
	n := len(rec.all())
	write(t, root, "a.go", "package a")
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := w.State(); s.Pending != 1 {
		t.Fatalf("State = %+v, want 1 pending", s)
	}
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := paths(rec.since(n)); !got["a.go"] {
		t.Errorf("Flush returned before a.go was handed over: %v", got)
	}
	if s := w.State(); !s.Quiet() || s.Batches != int64(n+1) {
		t.Errorf("State = %+v, want quiet after %d batches", s, n+1)
	}
}

// TestFlushWhileRunning flushes while the handler runs: Flush waits for it
// and for a follow-up call with what arrived meanwhile.
func TestFlushWhileRunning(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, &Options{Debounce: time.Hour, MaxDelay: time.Hour})
	n := len(rec.all())
	entered, unblock := make(chan struct{}), make(chan struct{})
	rec.mu.Lock()
	rec.fail = func(b Batch) error {
		if slices.Contains(b.Paths, "first.go") {
			close(entered)
			<-unblock
		}
		return nil
	}
	rec.mu.Unlock()

	write(t, root, "first.go", "package a")
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	flushed := make(chan error, 2)
	go func() { flushed <- w.Flush(t.Context()) }()
	<-entered
	write(t, root, "second.go", "package a")
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	// State and Sync do not wait for the handler.
	if s := w.State(); !s.Running || s.Pending != 1 {
		t.Errorf("State = %+v, want running with 1 pending", s)
	}
	go func() { flushed <- w.Flush(t.Context()) }()
	close(unblock)
	for range 2 {
		if err := <-flushed; err != nil {
			t.Fatal(err)
		}
	}
	got := paths(rec.since(n))
	if !got["first.go"] || !got["second.go"] {
		t.Errorf("after Flush got %v, want first.go and second.go", got)
	}
}

// TestHandlerError retries the paths of a failed batch in the next one.
func TestHandlerError(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, fastOpts())
	rec.mu.Lock()
	failed := false
	rec.fail = func(b Batch) error {
		if !failed {
			failed = true
			return errors.New("database is locked")
		}
		return nil
	}
	rec.mu.Unlock()
	n := len(rec.all())
	write(t, root, "a.go", "package a")
	bs := rec.waitUntil(t, "a retry", func(bs []Batch) bool { return len(bs) >= n+2 })
	for i, b := range bs[n : n+2] {
		if !slices.Contains(b.Paths, "a.go") {
			t.Errorf("batch %d = %+v, want a.go", i, b)
		}
	}
	waitQuiet(t, w)

	// Flush reports the handler's error; the paths stay pending.
	rec.mu.Lock()
	rec.fail = func(Batch) error { return errors.New("disk full") }
	rec.mu.Unlock()
	write(t, root, "b.go", "package b")
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(t.Context()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush = %v, want the handler's error", err)
	}
	if s := w.State(); s.Pending == 0 {
		t.Errorf("State = %+v, want b.go pending again", s)
	}
}

// TestClosed checks the methods after Run returns, and Close without Run.
func TestClosed(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, err := New(root, &Options{BarrierDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func(context.Context, Batch) error { return nil }) }()
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	if err := w.Sync(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Run = %v, want ErrClosed", err)
	}
	if err := w.Flush(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Run = %v, want ErrClosed", err)
	}
	if err := w.Run(t.Context(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("second Run = %v, want ErrClosed", err)
	}

	// The default barrier dir is removed by Close.
	w2, err := New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := w2.barrierDir
	w2.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("barrier dir %s left behind: %v", dir, err)
	}
}
