package main

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// near compares means to 1e-12.
var near = cmpopts.EquateApprox(0, 1e-12)

func TestCrossValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    sweep
		want cvResult
		// survives and text are the verdict at margin 0.005.
		survives bool
		text     string
	}{
		{
			// In sample 0 wins (0.667 vs 0.6), but only because of c;
			// without a the folds pick 0, without c they tie 0.08 with
			// 0.16 and take the shipped 0.08. Held out, 0 is worse.
			name: "in-sample winner does not generalise",
			s: sweep{
				values: []float64{0, 0.08, 0.16}, shipped: 1,
				repos: []string{"a", "b", "c"}, weight: []float64{1, 1, 1},
				score: [][]float64{
					{0.5, 0.6, 0.9},
					{0.6, 0.6, 0.6},
					{0.7, 0.5, 0.6},
				},
			},
			want: cvResult{
				means:        []float64{2.0 / 3, 0.6, 0.6},
				best:         0,
				choice:       []int{0, 0, 1},
				heldOut:      (0.5 + 0.6 + 0.6) / 3,
				shippedFolds: 1,
			},
			survives: true,
			text:     "survives",
		},
		{
			name: "uniformly better value",
			s: sweep{
				values: []float64{0, 0.08}, shipped: 1,
				repos: []string{"a", "b", "c"}, weight: []float64{1, 1, 1},
				score: [][]float64{
					{0.8, 0.8, 0.8},
					{0.7, 0.7, 0.7},
				},
			},
			want: cvResult{
				means:   []float64{0.8, 0.7},
				best:    0,
				choice:  []int{0, 0, 0},
				heldOut: 0.8,
			},
			text: "does not survive (CV prefers 0)",
		},
		{
			// SWE-bench weights: repo a has 8 instances, b and c 1.
			// Unweighted 0.1 would win in sample (0.633 vs 0.6); weighted
			// the shipped 0.2 does (0.6 vs 0.4).
			name: "instance weights",
			s: sweep{
				values: []float64{0.1, 0.2}, shipped: 1,
				repos: []string{"a", "b", "c"}, weight: []float64{8, 1, 1},
				score: [][]float64{
					{0.3, 0.8, 0.8},
					{0.6, 0.6, 0.6},
				},
			},
			want: cvResult{
				means:        []float64{(8*0.3 + 0.8 + 0.8) / 10, 0.6},
				best:         1,
				choice:       []int{0, 1, 1},
				heldOut:      (8*0.3 + 0.6 + 0.6) / 10,
				shippedFolds: 2,
			},
			survives: true,
			text:     "survives",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := crossValidate(&tt.s)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(cvResult{}), near); diff != "" {
				t.Errorf("crossValidate (-want +got):\n%s", diff)
			}
			ok, text := verdict(&tt.s, got, 0.005)
			if ok != tt.survives || text != tt.text {
				t.Errorf("verdict = %v, %q; want %v, %q", ok, text, tt.survives, tt.text)
			}
		})
	}
}

func TestVerdictMargin(t *testing.T) {
	t.Parallel()
	// All three folds choose 0.2 (0 folds keep the shipped 0.1), and the
	// held-out gain is exactly the margin: still survives; a hair more
	// does not.
	s := sweep{
		values: []float64{0.1, 0.2}, shipped: 0,
		repos: []string{"a", "b", "c"}, weight: []float64{1, 1, 1},
		score: [][]float64{{0.5, 0.5, 0.5}, {0.505, 0.505, 0.505}},
	}
	res := crossValidate(&s)
	if res.shippedFolds != 0 || math.Abs(res.heldOut-0.505) > 1e-12 {
		t.Fatalf("crossValidate = %+v; want every fold on 0.2, held-out 0.505", res)
	}
	if ok, _ := verdict(&s, res, 0.005); !ok {
		t.Errorf("gain equal to the margin: does not survive, want survives")
	}
	if ok, text := verdict(&s, res, 0.004); ok || text != "does not survive (CV prefers 0.2)" {
		t.Errorf("gain 0.005 over margin 0.004: %v %q; want does not survive (CV prefers 0.2)", ok, text)
	}
}

func TestVerdictHalfFolds(t *testing.T) {
	t.Parallel()
	// The held-out mean gains 0.1 over the shipped value's, yet half the
	// folds (2 of 4) keep the shipped value: that is enough; 1 of 4 is
	// not.
	s := sweep{values: []float64{0.3, 0.5}, shipped: 1, repos: []string{"a", "b", "c", "d"}}
	res := cvResult{means: []float64{0.7, 0.55}, best: 0, choice: []int{1, 1, 0, 0}, heldOut: 0.65, shippedFolds: 2}
	if ok, text := verdict(&s, res, 0.005); !ok || text != "survives" {
		t.Errorf("2 of 4 folds: %v %q; want survives", ok, text)
	}
	res.choice, res.shippedFolds = []int{1, 0, 0, 0}, 1
	if ok, text := verdict(&s, res, 0.005); ok || text != "does not survive (CV prefers 0.3)" {
		t.Errorf("1 of 4 folds: %v %q; want does not survive (CV prefers 0.3)", ok, text)
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	values := []float64{0, 0.04, 0.08, 0.12, 0.16}
	tests := []struct {
		name    string
		means   []float64
		shipped int
		want    int
	}{
		{"single best", []float64{0.1, 0.2, 0.3, 0.25, 0.1}, 2, 2},
		{"best away from shipped", []float64{0.1, 0.2, 0.3, 0.35, 0.1}, 0, 3},
		{"tie goes to nearest shipped", []float64{0.3, 0.1, 0.1, 0.1, 0.3}, 3, 4},
		{"equidistant tie goes lower", []float64{0.1, 0.3, 0.1, 0.3, 0.1}, 2, 1},
		{"tie within eps", []float64{0.3 + 1e-12, 0.1, 0.1, 0.1, 0.3}, 4, 4},
		{"tie includes shipped", []float64{0.3, 0.3, 0.3, 0.1, 0.1}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := choose(tt.means, values, tt.shipped); got != tt.want {
				t.Errorf("choose(%v, shipped %d) = %d; want %d", tt.means, tt.shipped, got, tt.want)
			}
		})
	}
}

func TestPreferred(t *testing.T) {
	t.Parallel()
	// Folds choose 0, 0, 0.16, 0.16: a tie on count goes to the higher
	// in-sample mean, 0.16.
	s := sweep{values: []float64{0, 0.08, 0.16}, shipped: 1}
	res := cvResult{means: []float64{0.5, 0.6, 0.55}, choice: []int{0, 0, 2, 2}}
	if got := preferred(&s, res); got != 2 {
		t.Errorf("preferred = %d; want 2", got)
	}
}

func TestWeightedMean(t *testing.T) {
	t.Parallel()
	score, weight := []float64{0.2, 0.4, 1}, []float64{1, 3, 0}
	if got := weightedMean(score, weight, -1); math.Abs(got-0.35) > 1e-12 {
		t.Errorf("all: %v; want 0.35", got)
	}
	if got := weightedMean(score, weight, 1); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("without 1: %v; want 0.2", got)
	}
	if got := weightedMean(score, []float64{0, 1, 0}, 1); !math.IsNaN(got) {
		t.Errorf("no weight left: %v; want NaN", got)
	}
}

func TestParseGrid(t *testing.T) {
	t.Parallel()
	got, err := parseGrid(" Coherence=0.16,0,0.08,0.080 ; TestPenalty=0.3;")
	if err != nil {
		t.Fatal(err)
	}
	want := []gridEntry{
		{name: "Coherence", values: []float64{0, 0.08, 0.16}},
		{name: "TestPenalty", values: []float64{0.3}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(gridEntry{})); diff != "" {
		t.Errorf("parseGrid (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "Coherence", "Coherence=", "Coherence=x", "A=1;A=2"} {
		if _, err := parseGrid(bad); err == nil {
			t.Errorf("parseGrid(%q): no error", bad)
		}
	}
}

func TestReadFolds(t *testing.T) {
	t.Parallel()
	semble := `{"repos": [
		{"repo": "chi", "ndcg10": 0.75, "r1": 0.5, "errors": 0, "index": {"status": "ok", "ms": 3}},
		{"repo": "zod", "ndcg10": 0.5, "r1": 0.25, "errors": 0, "index": null}]}`
	got, err := readFolds([]byte(semble), "semble", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]fold{"chi": {0.5, 1}, "zod": {0.25, 1}}, got, cmp.AllowUnexported(fold{})); diff != "" {
		t.Errorf("semble (-want +got):\n%s", diff)
	}

	swe := `{"instances": [
		{"instance_id": "a-1", "repo": "o/a", "status": "ok", "mrr": 1, "acc@5": 1},
		{"instance_id": "a-2", "repo": "o/a", "status": "ok", "mrr": 0.25, "acc@5": 1},
		{"instance_id": "a-3", "repo": "o/a", "status": "no_checkout"},
		{"instance_id": "b-1", "repo": "o/b", "status": "ok", "mrr": 0, "acc@5": 0}]}`
	got, err = readFolds([]byte(swe), "swebench", "mrr")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]fold{"o/a": {0.625, 2}, "o/b": {0, 1}}, got, cmp.AllowUnexported(fold{})); diff != "" {
		t.Errorf("swebench (-want +got):\n%s", diff)
	}

	failed := `{"repos": [{"repo": "chi", "ndcg10": 0.1, "index": {"status": "exit 2", "ms": 3}}]}`
	if _, err := readFolds([]byte(failed), "semble", "ndcg10"); err == nil {
		t.Errorf("failed index: no error")
	}
}

func TestMetricKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ bench, metric, want string }{
		{"semble", "", "ndcg10"},
		{"semble", "r5", "r5"},
		{"swebench", "", "mrr"},
		{"swebench", "acc5", "acc@5"},
	} {
		if got, err := metricKey(tt.bench, tt.metric); err != nil || got != tt.want {
			t.Errorf("metricKey(%q, %q) = %q, %v; want %q", tt.bench, tt.metric, got, err, tt.want)
		}
	}
	for _, bad := range [][2]string{{"semble", "mrr"}, {"swebench", "ndcg10"}, {"other", ""}} {
		if _, err := metricKey(bad[0], bad[1]); err == nil {
			t.Errorf("metricKey(%q, %q): no error", bad[0], bad[1])
		}
	}
}
