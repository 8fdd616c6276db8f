package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/search"
)

// FindRequest is one search through the engine.
type FindRequest struct {
	// Query is cut to the configured maximum (see [Engine.CutQuery]).
	Query     string
	Limit     int      // default 10
	Languages []string // discover.Lang* ids
	PathGlobs []string // doublestar globs relative to the root
	// Channels restricts recall to these channels (search.ChannelNames);
	// empty uses all. Naming "dense" without an embedding model is an
	// error.
	Channels []string
	// Full attaches each result's code.
	Full bool
	// Expand appends context pieces for the best results after them
	// (see [Engine.Expand]); the zero value adds none.
	Expand ExpandOptions
	// Grouped says the results will be packed, grouped by file (MCP
	// answers, --budget): a file's further chunks about as strong as its
	// best are damped less than in a flat list (search.Request.Grouped).
	Grouped bool
	// AutoIndex indexes a root that has no index yet before searching,
	// reporting that run's phases through Phase (see [IndexOptions]).
	AutoIndex bool
	Phase     func(Phase)
	// Decompose says whether a complex question is split into
	// sub-queries by the LLM (the zero value: when one is configured).
	Decompose Decompose
	// ExplainResults adds a one-line LLM summary to each result
	// (Hit.Explanation); it needs an LLM.
	ExplainResults bool
	// NoRerank skips the configured reranker.
	NoRerank bool
	// Explain adds the explanation mode's fields to the answer:
	// [FindResponse].Understood, and each result's Why and, unless
	// NoRelationships, Relationships. Computed after the search, so
	// it changes neither the ranking nor a plain find's cost.
	Explain         bool
	NoRelationships bool

	// cut is when the search stops gathering and answers with what it
	// has (see [Engine.Find]); zero for none.
	cut time.Time
}

// Hit is one result in the shape of the result JSON contract
// (../shared/DESIGN.md); Channels and Boosts are only filled for explain.
type Hit struct {
	// Repo is the workspace member the hit comes from (its name, see
	// [FindAcross]); absent for a single repository's answer.
	Repo string `json:"repo,omitempty"`
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: the base64 of
	// its raw bytes (see [PathBytes]).
	PathBytes string                       `json:"path_bytes,omitempty"`
	StartLine int                          `json:"start_line"`
	EndLine   int                          `json:"end_line"`
	Score     float64                      `json:"score"`
	Language  string                       `json:"language"`
	Kind      string                       `json:"kind"`
	Symbol    string                       `json:"symbol"`
	Summary   string                       `json:"summary"`
	Code      string                       `json:"code,omitempty"`
	Channels  map[string]search.ChannelHit `json:"channels,omitempty"`
	Boosts    []string                     `json:"boosts,omitempty"`
	// Stale is set when the file changed on disk since it was indexed.
	Stale bool `json:"stale,omitempty"`
	// Context is set on a piece added around the results rather than
	// found by the search (see [Engine.Expand]): why it was added.
	Context string `json:"context,omitempty"`
	// Explanation is the LLM's one-line summary of the code, set only
	// when asked for (FindRequest.ExplainResults).
	Explanation string `json:"explanation,omitempty"`
	// Similarity is set on a pattern search's result ([Engine.Like]):
	// what its score is made of.
	Similarity *Similarity `json:"similarity,omitempty"`
	// Why says in words why the result ranked where it did: each channel
	// that found it (rank, score, the query terms it matched) and each
	// ranking adjustment; set only with FindRequest.Explain.
	Why []string `json:"why,omitempty"`
	// Relationships are its definition, callers, importers and tests; set
	// only with FindRequest.Explain (and not NoRelationships).
	Relationships *Relationships `json:"relationships,omitempty"`
	// Parts is set by [Engine.ChunkAt] on a definition the index holds as
	// several chunks: how many; Part is then 0 when the answer is the whole
	// definition, else which of them (1-based) it is, and DefStartLine and
	// DefEndLine the whole definition's lines.
	Parts        int `json:"parts,omitempty"`
	Part         int `json:"part,omitempty"`
	DefStartLine int `json:"definition_start_line,omitempty"`
	DefEndLine   int `json:"definition_end_line,omitempty"`

	// StartByte and EndByte are the indexed byte range (0-based, end
	// exclusive), for [Engine.Code] and [Engine.CodeSpan].
	StartByte int `json:"-"`
	EndByte   int `json:"-"`

	breadcrumb string // enclosing definitions, outermost first, " > "-joined
}

// FindStats is the "stats" object of the result JSON.
type FindStats struct {
	SearchMS        float64 `json:"search_ms"`
	FilesConsidered int     `json:"files_considered"`
	IndexGeneration int64   `json:"index_generation"`
	// Fresh is false when a returned file changed on disk since indexing,
	// when files under the root were added, removed or changed since the
	// generation that answered (see Stale), or when the index is being
	// written or its last run did not finish (see IndexState). With a
	// watcher running in the process (ctx mcp, ctx serve), true means it
	// had indexed every edit made before the query; without one, added and
	// removed files are told by directory times, edits by the returned
	// files' size and time.
	Fresh bool `json:"fresh"`
	// IndexState is "indexing" while an index run is writing the index,
	// "partial" while the first index is being built (the answer comes
	// from the files committed so far; see Progress), and "interrupted"
	// when its last run did not finish: the files that run had not
	// reached answer from their earlier state until `ctx index` completes
	// it. Absent when the last run finished.
	IndexState string `json:"index_state,omitempty"`
	QueryKind  string `json:"query_kind"`
	// DenseQuery is the text the dense channel embedded when it left out
	// words most of the index holds (the project's name); absent when it
	// embedded the query as it is. Like the query, it is echoed at most
	// [EchoBytes] long.
	DenseQuery string `json:"dense_query,omitempty"`
	// QueryTruncated is set when the query was longer than the configured
	// maximum (CTX_MAX_QUERY_BYTES, default 32 KiB): only its first
	// QuerySearchedBytes bytes were searched. QueryBytes is its length as
	// given. All three are absent for a query that fit.
	QueryTruncated     bool `json:"query_truncated,omitempty"`
	QueryBytes         int  `json:"query_bytes,omitempty"`
	QuerySearchedBytes int  `json:"query_searched_bytes,omitempty"`
	// Degraded is set when a channel could not run and the results come
	// from the others: "dense channel unavailable: <cause>" when the
	// embedding provider failed or did not answer in time (the lexical
	// channels answered alone).
	Degraded string `json:"degraded,omitempty"`
	// Stale says why Fresh is false when the returned files are not the
	// reason: files were added, removed or changed under the root since the
	// index (a watcher is still indexing them, or, without one, directory
	// times changed), with the fix. Absent when fresh.
	Stale string `json:"stale,omitempty"`
	// Progress is the first index run's progress while IndexState is
	// "partial": the answer then comes from the files committed so far.
	Progress *IndexProgress `json:"progress,omitempty"`
	// Cached is set when a long-lived server answered from its query
	// cache: the same request against the same index state (SearchMS is
	// then the lookup's time).
	Cached bool `json:"cached,omitempty"`
	// SubQueries holds the queries the LLM split the question into, each
	// searched and fused with the question's own results; absent when
	// the question was searched as it is.
	SubQueries []string `json:"sub_queries,omitempty"`
	// Steering says why an LLM step that was asked for or configured did
	// not happen (the LLM failed, a spend cap), with the fix.
	Steering string `json:"steering,omitempty"`
	// LLM is what the LLM did for this search (requests, tokens, ms,
	// cost); absent when it was not used.
	LLM *LLMUsage `json:"llm,omitempty"`
	// Rerank reports the rerank stage; absent without a reranker.
	Rerank *RerankStats `json:"rerank,omitempty"`
	// Members is each workspace member's part of a workspace answer
	// ([FindAcross]); absent for a single repository.
	Members []MemberStats `json:"members,omitempty"`
	// Partial is set when the answer is known to be incomplete: the first
	// index is still being built (IndexState "partial"), or the request
	// deadline (limits.request_timeout) came before part of the search
	// finished. PartialReason says which part, e.g. "the request deadline
	// (10s) came before the dense channel finished: …".
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
	// Basis is the evidence the answer's confidence was graded on; front
	// ends show it with --explain only.
	Basis *ConfidenceBasis `json:"confidence_basis,omitempty"`
}

// markPartial marks the answer partial for reason (reasons accumulate).
func (st *FindStats) markPartial(reason string) {
	st.Partial = true
	st.PartialReason = joinNote(st.PartialReason, reason)
}

// Notes returns a line for each way the search differed from what was
// asked (a truncated query, a degraded search), each naming its fix, for
// front ends to show beside the results; none for a normal search.
func (st *FindStats) Notes() []string {
	var out []string
	if st.QueryTruncated {
		out = append(out, fmt.Sprintf("the query is %d bytes; only its first %d were searched (the limit is CTX_MAX_QUERY_BYTES): put the most telling part first", st.QueryBytes, st.QuerySearchedBytes))
	}
	switch {
	case strings.Contains(st.Degraded, "run `ctx index`"):
		// A lost vector file names its own fix; the provider's would
		// mislead.
		out = append(out, st.Degraded+"; results come from the lexical channels alone")
	case st.Degraded != "":
		out = append(out, st.Degraded+"; results come from the lexical channels alone. "+DegradedFix)
	}
	if st.Stale != "" {
		out = append(out, "stale: "+st.Stale)
	}
	if st.Steering != "" {
		out = append(out, st.Steering)
	}
	if st.Rerank != nil && st.Rerank.Skipped != "" {
		out = append(out, "not reranked: "+st.Rerank.Skipped)
	}
	if st.Partial && st.IndexState != "partial" {
		// A first index's partial answer says so in its stale note.
		out = append(out, "partial: "+st.PartialReason)
	}
	return out
}

// DegradedFix is what to do about a search that ran without the dense
// channel because the embedding provider failed.
const DegradedFix = "Check that the embedding service is running and reachable (CTX_EMBED_URL), or set CTX_EMBED_PROVIDER (builtin, or none for lexical-only) and run `ctx index`"

// EchoBytes is the most of a query (or of the text embedded for it) that
// an answer repeats back: a prefix, cut at a UTF-8 boundary, then "…".
const EchoBytes = 200

// EchoQuery returns q as answers repeat it: whole when it is at most
// [EchoBytes] long, else its first EchoBytes bytes (at a UTF-8 boundary)
// and "…".
func EchoQuery(q string) string {
	if len(q) <= EchoBytes {
		return q
	}
	return cutUTF8(q, EchoBytes) + "…"
}

// CutQuery returns q cut to the configured maximum
// ([config.Config].MaxQueryBytes) at a UTF-8 boundary, and whether it
// was cut. [Engine.Find] applies it; a front end that analyzes a query
// itself calls it first, so it sees what Find searches.
func (e *Engine) CutQuery(q string) (string, bool) {
	n := e.cfg.MaxQueryBytes
	if n <= 0 {
		n = config.DefaultMaxQueryBytes
	}
	if len(q) <= n {
		return q, false
	}
	return cutUTF8(q, n), true
}

// cutUTF8 returns s cut to at most n bytes, before the rune that byte n
// falls in, so a valid UTF-8 sequence is never split.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}

// FindResponse is the whole result JSON object.
type FindResponse struct {
	Query   string `json:"query"`
	Results []Hit  `json:"results"`
	// Confidence grades how likely the results are to hold what was
	// asked (see [Confidence]); Stats.Basis says why.
	Confidence Confidence `json:"confidence"`
	Stats      FindStats  `json:"stats"`
	// Pack describes the token-budget pack when the results are one
	// (ctx find --budget).
	Pack *PackStats `json:"pack,omitempty"`
	// Indexed is set when this call had to build the index first.
	Indexed *IndexReport `json:"-"`
	// Understood is how the query was understood (kind, identifiers,
	// paths, phrases, weighted terms); set only with FindRequest.Explain.
	Understood *Understood `json:"understood,omitempty"`
	// Raw keeps the search results for explain output.
	Raw []search.Result `json:"-"`

	// analysis is the search's statistics, with the query analysis it
	// ranked by, for the explanation.
	analysis search.Stats
}

// PackStats describes a pack of results made to a token budget.
type PackStats struct {
	Budget   int `json:"budget"`   // o200k_base tokens allowed
	Tokens   int `json:"tokens"`   // o200k_base tokens of the packed results as printed
	Segments int `json:"segments"` // results in the pack
	Left     int `json:"left"`     // selected segments that did not fit
}

// ErrEmptyIndex means the index holds no chunks: nothing under the root was
// indexable.
var ErrEmptyIndex = errors.New("index is empty")

// Find answers a query. With the optional model layer configured it also
// splits complex questions into sub-queries, reranks and summarises
// (see findSteered); without it, it is the search alone. Errors:
// [ErrNotIndexed] (no index and no AutoIndex), [ErrIndexing] (a first
// index is being built and nothing is searchable yet), [ErrInterrupted],
// [ErrStale] (identity mismatch), [ErrEmptyIndex], [ErrNoLLM]
// (ExplainResults or DecomposeOn without an LLM), [ErrTimeout], store
// failures. No results is not an error.
//
// A request has a deadline: the earlier of ctx's and the configured
// RequestTimeout (limits.request_timeout) from now. At nine tenths of it
// the search stops gathering and answers with what it has, marked
// [FindStats].Partial with the reason: recall channels that have not
// finished are left out, vectors still loading leave the dense channel
// out, and context expansion and the optional model steps are skipped.
// With nothing to answer from, Find fails with [ErrTimeout]. The
// deadline bounds answering: an automatic first index (AutoIndex) runs to
// the end first, reporting its phases, and the deadline starts after it;
// answering from a first index's early batches would rank files the run
// has not reached yet below worse ones, and a CLI process could not go on
// with the run once it has answered.
func (e *Engine) Find(ctx context.Context, req FindRequest) (*FindResponse, error) {
	resp, err := e.findWithin(ctx, req)
	if req.AutoIndex && errors.Is(err, ErrNotIndexed) && !errors.Is(err, ErrIndexing) && !e.remoteBackend() {
		// No index yet, or a first run that did not finish: build it,
		// then answer within a deadline of the answer's own.
		rep, ierr := e.Index(ctx, IndexOptions{Phase: req.Phase})
		if ierr != nil {
			return nil, ierr
		}
		if resp, err = e.findWithin(ctx, req); err == nil {
			resp.Indexed = rep
		}
	}
	if err == nil && req.Explain {
		if err := e.explainAnswer(ctx, resp, !req.NoRelationships); err != nil {
			return nil, err
		}
	}
	return resp, err
}

// findWithin is [Engine.Find] on the index as it is, within the request
// deadline.
func (e *Engine) findWithin(ctx context.Context, req FindRequest) (*FindResponse, error) {
	ctx, cancel, limit := e.requestDeadline(ctx)
	defer cancel()
	req.cut = limit.cut
	var (
		resp *FindResponse
		err  error
	)
	if e.steered(req) {
		resp, err = e.findSteered(ctx, req)
	} else {
		resp, err = e.find(ctx, req)
	}
	if err != nil {
		return nil, limit.explain(ctx, err)
	}
	return resp, nil
}

// requestLimit is a request's deadline as [Engine.requestDeadline] set
// it.
type requestLimit struct {
	timeout time.Duration // from the request's start to its deadline; 0: none
	cut     time.Time     // when searches stop gathering; zero: never
}

// requestDeadline returns ctx bounded by the request's deadline (the
// earlier of ctx's own and the configured RequestTimeout from now), and
// the limit: the timeout and the cut, at nine tenths of it, when a
// search stops gathering and answers with what it has. Without either
// deadline, ctx is returned as it is and the limit is zero.
func (e *Engine) requestDeadline(ctx context.Context) (context.Context, context.CancelFunc, requestLimit) {
	now := time.Now()
	dl, ok := ctx.Deadline()
	if t := e.cfg.RequestTimeout; t > 0 && (!ok || now.Add(t).Before(dl)) {
		dl, ok = now.Add(t), true
	}
	if !ok {
		return ctx, func() {}, requestLimit{}
	}
	ctx, cancel := context.WithDeadline(ctx, dl)
	d := dl.Sub(now)
	return ctx, cancel, requestLimit{timeout: d, cut: now.Add(d * 9 / 10)}
}

// explain turns err, the failure of a request bounded by l and ctx, into
// [ErrTimeout] when the deadline passed before it could answer and err
// says no more than that (an interrupted query, a canceled request).
func (l requestLimit) explain(ctx context.Context, err error) error {
	if l.timeout == 0 || errors.Is(err, ErrTimeout) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	switch Classify(err).Code {
	case CodeInternal, CodeCanceled, CodeTimeout:
		// An interrupted query or a canceled request: the deadline's
		// doing. Any other class says more than "timed out".
	default:
		return err
	}
	return fmt.Errorf("%w: nothing to answer within the request deadline (%s, limits.request_timeout): %v", ErrTimeout, l.timeout.Round(time.Millisecond), err)
}

// cutContext returns ctx bounded by a request's cut, for the steps that
// stop there and leave the answer partial instead of failing it. A zero
// cut gives ctx.
func cutContext(ctx context.Context, cut time.Time) (context.Context, context.CancelFunc) {
	if cut.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, cut)
}

// wasCut reports whether a step run with cctx (from [cutContext] over
// ctx) ended because the cut came, not because the request ended.
func wasCut(ctx, cctx context.Context) bool {
	return cctx.Err() != nil && ctx.Err() == nil
}

// recallDeadline is when a search's recall stops: the request's cut, or,
// when the cut has passed before the search began (waiting for a first
// index used it up), halfway from now to the request's deadline, so the
// files committed so far are still searched and ranked in time.
func recallDeadline(ctx context.Context, cut time.Time) time.Time {
	now := time.Now()
	if cut.IsZero() || now.Before(cut) {
		return cut
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return time.Time{}
	}
	return now.Add(dl.Sub(now) / 2)
}

// cutNote says what the request deadline left out, for
// [FindStats].PartialReason.
func cutNote(what string) string {
	return "the request deadline (limits.request_timeout) came before " + what
}

// openView reads the index's committed view for a search. While a run
// builds the first index, the view answers from the chunks it has
// committed, returned as partial (0 otherwise). Errors: [ErrNotIndexed]
// (no index), [ErrIndexing] (a run is creating the index, or has
// committed nothing yet), [ErrInterrupted] (a first run stopped before it
// finished), store failures.
func (e *Engine) openView(ctx context.Context) (v *view, release func(), partial int, err error) {
	v, release, err = e.acquire(ctx)
	if err == nil && v.stored == "" {
		if !indexRunning(e.dbPath) {
			// The first index run was interrupted before it recorded what
			// it was built with: finish it rather than call it foreign.
			release()
			return nil, nil, 0, fmt.Errorf("%w: the first index of %s did not finish; run `ctx index`", ErrInterrupted, e.root)
		}
		n, perr := e.checkPartial(ctx, v)
		if perr != nil {
			release()
			return nil, nil, 0, perr
		}
		return v, release, n, nil
	}
	if errors.Is(err, ErrNotIndexed) && indexRunning(e.dbPath) {
		// Another run is creating the index: waiting for it could take
		// minutes.
		return nil, nil, 0, fmt.Errorf("%w: the first index of %s is starting; ask again in a moment", ErrIndexing, e.root)
	}
	return v, release, 0, err
}

// find is the search itself: recall, fusion, ranking and expansion.
func (e *Engine) find(ctx context.Context, req FindRequest) (*FindResponse, error) {
	if e.remoteBackend() {
		return e.findWeaviate(ctx, req)
	}
	start := time.Now()
	query, _ := e.CutQuery(req.Query)
	resp := &FindResponse{Query: EchoQuery(query), Results: []Hit{}}
	cctx, ccancel := cutContext(ctx, req.cut)
	defer ccancel()
	// A watcher's word on freshness is taken before the view is read, so
	// the view is at least as new as the edits it vouches for.
	watchFresh, watched, watchNote := e.watchFreshness(cctx)
	if !watched {
		watchFresh, watched, watchNote = e.askWatcher(cctx)
	}
	// partialChunks is set while a run builds the first index: the
	// answer comes at once from the files committed so far.
	v, release, partialChunks, err := e.openView(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	partial := partialChunks > 0
	if !partial {
		if err := e.storedDims(ctx, v.db); err != nil {
			return nil, err
		}
		if v.stored != e.Identity().Hash {
			return nil, fmt.Errorf("%w: %s was indexed by another ctx build or embedding model; run `ctx index` to rebuild it", ErrStale, e.root)
		}
	}
	db, gen, total := v.db, v.gen, v.total
	if partial {
		total = partialChunks
	}
	if total == 0 {
		return nil, fmt.Errorf("%w: no indexable files under %s (see `ctx status` for what was skipped and why)", ErrEmptyIndex, e.root)
	}
	// Without a watcher, added and removed files are told by the recorded
	// directories' times: a stat per directory (about 4 ms for the Go
	// tree's), done beside the search. dirNote waits for it.
	dirNote := func() string { return "" }
	if !watched {
		dirNote = e.startDirCheck(v)
		defer dirNote()
	}
	// A kept engine answers a repeated request from its cache while the
	// index state is the same. Code read from disk (Full) is only reused
	// when a watcher vouches that no file changed since.
	var ckey string
	if e.cache != nil && !partial && !v.head.running && (watched && watchFresh || !req.Full && !watched) {
		creq := req
		creq.Query = query
		ckey = e.cache.key(creq, v.head, v.stored)
		changed := e.changed
		if watched {
			// The watcher vouched that every edit is in this head, and
			// the entry is of this head: its files are as they were.
			changed = func(string, int64, int64) bool { return false }
		}
		if r := e.cache.get(ckey, changed); r != nil {
			if !watched {
				if note := dirNote(); note != "" {
					r.Stats.Fresh, r.Stats.Stale = false, note
				}
			}
			r.Stats.Cached = true
			r.Stats.SearchMS = float64(time.Since(start).Microseconds()) / 1000
			return r, nil
		}
	}
	var src search.Source = db
	if !partial {
		src = e.chunkSource(cctx, v)
	}
	s := &search.Searcher{DB: src, TotalChunks: total, EmbedTimeout: e.cfg.Embed.QueryTimeout, Deadline: recallDeadline(ctx, req.cut)}
	if s.EmbedTimeout <= 0 {
		s.EmbedTimeout = config.DefaultQueryTimeout
	}
	sreq := search.Request{Query: query, Limit: req.Limit, Languages: req.Languages, PathGlobs: req.PathGlobs, Channels: req.Channels, Grouped: req.Grouped}
	if partial && len(sreq.Channels) == 0 {
		// The vectors of a first index are read once it completes.
		sreq.Channels = search.LexicalChannels
	}
	dense := sreq.Uses("dense")
	if dense && e.emb == nil && len(req.Channels) > 0 {
		return nil, WithFix(Errorf(ErrNotConfigured, "the dense channel needs an embedding model, but CTX_EMBED_PROVIDER is none"), "set CTX_EMBED_PROVIDER (builtin: the built-in model) and run `ctx index`")
	}
	var vecsCut bool
	var vecsLost error
	if e.emb != nil && dense {
		vecs, err := e.viewVectors(cctx, v)
		switch {
		case err == nil:
			s.Embedder, s.Vectors = e.emb, vecs
		case errors.Is(err, search.ErrVectorsMissing):
			// The vector file holding folded vectors is gone or damaged:
			// the lexical channels answer, and the answer says so.
			vecsLost = err
			chans := sreq.Channels
			if len(chans) == 0 {
				chans = search.ChannelNames
			}
			sreq.Channels = slices.DeleteFunc(slices.Clone(chans), func(c string) bool { return c == "dense" })
			if len(sreq.Channels) == 0 {
				return nil, WithFix(err, "run `ctx index` to embed the chunks whose vectors were lost")
			}
		case wasCut(ctx, cctx):
			// Loading the vectors (writing the vector file of a large
			// index) outlasted the cut: the lexical channels answer.
			vecsCut = true
			chans := sreq.Channels
			if len(chans) == 0 {
				chans = search.ChannelNames
			}
			sreq.Channels = slices.DeleteFunc(slices.Clone(chans), func(c string) bool { return c == "dense" })
			if len(sreq.Channels) == 0 {
				return nil, fmt.Errorf("%w: the vectors of the dense channel were still loading", ErrTimeout)
			}
		default:
			return nil, err
		}
	}
	res, st, err := s.Search(ctx, sreq)
	if errors.Is(err, search.ErrDeadline) {
		return nil, fmt.Errorf("%w: the %s channel%s did not finish within the request deadline (limits.request_timeout), and the others found nothing", ErrTimeout, strings.Join(st.Unfinished, ", "), plural(len(st.Unfinished)))
	}
	if err != nil {
		return nil, err
	}
	resp.Raw, resp.analysis = res, st
	if resp.Stats, err = e.searchStats(st, sreq, s.EmbedTimeout, gen, req.Query, query); err != nil {
		return nil, err
	}
	if vecsLost != nil {
		resp.Stats.Degraded = joinNote(resp.Stats.Degraded, "dense channel unavailable: "+vecsLost.Error()+"; run `ctx index` to repair it")
	}
	if vecsCut {
		resp.Stats.markPartial(cutNote("the dense channel's vectors had loaded; the lexical channels answered alone"))
	}
	if len(st.Unfinished) > 0 {
		resp.Stats.markPartial(cutNote(fmt.Sprintf("the %s channel%s finished; the results come from the others", strings.Join(st.Unfinished, ", "), plural(len(st.Unfinished)))))
	}
	var null *denseNull
	if st.DenseTop != 0 {
		null = e.viewNull(ctx, v, s.Vectors)
	}
	resp.Confidence, resp.Stats.Basis = gradeConfidence(res, st, null)
	if v.head.running {
		resp.Stats.Fresh = false
		resp.Stats.IndexState = "interrupted"
		if indexRunning(e.dbPath) {
			resp.Stats.IndexState = "indexing"
		}
	}
	if partial {
		resp.Stats.IndexState, resp.Stats.Progress = "partial", v.progress()
		resp.Stats.Stale = "the first index is being built (" + resp.Stats.Progress.String() + "): these results come from the files indexed so far, by the lexical channels alone"
		resp.Stats.markPartial("the first index is still being built (" + resp.Stats.Progress.String() + "); the results come from the files indexed so far")
	}
	switch {
	case watched && !watchFresh:
		resp.Stats.Fresh, resp.Stats.Stale = false, watchNote
	case !watched:
		if note := dirNote(); note != "" {
			resp.Stats.Fresh, resp.Stats.Stale = false, note
		}
	}
	e.appendHits(resp, res, req.Full, e.changed)
	if req.Expand.Seeds > 0 {
		// Expand from the view searched; a partial first index is read
		// anew, as a lookup reads it.
		ev := v
		if partial {
			ev = nil
		}
		if err := e.expandCut(ctx, cctx, ev, query, req, resp); err != nil {
			return nil, err
		}
	}
	if ckey != "" && resp.Stats.Fresh && resp.Stats.Degraded == "" && resp.Stats.IndexState == "" && !resp.Stats.Partial {
		kept := *resp
		kept.Results = slices.Clone(resp.Results)
		e.cache.put(ckey, &kept)
	}
	return resp, nil
}

// startDirCheck starts checking v's recorded directory times
// ([Engine.checkDirs]) in a goroutine and returns a func that waits for
// it and returns its stale note ("" when nothing changed); the func may
// be called again, and must be called at least once.
func (e *Engine) startDirCheck(v *view) func() string {
	ch := make(chan string, 1)
	go func() { ch <- e.checkDirs(v.dirStamps()).staleNote() }()
	var note string
	done := false
	return func() string {
		if !done {
			note, done = <-ch, true
		}
		return note
	}
}

// searchStats is the stats of a search's answer: its search statistics,
// the index generation gen, the query as given and as searched (cut when
// they differ), and the degraded note when the dense channel failed (the
// embedding timeout names its setting). Error: the dense channel failed
// and no other channel was asked for, so nothing answered.
func (e *Engine) searchStats(st search.Stats, sreq search.Request, embedTimeout time.Duration, gen int64, given, searched string) (FindStats, error) {
	if st.DenseErr != nil && !slices.ContainsFunc(search.LexicalChannels, sreq.Uses) {
		// Only the dense channel was asked for: there is nothing to fall
		// back on.
		return FindStats{}, Errorf(ErrProviderUnavailable, "the dense channel is unavailable: %v", st.DenseErr)
	}
	fs := FindStats{SearchMS: st.SearchMS, FilesConsidered: st.FilesConsidered, IndexGeneration: gen, Fresh: true, QueryKind: st.QueryKind, DenseQuery: EchoQuery(st.DenseQuery)}
	if given != searched {
		fs.QueryTruncated, fs.QueryBytes, fs.QuerySearchedBytes = true, len(given), len(searched)
	}
	if st.DenseErr != nil {
		fs.Degraded = "dense channel unavailable: " + denseCause(st.DenseErr, embedTimeout)
		e.log.Info("searching without the dense channel", "err", st.DenseErr)
	}
	return fs, nil
}

// changedNote says that files among the results (root-relative paths)
// changed on disk since they were indexed, and the fix.
func changedNote(paths []string) string {
	const show = 3
	list := strings.Join(paths[:min(len(paths), show)], ", ")
	if len(paths) > show {
		list += fmt.Sprintf(" and %d more", len(paths)-show)
	}
	return fmt.Sprintf("%d result file%s changed on disk since the index was built (%s): their lines may have moved; run `ctx index`", len(paths), plural(len(paths)), list)
}

// appendHits appends the search results to resp as hits, each marked
// stale (and resp not fresh) when changed says its file changed on disk
// since it was indexed, with its code when full is set.
func (e *Engine) appendHits(resp *FindResponse, res []search.Result, full bool, changed func(rel string, size, mtime int64) bool) {
	statCache := map[string]bool{}
	var changedFiles []string
	for _, r := range res {
		stale, ok := statCache[r.Path]
		if !ok {
			stale = changed(r.Path, r.FileSize, r.FileTime)
			statCache[r.Path] = stale
			if stale {
				changedFiles = append(changedFiles, r.Path)
			}
		}
		if stale {
			resp.Stats.Fresh = false
		}
		h := Hit{Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine, Score: round(r.Score), Language: r.Language,
			Kind: r.Kind, Symbol: r.Symbol, Summary: r.Summary, Stale: stale, Channels: r.Channels, Boosts: r.Boosts,
			StartByte: r.StartByte, EndByte: r.EndByte, breadcrumb: r.Breadcrumb, PathBytes: PathBytes(r.Path)}
		if full {
			h.Code = e.code(r, stale)
		}
		resp.Results = append(resp.Results, h)
	}
	if len(changedFiles) > 0 && resp.Stats.Stale == "" {
		// Said beside the results, not only in each hit's flag, so a
		// reader of the plain output sees it too.
		resp.Stats.Stale = changedNote(changedFiles)
	}
}

// expandCut is [Engine.expandInto] run with cctx, the request's cut: when
// the cut comes first, the answer goes without its context pieces and is
// marked partial.
// v is the view the search read, or nil to read the current one (and
// check it as a lookup does).
func (e *Engine) expandCut(ctx, cctx context.Context, v *view, query string, req FindRequest, resp *FindResponse) error {
	err := e.expandInto(cctx, v, query, req, resp)
	if err != nil && wasCut(ctx, cctx) {
		resp.Stats.markPartial(cutNote("the context around the best results was added"))
		return nil
	}
	return err
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// expandInto appends to resp the context pieces of its best results
// (see [Engine.Expand]) that pass the request's filters.
func (e *Engine) expandInto(ctx context.Context, v *view, query string, req FindRequest, resp *FindResponse) error {
	var extra []Hit
	var err error
	if v != nil {
		extra, err = e.expandView(ctx, v, query, resp.Results, req.Expand)
	} else {
		extra, err = e.Expand(ctx, query, resp.Results, req.Expand)
	}
	if err != nil {
		return err
	}
	for _, h := range extra {
		// The request's filters hold for context pieces too.
		if len(req.Languages) > 0 && !slices.Contains(req.Languages, h.Language) ||
			len(req.PathGlobs) > 0 && !slices.ContainsFunc(req.PathGlobs, func(g string) bool { return MatchGlob(g, h.Path) }) {
			continue
		}
		if req.Full {
			h.Code = e.Code(h)
		}
		resp.Results = append(resp.Results, h)
	}
	return nil
}

// denseCause says why embedding the query failed, in a user's terms: a
// timeout names the setting that bounds it.
func denseCause(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("the embedding provider did not answer within %s (CTX_EMBED_QUERY_TIMEOUT): %v", timeout, err)
	}
	return err.Error()
}

// changed reports whether a file's size or mtime differ from the indexed
// ones (a deleted file counts as changed).
func (e *Engine) changed(rel string, size, mtime int64) bool {
	fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(rel)))
	return err != nil || fi.Size() != size || fi.ModTime().UnixNano() != mtime
}

// code returns a result's text: its byte range when the file is unchanged,
// else its line range from the current file.
func (e *Engine) code(r search.Result, stale bool) string {
	return e.readRange(r.Path, r.StartByte, r.EndByte, r.StartLine, r.EndLine, stale)
}

// round keeps four significant decimals so JSON output stays readable and
// stable.
func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 4, 64), 64)
	return v
}
