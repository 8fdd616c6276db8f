package main

import (
	"math"
	"strings"
	"testing"
)

// TestRescore: a query with no reachable target and one whose every
// target is a -leave-out file are left out, a query with one such target
// among others is kept, and both scores are means over repositories.
func TestRescore(t *testing.T) {
	const in = `{"queries": [
  {"repo": "a", "query": "q1", "targets": ["x.go"], "n_reachable": 1, "ndcg10": 1.0},
  {"repo": "a", "query": "gone", "targets": ["missing.go"], "n_reachable": 0, "ndcg10": 0.0},
  {"repo": "b", "query": "shim", "targets": ["inc/core.h:10-20"], "n_reachable": 1, "ndcg10": 0.0},
  {"repo": "b", "query": "mixed", "targets": ["inc/core.h", "inc/base.h"], "n_reachable": 2, "ndcg10": 0.5},
  {"repo": "b", "query": "other", "targets": ["inc/base.h"], "n_reachable": 1, "ndcg10": 1.0}
]}`
	s, err := rescore(strings.NewReader(in), []string{"b:inc/core.h"})
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// All: a (1+0)/2 = 0.5, b (0+0.5+1)/3 = 0.5 -> 0.5. Left out "gone"
	// and "shim": a 1, b 0.75 -> 0.875.
	if !near(s.all, 0.5) || !near(s.reach, 0.875) {
		t.Errorf("all %.4f, reachable %.4f; want 0.5000 and 0.8750", s.all, s.reach)
	}
	if s.queries != 5 || s.kept != 3 || len(s.left) != 2 || s.left[0].q.Query != "gone" || s.left[1].q.Query != "shim" {
		t.Errorf("queries %d, kept %d, left out %+v; want 5, 3 and [gone shim]", s.queries, s.kept, s.left)
	}
	if !near(s.perRepoReach["b"], 0.75) || !near(s.perRepoAll["b"], 0.5) {
		t.Errorf("repository b: all %.4f, reachable %.4f; want 0.5 and 0.75", s.perRepoAll["b"], s.perRepoReach["b"])
	}
	if _, err := rescore(strings.NewReader(`{"instances": []}`), nil); err == nil {
		t.Error("a run without queries: no error")
	}
}
