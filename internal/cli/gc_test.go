package cli

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestQueryGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment")
	}
	before := gcPercent()
	wrap, restore := queryGC()
	if got := gcPercent(); got != queryGCPercent {
		t.Fatalf("GOGC during a query = %d, want %d", got, queryGCPercent)
	}
	var phases []string
	report := wrap(func(ph engine.Phase) { phases = append(phases, ph.Name) })
	report(engine.Phase{Name: "discover"})
	if got := gcPercent(); got != before {
		t.Errorf("GOGC once the query indexes = %d, want the default %d back", got, before)
	}
	if len(phases) != 1 || phases[0] != "discover" {
		t.Errorf("wrapped reporter saw %v, want [discover]", phases)
	}
	// A nil reporter is wrapped too: the index run reports nowhere but
	// still restores the default.
	restore()
	wrap, restore = queryGC()
	wrap(nil)(engine.Phase{Name: "discover"})
	if got := gcPercent(); got != before {
		t.Errorf("GOGC once a query with no reporter indexes = %d, want %d", got, before)
	}
	restore()
	_, restore = queryGC()
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC after restore = %d, want %d", got, before)
	}

	t.Setenv("GOGC", "150")
	_, restore = queryGC()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC with GOGC set by the user = %d, want it left at %d", got, before)
	}
	restore()
}
