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
// must) and the func that ends its display. note, when set, is printed at
// the first report, terminal or not: a first index can take a while, and
// whoever reads stderr should know what is being indexed. The phases are
// shown as [phasePrinter] shows them: bars on a terminal (tty), else a
// line for each once the run has taken a while.
func indexPhases(w io.Writer, tty bool, note string) (report func(engine.Phase), finish func()) {
	p := newPhasePrinter(w, tty, time.Now)
	p.startTicker()
	return withNote(w, note, p.report), p.finish
}

// withNote returns report preceded, at its first call, by note on w
// (nothing when note is ""). report may be nil.
func withNote(w io.Writer, note string, report func(engine.Phase)) func(engine.Phase) {
	if note == "" {
		return report
	}
	var once sync.Once
	return func(ph engine.Phase) {
		once.Do(func() { fmt.Fprintln(w, note) })
		if report != nil {
			report(ph)
		}
	}
}

// firstIndexNote is the note of a command that indexes the root of e
// before it answers: the root (or, when its index exists, that the last
// run did not finish: it was killed or interrupted), and when it is not
// inside a git work tree, that everything under it is indexed (a
// temporary or home directory, by mistake, is then seen at once).
func firstIndexNote(e *engine.Engine) string {
	note := fmt.Sprintf("no index for %s yet; indexing it first", e.Root())
	if e.HasIndex() {
		note = fmt.Sprintf("the last index run of %s did not finish; finishing it first", e.Root())
	}
	if e.WorkTree() == "" {
		note += nonRepoNote
	}
	return note
}

// nonRepoNote ends the notes of a first index outside a git work tree.
const nonRepoNote = " (not inside a git work tree: every file under it is indexed)"
