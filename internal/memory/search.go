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
	// BM25Weight and DenseWeight are the channels' RRF weights: equal. On
	// the labelled fixture (testdata/quality.json, TestQuality) the hybrid
	// beats each channel alone (NDCG@10 0.929 against 0.908 for BM25 and
	// 0.831 for dense), and a dense weight of 0.5 or 1.5 moves NDCG@10 by
	// about 0.01 either way, too little to prefer one.
	BM25Weight  = 1.0
	DenseWeight = 1.0
	// DenseFloor is the least cosine similarity that lets a memory into
	// the dense list. Static embedding models give unrelated texts cosines
	// above zero; without a floor every memory would be a hit of every
	// query. A memory the BM25 channel finds is kept whatever its cosine.
	// On the fixture with the built-in model, the answers' cosines have a
	// 10th percentile of 0.24 and unrelated memories' a 90th percentile
	// of 0.18; of the floors 0.15 to 0.35, 0.2 gave the best hybrid
	// NDCG@10 and recall@5 (0.35: 0.924 and 0.788).
	DenseFloor = 0.2
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
	with := 0
	if emb.active() {
		with |= withVecs
	}
	if !db.termsCurrent {
		with |= withText // analysed in memory
	}
	recs, err := db.records(ctx, with)
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
	var ts *termStats
	if db.termsCurrent {
		if ts, err = db.termStats(ctx, queryTerms(q.Text)); err != nil {
			return nil, st, err
		}
		for i := range recs {
			if ts.tf[recs[i].ID] != nil {
				ts.dl[recs[i].ID] = recs[i].dl
			}
		}
	}
	hits := rank(recs, q, qvec, true, ts)
	if err := db.hitTexts(ctx, hits); err != nil {
		return nil, st, err
	}
	st.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return hits, st, nil
}

// hitTexts fills in the texts of hits found over records read without.
func (db *DB) hitTexts(ctx context.Context, hits []Hit) error {
	recs := make([]record, len(hits))
	idx := make([]int, 0, len(hits))
	for i := range hits {
		if hits[i].Text == "" {
			recs[i].ID = hits[i].ID
			idx = append(idx, i)
		}
	}
	if err := db.fillTexts(ctx, recs, idx); err != nil {
		return err
	}
	for _, i := range idx {
		hits[i].Text = recs[i].Text
	}
	return nil
}

// docTerms counts one memory's analysed terms per column.
type docTerms struct {
	tf map[string][store.NumColumns]uint16
	dl int // terms over all columns
}

// analyzeMemory analyses a memory's fields into its BM25 columns: the text
// as the doc column, tags as the name column, the path as the path column.
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

// termStats is what BM25 needs for one query: the memory count, their
// mean length, and for the query's terms their document frequencies and
// each holder's per-column frequencies and length.
type termStats struct {
	docs  int
	avgdl float64
	df    map[string]int
	// tf[id][term] are a memory's column frequencies of a query term; dl
	// its length, for every memory in tf.
	tf map[int64]map[string][store.NumColumns]uint16
	dl map[int64]int
}

// statsOf analyses recs for terms (the path for a store whose term index
// was written by another analyzer version, and for tests).
func statsOf(recs []record, terms []string) *termStats {
	ts := &termStats{docs: len(recs), df: map[string]int{}, tf: map[int64]map[string][store.NumColumns]uint16{}, dl: map[int64]int{}}
	total := 0
	for i := range recs {
		d := analyzeMemory(&recs[i].Memory)
		total += d.dl
		for _, t := range terms {
			if c, ok := d.tf[t]; ok {
				ts.df[t]++
				if ts.tf[recs[i].ID] == nil {
					ts.tf[recs[i].ID] = map[string][store.NumColumns]uint16{}
				}
				ts.tf[recs[i].ID][t] = c
				ts.dl[recs[i].ID] = d.dl
			}
		}
	}
	if len(recs) > 0 {
		ts.avgdl = float64(total) / float64(len(recs))
	}
	return ts
}

// queryTerms returns the analysed terms of a query that BM25 scores.
func queryTerms(text string) []string {
	var terms []string
	for _, t := range analyze.Analyze(text).TopTerms(maxQueryTerms) {
		terms = append(terms, t.Text)
	}
	return terms
}

// rank scores recs against q: BM25 statistics over every memory (as the
// code index's are over the whole index; ts nil computes them from recs),
// hits only among those q.Filter keeps; qvec nil leaves the dense channel
// out, lexical false the BM25 channel (for ablations).
func rank(recs []record, q Query, qvec []float32, lexical bool, ts *termStats) []Hit {
	limit := cmp.Or(q.Limit, 10)
	if len(recs) == 0 || limit <= 0 {
		return []Hit{}
	}
	terms := queryTerms(q.Text)
	if ts == nil {
		ts = statsOf(recs, terms)
	}
	idf := make([]float64, len(terms))
	for i, t := range terms {
		idf[i] = store.BM25IDF(ts.docs, ts.df[t])
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
		if tf := ts.tf[m.ID]; tf != nil {
			for ti, t := range terms {
				c, ok := tf[t]
				if !ok {
					continue
				}
				f := 0.0
				for col, w := range memoryWeights {
					f += w * float64(c[col])
				}
				if f > 0 {
					s += store.BM25TermScore(idf[ti], f, float64(ts.dl[m.ID]), ts.avgdl)
				}
			}
		}
		if s > 0 && lexical {
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
