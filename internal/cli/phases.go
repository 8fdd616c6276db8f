package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/ctx-dev/ctx/internal/engine"
)

// phaseQuiet is how long an index run may take before its phase lines
// are printed: a quick re-index stays silent.
const phaseQuiet = 2 * time.Second

// phasePrinter shows an index run's phases ([engine.Phase]) on w, one
// line per finished phase ("discover: 9745 files in 0.4 s", "vector file:
// 0.8 s"). The lines are held until the run has taken [phaseQuiet], then
// printed, and the later ones streamed; a run that ends sooner prints
// none. On a terminal (tty) the open phase also has a bar (a count of
// its units, or a spinner with the elapsed time when it counts nothing),
// drawn from its start and cleared at its end.
type phasePrinter struct {
	w     io.Writer
	tty   bool
	now   func() time.Time
	quiet time.Duration
	start time.Time // the run's start
	stop  chan struct{}
	wg    sync.WaitGroup // the ticker goroutine

	mu    sync.Mutex // guards the fields below and every write to w
	held  []string   // lines not printed yet (before quiet)
	loud  bool       // quiet has passed: lines go straight to w
	open  string     // the open phase's name; "" between phases
	began time.Time  // the open phase's start
	bar   *progressbar.ProgressBar
	spin  bool // bar is a spinner
}

// newPhasePrinter returns a printer for a run starting now (see
// [phasePrinter]); now is the clock (time.Now outside tests). Call start
// to have it print held lines and animate spinners without waiting for
// the next report, and finish when the run is over.
func newPhasePrinter(w io.Writer, tty bool, now func() time.Time) *phasePrinter {
	return &phasePrinter{w: w, tty: tty, now: now, quiet: phaseQuiet, start: now(), stop: make(chan struct{})}
}

// startTicker calls tick every interval (100 ms on a terminal, for the
// spinner; 250 ms otherwise) until finish.
func (p *phasePrinter) startTicker() {
	every := 250 * time.Millisecond
	if p.tty {
		every = 100 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
}

// report takes one phase report; it is an [engine.IndexOptions] Phase.
func (p *phasePrinter) report(ph engine.Phase) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if ph.Name != p.open {
		p.endBar()
		p.open, p.began = ph.Name, now
		if p.tty {
			p.bar, p.spin = newPhaseBar(p.w, ph), ph.Total <= 0
		}
	}
	if p.bar != nil && ph.Total > 0 && !ph.End {
		_ = p.bar.Set(ph.Done)
	}
	if ph.End {
		p.endBar()
		p.open = ""
		p.line(phaseLine(ph, now.Sub(p.began)))
	}
	p.wake(now)
}

// tick prints the held lines once quiet has passed and moves a spinner.
func (p *phasePrinter) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wake(p.now())
	if p.bar != nil && p.spin {
		_ = p.bar.RenderBlank()
	}
}

// finish stops the ticker and clears a bar left open (the run failed);
// it prints the held lines when the run took longer than quiet.
func (p *phasePrinter) finish() {
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endBar()
	p.open = ""
	if p.now().Sub(p.start) > p.quiet {
		p.flush()
	}
}

// wake turns the printer loud once quiet has passed. Call with mu held.
func (p *phasePrinter) wake(now time.Time) {
	if !p.loud && now.Sub(p.start) >= p.quiet {
		p.flush()
	}
}

// flush prints the held lines (above the open bar) and makes the printer
// loud. Call with mu held.
func (p *phasePrinter) flush() {
	p.loud = true
	if len(p.held) == 0 {
		return
	}
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	for _, l := range p.held {
		fmt.Fprintln(p.w, l)
	}
	p.held = nil
	if p.bar != nil {
		_ = p.bar.RenderBlank()
	}
}

// line prints l, or holds it until quiet has passed. Call with mu held.
func (p *phasePrinter) line(l string) {
	p.held = append(p.held, l)
	if p.loud {
		p.flush()
	}
}

// endBar clears the open phase's bar, if any. Call with mu held.
func (p *phasePrinter) endBar() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

// newPhaseBar draws ph's bar on w: a count when ph has a total, else a
// spinner with the elapsed time. Neither starts a goroutine (the spinner
// moves on [phasePrinter.tick]) nor stays on screen once finished.
func newPhaseBar(w io.Writer, ph engine.Phase) *progressbar.ProgressBar {
	opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(ph.Name),
		progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish(),
		progressbar.OptionSetSpinnerChangeInterval(0)}
	max := -1
	if ph.Total > 0 {
		max = ph.Total
		opts = append(opts, progressbar.OptionShowCount())
	}
	bar := progressbar.NewOptions(max, opts...)
	_ = bar.RenderBlank()
	return bar
}

// phaseLine is the line that reports the end of ph after d:
// "discover: 9745 files in 0.4 s", or "vector file: 0.8 s" for a phase
// that counts nothing.
func phaseLine(ph engine.Phase, d time.Duration) string {
	if ph.Unit == "" {
		return fmt.Sprintf("%s: %.1f s", ph.Name, d.Seconds())
	}
	return fmt.Sprintf("%s: %d %s in %.1f s", ph.Name, ph.Done, ph.Unit, d.Seconds())
}

// phaseSync is the name of the weaviate backend's sync phase.
const phaseSync = "weaviate sync"

// syncPhase turns [engine.IndexOptions] SyncProgress calls (after each
// file written, from 1) into reports of a [phaseSync] phase to report.
func syncPhase(report func(engine.Phase)) func(done, total int) {
	started := false
	return func(done, total int) {
		if !started {
			started = true
			report(engine.Phase{Name: phaseSync, Total: total, Unit: "files"})
		}
		report(engine.Phase{Name: phaseSync, Done: done, Total: total, Unit: "files", End: done >= total})
	}
}
