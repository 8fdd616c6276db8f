package engine

// CutNow makes c, when closed, end e's automatic index's wait for the
// request's cut at once, so a test decides when the deadline "comes"
// instead of racing a clock.
func CutNow(e *Engine, c <-chan struct{}) { e.cutNow = c }
