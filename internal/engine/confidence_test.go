package engine

import (
	"strings"
	"testing"

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
