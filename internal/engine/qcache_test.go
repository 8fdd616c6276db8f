package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

// TestQueryCache: a kept engine answers a repeated request from its cache,
// the same as the search did, and a new generation or a changed returned
// file is a miss.
func TestQueryCache(t *testing.T) {
	t.Parallel()
	root := goPackages(t, "strings", "bufio")
	e, err := engine.Open(testConfig(t), root, &engine.Options{KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	index(t, e, engine.IndexOptions{})
	req := engine.FindRequest{Query: "grow the builder  buffer", Limit: 5}
	first := find(t, e, req)
	req.Query = "  grow the builder buffer" // whitespace aside, the same query
	second := find(t, e, req)
	if first.Stats.Cached || !second.Stats.Cached {
		t.Fatalf("cached: first %v, second %v; want false, true", first.Stats.Cached, second.Stats.Cached)
	}
	ignore := cmpopts.IgnoreFields(engine.FindStats{}, "SearchMS", "Cached")
	if diff := cmp.Diff(first, second, cmpopts.IgnoreUnexported(engine.Hit{}, engine.FindResponse{}), ignore, cmpopts.IgnoreFields(engine.FindResponse{}, "Raw", "Query")); diff != "" {
		t.Errorf("cached answer differs (-search +cache):\n%s", diff)
	}
	if c := e.QueryCache(); c == nil || c.Hits != 1 || c.Misses != 1 || c.Entries != 1 {
		t.Errorf("QueryCache = %+v; want 1 hit, 1 miss, 1 entry", c)
	}
	if other := find(t, e, engine.FindRequest{Query: "grow the builder buffer", Limit: 6}); other.Stats.Cached {
		t.Error("another limit was answered from the cache")
	}

	// A returned file edited in place (no run yet): the entry is not used.
	top := first.Results[0].Path
	p := filepath.Join(root, filepath.FromSlash(top))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, top, string(b)+"\n// Growquokka is new.\nfunc Growquokka() {}\n")
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	if r := find(t, e, req); r.Stats.Cached || r.Stats.Fresh {
		t.Errorf("after editing %s: cached %v, fresh %v; want a stale search", top, r.Stats.Cached, r.Stats.Fresh)
	}
	// A new generation: a miss, then the new answer is cached.
	index(t, e, engine.IndexOptions{})
	if r := find(t, e, req); r.Stats.Cached || !r.Stats.Fresh {
		t.Errorf("after the index run: cached %v, fresh %v; want a fresh search", r.Stats.Cached, r.Stats.Fresh)
	}
	if r := find(t, e, req); !r.Stats.Cached {
		t.Error("the new generation's answer was not cached")
	}
	// One-shot engines have no cache.
	if c := open(t, e.Config(), root, nil).QueryCache(); c != nil {
		t.Errorf("a one-shot engine has a query cache: %+v", c)
	}
}

// BenchmarkFindCached measures a repeated query on a kept engine: the
// cache lookup, the index head read and the returned files' stats.
func BenchmarkFindCached(b *testing.B) {
	root := b.TempDir()
	for _, pkg := range []string{"strings", "bufio", "bytes"} {
		paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pkg, "*.go"))
		for _, src := range paths {
			data, err := os.ReadFile(src)
			if err != nil {
				b.Fatal(err)
			}
			dst := filepath.Join(root, pkg, filepath.Base(src))
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	cfg := config.Config{CacheDir: b.TempDir(), Home: b.TempDir(), MaxFileBytes: 1 << 20,
		Embed: config.Embed{Provider: "builtin", BatchSize: 64}, LogLevel: "warn", FreshWait: 5 * time.Second}
	e, err := engine.Open(cfg, root, &engine.Options{KeepOpen: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(b.Context(), engine.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	req := engine.FindRequest{Query: "grow the buffer", Limit: 10}
	loop := func(b *testing.B) {
		// Warm up: the first call may wait for the watcher's first run.
		for range 2 {
			if _, err := e.Find(b.Context(), req); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			r, err := e.Find(b.Context(), req)
			if err != nil || !r.Stats.Cached {
				b.Fatalf("Find: %v, stats %+v", err, r.Stats)
			}
		}
	}
	b.Run("unwatched", loop)
	// With a watcher, each query first makes sure no edit is pending (a
	// barrier round trip through the kernel's event queue).
	ctx, cancel := context.WithCancel(b.Context())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- e.Watch(ctx, &engine.WatchOptions{Ready: ready}) }()
	<-ready
	for ws := e.WatchState(); ws == nil || ws.Batches == 0; ws = e.WatchState() {
		time.Sleep(10 * time.Millisecond) // the first run: the whole tree compared
	}
	b.Run("watched", loop)
	cancel()
	<-done
}
