package search

import (
	"strings"
	"testing"
)

// TestSetTuning checks that an override changes exactly the named
// constants and that a bad spec changes none.
func TestSetTuning(t *testing.T) {
	saved := tune
	t.Cleanup(func() { tune = saved })
	if err := SetTuning("Coherence=0.2, TestPenalty=0.5"); err != nil {
		t.Fatal(err)
	}
	if tune.Coherence != 0.2 || tune.TestPenalty != 0.5 || tune.DefBoost != saved.DefBoost {
		t.Errorf("after override: Coherence %v TestPenalty %v DefBoost %v", tune.Coherence, tune.TestPenalty, tune.DefBoost)
	}
	for _, bad := range []string{"Nope=1", "Coherence", "Coherence=x"} {
		before := tune
		err := SetTuning("DefBoost=9," + bad)
		if err == nil || !strings.Contains(err.Error(), TuneEnv) {
			t.Errorf("SetTuning(%q) = %v, want an error naming %s", bad, err, TuneEnv)
		}
		if tune != before {
			t.Errorf("SetTuning(%q) changed constants despite its error", bad)
		}
	}
	if names := TuningNames(); len(names) < 10 || names[0] != "DefBoost" {
		t.Errorf("TuningNames() = %v", names)
	}
	if got := Tuning(); len(got) != len(TuningNames()) || got["Coherence"] != 0.2 || got["DefBoost"] != saved.DefBoost {
		t.Errorf("Tuning() = %v, want every constant with Coherence 0.2 and DefBoost %v", got, saved.DefBoost)
	}
}
