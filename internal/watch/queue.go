package watch

import (
	"errors"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// maxQueued bounds the events read from the kernel but not yet processed.
// Past it, events are dropped and an errQueueFull marker takes their place,
// which the loop treats like a kernel queue overflow.
const maxQueued = 1 << 16

// errQueueFull marks the events the watcher itself dropped.
var errQueueFull = errors.New("watch: event queue full")

// item is one event or one error, in the order fsnotify sent them.
type item struct {
	ev  fsnotify.Event
	err error
}

// queue hands items from forward to Run's loop without ever blocking
// forward. fsnotify holds its internal lock while it sends some errors; if
// nobody received them, the loop's own Add and Remove calls would deadlock,
// so reading must never wait for processing.
type queue struct {
	ready chan struct{} // capacity 1: items is non-empty

	mu       sync.Mutex // guards items and dropping
	items    []item
	dropping bool // an errQueueFull marker is queued; drop until take
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

// push appends it, or drops it when maxQueued items are waiting.
func (q *queue) push(it item) {
	q.mu.Lock()
	switch {
	case q.dropping:
	case len(q.items) >= maxQueued:
		q.dropping = true
		q.items = append(q.items, item{err: errQueueFull})
	default:
		q.items = append(q.items, it)
	}
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns every queued item, reusing buf for the next round.
func (q *queue) take(buf []item) []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = buf[:0]
	q.dropping = false
	return items
}

// forward moves everything fsw sends into q, in order, until fsw is closed.
// fsnotify's inotify backend sends events and errors from one goroutine on
// unbuffered channels, so receiving them here keeps their order.
func forward(fsw *fsnotify.Watcher, q *queue) {
	evs, errs := fsw.Events, fsw.Errors
	for evs != nil || errs != nil {
		select {
		case ev, ok := <-evs:
			if !ok {
				evs = nil
				continue
			}
			q.push(item{ev: ev})
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			q.push(item{err: err})
		}
	}
}
