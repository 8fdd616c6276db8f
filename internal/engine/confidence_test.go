package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/search"
)

// TestGradeConfidence: each rule of the grade, on hand-made search
// results and stats.
func TestGradeConfidence(t *testing.T) {
	t.Parallel()
	null := &denseNull{Level: 0.30}
	hit := func(chans map[string]int, defines bool) []search.Result {
		r := search.Result{Path: "a.go", Channels: map[string]search.ChannelHit{}, Defines: defines}
		for name, rank := range chans {
			r.Channels[name] = search.ChannelHit{Rank: rank}
		}
		return []search.Result{r}
	}
	agreed := map[string]int{"bm25": 1, "dense": 2, "symbol": 5}
	for _, tc := range []struct {
		name   string
		res    []search.Result
		st     search.Stats
		null   *denseNull
		want   Confidence
		reason string
	}{
		{"no results", nil, search.Stats{TermCoverage: 1, DenseTop: 0.9}, null, ConfidenceLow, "nothing matched"},
		{"defines the name", hit(nil, true), search.Stats{TermCoverage: 0.2, DenseTop: 0.1}, null, ConfidenceHigh, "defines the name"},
		{"a named file", hit(map[string]int{"mention": 1}, false), search.Stats{TermCoverage: 0.2}, null, ConfidenceHigh, "file the query names"},
		{"words absent", hit(agreed, false), search.Stats{TermCoverage: 0.49, DenseTop: 0.9}, null, ConfidenceLow, "occur nowhere"},
		{"meaning at the off-topic level", hit(agreed, false), search.Stats{TermCoverage: 1, DenseTop: 0.29}, null, ConfidenceLow, "off-topic text"},
		{"all agree, far above", hit(agreed, false), search.Stats{TermCoverage: 1, DenseTop: 0.46}, null, ConfidenceHigh, "channels agree"},
		{"a word missing", hit(agreed, false), search.Stats{TermCoverage: 0.9, DenseTop: 0.8}, null, ConfidenceMedium, "nothing pins"},
		{"not far enough above", hit(agreed, false), search.Stats{TermCoverage: 1, DenseTop: 0.44}, null, ConfidenceMedium, "nothing pins"},
		{"one channel", hit(map[string]int{"bm25": 1, "dense": 9}, false), search.Stats{TermCoverage: 1, DenseTop: 0.9}, null, ConfidenceMedium, "nothing pins"},
		{"no dense level: words decide", hit(agreed, false), search.Stats{TermCoverage: 1}, nil, ConfidenceMedium, "matches the query's words,"},
		{"no dense level, words absent", hit(agreed, false), search.Stats{TermCoverage: 0.3}, nil, ConfidenceLow, "occur nowhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, basis := gradeConfidence(tc.res, tc.st, tc.null)
			if got != tc.want || !strings.Contains(basis.Reason, tc.reason) {
				t.Errorf("grade = %s (%s), want %s (…%s…)", got, basis.Reason, tc.want, tc.reason)
			}
		})
	}
}

// mappedIndex is a vector index over a mapped file of the given size that
// counts the searches and the releases of its pages, and which of them
// came first.
type mappedIndex struct {
	size               int
	searches, releases int
	order              []string
}

func (m *mappedIndex) Len() int { return 100 }
func (m *mappedIndex) TopK(context.Context, []float32, int) ([]int64, []float64, error) {
	m.searches++
	m.order = append(m.order, "search")
	return []int64{1}, []float64{0.2}, nil
}
func (m *mappedIndex) Cosines(context.Context, []float32, []int64) ([]float64, error) {
	return nil, nil
}
func (m *mappedIndex) MappedBytes() int { return m.size }
func (m *mappedIndex) ReleasePages() {
	m.releases++
	m.order = append(m.order, "release")
}

// TestMeasureNullReleasesLargeFiles: each probe's search of a vector file
// larger than maxNullMapped is followed by a release of its pages, so
// the probes together never hold the whole file in the resident set; a
// smaller file stays mapped.
func TestMeasureNullReleasesLargeFiles(t *testing.T) {
	t.Parallel()
	emb := embedtest.New(8)
	for _, tc := range []struct {
		size int
		want int // releases
	}{{maxNullMapped + 1, len(nullProbes)}, {maxNullMapped, 0}} {
		m := &mappedIndex{size: tc.size}
		null, err := measureNull(t.Context(), emb, m)
		if err != nil || null == nil {
			t.Fatalf("measureNull: %v, %v", null, err)
		}
		if m.searches != len(nullProbes) || m.releases != tc.want {
			t.Errorf("file of %d bytes: %d searches, %d releases; want %d and %d", tc.size, m.searches, m.releases, len(nullProbes), tc.want)
		}
		if tc.want > 0 && (m.order[0] != "search" || m.order[1] != "release") {
			t.Errorf("order %v; want each search followed by a release", m.order[:4])
		}
	}
}
