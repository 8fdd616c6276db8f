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
// counts its plain searches and its searches that release their pages.
type mappedIndex struct {
	size                int
	searches, releasing int
}

func (m *mappedIndex) Len() int { return 100 }
func (m *mappedIndex) TopK(context.Context, []float32, int) ([]int64, []float64, error) {
	m.searches++
	return []int64{1}, []float64{0.2}, nil
}
func (m *mappedIndex) Cosines(context.Context, []float32, []int64) ([]float64, error) {
	return nil, nil
}
func (m *mappedIndex) MappedBytes() int { return m.size }
func (m *mappedIndex) NearestReleasing([]float32, int) ([]int64, []float64) {
	m.releasing++
	return []int64{1}, []float64{0.2}
}

// TestMeasureNullReleasesLargeFiles: every probe of a vector file larger
// than maxNullMapped searches it with NearestReleasing, so the probes
// never hold the whole file in the resident set; a smaller file is
// searched plainly and stays mapped.
func TestMeasureNullReleasesLargeFiles(t *testing.T) {
	t.Parallel()
	emb := embedtest.New(8)
	for _, tc := range []struct {
		size                int
		releasing, searches int
	}{{maxNullMapped + 1, len(nullProbes), 0}, {maxNullMapped, 0, len(nullProbes)}} {
		m := &mappedIndex{size: tc.size}
		null, err := measureNull(t.Context(), emb, m)
		if err != nil || null == nil || null.Level != 0.2 {
			t.Fatalf("measureNull: %v, %v", null, err)
		}
		if m.searches != tc.searches || m.releasing != tc.releasing {
			t.Errorf("file of %d bytes: %d plain searches, %d releasing; want %d and %d", tc.size, m.searches, m.releasing, tc.searches, tc.releasing)
		}
	}
}
