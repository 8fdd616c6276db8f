package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/search"
)

// Pattern search finds code shaped like a snippet: the same syntax with
// other names and constants, or with small edits (type-2 and type-3
// clones), in any language. Two channels score every candidate:
//
//   - structure: the Jaccard similarity of the structural sketches
//     (chunk.Sketch: node-kind paths with identifiers and literals
//     abstracted, node kinds normalised across languages), estimated from
//     the 32-byte sketch each chunk stores, over every chunk of the index;
//   - dense: the cosine of the snippet's embedding to the chunk's, from
//     the index's vectors (when it has an embedding model).
//
// The score is likeStructureWeight·structure + (1 − likeStructureWeight)·
// max(0, dense); see that constant for the measurement.

// Pattern-search channels, for [LikeRequest.Channels].
const (
	LikeStructure = "structure"
	LikeDense     = "dense"
)

// likeStructureWeight is the structure channel's share of a pattern
// search's score. On the labelled clone fixture
// (testdata/like/clones.txtar; like_test.go, testdata/like/stats.txt)
// precision@5 was 0.967 for structure alone and 0.478 for dense alone;
// the weighted sum scored 0.870, 0.935, 0.948, 0.961, 0.965 and 0.967 at
// structure weights 0.3, 0.5, 0.6, 0.7, 0.8 and 0.9, and reciprocal-rank
// fusion (k = 60) 0.777. The fixture's clones share no vocabulary (their
// names are drawn at random), so the dense channel cannot help there and
// anything from 0.8 up is equal within one query of 138; 0.8 keeps a
// dense share that orders code of one shape by what it is about: on the
// Go tree, the Rabin-Karp loop of strings.LastIndex (strings.go:97-112)
// finds internal/bytealg's LastIndexRabinKarp, HashStrRev and
// IndexRabinKarp first, where structure alone puts loops of math/big and
// internal/zstd second to fifth. The fixture is too small to tune the
// constant further.
const likeStructureWeight = 0.8

// likeCandidates is how many chunks each channel passes to the fusion:
// the structure channel's best and the dense channel's nearest. Past the
// first few dozen the weighted score of a chunk that only one channel
// ranks high cannot reach a result's; 200 keeps that true for limits up
// to 50.
const likeCandidates = 200

// LikeRequest is one pattern search. The snippet is either lines of an
// indexed file (Path, StartLine, EndLine) or code given as text (Code,
// with its language).
type LikeRequest struct {
	// Path names the file holding the snippet: relative to the root, or
	// absolute inside it. StartLine and EndLine are 1-based and
	// inclusive; EndLine 0 means the chunk of the index that holds
	// StartLine.
	Path               string
	StartLine, EndLine int
	// Code is the snippet as text, used when Path is empty; its common
	// indentation is removed. Language is its discover.Lang* id.
	Code     string
	Language string
	// Limit is the most results (default 10). Languages and PathGlobs
	// filter the results as in [FindRequest]; the snippet's own lines
	// are never a result.
	Limit     int
	Languages []string
	PathGlobs []string
	// Channels restricts scoring to LikeStructure or LikeDense; empty
	// uses both.
	Channels []string
	// Full attaches each result's code.
	Full bool
}

// Similarity is a pattern-search result's evidence: the estimated
// Jaccard similarity of the structural sketches and the embedding cosine,
// each in [0, 1] (dense is 0 when the index has no vectors).
type Similarity struct {
	Structure float64 `json:"structure"`
	Dense     float64 `json:"dense"`
}

// LikeResponse is a pattern search's answer, in the shape of
// [FindResponse]: Query describes the snippet ("path:start-end", or the
// language and line count of code given as text).
type LikeResponse struct {
	Query   string    `json:"query"`
	Results []Hit     `json:"results"`
	Stats   LikeStats `json:"stats"`
}

// LikeStats is the "stats" object of a pattern search.
type LikeStats struct {
	SearchMS float64 `json:"search_ms"`
	// Compared is how many chunks' sketches were compared.
	Compared        int    `json:"chunks_compared"`
	IndexGeneration int64  `json:"index_generation"`
	Language        string `json:"language"` // the snippet's
	// Channels are the channels that scored ("structure", "dense").
	Channels []string `json:"channels"`
	// Note says what was left out, e.g. the dense channel without an
	// embedding model.
	Note string `json:"note,omitempty"`
}

// snippet is a pattern search's query, resolved.
type snippet struct {
	label    string
	lang     string
	code     string
	sketch   []byte
	path     string // "" for code given as text
	from, to int    // its lines in path, 1-based, inclusive
}

// Like finds code structurally similar to a snippet (see the comment at
// the top of like.go). Errors: [ErrInvalidArgument] for an empty snippet,
// lines out of range, a language without a grammar, code that does not
// parse, a snippet of comments only; an error wrapping
// discover.ErrOutsideRoot for a path outside the root; [ErrNotFound] for
// a file that does not exist; and those of [Engine.ChunkAt] and of
// opening the index ([ErrNotIndexed], [ErrStale], …).
func (e *Engine) Like(ctx context.Context, req LikeRequest) (*LikeResponse, error) {
	start := time.Now()
	if req.Limit <= 0 {
		req.Limit = 10
	}
	for _, c := range req.Channels {
		if c != LikeStructure && c != LikeDense {
			return nil, Errorf(ErrInvalidArgument, "unknown pattern-search channel %q (want %s or %s)", c, LikeStructure, LikeDense)
		}
	}
	sn, err := e.likeSnippet(ctx, req)
	if err != nil {
		return nil, err
	}
	v, release, err := e.acquireCurrent(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	resp := &LikeResponse{Query: sn.label, Results: []Hit{}, Stats: LikeStats{IndexGeneration: v.gen, Language: sn.lang}}
	useStruct := len(req.Channels) == 0 || slices.Contains(req.Channels, LikeStructure)
	useDense := len(req.Channels) == 0 || slices.Contains(req.Channels, LikeDense)
	if useDense && e.emb == nil {
		if len(req.Channels) > 0 {
			return nil, WithFix(Errorf(ErrNotConfigured, "the dense channel needs an embedding model, but CTX_EMBED_PROVIDER is none"), "set CTX_EMBED_PROVIDER (builtin: the built-in model) and run `ctx index`")
		}
		useDense = false
		resp.Stats.Note = "no embedding model: the structure channel answered alone"
	}
	if useStruct {
		resp.Stats.Channels = append(resp.Stats.Channels, LikeStructure)
	}
	if useDense {
		resp.Stats.Channels = append(resp.Stats.Channels, LikeDense)
	}

	files, err := v.db.FileLangs(ctx)
	if err != nil {
		return nil, err
	}
	type fileInfo struct {
		path, lang string
		ok         bool // passes the filters
	}
	byID := make(map[int64]fileInfo, len(files))
	for _, f := range files {
		ok := (len(req.Languages) == 0 || slices.Contains(req.Languages, f.Language)) &&
			(len(req.PathGlobs) == 0 || slices.ContainsFunc(req.PathGlobs, func(g string) bool { return MatchGlob(g, f.Path) }))
		byID[f.ID] = fileInfo{f.Path, f.Language, ok}
	}

	// Structure: every chunk's sketch against the snippet's.
	set, err := e.viewSketches(ctx, v)
	if err != nil {
		return nil, err
	}
	sims := make([]float64, len(set.ids))
	var order []int
	for i := range set.ids {
		if !byID[set.files[i]].ok {
			continue
		}
		resp.Stats.Compared++
		sims[i] = chunk.Similarity(sn.sketch, set.data[i*chunk.SketchBytes:(i+1)*chunk.SketchBytes])
		order = append(order, i)
	}
	structSim := func(id int64) float64 {
		if i, ok := slices.BinarySearch(set.ids, id); ok {
			return sims[i]
		}
		return 0
	}
	cands := map[int64]bool{}
	if useStruct {
		slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(sims[b], sims[a]), cmp.Compare(a, b)) })
		for _, i := range order[:min(len(order), likeCandidates)] {
			cands[set.ids[i]] = true
		}
	}

	// Dense: the snippet's nearest chunks, and the cosine of the
	// structure channel's candidates.
	var denseSim map[int64]float64
	if useDense {
		vecs, err := e.viewVectors(ctx, v)
		if errors.Is(err, search.ErrVectorsMissing) {
			return nil, WithFix(err, "run `ctx index` to embed the chunks whose vectors were lost")
		}
		if err != nil {
			return nil, err
		}
		qv, err := e.emb.Embed(ctx, []string{sn.code}, embed.Document)
		if err != nil {
			return nil, Errorf(ErrProviderUnavailable, "embedding the snippet: %v", err)
		}
		denseSim = map[int64]float64{}
		ids, scores := vecs.Nearest(qv[0], likeCandidates)
		for i, id := range ids {
			denseSim[id] = scores[i]
			cands[id] = true
		}
		var rest []int64
		for id := range cands {
			if _, ok := denseSim[id]; !ok {
				rest = append(rest, id)
			}
		}
		slices.Sort(rest)
		for i, s := range vecs.Similarities(qv[0], rest) {
			denseSim[rest[i]] = s
		}
	}

	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	rows, err := v.db.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	type scored struct {
		hit   Hit
		score float64
	}
	var out []scored
	for _, r := range rows {
		f, ok := byID[r.FileID]
		if !ok || !f.ok || r.Path == sn.path && r.StartLine <= sn.to && r.EndLine >= sn.from {
			continue
		}
		st := structSim(r.ID)
		sim := Similarity{Structure: round(st), Dense: round(max(0, denseSim[r.ID]))}
		var score float64
		switch {
		case useStruct && useDense:
			score = likeStructureWeight*st + (1-likeStructureWeight)*max(0, denseSim[r.ID])
		case useStruct:
			score = st
		default:
			score = max(0, denseSim[r.ID])
		}
		h := Hit{Path: r.Path, PathBytes: PathBytes(r.Path), StartLine: r.StartLine, EndLine: r.EndLine, Score: round(score),
			Language: r.Language, Kind: r.Kind, Symbol: r.Symbol, Summary: r.Summary, StartByte: r.StartByte, EndByte: r.EndByte,
			Similarity: &sim}
		out = append(out, scored{h, score})
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.hit.Path, b.hit.Path), cmp.Compare(a.hit.StartLine, b.hit.StartLine))
	})
	for _, s := range out[:min(len(out), req.Limit)] {
		h := s.hit
		if req.Full {
			h.Code = e.Code(h)
		}
		resp.Results = append(resp.Results, h)
	}
	resp.Stats.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// likeSnippet resolves and sketches a pattern search's snippet.
func (e *Engine) likeSnippet(ctx context.Context, req LikeRequest) (*snippet, error) {
	var sn snippet
	var src []byte
	var startByte, endByte int
	if req.Path != "" {
		if req.StartLine < 1 || req.EndLine != 0 && req.EndLine < req.StartLine {
			return nil, Errorf(ErrInvalidArgument, "lines %d-%d: want 1 <= start <= end", req.StartLine, req.EndLine)
		}
		if req.EndLine == 0 {
			h, err := e.ChunkAt(ctx, req.Path, req.StartLine)
			if err != nil {
				return nil, err
			}
			req.Path, req.StartLine, req.EndLine = h.Path, h.StartLine, h.EndLine
		}
		rel, err := e.indexedPath(req.Path)
		if err != nil {
			return nil, err
		}
		src, err = e.readIndexed(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, Errorf(ErrNotFound, "%s: no such file under %s", rel, e.root)
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", rel, err)
		}
		starts := lineStarts(src)
		if req.EndLine > len(starts) {
			return nil, Errorf(ErrInvalidArgument, "lines %d-%d are outside %s, which has %d lines", req.StartLine, req.EndLine, rel, len(starts))
		}
		startByte = starts[req.StartLine-1]
		endByte = len(src)
		if req.EndLine < len(starts) {
			endByte = starts[req.EndLine]
		}
		sn.path, sn.from, sn.to = rel, req.StartLine, req.EndLine
		sn.lang = discover.ContentLanguage(rel, discover.Language(rel), src)
		sn.label = fmt.Sprintf("%s:%d-%d", rel, req.StartLine, req.EndLine)
	} else {
		if req.Language == "" {
			return nil, Errorf(ErrInvalidArgument, "code given as text needs its language (a --language, e.g. go or python)")
		}
		src = dedent([]byte(req.Code))
		startByte, endByte = 0, len(src)
		sn.lang = req.Language
	}
	sn.code = string(src[startByte:endByte])
	if len(bytes.TrimSpace([]byte(sn.code))) == 0 {
		return nil, Errorf(ErrInvalidArgument, "the snippet is empty")
	}
	if !chunk.HasGrammar(sn.lang) {
		return nil, Errorf(ErrInvalidArgument, "pattern search needs a language ctx parses, and %q is not one (see README, Languages)", sn.lang)
	}
	if req.Path == "" {
		sn.label = fmt.Sprintf("%s snippet, %d lines", sn.lang, bytes.Count(src, []byte("\n"))+1-boolInt(bytes.HasSuffix(src, []byte("\n"))))
	}
	sk, errLine, err := chunk.New(nil).Sketch(ctx, sn.lang, src, startByte, endByte)
	if err != nil {
		return nil, fmt.Errorf("parsing the snippet: %w", err)
	}
	if errLine > 0 && req.Path == "" {
		return nil, Errorf(ErrInvalidArgument, "the snippet does not parse as %s (syntax error on its line %d): pass whole statements or definitions, in the language --language names", sn.lang, errLine)
	}
	if sk == nil {
		return nil, Errorf(ErrInvalidArgument, "%s holds no code, only comments or blank lines", sn.label)
	}
	sn.sketch = sk
	return &sn, nil
}

// lineStarts returns the byte offset of each line of src.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// dedent removes the longest run of spaces and tabs that starts every
// non-blank line of src (code pasted from inside a class or function).
func dedent(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	var prefix []byte
	first := true
	for _, l := range lines {
		t := bytes.TrimRight(l, " \t\r\n")
		if len(t) == 0 {
			continue
		}
		ind := t[:len(t)-len(bytes.TrimLeft(t, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ind) && prefix[n] == ind[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if len(prefix) == 0 {
		return src
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(bytes.TrimPrefix(l, prefix))
	}
	return b.Bytes()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sketchSet is every chunk's structural sketch, by increasing chunk id.
type sketchSet struct {
	ids   []int64
	files []int64 // file id of each chunk
	data  []byte  // chunk i's sketch at [i*SketchBytes, (i+1)*SketchBytes)
}

// viewSketches returns the sketches of v's index, read once per view: a
// kept engine (ctx mcp) reads them from SQLite at its first pattern
// search after each index run (on the Go tree about 100k rows, most of a
// one-shot search's time) and compares from memory afterwards.
func (e *Engine) viewSketches(ctx context.Context, v *view) (*sketchSet, error) {
	v.sketchMu.Lock()
	defer v.sketchMu.Unlock()
	if v.sketches != nil {
		return v.sketches, nil
	}
	set := &sketchSet{}
	if err := v.db.Sketches(ctx, func(id, fileID int64, sk []byte) error {
		if len(sk) != chunk.SketchBytes {
			return nil // written by another sketch size: never similar
		}
		set.ids = append(set.ids, id)
		set.files = append(set.files, fileID)
		set.data = append(set.data, sk...)
		return nil
	}); err != nil {
		return nil, err
	}
	v.sketches = set
	return set, nil
}
