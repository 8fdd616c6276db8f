package engine_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/engine"
	ctxindex "github.com/ctx-dev/ctx/internal/index"
)

// genTree writes files Go files of funcs functions each, every function
// with its own names and doc comment so no two chunks share an embedding.
func genTree(t *testing.T, files, funcs int) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module gen\n")
	words := []string{"parse", "render", "queue", "token", "buffer", "cache", "route", "merge", "retry", "index", "scan", "flush"}
	for f := range files {
		var b strings.Builder
		pkg := fmt.Sprintf("p%03d", f/20)
		fmt.Fprintf(&b, "package %s\n\nimport \"fmt\"\n\n", pkg)
		for g := range funcs {
			w1, w2 := words[(f+g)%len(words)], words[(f*7+g*3)%len(words)]
			fmt.Fprintf(&b, "// %s%d%d %ss the %s of record %d in file %d.\n", w1, f, g, w1, w2, g, f)
			fmt.Fprintf(&b, "func %s%d%d(n int) string {\n\tif n > %d {\n\t\treturn fmt.Sprint(%q, n)\n\t}\n\treturn %q\n}\n\n", w1, f, g, g*f%97, w2, w1+w2)
		}
		writeFile(t, root, filepath.Join(pkg, fmt.Sprintf("f%04d.go", f)), b.String())
	}
	return root
}

// peakHeap indexes root with the built-in model and returns the largest
// heap (bytes of heap objects, live or not yet swept) seen during the run
// after its chunk+embed phase — the end-of-run stages (import resolution,
// the BM25 merge, the vector file), which read the whole index — and the
// chunk count. The GC runs often (GOGC=20) so garbage stays a small part
// of what is sampled.
func peakHeap(t *testing.T, root string) (peak uint64, chunks int) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Embed.Provider = "builtin"
	e := open(t, cfg, root, nil)
	defer e.Close()

	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var ending atomic.Bool
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if ending.Load() {
				metrics.Read(sample)
				mu.Lock()
				peak = max(peak, sample[0].Value.Uint64())
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	rep := index(t, e, engine.IndexOptions{Phase: func(ph engine.Phase) {
		if ph.Name == ctxindex.PhaseChunk && ph.End {
			runtime.GC() // what the chunk+embed phase left is garbage now
			ending.Store(true)
		}
	}})
	close(done)
	wg.Wait()
	st, err := e.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Added == 0 || st.Vectors == 0 || !ending.Load() {
		t.Fatalf("indexed %d files, %d vectors, end phases seen %v: the generated tree was not indexed with vectors", rep.Stats.Added, st.Vectors, ending.Load())
	}
	return peak, st.Chunks
}

// TestIndexMemoryIsBounded indexes a generated tree and one with four
// times its chunks and checks that the end of the run (import resolution,
// the BM25 merge, the vector file: the stages that read the whole index)
// does not hold it in memory: the larger run's peak heap there may exceed
// the smaller one's by less than half of what the added chunks' vectors
// take on their own (300 bytes a chunk in the vector file). A stage that
// held every vector, chunk or posting of the corpus at once (as the
// vector file's writer did, twice over) grows by more than that. The
// chunk+embed phase before it holds one write batch at a time (see
// internal/index's writeBatchChunks).
func TestIndexMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes two generated trees (-short)")
	}
	// The same files, four times the functions: what a run may hold per
	// file (the walk's list, the plan) stays equal, so only what grows
	// with the chunks can differ.
	small, smallChunks := peakHeap(t, genTree(t, 300, 20))
	large, largeChunks := peakHeap(t, genTree(t, 300, 80))
	vecBytes := uint64(largeChunks-smallChunks) * 300
	t.Logf("peak heap after chunk+embed: %d chunks %.1f MB, %d chunks %.1f MB (the added chunks' vectors alone: %.1f MB)",
		smallChunks, float64(small)/(1<<20), largeChunks, float64(large)/(1<<20), float64(vecBytes)/(1<<20))
	if largeChunks < 3*smallChunks {
		t.Fatalf("the large tree has %d chunks, the small one %d: want about four times as many", largeChunks, smallChunks)
	}
	if large > small && large-small > vecBytes/2 {
		t.Errorf("peak heap after chunk+embed grew by %.1f MB from %d to %d chunks, more than half the added vectors (%.1f MB): a stage holds the whole corpus",
			float64(large-small)/(1<<20), smallChunks, largeChunks, float64(vecBytes)/(1<<20))
	}
}
