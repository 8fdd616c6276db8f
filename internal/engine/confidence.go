package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/search"
)

// Confidence grades how likely a find answer is to hold what was asked:
//
//   - [ConfidenceHigh]: exact evidence (the definition of the name a symbol
//     query asks for, a file the query names), or every channel agrees on a
//     result whose words and meaning both match the query;
//   - [ConfidenceMedium]: the index holds code that matches the query's
//     words and meaning, but nothing pins the answer down;
//   - [ConfidenceLow]: the index holds nothing much like the query: most of
//     its words occur nowhere in the code, or no chunk's embedding is closer
//     to it than off-topic text gets in the same index. The results are the
//     least bad matches, not answers.
//
// The grade is calibrated on data (see [gradeConfidence] and the rates in
// README's Measured table): low for at least 80% of nonsense and off-topic
// queries, for at most 10% of benchmark questions.
type Confidence string

// The confidence grades.
const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
)

// ConfidenceBasis is the evidence a find answer's confidence was graded
// on; front ends show it with --explain.
type ConfidenceBasis struct {
	// DenseTop is the cosine similarity of the query's embedding to the
	// nearest chunk of the index; absent without the dense channel.
	DenseTop float64 `json:"dense_top,omitempty"`
	// DenseNull is what off-topic text reaches in this index with this
	// model (see [denseNull]); absent when unknown.
	DenseNull float64 `json:"dense_null,omitempty"`
	// TermCoverage is the share of the query's term weight that occurs in
	// the index at all, in [0, 1].
	TermCoverage float64 `json:"term_coverage"`
	// Reason says in words why the grade is what it is.
	Reason string `json:"reason"`
}

// Grading thresholds, chosen on the semble DEV queries (225 questions over
// 12 repositories) against 65 nonsense and off-topic queries of the
// project's own (internal/engine/testdata/confidence/offtopic.txt) asked of
// each of those repositories, and checked on the Go standard library and
// SWE-bench Lite DEV 50 (README, Measured).
const (
	// minCoverage: below it, most of the query's words occur nowhere in the
	// index. Benchmark questions cover at least 0.44 (10th percentile
	// 0.67); off-topic queries cover 0.22 at the median. Alone it grades
	// 0.4% of the benchmark questions low and 94% of the off-topic ones.
	minCoverage = 0.5
	// exactCoverage and highMargin: a result graded high without exact
	// evidence needs every query term in the index and a nearest chunk this
	// far above the off-topic level (semble DEV: top-1 precision 0.85 for
	// the high grade against 0.73 for medium).
	exactCoverage = 0.99
	highMargin    = 0.15
	// agreeRank and agreeChannels: the top result is within the first
	// agreeRank of at least agreeChannels channels.
	agreeRank     = 3
	agreeChannels = 2
)

// gradeConfidence grades an answer (see [Confidence]) from the search's
// results, best first, its stats, and the index's off-topic level (nil when
// unknown, or when the dense channel did not run), and says why.
func gradeConfidence(res []search.Result, st search.Stats, null *denseNull) (Confidence, *ConfidenceBasis) {
	b := &ConfidenceBasis{TermCoverage: round(st.TermCoverage)}
	dense := st.DenseTop != 0 && null != nil
	if st.DenseTop != 0 {
		b.DenseTop = round(st.DenseTop)
	}
	if null != nil {
		b.DenseNull = round(null.Level)
	}
	switch {
	case len(res) == 0:
		b.Reason = "nothing matched"
		return ConfidenceLow, b
	case res[0].Defines:
		b.Reason = "the first result defines the name asked for"
		return ConfidenceHigh, b
	case res[0].Channels["mention"].Rank == 1:
		b.Reason = "the first result is in a file the query names"
		return ConfidenceHigh, b
	case st.TermCoverage < minCoverage:
		b.Reason = fmt.Sprintf("most of the query's words (%.0f%% of its weight) occur nowhere in the index", 100*(1-st.TermCoverage))
		return ConfidenceLow, b
	case dense && st.DenseTop < null.Level:
		b.Reason = fmt.Sprintf("no chunk is closer in meaning to the query (%.2f) than off-topic text gets in this index (%.2f)", st.DenseTop, null.Level)
		return ConfidenceLow, b
	}
	agree := 0
	for name, c := range res[0].Channels {
		if name != "dense-rerank" && c.Rank >= 1 && c.Rank <= agreeRank {
			agree++
		}
	}
	if dense && st.TermCoverage >= exactCoverage && st.DenseTop >= null.Level+highMargin && agree >= agreeChannels {
		b.Reason = "every query word is in the index, the meaning match is well above the off-topic level, and the channels agree on the first result"
		return ConfidenceHigh, b
	}
	b.Reason = "the index holds code that matches the query's words"
	if dense {
		b.Reason += " and meaning"
	}
	b.Reason += ", but nothing pins the answer down"
	return ConfidenceMedium, b
}

// nullProbes are texts no code base of software answers: word salads,
// everyday questions, and tasks of other fields. The cosine of each to its
// nearest chunk tells what the index and its embedding model give a query
// that nothing answers: more chunks, or a model whose vectors crowd
// together, lift it. They are not the queries the grade is evaluated on.
var nullProbes = []string{
	"walrus teaspoon glacier accordion",
	"mauve pineapple saxophone tundra",
	"quibble fennel harpsichord marmot",
	"velvet anchovy lighthouse kumquat",
	"drizzle oboe cactus pinwheel",
	"how to prune an apple tree in winter",
	"the best way to brew green tea",
	"which birds migrate south in the fall",
	"how to paint a watercolour landscape",
	"tips for running a first marathon",
	"how to make fresh pasta by hand",
	"what to pack for a camping weekend",
	"how volcanoes form over hot spots",
	"the rules of cricket explained simply",
	"how to sew a button on a shirt",
	"recipes for a vegetarian lasagne",
	"how to care for a bonsai tree",
	"planning a wedding on a small budget",
	"how to clean a cast iron pan",
	"the life cycle of a frog",
	"fold a paper crane step by step",
	"choosing running shoes for flat feet",
	"how do submarines dive and surface",
	"the geography of the andes mountains",
	"stitch a quilt from fabric scraps",
	"predict stock prices with sentiment from tweets",
	"genome sequence alignment scoring matrix",
	"fluid dynamics simulation of airflow over a wing",
	"facial recognition from webcam images",
	"music chord progression generator for jazz",
	"elevator scheduling for a skyscraper",
	"crop yield estimation from drone photos",
}

// nullProbeSet versions [nullProbes] and the level taken from them: a
// stored level of another set is recomputed.
const nullProbeSet = 1

// nullQuantile is the quantile of the probes' nearest-chunk cosines taken
// as the index's off-topic level: the 29th of 32. On semble DEV it grades
// 85% of the off-topic queries low and no benchmark question; the highest
// probe instead (every probe below it) graded up to 20% of one
// repository's questions low.
const nullQuantile = 0.9

// nullDrift is the share by which an index's chunk count may move before
// its off-topic level is measured again: the level follows the number of
// chunks a query is compared with (the Go standard library's 106k chunks
// give 0.41, a 3k-chunk repository 0.25), not the edits of a day.
const nullDrift = 0.1

// metaDenseNull is the meta key of the index's off-topic level (a
// [denseNull] as JSON), written by each index run that writes the vector
// file.
const metaDenseNull = "dense_null"

// denseNull is an index's off-topic level for one embedding model.
type denseNull struct {
	// Model is the embedding model's identity it was measured with.
	Model string `json:"model"`
	// Set is the probe set's version ([nullProbeSet]).
	Set int `json:"set"`
	// Chunks is how many vectors the index held.
	Chunks int `json:"chunks"`
	// Level is the [nullQuantile] quantile of the probes' nearest-chunk
	// cosines.
	Level float64 `json:"level"`
}

// measureNull embeds the probes with emb (one request) and returns the
// off-topic level of vecs. Errors: the provider's.
//
// Each probe's search reads rows scattered over a vector file, and each
// row read maps the 64 KiB around it, so the probes together, and even
// one of them, map nearly all of it: on ten copies of the Go standard
// library (a 277 MB file) that put 270 MB of mapped pages in the
// resident set of `ctx index` at its very end, taking its peak from
// about 220 MB to 520 MB (486 MB with a release after each probe). A
// file larger than maxNullMapped is searched by
// [search.Vectors.NearestReleasing], which lets go of the pages behind
// its reads as it goes and of the file's pages when done; a smaller one
// stays mapped, since reading its pages again would cost more than they
// weigh.
func measureNull(ctx context.Context, emb embed.Provider, vecs search.VectorIndex) (*denseNull, error) {
	if vecs == nil || vecs.Len() == 0 {
		return nil, nil
	}
	qv, err := emb.Embed(ctx, nullProbes, embed.Query)
	if err != nil {
		return nil, fmt.Errorf("embedding the confidence probes: %w", err)
	}
	topK := vecs.TopK
	if m, ok := vecs.(mappedVectors); ok && m.MappedBytes() > maxNullMapped {
		topK = func(_ context.Context, q []float32, k int) ([]int64, []float64, error) {
			ids, scores := m.NearestReleasing(q, k)
			return ids, scores, nil
		}
	}
	tops := make([]float64, 0, len(qv))
	for _, q := range qv {
		_, scores, err := topK(ctx, q, 1)
		if err != nil {
			return nil, err
		}
		if len(scores) > 0 {
			tops = append(tops, scores[0])
		}
	}
	if len(tops) == 0 {
		return nil, nil
	}
	slices.Sort(tops)
	return &denseNull{Model: emb.Model().String(), Set: nullProbeSet, Chunks: vecs.Len(),
		Level: tops[int(nullQuantile*float64(len(tops)-1))]}, nil
}

// mappedVectors is a vector index read through a memory-mapped file
// ([search.Vectors]).
type mappedVectors interface {
	MappedBytes() int
	NearestReleasing(q []float32, k int) ([]int64, []float64)
}

// maxNullMapped is the largest vector file, in bytes, whose pages
// measureNull keeps mapped between probes: 64 MiB, about two copies of
// the Go standard library's. The 27 MB file of one copy stays mapped,
// where releasing it would read it again 32 times.
const maxNullMapped = 64 << 20

// parseNull reads a stored off-topic level; nil when absent, malformed,
// or measured with another model or probe set.
func parseNull(s, model string) *denseNull {
	if s == "" {
		return nil
	}
	var n denseNull
	if json.Unmarshal([]byte(s), &n) != nil || n.Model != model || n.Set != nullProbeSet || n.Level == 0 {
		return nil
	}
	return &n
}
