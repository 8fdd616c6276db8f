//go:build linux

// Benchmarks for watching a real tree. Run:
//
//	go test -run='^$' -bench=BenchmarkWatchGOROOT -benchtime=5x ./internal/watch
//	go test -run='^$' -bench=BenchmarkSync ./internal/watch
//
// The tree is $CTX_BENCH_REPO, or else $(go env GOROOT)/src (about 1k
// directories). Metrics: ns/op is the setup of one Watcher (the recursive
// walk adding a watch per directory); dirs is how many it watches; heap-B
// and rss-B are what one live Watcher adds to the Go heap and to the
// process's resident set (the kernel's own ~1 KiB per inotify watch is in
// neither); idle-cpu-ms/s is the CPU time the whole process uses per
// second while the watcher waits for events.
package watch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func benchRoot(b *testing.B) string {
	if dir := os.Getenv("CTX_BENCH_REPO"); dir != "" {
		return dir
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no CTX_BENCH_REPO and no go command: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func BenchmarkWatchGOROOT(b *testing.B) {
	root := benchRoot(b)
	barrier := b.TempDir()
	// What one live watcher costs, measured first, while the process is
	// fresh: afterwards the heap left by the setup loop blurs the RSS.
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	rss0 := rss(b)
	w, err := New(root, &Options{BarrierDir: barrier})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	heap := float64(int64(m1.HeapAlloc) - int64(m0.HeapAlloc))
	rssDelta := float64(rss(b) - rss0)
	dirs := float64(w.State().Watched)

	// Idle CPU: after the first batch nothing should run at all.
	ctx, cancel := context.WithCancel(b.Context())
	first := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- w.Run(ctx, func(context.Context, Batch) error {
			select {
			case first <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	<-first
	time.Sleep(200 * time.Millisecond)
	c0 := cpu(b)
	const idle = 3 * time.Second
	time.Sleep(idle)
	c1 := cpu(b)
	cancel()
	<-done
	idleCPU := float64((c1 - c0).Microseconds()) / 1000 / idle.Seconds()

	for b.Loop() {
		w, err := New(root, &Options{BarrierDir: barrier})
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	// After the loop: b.Loop's timer reset drops metrics reported before.
	b.ReportMetric(dirs, "dirs")
	b.ReportMetric(heap, "heap-B")
	b.ReportMetric(rssDelta, "rss-B")
	b.ReportMetric(idleCPU, "idle-cpu-ms/s")
}

// rss returns the resident set size of the process, in bytes.
func rss(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// cpu returns the user plus system CPU time of the process so far.
func cpu(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSync measures one Sync round trip (create a barrier file, read
// its event back) on an idle watcher.
func BenchmarkSync(b *testing.B) {
	w, err := New(b.TempDir(), &Options{BarrierDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func(context.Context, Batch) error { return nil }) }()
	defer func() {
		cancel()
		<-done
	}()
	for b.Loop() {
		if err := w.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
