package engine

import (
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/search"
)

// hitsWithCosines returns found results whose dense-rerank cosines are cs,
// in that order.
func hitsWithCosines(cs ...float64) []Hit {
	hs := make([]Hit, len(cs))
	for i, c := range cs {
		hs[i] = Hit{Path: "f.go", Score: 1, Channels: map[string]search.ChannelHit{"dense-rerank": {Rank: i + 1, Score: c}}}
	}
	return hs
}

func TestMemberRelevanceFirstResultCosine(t *testing.T) {
	// Both members hold the query's one term equally, so only the
	// cosine of their answers tells them apart: "sharp" has one close
	// match and weak ones after it, "flat" three middling ones (a
	// larger mean over three, a smaller first).
	terms := []analyze.Term{{Text: "bucket", Weight: 1}}
	stats := []termStats{
		{chunks: 10, df: map[string]int{"bucket": 2}},
		{chunks: 10, df: map[string]int{"bucket": 2}},
		{chunks: 10, df: map[string]int{}},
	}
	resps := []*FindResponse{
		{Results: hitsWithCosines(0.6, 0.05, 0.05)},
		{Results: hitsWithCosines(0.4, 0.4, 0.4)},
		{Results: hitsWithCosines(0.9)},
	}
	rel := memberRelevance(terms, stats, resps, make([]bool, len(resps)))
	if rel[0] != 1 {
		t.Errorf("sharp member relevance %v, want 1 (its first result is the closest match)", rel[0])
	}
	if want := 0.4 / 0.6; rel[1] < want-1e-9 || rel[1] > want+1e-9 {
		t.Errorf("flat member relevance %v, want %v (first cosines 0.4 over 0.6)", rel[1], want)
	}
	if rel[2] != 0 {
		t.Errorf("member without the term relevance %v, want 0", rel[2])
	}
}

// TestMemberRelevanceFirstScore: two members that hold the query's term
// equally and whose first results are as close to it weigh in by those
// results' ranking scores; context pieces before a result do not count.
func TestMemberRelevanceFirstScore(t *testing.T) {
	terms := []analyze.Term{{Text: "bucket", Weight: 1}}
	stats := []termStats{
		{chunks: 10, df: map[string]int{"bucket": 2}},
		{chunks: 10, df: map[string]int{"bucket": 2}},
	}
	agreed, split := hitsWithCosines(0.5, 0.1), hitsWithCosines(0.5, 0.1)
	agreed[0].Score, split[0].Score = 0.5, 0.25
	ctxPiece := Hit{Context: "type of the result", Score: 9}
	rel := memberRelevance(terms, stats, []*FindResponse{{Results: agreed}, {Results: append([]Hit{ctxPiece}, split...)}}, make([]bool, 2))
	if rel[0] != 1 || rel[1] != 0.5 {
		t.Errorf("relevance %v, want [1 0.5] (first scores 0.5 and 0.25)", rel)
	}
	if got := firstScore([]Hit{ctxPiece}); got != 0 {
		t.Errorf("firstScore of context pieces only = %v, want 0", got)
	}
}

func TestFirstCosine(t *testing.T) {
	ctxPiece := Hit{Context: "type of the result", Channels: map[string]search.ChannelHit{"dense-rerank": {Score: 0.99}}}
	lexical := Hit{Path: "a.go"}
	for _, tc := range []struct {
		name string
		hits []Hit
		want float64
	}{
		{"first found result", hitsWithCosines(0.3, 0.8), 0.3},
		{"context pieces and lexical-only hits skipped", append([]Hit{ctxPiece, lexical}, hitsWithCosines(0.5)...), 0.5},
		{"negative clamped", hitsWithCosines(-0.2), 0},
		{"no cosine at all", []Hit{lexical}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstCosine(tc.hits); got != tc.want {
				t.Errorf("firstCosine = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMergedScoreInterleaves(t *testing.T) {
	// The best member (rel 1) keeps its order; a member at 0.7 places
	// its first result between the best one's second and third.
	if !(mergedScore(1, 1) > mergedScore(1, 2) && mergedScore(1, 2) > mergedScore(1, 3)) {
		t.Errorf("a member's own order is not kept: %v %v %v", mergedScore(1, 1), mergedScore(1, 2), mergedScore(1, 3))
	}
	if !(mergedScore(1, 2) > mergedScore(0.7, 1) && mergedScore(0.7, 1) > mergedScore(1, 3)) {
		t.Errorf("rel 0.7's first result at %v, want between the best member's second %v and third %v",
			mergedScore(0.7, 1), mergedScore(1, 2), mergedScore(1, 3))
	}
	if mergedScore(0, 1) != 0 {
		t.Errorf("a member without evidence scores %v, want 0", mergedScore(0, 1))
	}
}

// TestMemberRelevanceNamed: a member the query calls by one of its names
// weighs namedBoost times its evidence, enough to lead a member whose
// evidence was higher; a name written inside another word does not count.
func TestMemberRelevanceNamed(t *testing.T) {
	terms := []analyze.Term{{Text: "logger", Weight: 1}}
	stats := []termStats{
		{chunks: 10, df: map[string]int{"logger": 3}},
		{chunks: 10, df: map[string]int{"logger": 2}},
	}
	resps := []*FindResponse{{Results: hitsWithCosines(0.5)}, {Results: hitsWithCosines(0.5)}}
	members := []Member{{Name: "ktor/src", Names: []string{"ktor"}}, {Name: "phoenix/lib", Names: []string{"phoenix"}}}
	plain := memberRelevance(terms, stats, resps, namedMembers("how request logging works", members))
	if plain[0] != 1 || plain[1] >= 1 {
		t.Fatalf("relevance without a name %v, want the denser member first", plain)
	}
	named := namedMembers("how Phoenix logs request and response events", members)
	if !slices.Equal(named, []bool{false, true}) {
		t.Fatalf("namedMembers = %v, want only phoenix", named)
	}
	rel := memberRelevance(terms, stats, resps, named)
	if rel[1] != 1 || rel[0] >= 1 {
		t.Errorf("relevance %v, want the named member first", rel)
	}
	if got := namedMembers("PhoenixSocket and ktorClient", members); slices.Contains(got, true) {
		t.Errorf("names inside identifiers: %v, want none", got)
	}
	kebab := []Member{{Name: "session", Names: []string{"express-session"}}, {Name: "express", Names: []string{"express"}}}
	if got := namedMembers("where does express-session sign the cookie", kebab); !slices.Equal(got, []bool{true, true}) {
		t.Errorf("a kebab-case name: %v, want both (express is written too)", got)
	}
	if got := namedMembers("how does the session store expire", kebab); slices.Contains(got, true) {
		t.Errorf("part of a kebab-case name: %v, want none", got)
	}
}
