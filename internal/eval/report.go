package eval

import "math"

// Report is one `ctx eval` run: what was asked, of which index, and how
// each system did. Its JSON is what `ctx eval --json` prints.
type Report struct {
	// Repository is the root searched (an absolute path).
	Repository string `json:"repository"`
	// IndexGeneration is the index generation that answered, Model the
	// embedding model identity ("none" when lexical-only).
	IndexGeneration int64  `json:"index_generation"`
	Model           string `json:"model"`
	// Split says where the queries come from: "heldout" (the files ctx
	// train holds out: every 10th file by a hash of its path) or "all".
	Split string `json:"split"`
	Seed  uint64 `json:"seed"`
	// KeepNames is set when doc queries kept the definition's own name.
	KeepNames bool `json:"keep_names"`
	// Queries is how many were asked, ByKind how many of each kind.
	Queries int            `json:"queries"`
	ByKind  map[string]int `json:"queries_by_kind"`
	Pool    Pool           `json:"pool"`
	// Files is how many files the grep baseline searched.
	Files   int      `json:"files"`
	Systems []System `json:"systems"`
	// Details holds every query's answers, when asked for.
	Details []Detail `json:"details,omitempty"`
	// DurationMS is the whole run's wall time in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// System is one way of searching and how it scored.
type System struct {
	// Name is "default", "lexical", "dense" or "grep"; Description says
	// what it runs.
	Name        string `json:"name"`
	Description string `json:"description"`
	Metrics
	// LatencyP50MS and LatencyP95MS are percentiles of the time to
	// answer one query, in milliseconds.
	LatencyP50MS float64 `json:"latency_p50_ms"`
	LatencyP95MS float64 `json:"latency_p95_ms"`
	// ByKind holds the metrics over each query kind's queries.
	ByKind map[string]Metrics `json:"by_kind"`
}

// Detail is one query and each system's answer to it.
type Detail struct {
	Query
	Answers map[string]Answer `json:"answers"`
}

// Answer is one system's answer to one query.
type Answer struct {
	// Rank is the 1-based rank of the query's file among the answer's
	// first 10 distinct files, 0 when it is not there.
	Rank int `json:"rank"`
	// Files are those files, best first.
	Files []string `json:"files"`
	MS    float64  `json:"ms"`
}

// Run is what one system did for every query, in query order.
type Run struct {
	Name, Description string
	// Ranked holds each query's result paths, best first (repeats allowed).
	Ranked [][]string
	// MS holds each query's time to answer, in milliseconds.
	MS []float64
}

// Summarize scores run against qs (run.Ranked[i] answers qs[i]) into a
// [System], and adds each answer to details (indexed like qs) when it
// is not nil.
func Summarize(qs []Query, run Run, details []Detail) System {
	sys := System{Name: run.Name, Description: run.Description, ByKind: map[string]Metrics{}}
	all := make([]Metrics, len(qs))
	kinds := map[string][]Metrics{}
	for i, q := range qs {
		m := Score(run.Ranked[i], []string{q.Path})
		all[i] = m
		kinds[q.Kind] = append(kinds[q.Kind], m)
		if details != nil {
			details[i].Answers[run.Name] = Answer{Rank: Rank(run.Ranked[i], q.Path), Files: Files(run.Ranked[i]), MS: round(run.MS[i], 2)}
		}
	}
	sys.Metrics = Mean(all)
	for k, ms := range kinds {
		sys.ByKind[k] = Mean(ms)
	}
	sys.LatencyP50MS = round(Percentile(run.MS, 50), 2)
	sys.LatencyP95MS = round(Percentile(run.MS, 95), 2)
	return sys
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
