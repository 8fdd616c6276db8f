// Command semble-reach rescores a semble run of ../shared/bench/eval.py
// (its --out JSON) without the queries whose gold labels cannot be
// reached: those the evaluator found no reachable target for (every
// target file is missing at the pinned revision or lies outside the
// benchmark root: n_reachable 0), and, with -leave-out, those whose every
// target is one of the named files (a label problem the benchmark lists,
// such as a gold file that is a shim at the pinned revision). It prints
// NDCG@10 as eval.py reports it (the mean over repositories of each
// repository's mean over its queries) with every query and with those
// left out, each repository's score, and the queries it left out and why:
//
//	go run ./scripts/semble-reach -in run.json -leave-out fmtlib:include/fmt/core.h
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
)

// query is the part of one eval.py query record this command reads.
type query struct {
	Repo       string   `json:"repo"`
	Query      string   `json:"query"`
	Targets    []string `json:"targets"`     // "path" or "path:start-end"
	NReachable int      `json:"n_reachable"` // targets eval.py could reach
	NDCG10     float64  `json:"ndcg10"`
}

// run is the part of eval.py's output this command reads.
type run struct {
	Queries []query `json:"queries"`
}

// leftOut is a query left out and why.
type leftOut struct {
	q   query
	why string
}

// score is a run's NDCG@10 with and without the left-out queries.
type score struct {
	all, reach    float64
	perRepoAll    map[string]float64
	perRepoReach  map[string]float64
	left          []leftOut
	queries, kept int
}

func main() {
	log.SetFlags(0)
	in := flag.String("in", "", "eval.py's --out JSON of a semble run")
	var files listFlag
	flag.Var(&files, "leave-out", "repo:path of a gold file whose queries are left out when it is their every target (repeatable)")
	flag.Parse()
	if *in == "" {
		log.Fatal("semble-reach: -in is required")
	}
	f, err := os.Open(*in)
	if err != nil {
		log.Fatalf("semble-reach: %v", err)
	}
	defer f.Close()
	s, err := rescore(f, files)
	if err != nil {
		log.Fatalf("semble-reach: %s: %v", *in, err)
	}
	fmt.Printf("NDCG@10 all %d queries %.4f; %d left out %.4f\n", s.queries, s.all, s.queries-s.kept, s.reach)
	repos := make([]string, 0, len(s.perRepoAll))
	for r := range s.perRepoAll {
		repos = append(repos, r)
	}
	slices.Sort(repos)
	for _, r := range repos {
		fmt.Printf("  %-10s %.3f  %.3f\n", r, s.perRepoAll[r], s.perRepoReach[r])
	}
	for _, l := range s.left {
		fmt.Printf("left out (%s): %s: %s\n", l.why, l.q.Repo, l.q.Query)
	}
}

// rescore reads an eval.py semble run from r and scores it with and
// without the queries that cannot be reached; leave lists "repo:path"
// gold files whose queries are left out when every target is one of them.
// Error: r is not such a run.
func rescore(r io.Reader, leave []string) (score, error) {
	var rn run
	if err := json.NewDecoder(r).Decode(&rn); err != nil {
		return score{}, err
	}
	if len(rn.Queries) == 0 {
		return score{}, fmt.Errorf("no queries (is it a semble run of eval.py?)")
	}
	all, reach := map[string][]float64{}, map[string][]float64{}
	s := score{queries: len(rn.Queries)}
	for _, q := range rn.Queries {
		all[q.Repo] = append(all[q.Repo], q.NDCG10)
		switch {
		case q.NReachable == 0:
			s.left = append(s.left, leftOut{q, "no target reachable at the pinned revision under the benchmark root"})
			continue
		case len(q.Targets) > 0 && !slices.ContainsFunc(q.Targets, func(t string) bool {
			return !slices.Contains(leave, q.Repo+":"+targetPath(t))
		}):
			s.left = append(s.left, leftOut{q, "every target is a -leave-out file"})
			continue
		}
		reach[q.Repo] = append(reach[q.Repo], q.NDCG10)
		s.kept++
	}
	s.all, s.perRepoAll = repoMean(all)
	s.reach, s.perRepoReach = repoMean(reach)
	return s, nil
}

// targetPath is a target's file: "path" of "path" or "path:start-end".
func targetPath(t string) string {
	if i := strings.LastIndexByte(t, ':'); i >= 0 && strings.ContainsAny(t[i+1:], "0123456789") {
		return t[:i]
	}
	return t
}

// repoMean returns the mean over repositories of each one's mean, and
// each repository's mean.
func repoMean(by map[string][]float64) (float64, map[string]float64) {
	per := map[string]float64{}
	total := 0.0
	for r, xs := range by {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		per[r] = sum / float64(len(xs))
		total += per[r]
	}
	if len(by) == 0 {
		return 0, per
	}
	return total / float64(len(by)), per
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
