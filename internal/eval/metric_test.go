package eval

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestScore checks the metrics against values worked out by hand.
func TestScore(t *testing.T) {
	t.Parallel()
	log3 := math.Log2(3)
	tests := []struct {
		name     string
		ranked   []string
		relevant []string
		want     Metrics
	}{
		{"first", []string{"a", "b"}, []string{"a"}, Metrics{Recall1: 1, Recall5: 1, Recall10: 1, MRR: 1, NDCG10: 1, N: 1}},
		// Repeats count once: the distinct files are a, b, c, d; c is 3rd.
		{"third after repeats", []string{"a", "b", "a", "c", "d"}, []string{"c"},
			Metrics{Recall1: 0, Recall5: 1, Recall10: 1, MRR: 1.0 / 3, NDCG10: 0.5, N: 1}},
		{"sixth", []string{"a", "b", "c", "d", "e", "f"}, []string{"f"},
			Metrics{Recall10: 1, MRR: 1.0 / 6, NDCG10: 1 / math.Log2(7), N: 1}},
		// Two relevant files, one found first: DCG 1, ideal 1 + 1/log2(3).
		{"one of two", []string{"b", "a"}, []string{"b", "x"},
			Metrics{Recall1: 0.5, Recall5: 0.5, Recall10: 0.5, MRR: 1, NDCG10: 1 / (1 + 1/log3), N: 1}},
		// Both found, at 1 and 3: DCG 1 + 1/2.
		{"two of two", []string{"a", "b", "c"}, []string{"a", "c"},
			Metrics{Recall1: 0.5, Recall5: 1, Recall10: 1, MRR: 1, NDCG10: 1.5 / (1 + 1/log3), N: 1}},
		// The 11th distinct file is past the cutoff.
		{"eleventh", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}, []string{"k"}, Metrics{N: 1}},
		{"no answer", nil, []string{"a"}, Metrics{N: 1}},
		{"no relevant", []string{"a"}, nil, Metrics{N: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Score(tt.ranked, tt.relevant)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
				t.Errorf("Score(%q, %q) (-want +got):\n%s", tt.ranked, tt.relevant, d)
			}
		})
	}
}

func TestMean(t *testing.T) {
	t.Parallel()
	got := Mean([]Metrics{{Recall1: 1, MRR: 1, NDCG10: 1, N: 1}, {Recall1: 0, MRR: 0.5, NDCG10: 0.25, N: 3}})
	want := Metrics{Recall1: 0.25, MRR: (1 + 1.5) / 4, NDCG10: (1 + 0.75) / 4, N: 4}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("Mean (-want +got):\n%s", d)
	}
	if got := Mean(nil); got != (Metrics{}) {
		t.Errorf("Mean(nil) = %+v, want zero", got)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{5, 1, 3, 2, 4}, 50, 3},
		{[]float64{5, 1, 3, 2, 4}, 95, 5},
		{[]float64{1, 2, 3, 4}, 50, 2},
		{[]float64{1, 2, 3, 4}, 100, 4},
		{[]float64{7}, 95, 7},
		{nil, 50, 0},
	}
	for _, tt := range tests {
		if got := Percentile(tt.xs, tt.p); got != tt.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
}

func TestFilesAndRank(t *testing.T) {
	t.Parallel()
	ranked := []string{"a", "a", "b", "c", "b", "d", "e", "f", "g", "h", "i", "j", "k"}
	want := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	if d := cmp.Diff(want, Files(ranked)); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	if r := Rank(ranked, "c"); r != 3 {
		t.Errorf("Rank(c) = %d, want 3", r)
	}
	if r := Rank(ranked, "k"); r != 0 {
		t.Errorf("Rank(k) = %d, want 0 (past the first 10 files)", r)
	}
}
