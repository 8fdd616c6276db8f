package engine_test

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

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

// watched starts a kept engine on root watching it, and returns the engine
// and the runs the watcher made so far (a func to read them).
func watched(t *testing.T, root string, mutate func(*config.Config), wopts *engine.WatchOptions) (*engine.Engine, func() []engine.WatchRun) {
	t.Helper()
	cfg := testConfig(t)
	cfg.WatchDebounce = 50 * time.Millisecond
	cfg.FreshWait = 5 * time.Second // generous: the machine may be loaded
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := engine.Open(cfg, root, &engine.Options{KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	index(t, e, engine.IndexOptions{})
	var mu sync.Mutex
	var runs []engine.WatchRun
	if wopts == nil {
		wopts = &engine.WatchOptions{}
	}
	ready := make(chan struct{})
	wopts.Ready = ready
	wopts.OnRun = func(r engine.WatchRun) {
		mu.Lock()
		runs = append(runs, r)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.Watch(ctx, wopts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Watch: %v", err)
		}
		e.Close()
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Watch: %v", err)
	}
	get := func() []engine.WatchRun {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(runs)
	}
	// The first batch compares the whole tree; tests start after it.
	deadline := time.Now().Add(30 * time.Second)
	for len(get()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the watcher's first run never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return e, get
}

// findsFresh asks for q and checks that want is among the results and the
// answer is fresh, as it must be right after an edit when a watcher runs.
func findsFresh(t *testing.T, e *engine.Engine, q, want string) {
	t.Helper()
	resp := find(t, e, engine.FindRequest{Query: q, Limit: 10})
	if !resp.Stats.Fresh {
		t.Errorf("find %q right after the edit: fresh=false (stale %q)", q, resp.Stats.Stale)
	}
	if !slices.Contains(hitPaths(resp), want) {
		t.Errorf("find %q right after the edit = %v, want %s among them", q, hitPaths(resp), want)
	}
}

// TestWatchReadYourWrites edits files the ways editors and tools do and
// queries at once: every answer must already hold the edit and say fresh.
func TestWatchReadYourWrites(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg\n\n// Alpha does the first thing.\nfunc Alpha() {}\n")
	writeFile(t, root, "pkg/b.go", "package pkg\n\n// Beta does the second thing.\nfunc Beta() {}\n")
	e, _ := watched(t, root, nil, nil)

	// A new file.
	writeFile(t, root, "pkg/c.go", "package pkg\n\n// Gammaquokka is new.\nfunc Gammaquokka() {}\n")
	findsFresh(t, e, "Gammaquokka", "pkg/c.go")

	// An atomic save: write a temporary file, rename it over the old one.
	tmp := filepath.Join(root, "pkg", ".a.go.swp")
	if err := os.WriteFile(tmp, []byte("package pkg\n\n// Deltaquokka replaced Alpha.\nfunc Deltaquokka() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "pkg", "a.go")); err != nil {
		t.Fatal(err)
	}
	findsFresh(t, e, "Deltaquokka", "pkg/a.go")

	// Delete and recreate.
	remove(t, root, "pkg/b.go")
	writeFile(t, root, "pkg/b.go", "package pkg\n\n// Epsilonquokka is b's new content.\nfunc Epsilonquokka() {}\n")
	findsFresh(t, e, "Epsilonquokka", "pkg/b.go")

	// A directory created with files at once, then renamed.
	writeFile(t, root, "more/deep/d.go", "package deep\n\n// Zetaquokka lives deep.\nfunc Zetaquokka() {}\n")
	findsFresh(t, e, "Zetaquokka", "more/deep/d.go")
	if err := os.Rename(filepath.Join(root, "more"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	findsFresh(t, e, "Zetaquokka", "moved/deep/d.go")
	if resp := find(t, e, engine.FindRequest{Query: "Zetaquokka", Limit: 10}); slices.Contains(hitPaths(resp), "more/deep/d.go") {
		t.Errorf("the renamed directory's old path is still indexed: %v", hitPaths(resp))
	}
	// A file written inside the renamed directory is seen: it is watched.
	writeFile(t, root, "moved/deep/e.go", "package deep\n\n// Etaquokka came after the move.\nfunc Etaquokka() {}\n")
	findsFresh(t, e, "Etaquokka", "moved/deep/e.go")
}

// TestWatchBurstIsOneRun writes a checkout-sized burst and checks it is
// indexed in one run (or a few, if the burst outlasts the watcher's
// maximum delay on a loaded machine), consistently.
func TestWatchBurstIsOneRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "seed.go", "package seed\n")
	e, runs := watched(t, root, func(c *config.Config) { c.WatchDebounce = 300 * time.Millisecond }, nil)
	before := len(runs())
	for i := range 300 {
		writeFile(t, root, filepath.Join("burst", string(rune('a'+i%26)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i/26))+".go"),
			"package burst\n\n// Burstquokka is in every file of the burst.\nfunc Burstquokka() {}\n")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := status(t, e)
		if st.Files == 301 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the burst the index has %d files, want 301", st.Files)
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := runs()[before:]
	if len(got) > 3 {
		t.Errorf("a 300-file burst took %d runs; want it coalesced into one (at most 3 on a loaded machine)", len(got))
	}
}

// TestWatchIgnoredPathsRunNothing: changes under ignored directories never
// start a run.
func TestWatchIgnoredPathsRunNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "main.go", "package main\n")
	writeFile(t, root, ".gitignore", "build/\n")
	writeFile(t, root, "build/keep.txt", "x")
	writeFile(t, root, "node_modules/dep/index.js", "module.exports = 1\n")
	_, runs := watched(t, root, nil, nil)
	before := len(runs())
	writeFile(t, root, "build/out.o", "binary")
	writeFile(t, root, "node_modules/dep/other.js", "module.exports = 2\n")
	writeFile(t, root, ".git/index", "git")
	time.Sleep(time.Second) // 20 debounce periods
	if got := runs()[before:]; len(got) != 0 {
		t.Errorf("changes under ignored directories started %d runs: %v", len(got), got)
	}
}

// TestWatchPollingFallback reaches the watch limit and checks that the
// watcher polls instead, that status says so, and that edits still arrive.
func TestWatchPollingFallback(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		writeFile(t, root, d+"/x.go", "package "+d+"\n")
	}
	e, _ := watched(t, root, nil, &engine.WatchOptions{MaxWatches: 1})
	ws := e.WatchState()
	if ws == nil || ws.Mode != "polling" || !strings.Contains(ws.Reason, "max_user_watches") {
		t.Fatalf("WatchState = %+v; want polling that names fs.inotify.max_user_watches", ws)
	}
	writeFile(t, root, "b/new.go", "package b\n\n// Thetaquokka arrived while polling.\nfunc Thetaquokka() {}\n")
	deadline := time.Now().Add(20 * time.Second)
	for !slices.Contains(hitPaths(find(t, e, engine.FindRequest{Query: "Thetaquokka", Limit: 5})), "b/new.go") {
		if time.Now().After(deadline) {
			t.Fatal("a file added while polling was never indexed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Another process (ctx status) reads the watcher's state from disk.
	other := open(t, e.Config(), root, nil)
	if ws := other.WatchState(); ws == nil || ws.Mode != "polling" || ws.PID != os.Getpid() {
		t.Errorf("another engine's WatchState = %+v; want this process's polling watcher", ws)
	}
}

// TestFreshWithoutWatcher: without a watcher, an added file makes answers
// say stale (by directory times) until the next index run.
func TestFreshWithoutWatcher(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg\n\n// Alpha does the first thing.\nfunc Alpha() {}\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	if resp := find(t, e, engine.FindRequest{Query: "Alpha", Limit: 5}); !resp.Stats.Fresh || resp.Stats.Stale != "" {
		t.Fatalf("right after indexing: fresh=%v stale=%q", resp.Stats.Fresh, resp.Stats.Stale)
	}
	writeFile(t, root, "pkg/new/b.go", "package b\n")
	resp := find(t, e, engine.FindRequest{Query: "Alpha", Limit: 5})
	if resp.Stats.Fresh || !strings.Contains(resp.Stats.Stale, "ctx index") || !strings.Contains(resp.Stats.Stale, "pkg") {
		t.Errorf("after adding a directory: fresh=%v stale=%q; want stale naming pkg and ctx index", resp.Stats.Fresh, resp.Stats.Stale)
	}
	index(t, e, engine.IndexOptions{})
	if resp := find(t, e, engine.FindRequest{Query: "Alpha", Limit: 5}); !resp.Stats.Fresh {
		t.Errorf("after the next index run: fresh=false, stale %q", resp.Stats.Stale)
	}
	remove(t, root, "pkg/new")
	if resp := find(t, e, engine.FindRequest{Query: "Alpha", Limit: 5}); resp.Stats.Fresh {
		t.Error("after removing a directory: fresh=true")
	}
}

// TestWatchLinkTargets: an edit to a file that an indexed link points to
// re-indexes the link's path as well (the event names only the target).
func TestWatchLinkTargets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "pkg/real.go", "package pkg\n\n// Real is linked.\nfunc Real() {}\n")
	if err := os.MkdirAll(filepath.Join(root, "Sources", "Lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "pkg", "real.go"), filepath.Join(root, "Sources", "Lib", "real.go")); err != nil {
		t.Fatal(err)
	}
	e, _ := watched(t, root, nil, nil)
	writeFile(t, root, "pkg/real.go", "package pkg\n\n// Iotaquokka replaced Real.\nfunc Iotaquokka() {}\n")
	resp := find(t, e, engine.FindRequest{Query: "Iotaquokka", Limit: 10})
	if got := hitPaths(resp); !slices.Contains(got, "pkg/real.go") || !slices.Contains(got, "Sources/Lib/real.go") || !resp.Stats.Fresh {
		t.Errorf("after editing a link's target: %v (fresh %v); want the target and the link, fresh", got, resp.Stats.Fresh)
	}
}

// TestFreshAcrossProcesses: an engine without a watcher (ctx find while
// ctx watch runs) asks the watching one, and so sees an edit made just
// before it asked, in place, in a file it would not otherwise know
// changed.
func TestFreshAcrossProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg\n\n// Alpha does the first thing.\nfunc Alpha() {}\n")
	writeFile(t, root, "pkg/b.go", "package pkg\n\n// Beta does the second thing.\nfunc Beta() {}\n")
	w, _ := watched(t, root, nil, nil)
	cfg := w.Config()
	cfg.FreshWait = 5 * time.Second
	asker := open(t, cfg, root, nil)
	for i := range 5 {
		marker := fmt.Sprintf("Kappaquokka%d", i)
		// An in-place append: no directory time changes.
		f, err := os.OpenFile(filepath.Join(root, "pkg", "b.go"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "\n// %s is new.\nfunc %s() {}\n", marker, marker)
		f.Close()
		findsFresh(t, asker, marker, "pkg/b.go")
	}
}
