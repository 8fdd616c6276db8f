package cli

import (
	"os"
	"runtime/debug"
	"sync"

	"github.com/ctx-dev/ctx/internal/engine"
)

// queryGCPercent is the garbage collector's GOGC while a one-shot query
// process answers. A `ctx find` on the Go standard library's index
// allocates 4-5 MB, so the default GOGC of 100 (first heap goal 4 MB)
// ran one collection in nearly every query: 1-2 ms of CPU on a 2-core
// machine, where the answer takes about 20. At 400 the first goal is
// 16 MB and a plain query collects nothing; whole-process p50 over the
// 50 queries of scripts/goroot-queries.txt, 4 alternating rounds:
// 22.1 → 19.4 ms (GOGC=400 in the environment against the same build).
// The heap is freed when the process exits moments later.
const queryGCPercent = 400

// queryGC raises GOGC to [queryGCPercent] for a one-shot query (`ctx
// find`, `ctx like`), unless
// the user set GOGC. It returns wrap, which wraps an index-phase
// reporter so that the default comes back as soon as the query has to
// index first (an index run's peak memory is bounded with the default;
// README, Measured), and restore, which puts the default back (call it
// when the query ends; in-process callers such as tests run many).
func queryGC() (wrap func(func(engine.Phase)) func(engine.Phase), restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func(f func(engine.Phase)) func(engine.Phase) { return f }, func() {}
	}
	prev := debug.SetGCPercent(queryGCPercent)
	restore = sync.OnceFunc(func() { debug.SetGCPercent(prev) })
	wrap = func(f func(engine.Phase)) func(engine.Phase) {
		return func(ph engine.Phase) {
			restore()
			if f != nil {
				f(ph)
			}
		}
	}
	return wrap, restore
}
