package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// step is one thing that happens to a printer: time passes, then a
// report, a tick or nothing.
type step struct {
	after time.Duration
	ph    *engine.Phase
	tick  bool
	// want is the whole output expected after the step; empty means the
	// same as after the step before (the output only grows).
	want string
}

func TestPhasePrinter(t *testing.T) {
	t.Parallel()
	start := func(name string, total int, unit string) *engine.Phase {
		return &engine.Phase{Name: name, Total: total, Unit: unit}
	}
	end := func(name string, done int, unit string) *engine.Phase {
		return &engine.Phase{Name: name, Done: done, Total: done, Unit: unit, End: true}
	}
	const (
		discover = "discover: 9745 files in 0.4 s\n"
		chunk    = "chunk+embed: 9745 files in 1.2 s\n"
	)
	tests := []struct {
		name  string
		steps []step
		// final is the output after finish.
		final string
	}{{
		name: "quick run stays silent",
		steps: []step{
			{ph: start("discover", 0, "files")},
			{after: 400 * time.Millisecond, ph: end("discover", 9745, "files")},
			{ph: start("chunk+embed", 9745, "files")},
			{after: time.Second, ph: &engine.Phase{Name: "chunk+embed", Done: 5000, Total: 9745, Unit: "files"}},
			{after: 200 * time.Millisecond, ph: end("chunk+embed", 9745, "files")},
			{ph: start("merge", 0, "segments")},
			{after: 300 * time.Millisecond, ph: end("merge", 3, "segments")},
		},
		final: "",
	}, {
		name: "held lines come out at 2 s, later ones stream",
		steps: []step{
			{ph: start("discover", 0, "files")},
			{after: 400 * time.Millisecond, ph: end("discover", 9745, "files")},
			{ph: start("chunk+embed", 9745, "files")},
			{after: 1200 * time.Millisecond, ph: end("chunk+embed", 9745, "files")},
			{ph: start("merge", 0, "segments")},
			// Nothing reports while merge runs: the ticker prints.
			{after: 300 * time.Millisecond, tick: true},
			{after: 100 * time.Millisecond, tick: true, want: discover + chunk},
			{after: 2 * time.Second, ph: end("merge", 3, "segments"), want: discover + chunk + "merge: 3 segments in 2.4 s\n"},
			{ph: start("vector file", 0, "")},
			{after: 800 * time.Millisecond, ph: end("vector file", 0, ""), want: discover + chunk + "merge: 3 segments in 2.4 s\nvector file: 0.8 s\n"},
		},
		final: discover + chunk + "merge: 3 segments in 2.4 s\nvector file: 0.8 s\n",
	}, {
		name: "a run over 2 s prints what it held at finish",
		steps: []step{
			{ph: start("discover", 0, "files")},
			{after: 400 * time.Millisecond, ph: end("discover", 9745, "files")},
			{ph: start("chunk+embed", 9745, "files")},
			{after: 1200 * time.Millisecond, ph: end("chunk+embed", 9745, "files")},
			{after: 500 * time.Millisecond},
		},
		final: discover + chunk,
	}, {
		name: "a failed phase has no line",
		steps: []step{
			{ph: start("discover", 0, "files")},
			{after: 400 * time.Millisecond, ph: end("discover", 9745, "files")},
			{ph: start("chunk+embed", 9745, "files")},
			{after: 3 * time.Second, ph: &engine.Phase{Name: "chunk+embed", Done: 10, Total: 9745, Unit: "files"}, want: discover},
		},
		final: discover,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			clk := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			p := newPhasePrinter(&out, false, clk.now)
			want := ""
			for i, s := range tt.steps {
				clk.advance(s.after)
				switch {
				case s.ph != nil:
					p.report(*s.ph)
				case s.tick:
					p.tick()
				}
				if s.want != "" {
					want = s.want
				}
				if diff := cmp.Diff(want, out.String()); diff != "" {
					t.Errorf("after step %d (-want +got):\n%s", i, diff)
				}
			}
			p.finish()
			if diff := cmp.Diff(tt.final, out.String()); diff != "" {
				t.Errorf("after finish (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPhasePrinterTTY checks that on a terminal each phase draws a bar
// that is cleared at its end, and that the lines still follow the 2 s
// rule.
func TestPhasePrinterTTY(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clk := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := newPhasePrinter(&out, true, clk.now)
	p.report(engine.Phase{Name: "chunk+embed", Total: 4, Unit: "files"})
	p.report(engine.Phase{Name: "chunk+embed", Done: 2, Total: 4, Unit: "files"})
	if !strings.Contains(out.String(), "chunk+embed") {
		t.Errorf("no bar drawn for an open phase; output %q", out.String())
	}
	clk.advance(3 * time.Second)
	p.report(engine.Phase{Name: "chunk+embed", Done: 4, Total: 4, Unit: "files", End: true})
	p.report(engine.Phase{Name: "merge", Unit: "segments"})
	p.tick()
	if !strings.Contains(out.String(), "merge") {
		t.Errorf("no spinner drawn for an uncounted phase; output %q", out.String())
	}
	p.finish()
	// The summary line is printed once, after the bar was cleared.
	if got := strings.Count(out.String(), "chunk+embed: 4 files in 3.0 s\n"); got != 1 {
		t.Errorf("summary line printed %d times, want 1; output %q", got, out.String())
	}
}

func TestSyncPhase(t *testing.T) {
	t.Parallel()
	var got []engine.Phase
	sp := syncPhase(func(ph engine.Phase) { got = append(got, ph) })
	sp(1, 2)
	sp(2, 2)
	want := []engine.Phase{
		{Name: phaseSync, Total: 2, Unit: "files"},
		{Name: phaseSync, Done: 1, Total: 2, Unit: "files"},
		{Name: phaseSync, Done: 2, Total: 2, Unit: "files", End: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}
