package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/workspace"
)

// Member is one repository of a workspace search: the name its results
// carry as "repo" and the engine of its root. Each member keeps its own
// index, freshness and (in a server) watcher.
type Member struct {
	Name   string
	Engine *Engine
	// Names are what a question may call the member by, lower case
	// (workspace.Identity: "phoenix" for a root at …/phoenix/lib); a
	// query that writes one weighs the member up ([namedBoost]). Nil:
	// none.
	Names []string
	// Packages are what the member publishes (workspace.Packages), for
	// imports across members ([DepsAcross]); nil: read when needed.
	Packages []workspace.Package
}

// MemberStats is one member's part of a workspace answer (the
// "members" array of the stats).
type MemberStats struct {
	Repo            string `json:"repo"`
	Root            string `json:"root"`
	Results         int    `json:"results"`
	IndexGeneration int64  `json:"index_generation,omitempty"`
	Fresh           bool   `json:"fresh"`
	// Relevance is how strongly the member's index holds the query
	// (0..1, the best member 1): see [FindAcross].
	Relevance float64 `json:"relevance"`
	// Named is set when the query calls the member by one of its names
	// ([Member].Names), which doubles its relevance before scaling.
	Named bool `json:"named,omitempty"`
	// Confidence is the member's own answer's grade (see [Confidence]).
	Confidence Confidence `json:"confidence,omitempty"`
	// Error is why the member did not answer (not indexed, indexed by
	// another model, …), with the fix; the others still answer.
	Error string `json:"error,omitempty"`
}

// densitySaturation is k in a member's term evidence d/(d + k·D): d the
// share of the member's chunks that hold the term, D the share over the
// whole workspace. Chosen on the semble DEV repositories as one workspace
// (12 members; routing the query to its own repository by argmax of the
// evidence): k 0.25, 0.5, 1, 2 routed 85%, 87%, 87%, 88% of the queries;
// a plain "the vocabulary holds the term" test 81%, raw per-member BM25
// scores 41%. Measured again with the first result's cosine and the
// rel/√r merge ([mergeRankDecay]): k 0.25, 0.5, 1, 2, 4 route 86%, 87%,
// 89%, 90%, 88% and score NDCG@10 0.747, 0.755, 0.766, 0.773, 0.772.
const densitySaturation = 2

// FindAcross answers req from every member of a workspace and merges the
// answers into one ranking whose results each carry Repo.
//
// Each member searches its own index with its own statistics (its BM25
// IDF, its vectors), concurrently, two at a time. Raw scores of two
// indexes are not comparable (BM25 depends on each index's statistics,
// fusion on ranks only), so the merge keeps each member's order and puts
// its r-th found result (1-based) at
//
//	rel(repo) / √r
//
// where rel is the member's evidence for the query relative to the best
// member's: for each query term, its query weight times its IDF over the
// whole workspace (a term common in one member and rare elsewhere counts
// as the workspace sees it, not as that member does) times d/(d + k·D),
// how much denser the term is in the member (d, the share of its chunks
// holding it) than in the workspace (D), saturated (k is
// densitySaturation); summed, then multiplied by the cosine similarity to
// the query of the member's first result (one embedding model for every
// member, so comparable) and by that result's ranking score (how much
// the member's channels agree on it; see [firstScore]). The best member's
// results thus take ranks 1, 2, 3, …, and a member at rel 0.7 places its
// first result after the best member's second (0.7 > 1/√3 ≈ 0.58 but
// < 1/√2). A query that does not
// say which repository it is about ("request helpers and header access"
// in a workspace of three web frameworks) is answered from all of them,
// interleaved by that evidence. The first result's cosine (rather than
// the mean of the top three) and the 1/√r decay (rather than each
// member's score over its best) are measured in [mergeRankDecay].
//
// A member that cannot answer (not indexed, another model) is reported in
// Stats.Members with its fix and the others answer; when none can, the
// first member's error comes back. Stats.Fresh is true only when every
// answering member's is.
func FindAcross(ctx context.Context, members []Member, req FindRequest) (*FindResponse, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("the workspace has no repositories; add one with `ctx workspace add NAME PATH`")
	}
	start := time.Now()
	// One deadline bounds the whole workspace search (each member's Find
	// takes it from ctx), not one per member.
	ctx, cancel, _ := members[0].Engine.requestDeadline(ctx)
	defer cancel()
	limit := cmp.Or(req.Limit, 10)
	resps := make([]*FindResponse, len(members))
	errs := make([]error, len(members))
	stats := make([]termStats, len(members))
	q := analyze.Analyze(req.Query)
	terms := q.TopTerms(maxEvidenceTerms)
	words := make([]string, len(terms))
	for i, t := range terms {
		words[i] = t.Text
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i, m := range members {
		g.Go(func() error {
			r, err := m.Engine.Find(gctx, req)
			if err != nil {
				if gctx.Err() != nil {
					return err
				}
				errs[i] = err
				return nil
			}
			resps[i] = r
			stats[i], err = m.Engine.termStats(gctx, words)
			if err != nil && gctx.Err() != nil {
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	out := &FindResponse{Query: req.Query, Results: []Hit{}}
	out.Stats.Fresh = true
	answered := false
	named := namedMembers(req.Query, members)
	rel := memberRelevance(terms, stats, resps, named)
	type ranked struct {
		h     Hit
		score float64
		m     int
	}
	var all []ranked
	for i, m := range members {
		ms := MemberStats{Repo: m.Name, Root: m.Engine.Root(), Named: named[i]}
		if errs[i] != nil {
			ms.Error = errs[i].Error()
			out.Stats.Members = append(out.Stats.Members, ms)
			continue
		}
		answered = true
		r := resps[i]
		ms.Results, ms.IndexGeneration, ms.Fresh, ms.Relevance, ms.Confidence = len(r.Results), r.Stats.IndexGeneration, r.Stats.Fresh, round(rel[i]), r.Confidence
		out.Stats.Members = append(out.Stats.Members, ms)
		out.Stats.FilesConsidered += r.Stats.FilesConsidered
		out.Stats.QueryKind = cmp.Or(out.Stats.QueryKind, r.Stats.QueryKind)
		if out.Understood == nil {
			// Each member analysed the same query; the first answer's
			// term weights are its index's.
			out.Understood = r.Understood
		}
		if !r.Stats.Fresh {
			out.Stats.Fresh = false
			if r.Stats.Stale != "" {
				out.Stats.Stale = joinNote(out.Stats.Stale, m.Name+": "+r.Stats.Stale)
			}
		}
		if r.Stats.Degraded != "" {
			out.Stats.Degraded = joinNote(out.Stats.Degraded, m.Name+": "+r.Stats.Degraded)
		}
		if r.Stats.Partial {
			out.Stats.markPartial(m.Name + ": " + r.Stats.PartialReason)
		}
		out.Stats.QueryTruncated = out.Stats.QueryTruncated || r.Stats.QueryTruncated
		out.Stats.QueryBytes = max(out.Stats.QueryBytes, r.Stats.QueryBytes)
		out.Stats.QuerySearchedBytes = max(out.Stats.QuerySearchedBytes, r.Stats.QuerySearchedBytes)
		w, rank := rel[i], 0
		for _, h := range r.Results {
			h.Repo = m.Name
			if h.Context == "" {
				rank++
			}
			// A context piece takes its result's score, so it sorts
			// right after it.
			all = append(all, ranked{h, mergedScore(w, max(rank, 1)), i})
		}
	}
	if !answered {
		return nil, errs[0]
	}
	// Found results first by merged score; context pieces stay after the
	// result they were added for.
	slices.SortStableFunc(all, func(a, b ranked) int {
		return cmp.Compare(b.score, a.score)
	})
	n := 0
	for _, r := range all {
		if r.h.Context != "" {
			continue
		}
		if n == limit {
			break
		}
		n++
		r.h.Score = round(r.score)
		out.Results = append(out.Results, r.h)
	}
	for _, r := range all {
		if r.h.Context != "" && slices.ContainsFunc(out.Results, func(h Hit) bool { return h.Repo == r.h.Repo && h.Context == "" }) {
			out.Results = append(out.Results, r.h)
		}
	}
	// The answer is as sure as the member its first result comes from.
	out.Confidence = ConfidenceLow
	for _, r := range all {
		if r.h.Context == "" {
			out.Confidence, out.Stats.Basis = resps[r.m].Confidence, resps[r.m].Stats.Basis
			break
		}
	}
	out.Stats.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}

// maxEvidenceTerms caps the query terms a workspace search weighs when it
// compares members (the heaviest by query weight).
const maxEvidenceTerms = 64

// termStats is one member's vocabulary statistics for a query: its chunk
// count and the document frequency of each query term.
type termStats struct {
	chunks int
	df     map[string]int
}

// termStats reads the chunk count and the query terms' document
// frequencies from the current index.
func (e *Engine) termStats(ctx context.Context, terms []string) (termStats, error) {
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return termStats{}, err
	}
	defer release()
	df, err := v.db.DocFreqs(ctx, terms)
	if err != nil {
		return termStats{}, err
	}
	return termStats{chunks: v.total, df: df}, nil
}

// namedBoost multiplies the evidence of a member the query calls by name
// ("how Phoenix logs request and response lifecycle events",
// "Sinatra::Application"). 29 of the 225 semble DEV questions name their
// repository; in the workspace of the 12 repositories, simulated from
// each member's own answers to every question, a factor of 1.5 scored
// NDCG@10 0.7761, 2 and anything above 0.7786, against 0.7732 without:
// 2 is the least that sends each of them to the member it names.
const namedBoost = 2

// namedMembers reports, for each member, whether the query writes one of
// its Names as a word (any case), a kebab-case one ("express-session")
// whole.
func namedMembers(query string, members []Member) []bool {
	words := map[string]bool{}
	analyze.Words(query, func(w string, _ int) { words[strings.ToLower(w)] = true })
	for w := range strings.FieldsFuncSeq(strings.ToLower(query), func(r rune) bool {
		return r != '-' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		words[strings.Trim(w, "-")] = true
	}
	out := make([]bool, len(members))
	for i, m := range members {
		for _, n := range m.Names {
			if words[n] {
				out[i] = true
				break
			}
		}
	}
	return out
}

// memberRelevance returns each member's evidence for the query relative
// to the best member's (see [FindAcross]), that of a member the query
// names (named[i]) multiplied by [namedBoost]; 0 for a member that did
// not answer, 1 for every answering one when none holds any query term.
func memberRelevance(terms []analyze.Term, stats []termStats, resps []*FindResponse, named []bool) []float64 {
	n, df := 0, map[string]int{}
	for i, s := range stats {
		if resps[i] == nil {
			continue
		}
		n += s.chunks
		for t, c := range s.df {
			df[t] += c
		}
	}
	out := make([]float64, len(resps))
	best := 0.0
	for i, r := range resps {
		if r == nil || stats[i].chunks == 0 {
			continue
		}
		ev := 0.0
		for _, t := range terms {
			all := float64(df[t.Text])
			if all == 0 {
				continue // in no member: tells none apart
			}
			idf := math.Log(1 + (float64(n)-all+0.5)/(all+0.5))
			d := float64(stats[i].df[t.Text]) / float64(stats[i].chunks)
			ev += t.Weight * idf * d / (d + densitySaturation*all/float64(n))
		}
		out[i] = ev * firstCosine(r.Results) * firstScore(r.Results)
		if named[i] {
			out[i] *= namedBoost
		}
		best = max(best, out[i])
	}
	for i := range out {
		switch {
		case resps[i] == nil:
		case best > 0:
			out[i] /= best
		default:
			out[i] = 1
		}
	}
	return out
}

// firstScore returns the ranking score of the first found result (0 when
// there is none, clamped at 0). Scores of two indexes are not comparable
// as such, but a fused score is high where the member's channels agree on
// its first result, whatever the index: weighing each member's evidence
// by it lifted the semble DEV workspace (12 members, 225 queries, other
// members' results counted as misses) from NDCG@10 0.773 to 0.785, and
// chosen by leave-one-repository-out among the score to the power 0, 0.5,
// 1, 1.5, 2 and 3 (each with rank decays 0.5, 0.75 and 1, and with and
// without the cosine), the power 1 with this decay and the cosine won 11
// of the 12 folds: held-out mean 0.783.
func firstScore(hits []Hit) float64 {
	for _, h := range hits {
		if h.Context == "" {
			return max(h.Score, 0)
		}
	}
	return 0
}

// firstCosine returns the cosine similarity to the query of the first
// found result that has one (its "dense-rerank" channel, clamped at 0),
// or 1 when none has one (a lexical-only index: coverage alone then
// weighs the member).
func firstCosine(hits []Hit) float64 {
	for _, h := range hits {
		if h.Context != "" {
			continue
		}
		if c, ok := h.Channels["dense-rerank"]; ok {
			return max(c.Score, 0)
		}
	}
	return 1
}

// mergeRankDecay is the exponent of a member's rank in a workspace
// merge: its r-th result scores rel · r^-mergeRankDecay (see
// [FindAcross]). Chosen with the member evidence's cosine on the semble
// DEV repositories as one workspace (12 members, 225 queries, each asked
// of the whole workspace, other members' results counted as misses),
// leave-one-repository-out: the form picked on 11 repositories, scored on
// the 12th. Among each member's score over its best (the previous merge),
// rel^p/(1 + λ(r-1)) for p 1, 2 and λ 0.3, 1, each with the member's
// cosine taken as its first result's, the mean of its top three or their
// maximum, rel²/r (the same order as this decay) with the first result's
// cosine was chosen in 11 of the 12 folds; held-out
// NDCG@10 0.769 (all 12: 0.773, the queries' own repository first by
// relevance for 89.8%) against 0.742 and 87.1% for the previous merge.
const mergeRankDecay = 0.5

// mergedScore is the workspace score of a member's rank-th found result
// (1-based) when the member's relevance is rel (0..1).
func mergedScore(rel float64, rank int) float64 {
	return rel * math.Pow(float64(rank), -mergeRankDecay)
}

// PackAcross packs a workspace answer's hits into budget tokens like
// [Engine.PackHits], reading each hit's code from its member's root;
// engines maps a member name (Hit.Repo) to its engine.
func PackAcross(engines map[string]*Engine, hits []Hit, budget int, cost func(Hit) int) (packed []Hit, used, left int) {
	return packHits(hits, budget, cost, func(h Hit) string { return h.Repo + "\x00" + h.Path }, func(h Hit) *Engine { return engines[h.Repo] })
}
