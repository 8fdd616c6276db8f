package embed

import (
	"fmt"
	"sync/atomic"
)

// DimsChecker holds the vector length of a provider whose dimensions may be
// configured or learned: it is either fixed up front with
// [DimsChecker.Set] or taken from the first vector [DimsChecker.Check]
// sees, and from then on every vector is held to it. This keeps the
// invariant of the package (every vector has [Model].Dims float32s) for
// services whose model length the user did not state.
//
// The zero value knows no length yet. A DimsChecker is safe for concurrent
// use; when the first vectors of concurrent calls disagree, the first one
// checked sets the length and the others fail. It must not be copied after
// first use.
type DimsChecker struct {
	n atomic.Int64 // 0 until known; once non-zero it never changes
}

// Set fixes the length to n, or leaves it to be learned when n is 0. It is
// meant for construction, before d is shared.
func (d *DimsChecker) Set(n int) { d.n.Store(int64(n)) }

// Assume fixes the length to n if it is not known yet, and leaves a known
// one as it is. Unlike [DimsChecker.Set] it is safe while d is shared: a
// caller that knows the length from elsewhere (an index built with the
// same model) uses it instead of asking the service.
func (d *DimsChecker) Assume(n int) {
	if n > 0 {
		d.n.CompareAndSwap(0, int64(n))
	}
}

// Dims returns the length, or 0 while it is not known.
func (d *DimsChecker) Dims() int { return int(d.n.Load()) }

// Check learns the length from v if it is not known yet, then holds v to
// it. The error matches [ErrDimension] when v is empty or has another
// length, and then says "got N, want M".
func (d *DimsChecker) Check(v []float32) error {
	n := int64(len(v))
	if n == 0 {
		return fmt.Errorf("%w: empty vector", ErrDimension)
	}
	d.n.CompareAndSwap(0, n)
	if want := d.n.Load(); n != want {
		return fmt.Errorf("%w: got %d, want %d", ErrDimension, n, want)
	}
	return nil
}
