package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/eval"
	"github.com/ctx-dev/ctx/internal/mine"
	"github.com/ctx-dev/ctx/internal/search"
)

// EvalOptions configures [Engine.Eval]; the zero value takes the
// defaults.
type EvalOptions struct {
	// Queries caps the queries asked; 0 means [eval.DefaultQueries].
	Queries int
	// Seed picks them (0 means 1): the same code and seed ask the same
	// queries.
	Seed uint64
	// All asks queries of every file, not only of the files ctx train
	// holds out (which an adapted model was never trained on).
	All bool
	// KeepNames leaves the definition's own name in doc-comment queries.
	KeepNames bool
	// Details keeps every query's answers in the report.
	Details bool
	// Phase receives the phases of the index run when the root has no
	// index yet (see [IndexOptions]).
	Phase func(Phase)
	// Progress, when set, is told when mining starts (step "mining",
	// done and total 0) and after each query of each system (step the
	// system's name).
	Progress func(step string, done, total int)
}

// ErrNoEvalQueries is returned by [Engine.Eval] when the repository
// gives no queries: no documented or named definitions in the files it
// may ask about.
var ErrNoEvalQueries = errors.New("no queries to evaluate with")

// evalSystem is one way [Engine.Eval] searches.
type evalSystem struct {
	name, description string
	channels          []string // nil: every channel
}

var evalSystems = []evalSystem{
	{"default", "ctx find as it answers by default: every channel (BM25, symbols, paths, the embedding model) fused and ranked", nil},
	{"lexical", "ctx find --channels lexical: the same ranking without the embedding model", search.LexicalChannels},
	{"dense", "ctx find --channels dense: the embedding model alone, through the same ranking", []string{"dense"}},
}

// grepDescription says what the baseline does ([eval.Grep]).
const grepDescription = "what an agent without ctx does: grep -c -i -F -e WORD … over every indexed file for the query's words (stop words and 1-letter words left out), files ranked by their count of matching lines"

// Eval measures retrieval on this repository with queries made from its
// own code ([eval.Select] over the pairs ctx train mines, from the files
// it holds out unless opts.All), asked of ctx find by default, with the
// lexical channels alone, with the dense channel alone (when there is an
// embedding model), and of a grep baseline ([eval.Grep]); each query is
// scored on the first 10 distinct files of its first 10 results. The
// index is built first when the root has none. The LLM and the reranker
// are not used. Errors: [ErrNoEvalQueries]; [ErrNotIndexed] while another
// run builds the first index; a search that fails or is degraded (the
// embedding provider failing), the index run's errors, ctx's
// cancellation.
func (e *Engine) Eval(ctx context.Context, opts EvalOptions) (*eval.Report, error) {
	start := time.Now()
	// A first search builds a missing index (as ctx find does), loads what
	// searches share and says which generation answers.
	warm, err := e.Find(ctx, FindRequest{Query: "main", Limit: 1, AutoIndex: true, Phase: opts.Phase, Decompose: DecomposeOff, NoRerank: true})
	if err != nil {
		return nil, err
	}
	if warm.Stats.IndexState == "partial" {
		return nil, fmt.Errorf("%w: the first index of %s is still being built (%s); run ctx eval once it is done", ErrNotIndexed, e.root, warm.Stats.Progress)
	}
	if opts.Progress != nil {
		opts.Progress("mining", 0, 0)
	}
	t := time.Now()
	files, code, per, err := e.mineRepo(ctx)
	if err != nil {
		return nil, fmt.Errorf("mining queries: %w", err)
	}
	var pairs []mine.Pair
	for _, ps := range per {
		for i := range ps {
			ps[i].Code = "" // queries need only where the code is
		}
		pairs = append(pairs, ps...)
	}
	per = nil
	e.log.Debug("eval: mined", "files", len(code), "pairs", len(pairs), "ms", time.Since(t).Milliseconds())
	sel := eval.SelectOptions{N: opts.Queries, Seed: cmp.Or(opts.Seed, 1), KeepNames: opts.KeepNames}
	split := "all"
	if !opts.All {
		split, sel.Eligible = "heldout", heldOutFile
	}
	qs, pool := eval.Select(pairs, sel)
	if len(qs) == 0 {
		where := "its held-out files (every 10th file); pass --all to ask of every file"
		if opts.All {
			where = "its files"
		}
		return nil, fmt.Errorf("%w: %s has %d pairs of documented or named definitions in %s", ErrNoEvalQueries, e.root, pool.Eligible, where)
	}
	rep := &eval.Report{
		Repository: e.root, IndexGeneration: warm.Stats.IndexGeneration, Model: e.Identity().Model,
		Split: split, Seed: sel.Seed, KeepNames: opts.KeepNames, Queries: len(qs), ByKind: map[string]int{}, Pool: pool,
	}
	for _, q := range qs {
		rep.ByKind[q.Kind]++
	}
	var details []eval.Detail
	if opts.Details {
		details = make([]eval.Detail, len(qs))
		for i, q := range qs {
			details[i] = eval.Detail{Query: q, Answers: map[string]eval.Answer{}}
		}
	}
	for _, sys := range evalSystems {
		if sys.name == "dense" && !e.Semantic() {
			continue // lexical-only: there is no dense channel to measure
		}
		t := time.Now()
		run, err := e.evalRun(ctx, sys, qs, opts.Progress)
		if err != nil {
			return nil, fmt.Errorf("evaluating %s: %w", sys.name, err)
		}
		e.log.Debug("eval: asked", "system", sys.name, "queries", len(qs), "ms", time.Since(t).Milliseconds())
		rep.Systems = append(rep.Systems, eval.Summarize(qs, run, details))
	}
	t = time.Now()
	run, nFiles, err := e.evalGrep(ctx, files, qs, opts.Progress)
	if err != nil {
		return nil, err
	}
	e.log.Debug("eval: asked", "system", "grep", "queries", len(qs), "ms", time.Since(t).Milliseconds())
	rep.Files = nFiles
	rep.Systems = append(rep.Systems, eval.Summarize(qs, run, details))
	rep.Details = details
	rep.DurationMS = float64(time.Since(start).Milliseconds())
	return rep, nil
}

// evalRun asks qs of ctx find restricted to sys's channels, one at a
// time, after one unscored query that loads what the channels read.
func (e *Engine) evalRun(ctx context.Context, sys evalSystem, qs []eval.Query, progress func(string, int, int)) (eval.Run, error) {
	run := eval.Run{Name: sys.name, Description: sys.description, Ranked: make([][]string, len(qs)), MS: make([]float64, len(qs))}
	req := FindRequest{Limit: eval.Cutoff, Channels: sys.channels, Decompose: DecomposeOff, NoRerank: true}
	req.Query = "main"
	if _, err := e.Find(ctx, req); err != nil {
		return run, err
	}
	for i, q := range qs {
		req.Query = q.Text
		t := time.Now()
		resp, err := e.Find(ctx, req)
		if err != nil {
			return run, err
		}
		if resp.Stats.Degraded != "" {
			// The scores would not be the system's own.
			return run, fmt.Errorf("the search was degraded (%s)", resp.Stats.Degraded)
		}
		run.MS[i] = float64(time.Since(t).Microseconds()) / 1000
		for _, h := range resp.Results {
			run.Ranked[i] = append(run.Ranked[i], h.Path)
		}
		if progress != nil {
			progress(sys.name, i+1, len(qs))
		}
	}
	return run, nil
}

// evalGrep asks qs of the grep baseline over files, and returns how many
// files it searched.
func (e *Engine) evalGrep(ctx context.Context, files []discover.File, qs []eval.Query, progress func(string, int, int)) (eval.Run, int, error) {
	run := eval.Run{Name: "grep", Description: grepDescription, Ranked: make([][]string, len(qs)), MS: make([]float64, len(qs))}
	t := time.Now()
	g, err := eval.NewGrep(ctx, files)
	if err != nil {
		return run, 0, err
	}
	e.log.Debug("eval: grep read the files", "files", g.Files(), "ms", time.Since(t).Milliseconds())
	for i, q := range qs {
		if err := ctx.Err(); err != nil {
			return run, 0, err
		}
		t := time.Now()
		run.Ranked[i] = g.Search(q.Text, eval.Cutoff)
		run.MS[i] = float64(time.Since(t).Microseconds()) / 1000
		if progress != nil {
			progress("grep", i+1, len(qs))
		}
	}
	return run, g.Files(), nil
}
