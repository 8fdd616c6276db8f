package mcpserver

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrebuild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		costs   []int
		room    int
		atLeast int // segments a page needs built: up to the first that does not fit
	}{
		{"none", nil, 100, 0},
		{"all fit", []int{10, 10, 10}, 100, 3},
		{"second overflows", []int{10, 200, 10, 10}, 100, 2},
		{"first alone overflows", []int{500, 10, 10}, 100, 1},
		{"exactly full", []int{50, 50, 1, 1}, 100, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			calls := map[int]int{}
			built := prebuild(len(tc.costs), tc.room, func(i int) int {
				mu.Lock()
				calls[i]++
				mu.Unlock()
				return tc.costs[i]
			})
			if built < tc.atLeast || built > min(tc.atLeast+prebuildWorkers, len(tc.costs)) {
				t.Errorf("built %d segments, want %d to %d", built, tc.atLeast, min(tc.atLeast+prebuildWorkers, len(tc.costs)))
			}
			want := map[int]int{}
			for i := range built {
				want[i] = 1
			}
			if diff := cmp.Diff(want, calls); diff != "" {
				t.Errorf("build calls by segment (-want +got):\n%s", diff)
			}
		})
	}
}
