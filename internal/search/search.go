// Package search answers a query from an index: analyze → recall (BM25,
// symbol, path and dense channels) → RRF fusion → ranking → per-file
// diversity → top K.
package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

// Request is one search.
type Request struct {
	// Query is the user's text: a symbol, a question, or a whole issue.
	Query string
	// Limit is the number of results wanted (default 10).
	Limit int
	// Languages keeps only chunks of these languages (discover.Lang* ids);
	// empty keeps all.
	Languages []string
	// PathGlobs keeps only paths matching one of these doublestar globs
	// (relative to the root, e.g. "net/http/**"); empty keeps all.
	PathGlobs []string
	// Channels keeps only the recall channels named here ([ChannelNames]);
	// empty uses all. Ranking adjustments still apply. For ablations and
	// debugging: "dense" alone measures the embedding model through the
	// same ranking stack.
	Channels []string
	// Grouped says the caller shows the results grouped by file (a pack):
	// a file's further chunks about as strong as its best are damped less
	// (see tune.SiblingShare).
	Grouped bool
}

// ChannelNames lists the recall channels a [Request] may restrict to:
// bm25, code (identifiers of long queries), title (a second search for a
// long query's title line, fused by file: see [Searcher.Search]), phrase,
// symbol (defined names), path, mention (paths and stack frames in the
// query), bm25-file (a file-level view of the BM25 hits) and dense
// (embeddings).
var ChannelNames = []string{"bm25", "code", "title", "phrase", "symbol", "path", "mention", "bm25-file", "dense"}

// LexicalChannels are the channels that need no embedding model. (With
// dense, the candidates of every kept channel are also reordered by their
// similarity to the query: "dense-rerank" in a result's channels.)
var LexicalChannels = ChannelNames[:8:8]

// Uses reports whether req keeps channel.
func (req *Request) Uses(channel string) bool {
	return len(req.Channels) == 0 || slices.Contains(req.Channels, channel)
}

// Result is one ranked chunk.
type Result struct {
	ChunkID    int64
	Path       string // slash-separated, relative to the root
	Language   string
	Kind       string
	Symbol     string
	Breadcrumb string
	Summary    string
	StartLine  int // 1-based, inclusive
	EndLine    int // 1-based, inclusive
	StartByte  int // 0-based
	EndByte    int // 0-based, exclusive
	// Part is the chunk's piece of a split definition: 0 when whole, 1 for
	// the piece holding its declaration, 2… for the later ones.
	Part int
	// FileSize and FileTime are the file's size (bytes) and mtime (Unix
	// ns) when it was indexed, for freshness checks.
	FileSize int64
	FileTime int64
	// Score is the final ranking score (higher is better; comparable only
	// within one response).
	Score float64
	// Fused is the RRF score before ranking adjustments.
	Fused float64
	// Channels holds where each channel ranked the chunk.
	Channels map[string]ChannelHit
	// Boosts names each ranking adjustment applied, with its factor.
	Boosts []string
	// Defines is set when the chunk defines the name a symbol query asks
	// for ([analyze.Query].Name), holding its qualifiers when it has any.
	Defines bool
}

// Stats describes one search.
type Stats struct {
	// SearchMS is the wall time of the search in milliseconds.
	SearchMS float64
	// Candidates is the number of distinct chunks the channels recalled.
	Candidates int
	// FilesConsidered is the number of distinct files among them.
	FilesConsidered int
	// QueryKind is the analyzed query kind.
	QueryKind string
	// DenseQuery is the text the dense channel embedded when it left out
	// words of the query that most chunks hold (see denseQuery); empty
	// when it embedded the query as it is.
	DenseQuery string
	// DenseErr is why the dense channel was left out when embedding the
	// query failed (the provider refused, timed out or kept failing):
	// the results then come from the other channels alone. Nil when the
	// channel ran or was not asked for.
	DenseErr error
	// Unfinished names the recall channels left out because they had not
	// finished by [Searcher].Deadline, in [ChannelNames] order ("title"
	// for a long query's title search); nil when every channel finished.
	Unfinished []string
	// DenseTop is the cosine similarity of the query's embedding to its
	// nearest chunk in the whole index (filters aside), in [-1, 1]; 0 when
	// the dense channel did not run. Comparing it with what off-topic
	// queries reach in the same index says whether the index holds
	// anything like the query (see the engine's confidence grade).
	DenseTop float64
	// TermCoverage is the share, in [0, 1], of the query's term weight
	// ([analyze.Query].TopTerms) whose terms occur in the index at all;
	// 0 for a query with no terms. An off-topic query's words are mostly
	// absent from a code base's vocabulary.
	TermCoverage float64
	// Query is the analysis the search ranked by (of the whole query, for
	// a long query searched also by its title), for front ends that say
	// how the query was understood; nil when the search failed before it.
	Query *analyze.Query

	// terms are the query's heaviest terms that occur in the index, with
	// their document frequencies (see [Stats.TermWeights]).
	terms []weighted
}

// TermWeight is one of the query's heaviest terms as the lexical channels
// weighed it.
type TermWeight struct {
	Text string
	// Weight is the term's weight in the query ([analyze.Term].Weight).
	Weight float64
	// DocFreq is how many chunks hold it; 0 when none does (the term then
	// counts against [Stats].TermCoverage).
	DocFreq int
	// IDF is its BM25 inverse document frequency, ln(1 + (N-df+0.5)/(df+0.5)); 0 when DocFreq is 0.
	IDF float64
}

// TermWeights returns the query's heaviest terms (at most the number
// looked up in the index), heaviest first, each with its document
// frequency and IDF; nil when the search did not get as far as weighing
// them. It derives them from the analysis the search made: nothing is
// analyzed again.
func (st *Stats) TermWeights() []TermWeight {
	if st.Query == nil {
		return nil
	}
	found := make(map[string]weighted, len(st.terms))
	for _, t := range st.terms {
		found[t.text] = t
	}
	ts := st.Query.TopTerms(maxDocFreqTerms)
	out := make([]TermWeight, 0, len(ts))
	for _, t := range ts {
		w := found[t.Text]
		out = append(out, TermWeight{Text: t.Text, Weight: t.Weight, DocFreq: w.df, IDF: w.idf})
	}
	return out
}

// ErrDeadline is returned by [Searcher.Search] when [Searcher].Deadline
// passed before any recall channel that found something finished: there
// is nothing to rank.
var ErrDeadline = errors.New("no recall channel finished before the deadline")

// Searcher runs searches against one index.
type Searcher struct {
	// DB is the index read: the local store or another [Source].
	DB Source
	// Embedder, when set together with Vectors, enables the dense channel.
	Embedder embed.Provider
	Vectors  VectorIndex
	// EmbedTimeout bounds embedding the query (0: no bound beyond ctx's).
	// When it passes, or the provider fails, the search goes on without
	// the dense channel and reports why in [Stats].DenseErr.
	EmbedTimeout time.Duration
	// TotalChunks is the index's chunk count, for IDF; 0 means count it.
	TotalChunks int
	// Concurrency is how many recall channels run at once: 0 means
	// GOMAXPROCS (at least two), right for a local index whose channels
	// use the CPU; a remote source whose channels wait on the network
	// sets more.
	Concurrency int
	// Deadline, when set, is when recall stops waiting: a channel still
	// running then is left out (its SQLite query is interrupted, its
	// request canceled), the results come from the channels that
	// finished, and [Stats].Unfinished names the others; when those found
	// nothing, Search fails with [ErrDeadline]. The search's own context
	// does not carry it, so reading the found rows and ranking them still
	// run after it. Zero means none.
	Deadline time.Time
	// cutNow, when closed, cuts recall as the deadline would (tests: the
	// test, not a clock, says when the deadline comes); nil in use.
	cutNow <-chan struct{}
}

// Channel limits: how many chunks each channel recalls before fusion
// (about 5× the usual result count, as ../shared/notes/ranking.md advises,
// more for BM25 which carries most of the signal). Measured with ctx's
// own BM25: BM25 400 or dense 200 scored semble DEV 0.815 and 0.814
// against 0.816; path 150 (was 300) scored the same on semble DEV and
// SWE-bench DEV50 and reads half the path candidates' rows.
const (
	bm25Limit   = 200
	pathLimit   = 150
	symbolLimit = 100
	denseLimit  = 100
)

// Search runs one request. An index with no chunks is not an error here;
// the engine reports a missing or empty index before searching.
//
// A long query with a title line (an issue: [analyze.Query].Title) is
// searched twice, whole and by its title alone, concurrently, and the two
// rankings are fused by file (fuseTitle): the title says what is wrong in
// a few words that the code samples, logs and prose drown, while
// the whole text holds the identifiers and paths.
func (s *Searcher) Search(ctx context.Context, req Request) ([]Result, Stats, error) {
	start := time.Now()
	limit := req.Limit
	if limit <= 0 {
		limit = 10
	}
	q := analyze.Analyze(req.Query)
	patched := patchedFiles(q)
	if q.Title == nil || !req.Uses("title") {
		if len(patched) == 0 {
			res, st, err := s.search(ctx, req, q, limit, start)
			st.Query = q
			return res, st, err
		}
		// A diff without a title line: its files still lead, by file.
		res, st, err := s.search(ctx, req, q, max(limit, titleDepth), start)
		st.Query = q
		return fuseTitle(res, nil, patched, limit), st, err
	}
	depth := max(limit, titleDepth)
	var (
		whole, byTitle     []Result
		st, tst            Stats
		wholeCut, titleCut bool // no channel of that search finished by the deadline
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		whole, st, err = s.search(gctx, req, q, depth, start)
		if errors.Is(err, ErrDeadline) {
			wholeCut, err = true, nil
		}
		return err
	})
	g.Go(func() (err error) {
		treq := req
		treq.Query = q.Title.Raw
		byTitle, tst, err = s.search(gctx, treq, q.Title, depth, start)
		if errors.Is(err, ErrDeadline) {
			titleCut, err = true, nil
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, st, err
	}
	if wholeCut && titleCut {
		return nil, st, ErrDeadline
	}
	st.Query = q
	if wholeCut {
		// The title's search answers alone; its stats describe it.
		st.Candidates, st.FilesConsidered, st.DenseQuery = tst.Candidates, tst.FilesConsidered, tst.DenseQuery
	}
	if titleCut {
		tst.Unfinished = append(tst.Unfinished, "title")
	}
	st.Unfinished = unionChannels(st.Unfinished, tst.Unfinished)
	if st.DenseErr == nil {
		st.DenseErr = tst.DenseErr
	}
	out := fuseTitle(whole, byTitle, patched, limit)
	st.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return out, st, nil
}

// patchedFiles returns the paths of the files that a diff in q changes
// ([analyze.Query].Patches), tests left out: an issue that carries its fix
// names the file to change, and the test it adds is not that file.
func patchedFiles(q *analyze.Query) []string {
	var out []string
	for _, p := range q.Patches {
		if !discover.IsTestPath(p.Path) {
			out = append(out, p.Path)
		}
	}
	return out
}

// titleDepth is how many results each of a long query's two searches
// (whole and title) ranks before they are fused: deep enough that a file
// the title puts first can lift a file the whole text ranks 20th.
const titleDepth = 40

// search runs one request for the analyzed query q, keeping limit results.
func (s *Searcher) search(ctx context.Context, req Request, q *analyze.Query, limit int, start time.Time) ([]Result, Stats, error) {
	st := Stats{QueryKind: string(q.Kind)}

	n := s.TotalChunks
	if n <= 0 {
		c, err := s.DB.Count(ctx)
		if err != nil {
			return nil, st, err
		}
		n = c.Chunks
	}
	terms, coverage, err := s.weighTerms(ctx, q, n)
	if err != nil {
		return nil, st, err
	}
	st.TermCoverage, st.terms = coverage, terms

	// Language and path filters restrict the full-text channels before
	// their limits (and every channel after recall).
	var allowed []int64
	if len(req.Languages) > 0 || len(req.PathGlobs) > 0 {
		files, err := s.DB.AllFiles(ctx)
		if err != nil {
			return nil, st, err
		}
		allowed = []int64{}
		for _, f := range files {
			if keep(&store.ChunkRow{Path: f.Path, Language: f.Language}, req) {
				allowed = append(allowed, f.ID)
			}
		}
		if len(allowed) == 0 {
			st.SearchMS = float64(time.Since(start).Microseconds()) / 1000
			return []Result{}, st, nil
		}
		if len(allowed) == len(files) {
			allowed = nil
		}
	}

	quals := queryQualifiers(q)
	rc, err := s.recall(ctx, q, quals, req, terms, n, allowed)
	st.Unfinished = rc.unfinished
	if err != nil {
		return nil, st, err
	}
	st.DenseErr = rc.denseErr
	st.DenseTop = rc.denseTop
	lists, fileLists, bm25Hits, qvec := rc.lists, rc.fileLists, rc.bm25, rc.qvec
	if qvec != nil && rc.denseText != req.Query {
		st.DenseQuery = rc.denseText
	}

	fused := Fuse(lists)
	ids := make([]int64, 0, len(fused)+pathLimit)
	for _, f := range fused {
		ids = append(ids, f.ID)
	}
	for _, fl := range fileLists {
		ids = append(ids, fl.reps...)
	}
	rows, err := s.rows(ctx, ids, rc.prefetched)
	if err != nil {
		return nil, st, err
	}
	byID := make(map[int64]*store.ChunkRow, len(rows))
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	if len(bm25Hits) > 0 && req.Uses("bm25-file") {
		fileLists = append(fileLists, fileBM25(bm25Hits, byID, tune.FileBM25))
	}
	inFused := make(map[int64]bool, len(fused))
	for _, f := range fused {
		inFused[f.ID] = true
	}
	// fileRanks[i] maps a file id to its rank in fileLists[i].
	fileRanks := make([]map[int64]int, len(fileLists))
	for i, fl := range fileLists {
		fileRanks[i] = map[int64]int{}
		for _, id := range fl.reps {
			row := byID[id]
			if row == nil {
				continue
			}
			if _, ok := fileRanks[i][row.FileID]; ok {
				continue
			}
			fileRanks[i][row.FileID] = len(fileRanks[i]) + 1
			if !inFused[id] {
				inFused[id] = true
				fused = append(fused, Fused{ID: id, Channels: map[string]ChannelHit{}})
			}
		}
	}

	cands := make([]Result, 0, len(fused))
	files := map[int64]bool{}
	words := newQueryWords(q.Raw)
	pathShare := map[int64]float64{}
	for _, f := range fused {
		row := byID[f.ID]
		if row == nil || !keep(row, req) {
			continue
		}
		files[row.FileID] = true
		score := f.Score
		for i, fl := range fileLists {
			if fr, ok := fileRanks[i][row.FileID]; ok {
				wt := fl.weight
				if fl.channel == "path" {
					// A path that covers one word of a five-word question
					// is weak evidence, however well it ranks.
					sh, ok := pathShare[row.FileID]
					if !ok {
						sh = words.share(pathTerms(row.Path), nil)
						pathShare[row.FileID] = sh
					}
					wt *= sh
				}
				score += wt / float64(RRFK+fr)
				f.Channels[fl.channel] = ChannelHit{Rank: fr}
			}
		}
		cands = append(cands, Result{
			ChunkID: row.ID, Path: row.Path, Language: row.Language, Kind: row.Kind, Symbol: row.Symbol,
			Breadcrumb: row.Breadcrumb, Summary: row.Summary, StartLine: row.StartLine, EndLine: row.EndLine,
			StartByte: row.StartByte, EndByte: row.EndByte, Part: row.Part, FileSize: row.FileSize, FileTime: row.FileTime,
			Score: score, Fused: score, Channels: f.Channels,
		})
	}
	if dr := tune.denseRerank(q.Kind); qvec != nil && dr > 0 {
		sims, err := s.Vectors.Cosines(ctx, qvec, chunkIDs(cands))
		if err != nil {
			return nil, st, fmt.Errorf("scoring candidates by the query's embedding: %w", err)
		}
		denseRerank(cands, sims, dr)
	}
	st.Candidates = len(cands)
	st.FilesConsidered = len(files)

	names := make(map[int64]string, len(cands))
	for i := range cands {
		names[cands[i].ChunkID] = byID[cands[i].ChunkID].Name
	}
	rank(q, words, quals, cands, names, rc.declared)
	out := diversify(cands, limit, req.Grouped)
	st.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return out, st, nil
}

// fuseTitle fuses the results of a long query's whole-text search and of
// its title's search (nil when it has none) by file: a file scores
// Σ w/(TitleRRFK + r) over the lists, r being its 1-based rank among each
// list's distinct files (w is 1 for the whole text, tune.TitleWeight for
// the title). patched, the paths of the files a diff in the query changes
// (patchedFiles), is a third list, weighted tune.PatchWeight, of those it
// names that either list found; their results gain the boost "patched".
// Each file's
// chunks keep their order (the whole text's first, then the title's), the
// n-th further chunk of a file is damped by tune.Diversity^n, as in
// diversify, and the best limit results are returned. Equal scores go to
// the file with the better best rank in either list (first in one list
// beats second in both). A result's Score is its fused file score so
// damped; its Channels gain "title" with the file's rank in the title's
// list.
func fuseTitle(whole, byTitle []Result, patched []string, limit int) []Result {
	fileScore := map[string]float64{}
	titleRank := map[string]int{}
	bestRank := map[string]int{} // a file's best rank in either list
	// Files the query's own diff changes, in its order, among those found.
	patchedFile := map[string]bool{}
	r := 0
	for _, p := range patched {
		for _, res := range [][]Result{whole, byTitle} {
			i := slices.IndexFunc(res, func(x Result) bool { return store.MentionNames(x.Path, p) })
			if i < 0 {
				continue
			}
			if !patchedFile[res[i].Path] {
				patchedFile[res[i].Path] = true
				r++
				fileScore[res[i].Path] += tune.PatchWeight / (tune.TitleRRFK + float64(r))
			}
			break
		}
	}
	for li, list := range [][]Result{whole, byTitle} {
		w := 1.0
		if li == 1 {
			w = tune.TitleWeight
		}
		seen := map[string]bool{}
		for _, r := range list {
			if seen[r.Path] {
				continue
			}
			seen[r.Path] = true
			fileScore[r.Path] += w / (tune.TitleRRFK + float64(len(seen)))
			if b, ok := bestRank[r.Path]; !ok || len(seen) < b {
				bestRank[r.Path] = len(seen)
			}
			if li == 1 {
				titleRank[r.Path] = len(seen)
			}
		}
	}
	var out []Result
	inOut := map[int64]bool{}
	nth := map[string]int{}
	for _, list := range [][]Result{whole, byTitle} {
		for _, r := range list {
			if inOut[r.ChunkID] {
				continue
			}
			inOut[r.ChunkID] = true
			r.Score = fileScore[r.Path] * math.Pow(tune.Diversity, float64(nth[r.Path]))
			nth[r.Path]++
			if patchedFile[r.Path] {
				r.Boosts = append(slices.Clip(r.Boosts), "patched")
			}
			if tr, ok := titleRank[r.Path]; ok {
				r.Channels = maps.Clone(r.Channels)
				if r.Channels == nil {
					r.Channels = map[string]ChannelHit{}
				}
				r.Channels["title"] = ChannelHit{Rank: tr}
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return bestRank[out[i].Path] < bestRank[out[j].Path]
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// recalled is what the recall channels found for one query.
type recalled struct {
	lists     []Ranked   // chunk channels, in fusion order
	fileLists []fileList // file channels except bm25-file
	bm25      []store.Hit
	qvec      []float32 // the query's embedding; nil without dense
	// denseText is the text embedded for qvec; empty without dense.
	denseText string
	// denseErr is why embedding the query failed; the dense channel is
	// then left out.
	denseErr error
	// denseTop is the cosine of the dense channel's first hit (Stats.DenseTop).
	denseTop float64
	// unfinished names the channels cut by the deadline (Stats.Unfinished).
	unfinished []string
	// declared maps the chunks the symbol channel found by a name
	// declared inside them (see [DeclaredSource]) to that declaration,
	// which ranking then takes for the chunk's definition.
	declared map[int64]store.Declared
	// prefetched receives, once, the rows of the lexical channels' hits
	// read while the dense channel ran; nil when they were not read (the
	// dense channel ended first, or the read failed).
	prefetched <-chan []store.ChunkRow
}

// rows returns the rows of ids: those prefetched receives (see
// [recalled].prefetched), which may hold more, and the others read now.
func (s *Searcher) rows(ctx context.Context, ids []int64, prefetched <-chan []store.ChunkRow) ([]store.ChunkRow, error) {
	var got []store.ChunkRow
	if prefetched != nil {
		got = <-prefetched
	}
	if len(got) == 0 {
		return s.DB.Chunks(ctx, ids)
	}
	have := make(map[int64]bool, len(got))
	for i := range got {
		have[got[i].ID] = true
	}
	var missing []int64
	for _, id := range ids {
		if !have[id] {
			have[id] = true
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return got, nil
	}
	more, err := s.DB.Chunks(ctx, missing)
	if err != nil {
		return nil, err
	}
	return append(got, more...), nil
}

// prefetch sends on out, once, the rows of the chunks that hits names
// (called once every lexical channel has ended), when the dense channel is
// still running then: fusion keeps those rows whole, and reading them
// now overlaps the scan. It sends nil instead when the dense channel
// ended first, recall was cut (rctx done), or the read failed (the search
// then reads the rows itself); a cut channel's hits are read for nothing.
func (s *Searcher) prefetch(ctx, rctx context.Context, lexical *sync.WaitGroup, denseDone *atomic.Bool, out chan<- []store.ChunkRow, hits func() []int64) {
	lexical.Wait()
	if denseDone.Load() || rctx.Err() != nil {
		out <- nil
		return
	}
	ids := hits()
	slices.Sort(ids)
	rows, err := s.DB.Chunks(ctx, slices.Compact(ids))
	if err != nil {
		rows = nil
	}
	out <- rows
}

// rowsInMemory is a [Source] whose Chunks answers from memory (a
// server's resident chunk table): recall does not read its rows early.
type rowsInMemory interface {
	Source
	RowsInMemory()
}

// hitIDs appends the chunk ids of every hit of lists to ids.
func hitIDs(ids []int64, lists ...[]store.Hit) []int64 {
	for _, l := range lists {
		for _, h := range l {
			ids = append(ids, h.ChunkID)
		}
	}
	return ids
}

// unionChannels returns the channel names in a or b, in [ChannelNames]
// order; nil when neither holds any.
func unionChannels(a, b []string) []string {
	var out []string
	for _, c := range ChannelNames {
		if slices.Contains(a, c) || slices.Contains(b, c) {
			out = append(out, c)
		}
	}
	return out
}

// recall runs the recall channels. They are independent SQLite queries
// (and the dense scan), so they run concurrently on the read pool,
// GOMAXPROCS (at least two) at a time, the dense channel first, then
// BM25; the lists are then put in a fixed order, so fusion sees the same
// input as a sequential run. With [Searcher].Deadline, a channel still running then
// is cut (recalled.unfinished) and its list left out; when the channels
// that finished found nothing, the error is [ErrDeadline].
func (s *Searcher) recall(ctx context.Context, q *analyze.Query, quals qualified, req Request, terms []weighted, n int, allowed []int64) (recalled, error) {
	w := channelWeights(q.Kind)
	var (
		bm25Hits, codeHits, phraseHits, pathHits []store.Hit
		symIDs                                   []int64
		symScores                                []float64
		declared                                 map[int64]store.Declared
		mention                                  fileList
		denseIDs                                 []int64
		denseScores                              []float64
		qvec                                     []float32
		denseErr                                 error
	)
	rctx := ctx
	if !s.Deadline.IsZero() {
		var cancel context.CancelFunc
		rctx, cancel = context.WithDeadline(ctx, s.Deadline)
		defer cancel()
		if s.cutNow != nil {
			// Ends with recall at the latest (the deferred cancel).
			go func() {
				select {
				case <-s.cutNow:
					cancel()
				case <-rctx.Done():
				}
			}()
		}
	}
	g, gctx := errgroup.WithContext(rctx)
	g.SetLimit(cmp.Or(s.Concurrency, max(2, runtime.GOMAXPROCS(0))))
	var (
		cutMu sync.Mutex
		cut   = map[string]bool{} // guarded by cutMu
	)
	// In a one-shot process the lexical channels usually end before the
	// dense one; their hits' rows are then read while the dense scan runs
	// (see recalled.prefetched). lexical counts the lexical channels
	// running.
	var (
		lexical   sync.WaitGroup
		denseDone atomic.Bool
	)
	// run starts channel name. One that fails once the deadline has
	// passed (its query interrupted, its request canceled) is cut: its
	// error is not the search's, and its list is left out below.
	run := func(name string, f func() error) {
		if name != "dense" {
			lexical.Add(1)
		}
		g.Go(func() error {
			if name == "dense" {
				defer denseDone.Store(true)
			} else {
				defer lexical.Done()
			}
			err := f()
			if err != nil && rctx.Err() != nil && ctx.Err() == nil {
				cutMu.Lock()
				cut[name] = true
				cutMu.Unlock()
				return nil
			}
			return err
		})
	}

	// Dense channel, started first: it is the longest, and needs no
	// database connection. A one-shot process reads through one
	// connection, so its lexical channels run one after another; started
	// last, the scan began only once two of them had finished. Measured
	// on the Go standard library's index, 50 queries: `ctx find` whole
	// process p50 94-105 -> 80 ms, search_ms p50 42-46 -> 38 ms, the same
	// results; the server's retrieval unchanged within noise.
	var denseText string
	if s.Embedder != nil && s.Vectors != nil && s.Vectors.Len() > 0 && req.Uses("dense") {
		denseText = denseQuery(q.Text, terms, n)
		run("dense", func() error {
			ectx := gctx
			if s.EmbedTimeout > 0 {
				var cancel context.CancelFunc
				ectx, cancel = context.WithTimeout(gctx, s.EmbedTimeout)
				defer cancel()
			}
			vecs, err := s.Embedder.Embed(ectx, []string{denseText}, embed.Query)
			if err != nil {
				if gctx.Err() != nil {
					// Canceled, or another channel failed: that is the
					// search's error, not the provider's.
					return fmt.Errorf("embedding the query: %w", err)
				}
				// A provider that is down, slow or failing costs the dense
				// channel, not the answer: the lexical channels still
				// answer, and the caller says the search was degraded.
				denseErr = err
				return nil
			}
			qvec = vecs[0]
			denseIDs, denseScores, err = s.Vectors.TopK(gctx, qvec, denseLimit)
			if err != nil {
				return fmt.Errorf("dense search: %w", err)
			}
			return nil
		})
	}

	// BM25 over all columns (the bm25-file channel reuses its hits).
	run("bm25", func() (err error) {
		bm25Hits, err = s.DB.SearchBM25(gctx, store.BM25Query{Terms: termTexts(pickTerms(terms, maxBM25Terms(q.Kind), n)), Weights: bm25Weights, Limit: bm25Limit, FileIDs: allowed})
		return err
	})

	// Path channel: file paths and names that match the query's terms.
	pathTerms := pickTerms(terms, 16, n)
	usePath := len(pathTerms) > 0 && req.Uses("path")
	if usePath {
		run("path", func() (err error) {
			pathHits, err = s.DB.SearchBM25(gctx, store.BM25Query{Terms: termTexts(pathTerms), Weights: bm25Weights, Columns: 1 << store.ColPath, Limit: pathLimit, FileIDs: allowed})
			return err
		})
	}

	// Identifiers written in code style, as their own channel for long
	// queries, where they are drowned by prose in the main BM25 list.
	var code []weighted
	if q.Kind == analyze.QueryLong && req.Uses("code") {
		codeSet := map[string]bool{}
		for _, sym := range q.Symbols {
			analyze.Terms(sym, func(t string) { codeSet[t] = true })
		}
		for _, t := range terms {
			if codeSet[t.text] {
				code = append(code, t)
			}
		}
	}
	if len(code) > 0 {
		run("code", func() (err error) {
			codeHits, err = s.DB.SearchBM25(gctx, store.BM25Query{Terms: termTexts(pickTerms(code, 24, n)), Weights: bm25Weights, Limit: bm25Limit, FileIDs: allowed})
			return err
		})
	}

	// Phrase channel: chunks holding every word of a quoted phrase (an
	// error message, a literal), most precise first.
	var phrase store.BM25Query
	if len(q.Phrases) > 0 && req.Uses("phrase") {
		phrase = phraseQuery(q.Phrases, terms)
	}
	if len(phrase.Groups) > 0 {
		phrase.Weights, phrase.Limit, phrase.FileIDs = bm25Weights, bm25Limit, allowed
		run("phrase", func() (err error) {
			phraseHits, err = s.DB.SearchBM25(gctx, phrase)
			return err
		})
	}

	// Symbol channel: chunks that define a name the query mentions.
	run("symbol", func() (err error) {
		symIDs, symScores, declared, err = s.symbolChannel(gctx, q, quals)
		return err
	})

	// Mention channel: files the query names by path or in a stack frame,
	// represented by the chunk holding the frame's line.
	useMention := (len(q.Paths) > 0 || len(q.Frames) > 0) && req.Uses("mention")
	if useMention {
		run("mention", func() (err error) {
			mention, err = s.mentionChannel(gctx, q, w.mention)
			return err
		})
	}

	var r recalled
	if _, inMemory := s.DB.(rowsInMemory); !inMemory {
		prefetched := make(chan []store.ChunkRow, 1)
		r.prefetched = prefetched
		go s.prefetch(ctx, rctx, &lexical, &denseDone, prefetched, func() []int64 {
			ids := hitIDs(nil, bm25Hits, codeHits, phraseHits, pathHits)
			ids = append(ids, symIDs...)
			return append(ids, mention.reps...)
		})
	}
	if err := g.Wait(); err != nil {
		return recalled{}, err
	}

	for _, c := range ChannelNames {
		if cut[c] {
			r.unfinished = append(r.unfinished, c)
		}
	}
	if cut["bm25"] {
		bm25Hits = nil
	}
	if cut["dense"] {
		qvec = nil
	}
	r.bm25, r.qvec, r.denseText, r.denseErr = bm25Hits, qvec, denseText, denseErr
	if req.Uses("symbol") && !cut["symbol"] {
		r.declared = declared
	}
	if len(denseScores) > 0 && !cut["dense"] {
		r.denseTop = denseScores[0]
	}
	if req.Uses("bm25") && !cut["bm25"] {
		r.lists = append(r.lists, ranked("bm25", w.bm25, bm25Hits))
	}
	if len(code) > 0 && !cut["code"] {
		r.lists = append(r.lists, ranked("code", w.code, codeHits))
	}
	if len(phrase.Groups) > 0 && !cut["phrase"] {
		r.lists = append(r.lists, ranked("phrase", w.phrase, phraseHits))
	}
	if len(symIDs) > 0 && req.Uses("symbol") && !cut["symbol"] {
		r.lists = append(r.lists, Ranked{Channel: "symbol", Weight: w.symbol, IDs: symIDs, Scores: symScores})
	}
	// File channels rank files, not chunks: every candidate chunk of the
	// k-th file gets weight/(RRFK+k), and one representative chunk of each
	// listed file joins the candidates.
	if usePath && !cut["path"] {
		fl := fileList{channel: "path", weight: tune.PathWeight * w.path}
		for _, h := range pathHits {
			fl.reps = append(fl.reps, h.ChunkID)
		}
		r.fileLists = append(r.fileLists, fl)
	}
	if useMention && !cut["mention"] {
		r.fileLists = append(r.fileLists, mention)
	}
	if qvec != nil {
		r.lists = append(r.lists, Ranked{Channel: "dense", Weight: w.dense, IDs: denseIDs, Scores: denseScores})
	}
	if len(cut) > 0 && r.empty(req) {
		// The channels that finished found nothing: an empty answer
		// would read as "nothing matches".
		return r, ErrDeadline
	}
	return r, nil
}

// empty reports whether no channel of req recalled a candidate.
func (r *recalled) empty(req Request) bool {
	for _, l := range r.lists {
		if len(l.IDs) > 0 {
			return false
		}
	}
	for _, fl := range r.fileLists {
		if len(fl.reps) > 0 {
			return false
		}
	}
	return len(r.bm25) == 0 || !req.Uses("bm25-file")
}

// denseRerank adds weight/(RRFK+r) to each candidate, r being its 1-based
// rank by cosine similarity to the query (sims[i] is cands[i]'s), and
// records the rank and similarity as the "dense-rerank" channel: dense
// evidence for chunks that only lexical channels recalled.
func denseRerank(cands []Result, sims []float64, weight float64) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
	for r, i := range order {
		if sims[i] <= 0 {
			break
		}
		add := weight / float64(RRFK+r+1)
		cands[i].Score += add
		cands[i].Fused += add
		cands[i].Channels["dense-rerank"] = ChannelHit{Rank: r + 1, Score: sims[i]}
	}
}

// chunkIDs returns the chunk ids of rs, in order.
func chunkIDs(rs []Result) []int64 {
	ids := make([]int64, len(rs))
	for i := range rs {
		ids[i] = rs[i].ChunkID
	}
	return ids
}

// fileList is a channel that ranks files: reps holds, best file first, one
// or more chunk ids per file (only the first chunk of each file counts).
type fileList struct {
	channel string
	weight  float64
	reps    []int64
}

// fileBM25 ranks files by the sum of their chunks' BM25 scores among the
// BM25 hits (at most 3 chunks a file), a file-level view of the same
// evidence: a file whose several chunks match outranks one lucky chunk.
func fileBM25(hits []store.Hit, byID map[int64]*store.ChunkRow, weight float64) fileList {
	type agg struct {
		rep   int64
		sum   float64
		count int
	}
	byFile := map[int64]*agg{}
	var order []int64
	for _, h := range hits {
		row := byID[h.ChunkID]
		if row == nil {
			continue
		}
		a := byFile[row.FileID]
		if a == nil {
			a = &agg{rep: h.ChunkID}
			byFile[row.FileID] = a
			order = append(order, row.FileID)
		}
		if a.count < 3 {
			a.sum += h.Score
			a.count++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return byFile[order[i]].sum > byFile[order[j]].sum })
	fl := fileList{channel: "bm25-file", weight: weight}
	for _, f := range order {
		fl.reps = append(fl.reps, byFile[f].rep)
	}
	return fl
}

// maxMentions caps the files the mention channel takes from one query.
const maxMentions = 20

// mentionChannel ranks the files a query names by path ("db/models/query.py",
// "server.go"), in stack frames or as the files a diff in it changes, most
// specific mention first: patched files in the diff's order, frames most
// recent call first ([analyze.Query.InnermostFirst]), then paths.
// A mention matches a file whose path equals it or ends with "/" + it, and
// an absolute or longer mention matches a file whose path it ends with
// ("/usr/lib/python3/site-packages/django/db/models/query.py" →
// "django/db/models/query.py"). A frame's file is represented by the chunk
// holding the frame's line.
func (s *Searcher) mentionChannel(ctx context.Context, q *analyze.Query, weight float64) (fileList, error) {
	fl := fileList{channel: "mention", weight: weight}
	type mention struct {
		path string
		line int
	}
	var ms []mention
	for _, p := range q.Patches {
		ms = append(ms, mention{p.Path, p.Line})
	}
	for _, f := range q.InnermostFirst() {
		ms = append(ms, mention{f.Path, f.Line})
	}
	for _, p := range q.Paths {
		ms = append(ms, mention{p, 0})
	}
	paths := make([]string, len(ms))
	for i, m := range ms {
		paths[i] = m.path
	}
	refs, err := s.DB.FilesByPathSuffixes(ctx, paths)
	if err != nil {
		return fl, err
	}
	seen := map[int64]bool{}
	for i, m := range ms {
		if len(seen) >= maxMentions {
			break
		}
		for _, f := range refs[i] {
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			id, err := s.DB.ChunkAtLine(ctx, f.ID, m.line)
			if err != nil {
				return fl, err
			}
			if id != 0 {
				fl.reps = append(fl.reps, id)
			}
		}
	}
	return fl, nil
}

// keep applies the request's language and path filters.
func keep(row *store.ChunkRow, req Request) bool {
	if len(req.Languages) > 0 {
		ok := false
		for _, l := range req.Languages {
			if strings.EqualFold(l, row.Language) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(req.PathGlobs) > 0 {
		ok := false
		for _, g := range req.PathGlobs {
			if m, _ := doublestar.Match(g, row.Path); m {
				ok = true
				break
			}
			// A bare directory or file prefix also matches.
			if p := strings.TrimSuffix(g, "/"); row.Path == p || strings.HasPrefix(row.Path, p+"/") {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// weighted is a query term with its query weight and IDF.
type weighted struct {
	text string
	qw   float64
	df   int
	idf  float64
}

// maxDocFreqTerms caps how many distinct terms of a long query are looked
// up in the vocabulary (by query weight).
const maxDocFreqTerms = 160

// weighTerms looks up the document frequency of q's top terms among the n
// chunks and returns those the index holds with their IDF, and the share
// of the query's term weight they carry ([Stats].TermCoverage).
func (s *Searcher) weighTerms(ctx context.Context, q *analyze.Query, n int) ([]weighted, float64, error) {
	ts := q.TopTerms(maxDocFreqTerms)
	words := make([]string, len(ts))
	for i, t := range ts {
		words[i] = t.Text
	}
	dfs, err := s.DB.DocFreqs(ctx, words)
	if err != nil {
		return nil, 0, err
	}
	out := make([]weighted, 0, len(ts))
	var all, found float64
	for _, t := range ts {
		df := dfs[t.Text]
		if df == 0 && t.Variant {
			continue // a guessed spelling: its absence says nothing
		}
		all += t.Weight
		if df == 0 {
			continue
		}
		found += t.Weight
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		out = append(out, weighted{text: t.Text, qw: t.Weight, df: df, idf: idf})
	}
	coverage := 0.0
	if all > 0 {
		coverage = found / all
	}
	return out, coverage, nil
}

// denseQuery returns the query text to embed: raw without the words whose
// term is in more than tune.DenseDropDF of the n chunks (the project's
// own name, which every path holds: "serde" in "how serde handles maps"),
// as those pull the query toward whatever chunk is mostly its path. A
// query of only such words, or an index under pruneMinChunks, is kept
// whole.
func denseQuery(raw string, terms []weighted, n int) string {
	if n < pruneMinChunks || tune.DenseDropDF <= 0 {
		return raw
	}
	common := map[string]bool{}
	for _, t := range terms {
		if float64(t.df) > tune.DenseDropDF*float64(n) {
			common[t.text] = true
		}
	}
	if len(common) == 0 {
		return raw
	}
	var b strings.Builder
	kept := false
	last := 0
	analyze.Words(raw, func(w string, off int) {
		if !common[strings.ToLower(w)] {
			kept = kept || !analyze.IsStopword(w)
			return
		}
		b.WriteString(raw[last:off])
		last = off + len(w)
	})
	if !kept {
		return raw
	}
	b.WriteString(raw[last:])
	return b.String()
}

// pruneMinChunks is the index size (chunks) from which denseQuery leaves
// out words most chunks hold; below it every word counts.
const pruneMinChunks = 100

// postingBudget caps the sum of the document frequencies of the terms one
// FTS query may use: FTS5 scores every row a term matches (a docsize lookup
// each, about 2 µs per row in a measured run on the Go standard library),
// so common terms, which add little to BM25 through their low IDF, are
// dropped once rarer ones have used the budget.
const postingBudget = 15000

// stemTwin is how much more frequent than its original word a stem must
// be to be worth querying: a stem that matches (nearly) the same chunks as
// the word it came from ("idle"/"idl") only doubles the cost and the score.
const stemTwin = 1.25

// costMinChunks is the index size (chunks) from which pickTerms bounds
// the cost of a query (stem twins, postingBudget); smaller indexes answer
// every query in a few milliseconds.
const costMinChunks = 20000

// pickTerms returns up to max terms by query weight × IDF. Once a rarer
// term is in, it leaves out stems that are twins of their word and terms
// past postingBudget (indexes of costMinChunks or more). Common terms are
// otherwise kept, their low IDF weighing them: also leaving out every term
// in more than a quarter of the chunks (as ctx did up to this build) scored
// semble DEV 0.8412 against 0.8478 without it (0.35 0.8450, 0.5 0.8474,
// 0.75 0.8472; every leave-one-repository-out fold preferred dropping
// less), SWE-bench Lite DEV 50 and the Lite dev split the same; the
// posting budget bounds the cost on large indexes either way.
func pickTerms(ts []weighted, max, n int) []weighted {
	ts = append([]weighted(nil), ts...)
	sort.SliceStable(ts, func(i, j int) bool {
		return math.Sqrt(ts[i].qw)*ts[i].idf > math.Sqrt(ts[j].qw)*ts[j].idf
	})
	dfOf := make(map[string]int, len(ts))
	for _, t := range ts {
		dfOf[t.text] = t.df
	}
	twin := map[string]bool{}
	for _, t := range ts {
		if st := analyze.Stem(t.text); st != t.text {
			if df, ok := dfOf[st]; ok && float64(df) <= stemTwin*float64(t.df) {
				twin[st] = true
			}
		}
	}
	var out []weighted
	postings := 0
	for _, t := range ts {
		if len(out) >= max {
			break
		}
		if len(out) > 0 {
			if n >= costMinChunks && (twin[t.text] || postings+t.df > postingBudget) {
				continue
			}
		}
		postings += t.df
		out = append(out, t)
	}
	return out
}

func maxBM25Terms(k analyze.QueryKind) int {
	if k == analyze.QueryLong {
		return 40
	}
	return 24
}

// maxPhrases caps the quoted phrases one query turns into term groups.
const maxPhrases = 8

// phraseQuery builds a BM25 query matching chunks that hold all the words
// of at least one quoted phrase: (a AND b) OR (c AND d). Words the index
// does not know (df 0 in terms) make their phrase unmatchable, so the
// phrase is left out; phrases of one word are left out too (BM25 has
// them). No groups means no phrase channel.
func phraseQuery(phrases []string, terms []weighted) store.BM25Query {
	known := make(map[string]bool, len(terms))
	for _, t := range terms {
		known[t.text] = true
	}
	var q store.BM25Query
	index := map[string]int{}
	for _, p := range phrases {
		if len(q.Groups) == maxPhrases {
			break
		}
		var words []string
		ok := true
		seen := map[string]bool{}
		analyze.Words(p, func(w string, _ int) {
			lw := strings.ToLower(w)
			if analyze.IsStopword(lw) || len(lw) < 2 || seen[lw] {
				return
			}
			seen[lw] = true
			if !known[lw] {
				ok = false
			}
			words = append(words, lw)
		})
		if !ok || len(words) < 2 || len(index)+len(words) > store.MaxGroupTerms {
			continue
		}
		var g []int
		for _, w := range words {
			i, ok := index[w]
			if !ok {
				i = len(q.Terms)
				index[w] = i
				q.Terms = append(q.Terms, w)
			}
			g = append(g, i)
		}
		q.Groups = append(q.Groups, g)
	}
	return q
}

// termTexts returns the terms' texts, in order.
func termTexts(ts []weighted) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}

func ranked(channel string, weight float64, hits []store.Hit) Ranked {
	r := Ranked{Channel: channel, Weight: weight, IDs: make([]int64, len(hits)), Scores: make([]float64, len(hits))}
	for i, h := range hits {
		r.IDs[i], r.Scores[i] = h.ChunkID, h.Score
	}
	return r
}

// symbolChannel finds chunks defining a name the query mentions: for each
// code-style symbol, its last segment ("http.Server" → "Server"); for a
// symbol query, the whole query too. Exact-case matches rank first. A
// symbol query also finds, when the source is a [DeclaredSource], the
// chunks declaring such a name inside them ("time.Monday" in the const
// group that starts with Sunday, "io.Reader.Read" in the Reader
// interface), scored as definitions; declared maps each such chunk to
// the first such declaration read.
func (s *Searcher) symbolChannel(ctx context.Context, q *analyze.Query, quals qualified) (ids []int64, scores []float64, declared map[int64]store.Declared, err error) {
	want := map[string]bool{}
	var names []string
	add := func(n string) {
		if n == "" || want[n] {
			return
		}
		want[n] = true
		names = append(names, n)
	}
	for _, sym := range q.Symbols {
		add(lastSegment(sym))
	}
	// A capitalised word of a question counts only as the exact name of
	// a definition (trait Monoid, not the method monoid).
	exactOnly := map[string]bool{}
	if tune.NamedDefBoost > 0 {
		for _, n := range q.Names {
			if !want[n] {
				exactOnly[n] = true
				add(n)
			}
		}
	}
	if q.Kind == analyze.QuerySymbol {
		analyze.Words(q.Name, func(w string, _ int) {
			if len(w) >= 3 {
				add(w)
			}
		})
	}
	if len(names) == 0 {
		return nil, nil, nil, nil
	}
	if len(names) > 200 {
		names = names[:200]
	}
	// A qualified name ("io.Reader") looks further: the rows come in path
	// order, and the qualified definition of a common name may sort late.
	fetch := symbolLimit * 4
	if q.Kind == analyze.QuerySymbol && len(quals) > 0 {
		fetch = symbolLimit * 20
	}
	// anyCase holds, lower-cased, the names matched in any letter case.
	anyCase := map[string]bool{}
	for _, n := range names {
		if !exactOnly[n] {
			anyCase[strings.ToLower(n)] = true
		}
	}
	rows, err := s.DB.ChunksByName(ctx, names, fetch)
	if err != nil {
		return nil, nil, nil, err
	}
	type c struct {
		id    int64
		score float64
		path  string
		start int
	}
	// score rates a chunk defining name, or nothing for a capitalised
	// word's other-case twin: 1, one more for the exact case, for a
	// definition's kind and for a definition under the query's
	// qualifiers, half a point less for a later piece of a split one.
	score := func(name string, definition bool, part int, path, lang, symbol, crumb string) (float64, bool) {
		if len(exactOnly) > 0 && !anyCase[strings.ToLower(name)] && !exactOnly[name] {
			return 0, false
		}
		sc := 1.0
		if want[name] {
			sc++
		}
		if definition {
			sc++
		}
		if part > 1 {
			sc -= 0.5
		}
		if qs := quals[name]; len(qs) > 0 && holdsQualifiers(path, lang, symbol, crumb, qs) {
			sc++
		}
		return sc, true
	}
	var cs []c
	for _, r := range rows {
		if sc, ok := score(r.Name, isDefinitionKind(r.Kind), r.Part, r.Path, r.Language, r.Symbol, r.Breadcrumb); ok {
			cs = append(cs, c{r.ID, sc, r.Path, r.StartByte})
		}
	}
	if ds, ok := s.DB.(DeclaredSource); ok && q.Kind == analyze.QuerySymbol {
		decls, err := ds.DeclaredChunks(ctx, names, fetch)
		if err != nil {
			return nil, nil, nil, err
		}
		found := make(map[int64]int, len(cs))
		for i, x := range cs {
			found[x.id] = i
		}
		for _, d := range decls {
			sc, ok := score(d.Name, true, 0, d.Path, d.Language, cmp.Or(d.Symbol, d.Name), d.Crumb)
			if !ok {
				continue
			}
			if i, ok := found[d.ChunkID]; ok {
				// The chunk defines another name the query asks for
				// (the owner "Reader" of "io.Reader.Read"): the
				// declaration it holds is the better reason.
				if sc > cs[i].score {
					cs[i].score = sc
				}
			} else {
				found[d.ChunkID] = len(cs)
				cs = append(cs, c{d.ChunkID, sc, d.Path, d.Start})
			}
			if declared == nil {
				declared = map[int64]store.Declared{}
			}
			if _, ok := declared[d.ChunkID]; !ok {
				declared[d.ChunkID] = d
			}
		}
	}
	// Equal scores go by place in the tree, not by chunk id: ids depend on
	// the order files were indexed in, and the same tree must rank the
	// same however its index was built.
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		if cs[i].path != cs[j].path {
			return cs[i].path < cs[j].path
		}
		return cs[i].start < cs[j].start
	})
	if len(cs) > symbolLimit {
		cs = cs[:symbolLimit]
	}
	ids = make([]int64, len(cs))
	scores = make([]float64, len(cs))
	for i, x := range cs {
		ids[i], scores[i] = x.id, x.score
	}
	return ids, scores, declared, nil
}

func lastSegment(sym string) string {
	for _, sep := range []string{"::", "->", ".", "#"} {
		if i := strings.LastIndex(sym, sep); i >= 0 {
			sym = sym[i+len(sep):]
		}
	}
	return strings.Trim(sym, "()*&")
}

// kindImpl is the kind of an impl block or extension (chunk.KindImpl).
const kindImpl = "impl"

// isCodeDefinition reports whether a chunk of kind k defines a function,
// method or class: code with a body, not an import block or a
// re-exporting assignment.
func isCodeDefinition(k string) bool {
	switch k {
	case "function", "method", "class":
		return true
	}
	return false
}

func isDefinitionKind(k string) bool {
	switch k {
	case "block", "window", "section", "":
		return false
	}
	return true
}

// fileStem returns a path's base name without extension, lower-cased.
func fileStem(p string) string {
	b := path.Base(p)
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return strings.ToLower(b)
}
