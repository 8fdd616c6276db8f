package engine_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
)

// phaseLog records an index run's phase reports and checks that they
// keep the [engine.Phase] contract: phases in sequence, each started
// with Done 0 before it advances, Done never past Total nor going back,
// and exactly one End report closing it.
type phaseLog struct {
	ends []engine.Phase
	cur  string // the open phase; "" between phases
	done int    // the open phase's last Done
	errs []string
}

func (l *phaseLog) report(ph engine.Phase) {
	switch {
	case l.cur == "":
		if ph.End || ph.Done != 0 {
			l.errs = append(l.errs, fmt.Sprintf("%+v opens no phase with Done 0", ph))
		}
		l.cur, l.done = ph.Name, 0
	case ph.Name != l.cur:
		l.errs = append(l.errs, fmt.Sprintf("%+v while %s is open", ph, l.cur))
	case ph.Done < l.done || (ph.Total > 0 && ph.Done > ph.Total):
		l.errs = append(l.errs, fmt.Sprintf("%+v after Done %d", ph, l.done))
	}
	l.done = ph.Done
	if ph.End {
		l.ends = append(l.ends, ph)
		l.cur = ""
	}
}

func TestIndexPhases(t *testing.T) {
	t.Parallel()
	n := len(fixtureFiles)
	e := open(t, testConfig(t), repo(t), embedtest.New(16))
	runs := []struct {
		name string
		opts engine.IndexOptions
		// want lists the End reports; Done of merge is not compared (the
		// segments merged are the store's policy).
		want []engine.Phase
	}{{
		name: "first",
		want: []engine.Phase{
			{Name: "discover", Done: n, Total: n, Unit: "files", End: true},
			{Name: "chunk+embed", Done: n, Total: n, Unit: "files", End: true},
			{Name: "resolve", Unit: "imports", End: true},
			{Name: "merge", Unit: "segments", End: true},
			{Name: engine.PhaseVectors, End: true},
		},
	}, {
		// Nothing changed: nothing to chunk, no import to resolve again.
		name: "unchanged",
		want: []engine.Phase{
			{Name: "discover", Done: n, Total: n, Unit: "files", End: true},
			{Name: "chunk+embed", Unit: "files", End: true},
			{Name: "merge", Unit: "segments", End: true},
			{Name: engine.PhaseVectors, End: true},
		},
	}, {
		name: "rebuild",
		opts: engine.IndexOptions{Rebuild: true},
		want: []engine.Phase{
			{Name: "discover", Done: n, Total: n, Unit: "files", End: true},
			{Name: "chunk+embed", Done: n, Total: n, Unit: "files", End: true},
			{Name: "resolve", Unit: "imports", End: true},
			{Name: "merge", Unit: "segments", End: true},
			{Name: engine.PhaseSwap, End: true},
			{Name: engine.PhaseVectors, End: true},
		},
	}}
	// The runs share one index, so they run in order.
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			l := &phaseLog{}
			r.opts.Phase = l.report
			index(t, e, r.opts)
			if l.cur != "" {
				t.Errorf("phase %s still open after the run", l.cur)
			}
			for _, msg := range l.errs {
				t.Error(msg)
			}
			for i := range l.ends {
				switch ph := &l.ends[i]; ph.Name {
				case "merge":
					ph.Done, ph.Total = 0, 0
				case "resolve":
					// The fixture's Go, Python and JS files import something.
					if ph.Done == 0 || ph.Done != ph.Total {
						t.Errorf("resolve ended with %d of %d imports, want some, all done", ph.Done, ph.Total)
					}
					ph.Done, ph.Total = 0, 0
				}
			}
			if diff := cmp.Diff(r.want, l.ends); diff != "" {
				t.Errorf("phase ends (-want +got):\n%s", diff)
			}
		})
	}
}
