package embed_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestDimsChecker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		set      int
		assume   int    // passed to Assume after Set
		lens     []int  // lengths of the vectors checked, in order
		wantErr  string // error of the last check; "" means all pass
		wantDims int
	}{
		{name: "zero value learns", lens: []int{3, 3}, wantDims: 3},
		{name: "learned length enforced", lens: []int{3, 4}, wantErr: "got 4, want 3", wantDims: 3},
		{name: "set length enforced", set: 8, lens: []int{4}, wantErr: "got 4, want 8", wantDims: 8},
		{name: "set length accepted", set: 2, lens: []int{2}, wantDims: 2},
		{name: "empty vector", lens: []int{0}, wantErr: "empty vector", wantDims: 0},
		{name: "empty vector teaches nothing", lens: []int{0, 5}, wantDims: 5},
		{name: "assumed length enforced", assume: 6, lens: []int{5}, wantErr: "got 5, want 6", wantDims: 6},
		{name: "assumed length accepted", assume: 6, lens: []int{6}, wantDims: 6},
		{name: "assume leaves a set length", set: 8, assume: 6, lens: []int{8}, wantDims: 8},
		{name: "assume zero teaches nothing", assume: 0, lens: []int{7}, wantDims: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var d embed.DimsChecker
			d.Set(tc.set)
			d.Assume(tc.assume)
			var err error
			for _, n := range tc.lens {
				err = d.Check(make([]float32, n))
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Check: %v", err)
				}
			} else if !errors.Is(err, embed.ErrDimension) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Check error = %v, want ErrDimension with %q", err, tc.wantErr)
			}
			if got := d.Dims(); got != tc.wantDims {
				t.Errorf("Dims() = %d, want %d", got, tc.wantDims)
			}
		})
	}
}

// TestDimsCheckerConcurrent checks that of concurrent first vectors of
// two lengths, those of one length pass and the others fail.
func TestDimsCheckerConcurrent(t *testing.T) {
	t.Parallel()
	var d embed.DimsChecker
	const n = 32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = d.Check(make([]float32, 4+i%2)) })
	}
	wg.Wait()
	won := d.Dims()
	if won != 4 && won != 5 {
		t.Fatalf("Dims() = %d, want 4 or 5", won)
	}
	for i, err := range errs {
		if pass := 4+i%2 == won; pass != (err == nil) {
			t.Errorf("vector %d of length %d: Check = %v with Dims() = %d", i, 4+i%2, err, won)
		}
	}
}
