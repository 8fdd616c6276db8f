package mcpserver

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maxAhead caps the goroutines of [runAhead] and how far they run ahead of
// the consumer: a page holds at most a few dozen segments, and every one
// made past the consumer's last may be one the page does not take.
const maxAhead = 4

// ahead runs a function over the indices 0..n-1 on a few goroutines,
// claiming them in index order and at most a few past the last one the
// consumer took, so that a consumer reading the results in order finds
// each one ready or being made. A page's segments are built this way:
// reading a segment's code and counting its tokens (the bulk of a call's
// work after search) run on every core while [pack.Fill] takes them one
// by one.
type ahead struct {
	next  atomic.Int64    // the next index to claim
	slots chan struct{}   // one per index that may be claimed before the consumer takes more
	quit  chan struct{}   // closed by close: claim nothing more
	done  []chan struct{} // done[i] is closed once f(i) has returned
	once  sync.Once
	wg    sync.WaitGroup
}

// runAhead starts running f(0), f(1), … on w = min(GOMAXPROCS, maxAhead,
// n) goroutines, never more than w indices past the last one waited for.
// f must be safe to call concurrently for distinct indices; the caller
// reads what f(i) wrote after wait(i), and calls close when done.
func runAhead(n int, f func(i int)) *ahead {
	w := min(runtime.GOMAXPROCS(0), maxAhead, n)
	a := &ahead{done: make([]chan struct{}, n), slots: make(chan struct{}, n), quit: make(chan struct{})}
	for i := range a.done {
		a.done[i] = make(chan struct{})
	}
	for range w {
		a.slots <- struct{}{}
	}
	for range w {
		a.wg.Go(func() {
			for {
				select {
				case <-a.quit:
					return
				case <-a.slots:
				}
				i := int(a.next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
				close(a.done[i])
			}
		})
	}
	return a
}

// wait blocks until f(i) has returned and lets one more index be claimed.
// It must be called for i = 0, 1, … in order, and not after close.
func (a *ahead) wait(i int) {
	<-a.done[i]
	a.slots <- struct{}{} // never blocks: at most n sends in all, into a buffer of n
}

// close stops claiming indices and waits for the calls under way (at most
// one per goroutine), so none outlives the caller. Calls after the first
// do nothing.
func (a *ahead) close() {
	a.once.Do(func() { close(a.quit) })
	a.wg.Wait()
}
