package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScratchOverflow checks the accumulator past its dense range (chunk
// ids beyond maxDenseIDs in a long-lived index): ids there score, group
// and rank exactly like ids inside it.
func TestScratchOverflow(t *testing.T) {
	t.Parallel()
	sc := &scratch{score: make([]float64, 10), bits: make([]uint64, 10)}
	// Chunk 3 (dense) and 50 (overflow) hold terms 0 and 1; 7 and 90 only 0.
	for _, c := range []struct {
		id   int64
		s    float64
		term int
	}{{3, 1, 0}, {50, 1, 0}, {7, 2, 0}, {90, 2, 0}, {3, 0.5, 1}, {50, 0.5, 1}} {
		sc.add(c.id, c.s, c.term)
	}
	want := []Hit{{7, 2}, {90, 2}, {3, 1.5}, {50, 1.5}}
	if diff := cmp.Diff(want, sc.top(10, false)); diff != "" {
		t.Errorf("top (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:3], sc.top(3, false)); diff != "" {
		t.Errorf("top 3 (-want +got):\n%s", diff)
	}
	sc.keepGroups([]uint64{0b11})
	if diff := cmp.Diff([]Hit{{3, 1.5}, {50, 1.5}}, sc.top(10, true)); diff != "" {
		t.Errorf("top of group {0,1} (-want +got):\n%s", diff)
	}
	putScratch(sc)
	if sc.over != nil || len(sc.touched) != 0 || sc.score[3] != 0 || sc.bits[7] != 0 {
		t.Error("putScratch left state behind")
	}
}
