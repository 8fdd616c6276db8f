package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/engine"
)

// indexPhases returns the Phase callback for an index run that a command
// starts on the way (find, answer and train index a root first when they
// must) and the func that ends its display. When show is false (stderr is
// not a terminal) both do nothing; otherwise note, when set, is printed
// at the first report and each phase gets its bar ([phasePrinter]).
func indexPhases(w io.Writer, show bool, note string) (report func(engine.Phase), finish func()) {
	if !show {
		return func(engine.Phase) {}, func() {}
	}
	p := newPhasePrinter(w, true, time.Now)
	p.startTicker()
	var once sync.Once
	report = func(ph engine.Phase) {
		if note != "" {
			once.Do(func() { fmt.Fprintln(w, note) })
		}
		p.report(ph)
	}
	return report, p.finish
}
