package mcpserver

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestAhead: a consumer that reads results 0..k-1 in order finds each one
// made, the goroutines run at most one index each past what it read, and
// once closed they start no more.
func TestAhead(t *testing.T) {
	t.Parallel()
	const n, k = 200, 17
	out := make([]int, n)
	var calls atomic.Int64
	a := runAhead(n, func(i int) {
		calls.Add(1)
		out[i] = i*i + 1
	})
	for i := range k {
		a.wait(i)
		if out[i] != i*i+1 {
			t.Fatalf("result %d = %d after wait, want %d", i, out[i], i*i+1)
		}
	}
	a.close()
	got := int(calls.Load())
	if w := min(runtime.GOMAXPROCS(0), maxAhead); got < k || got > k+w {
		t.Errorf("%d calls for %d results read of %d: want %d to %d", got, k, n, k, k+w)
	}
	a.close() // a second close is harmless
	if int(calls.Load()) != got {
		t.Errorf("calls went on after close")
	}

	empty := runAhead(0, func(int) { t.Error("called with no indices") })
	empty.close()
}
