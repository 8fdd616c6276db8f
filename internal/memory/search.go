package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/internal/store"
)

// Embedder embeds memory texts and queries for the dense channel.
type Embedder struct {
	// Provider is the engine's embedding model; nil turns the dense
	// channel off.
	Provider embed.Provider
	// Mask masks what the secret detector finds ([secrets.Redact]) in every
	// text before it is embedded. Set it for providers that send texts off
	// the machine; the stored text stays as written.
	Mask bool
	// BatchSize is the most texts per provider call (0: all at once).
	BatchSize int
	// QueryTimeout bounds embedding a query (0: no bound beyond ctx's).
	QueryTimeout time.Duration
}

// maskName is the file name secrets.Redact reads memory texts as: no
// extension, so assignments are read as configuration, the most eager
// reading ("password: hunter2" is masked even unquoted).
const maskName = "memory"

func (e *Embedder) active() bool { return e != nil && e.Provider != nil }

// embed returns texts' vectors and the model identity that made them
// (taken after the call, when a provider that learns its dimensions from
// its first answer knows them).
func (e *Embedder) embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, string, error) {
	if e.Mask {
		masked := make([]string, len(texts))
		for i, t := range texts {
			b := []byte(t)
			if len(secrets.Redact(maskName, b)) > 0 {
				t = string(b)
			}
			masked[i] = t
		}
		texts = masked
	}
	vecs, err := embed.Batch(ctx, e.Provider, texts, kind, e.BatchSize)
	if err != nil {
		return nil, "", err
	}
	return vecs, e.Provider.Model().String(), nil
}

// Query is one memory search.
type Query struct {
	Text  string
	Limit int // default 10
	Filter
}

// Hit is one memory found by a search, with its fused score and where
// each channel ranked it ("bm25", "dense").
type Hit struct {
	Memory
	Score    float64                      `json:"score"`
	Channels map[string]search.ChannelHit `json:"channels,omitempty"`
}

// Stats describes one search.
type Stats struct {
	// SearchMS is the search's time in milliseconds.
	SearchMS float64 `json:"search_ms"`
	// Memories is how many memories the store holds.
	Memories int `json:"memories"`
	// Reembedded is how many memories were embedded again during the
	// search because the embedding model changed (or they had no vector).
	Reembedded int `json:"reembedded,omitempty"`
	// Degraded says why the dense channel did not run although a model is
	// configured ("dense channel unavailable: …"); absent otherwise.
	Degraded string `json:"degraded,omitempty"`
}

// Channel weights, RRF and the priority lift.
const (
	// BM25Weight and DenseWeight are the channels' RRF weights: equal, as
	// neither channel is known to be better on notes (on the labelled
	// fixture, testdata/quality.json, each alone is worse than both).
	BM25Weight  = 1.0
	DenseWeight = 1.0
	// DenseFloor is the least cosine similarity that lets a memory into
	// the dense list. Static embedding models give unrelated texts cosines
	// well above zero; without a floor every memory would be a hit of
	// every query. A memory the BM25 channel finds is kept whatever its
	// cosine. Chosen on the labelled fixture (TestQuality) as the floor
	// that keeps its graded memories and cuts most others.
	DenseFloor = 0.35
	// PriorityLift is added to a hit's fused score per point of priority,
	// for priorities clamped to ±[MaxPriorityLift]. One point is worth
	// about one rank near the top of one channel (1/61 − 1/62 ≈ 0.00026
	// with RRF's k = 60), so priority reorders close hits but does not
	// lift a weak hit over a strong one.
	PriorityLift = 0.00025
	// MaxPriorityLift is the most points of priority that count.
	MaxPriorityLift = 8
)

// memoryWeights are the BM25 column weights of a memory's fields, taken
// from the code index's (search: name 3, path 2, doc 2, body 1): tags are
// names someone gave the memory, so they weigh as symbol names; the path
// as a chunk's path; the text, which is prose about code, as a doc
// comment. The body column is unused.
var memoryWeights = store.BM25Weights{store.ColName: 3, store.ColPath: 2, store.ColDoc: 2}

// maxQueryTerms caps the query terms scored, by query weight: as many as
// the code index's BM25 channel takes for a long query.
const maxQueryTerms = 40

// Search finds the memories that answer q.Text among those q.Filter
// keeps, best first, at most q.Limit. With an active emb it embeds the
// query (a failure degrades the search to BM25, said in Stats.Degraded)
// and re-embeds memories whose vectors another model made ([DB.Refresh]).
// An empty store returns no hits. Errors: a bad filter ([ErrInvalid]),
// SQLite failures, ctx's.
func (db *DB) Search(ctx context.Context, q Query, emb *Embedder) ([]Hit, Stats, error) {
	start := time.Now()
	var st Stats
	f, err := q.Filter.normalize()
	if err != nil {
		return nil, st, err
	}
	q.Filter = f
	recs, err := db.records(ctx, emb.active())
	if err != nil {
		return nil, st, err
	}
	st.Memories = len(recs)
	var qvec []float32
	if emb.active() && len(recs) > 0 {
		qctx, cancel := ctx, context.CancelFunc(func() {})
		if emb.QueryTimeout > 0 {
			qctx, cancel = context.WithTimeout(ctx, emb.QueryTimeout)
		}
		vecs, _, err := emb.embed(qctx, []string{q.Text}, embed.Query)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, st, ctx.Err()
			}
			st.Degraded = fmt.Sprintf("dense channel unavailable: %v", err)
		} else {
			qvec = vecs[0]
			recs, st.Reembedded, err = db.refresh(ctx, recs, emb)
			if err != nil {
				if ctx.Err() != nil {
					return nil, st, ctx.Err()
				}
				st.Degraded = fmt.Sprintf("dense channel partly unavailable: %v", err)
			}
		}
	}
	hits := rank(recs, q, qvec)
	st.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return hits, st, nil
}

// docTerms counts one memory's analysed terms per column.
type docTerms struct {
	tf map[string][store.NumColumns]uint16
	dl int // terms over all columns
}

func analyzeMemory(m *Memory) docTerms {
	d := docTerms{tf: map[string][store.NumColumns]uint16{}}
	add := func(col int, text string) {
		analyze.Terms(text, func(t string) {
			c := d.tf[t]
			if c[col] < 1<<16-1 {
				c[col]++
			}
			d.tf[t] = c
			d.dl++
		})
	}
	add(store.ColDoc, m.Text)
	for _, t := range m.Tags {
		add(store.ColName, t)
	}
	add(store.ColPath, m.Path)
	return d
}

// rank scores recs against q: BM25 statistics over every memory (as the
// code index's are over the whole index), hits only among those q.Filter
// keeps; qvec nil leaves the dense channel out.
func rank(recs []record, q Query, qvec []float32) []Hit {
	limit := cmp.Or(q.Limit, 10)
	if len(recs) == 0 || limit <= 0 {
		return []Hit{}
	}
	var terms []string
	for _, t := range analyze.Analyze(q.Text).TopTerms(maxQueryTerms) {
		terms = append(terms, t.Text)
	}
	docs := make([]docTerms, len(recs))
	df := make(map[string]int, len(terms))
	for _, t := range terms {
		df[t] = 0
	}
	total := 0
	for i := range recs {
		docs[i] = analyzeMemory(&recs[i].Memory)
		total += docs[i].dl
		for _, t := range terms {
			if _, ok := docs[i].tf[t]; ok {
				df[t]++
			}
		}
	}
	avgdl := float64(total) / float64(len(recs))
	idf := make([]float64, len(terms))
	for i, t := range terms {
		idf[i] = store.BM25IDF(len(recs), df[t])
	}

	type scored struct {
		i int
		s float64
	}
	var lex, dense []scored
	for i := range recs {
		m := &recs[i].Memory
		if !q.Filter.keep(m) {
			continue
		}
		s := 0.0
		for ti, t := range terms {
			c, ok := docs[i].tf[t]
			if !ok {
				continue
			}
			f := 0.0
			for col, w := range memoryWeights {
				f += w * float64(c[col])
			}
			if f > 0 {
				s += store.BM25TermScore(idf[ti], f, float64(docs[i].dl), avgdl)
			}
		}
		if s > 0 {
			lex = append(lex, scored{i, s})
		}
		if v := recs[i].vec; qvec != nil && len(v) == len(qvec) {
			if sim := float64(embed.Dot(qvec, v)); sim >= DenseFloor {
				dense = append(dense, scored{i, sim})
			}
		}
	}
	byScore := func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(recs[a.i].ID, recs[b.i].ID))
	}
	slices.SortFunc(lex, byScore)
	slices.SortFunc(dense, byScore)
	list := func(name string, w float64, ss []scored) search.Ranked {
		r := search.Ranked{Channel: name, Weight: w, IDs: make([]int64, len(ss)), Scores: make([]float64, len(ss))}
		for j, s := range ss {
			r.IDs[j], r.Scores[j] = int64(s.i), s.s
		}
		return r
	}
	fused := search.Fuse([]search.Ranked{list("bm25", BM25Weight, lex), list("dense", DenseWeight, dense)})
	hits := make([]Hit, len(fused))
	for j, f := range fused {
		m := recs[f.ID].Memory
		hits[j] = Hit{Memory: m, Score: f.Score + PriorityLift*float64(max(-MaxPriorityLift, min(MaxPriorityLift, m.Priority))), Channels: f.Channels}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Priority, a.Priority),
			b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
