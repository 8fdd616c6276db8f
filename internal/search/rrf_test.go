package search

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rrf is one channel's contribution at a 1-based rank.
func rrf(w float64, rank int) float64 { return w / float64(RRFK+rank) }

func TestFuse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		lists []Ranked
		want  []Fused
	}{
		{name: "no lists", lists: nil, want: nil},
		{name: "empty list", lists: []Ranked{{Channel: "bm25", Weight: 1}}, want: nil},
		{
			name:  "one list, ranks from 1",
			lists: []Ranked{{Channel: "bm25", Weight: 1, IDs: []int64{7, 3, 9}, Scores: []float64{9.5, 4, 1}}},
			want: []Fused{
				{ID: 7, Score: rrf(1, 1), Channels: map[string]ChannelHit{"bm25": {Rank: 1, Score: 9.5}}},
				{ID: 3, Score: rrf(1, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 2, Score: 4}}},
				{ID: 9, Score: rrf(1, 3), Channels: map[string]ChannelHit{"bm25": {Rank: 3, Score: 1}}},
			},
		},
		{
			name:  "weight scales the contribution",
			lists: []Ranked{{Channel: "dense", Weight: 0.5, IDs: []int64{1, 2}}},
			want: []Fused{
				{ID: 1, Score: rrf(0.5, 1), Channels: map[string]ChannelHit{"dense": {Rank: 1}}},
				{ID: 2, Score: rrf(0.5, 2), Channels: map[string]ChannelHit{"dense": {Rank: 2}}},
			},
		},
		{
			name:  "zero weight keeps the id with no score",
			lists: []Ranked{{Channel: "path", Weight: 0, IDs: []int64{4}}},
			want:  []Fused{{ID: 4, Score: 0, Channels: map[string]ChannelHit{"path": {Rank: 1}}}},
		},
		{
			name: "ids in several lists accumulate",
			lists: []Ranked{
				{Channel: "bm25", Weight: 1, IDs: []int64{1, 2, 3}},
				{Channel: "symbol", Weight: 2, IDs: []int64{3, 4}},
				{Channel: "dense", Weight: 0.5, IDs: []int64{4, 3, 1}},
			},
			want: []Fused{
				{ID: 1, Score: rrf(1, 1) + rrf(0.5, 3), Channels: map[string]ChannelHit{"bm25": {Rank: 1}, "dense": {Rank: 3}}},
				{ID: 2, Score: rrf(1, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 2}}},
				{ID: 3, Score: rrf(1, 3) + rrf(2, 1) + rrf(0.5, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 3}, "symbol": {Rank: 1}, "dense": {Rank: 2}}},
				{ID: 4, Score: rrf(2, 2) + rrf(0.5, 1), Channels: map[string]ChannelHit{"symbol": {Rank: 2}, "dense": {Rank: 1}}},
			},
		},
		{
			name: "duplicates within a list are ignored and do not use up a rank",
			lists: []Ranked{
				{Channel: "bm25", Weight: 1, IDs: []int64{5, 5, 6, 5, 7}, Scores: []float64{3, 2.9, 2, 1.5, 1}},
			},
			want: []Fused{
				{ID: 5, Score: rrf(1, 1), Channels: map[string]ChannelHit{"bm25": {Rank: 1, Score: 3}}},
				{ID: 6, Score: rrf(1, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 2, Score: 2}}},
				{ID: 7, Score: rrf(1, 3), Channels: map[string]ChannelHit{"bm25": {Rank: 3, Score: 1}}},
			},
		},
		{
			name:  "short Scores leave the channel score zero",
			lists: []Ranked{{Channel: "bm25", Weight: 1, IDs: []int64{1, 2}, Scores: []float64{8}}},
			want: []Fused{
				{ID: 1, Score: rrf(1, 1), Channels: map[string]ChannelHit{"bm25": {Rank: 1, Score: 8}}},
				{ID: 2, Score: rrf(1, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 2}}},
			},
		},
		{
			name: "order of first appearance across lists",
			lists: []Ranked{
				{Channel: "symbol", Weight: 1, IDs: []int64{30}},
				{Channel: "bm25", Weight: 1, IDs: []int64{10, 20, 30}},
			},
			want: []Fused{
				{ID: 30, Score: rrf(1, 1) + rrf(1, 3), Channels: map[string]ChannelHit{"symbol": {Rank: 1}, "bm25": {Rank: 3}}},
				{ID: 10, Score: rrf(1, 1), Channels: map[string]ChannelHit{"bm25": {Rank: 1}}},
				{ID: 20, Score: rrf(1, 2), Channels: map[string]ChannelHit{"bm25": {Rank: 2}}},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Fuse(c.lists)
			if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Fuse (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFuseRankOrder checks the property callers rely on: with equal
// weights, an id ranked higher in every list fuses higher, and an id found
// by more channels beats one found by fewer at the same ranks.
func TestFuseRankOrder(t *testing.T) {
	t.Parallel()
	fused := Fuse([]Ranked{
		{Channel: "bm25", Weight: 1, IDs: []int64{1, 2, 3}},
		{Channel: "symbol", Weight: 1, IDs: []int64{1, 3}},
	})
	score := map[int64]float64{}
	for _, f := range fused {
		score[f.ID] = f.Score
	}
	if !(score[1] > score[3] && score[3] > score[2]) {
		t.Errorf("scores = %v, want 1 > 3 > 2", score)
	}
}

func TestFuseDeterministic(t *testing.T) {
	t.Parallel()
	lists := []Ranked{
		{Channel: "bm25", Weight: 1, IDs: []int64{9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{Channel: "code", Weight: 1, IDs: []int64{2, 4, 6, 8}},
		{Channel: "symbol", Weight: 2, IDs: []int64{5, 5, 1}},
		{Channel: "dense", Weight: 0.5, IDs: []int64{1, 3, 5, 7, 9, 11}},
	}
	want := Fuse(lists)
	for range 20 {
		if diff := cmp.Diff(want, Fuse(lists)); diff != "" {
			t.Fatalf("Fuse differs between runs (-first +later):\n%s", diff)
		}
	}
}

// FuzzFuse checks Fuse against an independent computation of weighted RRF
// over lists decoded from the input: no panic, one entry per distinct id,
// each score equal to Σ w/(RRFK+rank) over the lists holding the id (ranks
// 1-based, counting distinct ids only), and the same output twice.
//
//	go test -run='^$' -fuzz=FuzzFuse -fuzztime=30s ./internal/search
func FuzzFuse(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 16, 1, 2, 3})
	f.Add([]byte{3, 16, 5, 5, 5, 0, 8, 5, 6, 0, 32, 7, 6, 5})
	f.Add([]byte{2, 0, 200, 201, 0, 255, 200, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		lists := decodeLists(data)
		got := Fuse(lists)

		want := map[int64]float64{}
		for _, l := range lists {
			seen := map[int64]bool{}
			rank := 0
			for _, id := range l.IDs {
				if seen[id] {
					continue
				}
				seen[id] = true
				rank++
				want[id] += l.Weight / float64(RRFK+rank)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("Fuse returned %d entries for %d distinct ids", len(got), len(want))
		}
		dup := map[int64]bool{}
		for _, f := range got {
			if dup[f.ID] {
				t.Fatalf("id %d returned twice", f.ID)
			}
			dup[f.ID] = true
			w, ok := want[f.ID]
			if !ok {
				t.Fatalf("id %d is in no list", f.ID)
			}
			if math.Abs(f.Score-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("id %d: score %v, want %v", f.ID, f.Score, w)
			}
			for ch, h := range f.Channels {
				if h.Rank < 1 {
					t.Errorf("id %d: channel %s rank %d, want 1-based", f.ID, ch, h.Rank)
				}
			}
		}
		if diff := cmp.Diff(got, Fuse(lists)); diff != "" {
			t.Errorf("second Fuse differs (-first +second):\n%s", diff)
		}
	})
}

// decodeLists turns fuzz input into up to 8 lists: a list is a weight byte
// (weight = b/16), a length byte, then that many one-byte ids; a small id
// space makes duplicates and overlaps common.
func decodeLists(data []byte) []Ranked {
	names := []string{"bm25", "code", "symbol", "path", "dense", "x", "y", "z"}
	var lists []Ranked
	for len(data) >= 2 && len(lists) < len(names) {
		w, n := float64(data[0])/16, int(data[1])
		data = data[2:]
		n = min(n, len(data))
		l := Ranked{Channel: names[len(lists)], Weight: w}
		for _, b := range data[:n] {
			l.IDs = append(l.IDs, int64(binary.LittleEndian.Uint16([]byte{b, b >> 5})))
			l.Scores = append(l.Scores, float64(b))
		}
		data = data[n:]
		lists = append(lists, l)
	}
	return lists
}

// TestFuseTitle checks the file-level fusion of a long query's two
// searches: a file both lists hold outranks files only one list puts
// first, each file's chunks keep their order and the second is damped,
// and title ranks are recorded.
func TestFuseTitle(t *testing.T) {
	saved := tune
	t.Cleanup(func() { tune = saved })
	tune.TitleWeight, tune.TitleRRFK, tune.Diversity = 1, 1, 0.1
	r := func(id int64, p string) Result {
		return Result{ChunkID: id, Path: p, Channels: map[string]ChannelHit{"bm25": {Rank: int(id)}}}
	}
	whole := []Result{r(1, "a.py"), r(2, "b.py"), r(3, "a.py"), r(4, "d.py")}
	byTitle := []Result{r(5, "c.py"), r(2, "b.py"), r(6, "b.py")}
	got := fuseTitle(whole, byTitle, nil, 10)
	var ids []int64
	for _, g := range got {
		ids = append(ids, g.ChunkID)
	}
	// Files: b 1/3+1/3, a 1/2, c 1/2, d 1/4; chunk 3 is a's second (×0.1),
	// chunk 6 b's second.
	if want := []int64{2, 1, 5, 4, 6, 3}; !slices.Equal(ids, want) {
		t.Errorf("fused order %v, want %v", ids, want)
	}
	if got[0].Channels["title"].Rank != 2 || got[0].Channels["bm25"].Rank != 2 {
		t.Errorf("b.py channels %v, want title #2 beside bm25 #2", got[0].Channels)
	}
	if _, ok := got[1].Channels["title"]; ok {
		t.Errorf("a.py, absent from the title's list, has a title rank: %v", got[1].Channels)
	}
	if _, ok := whole[1].Channels["title"]; ok {
		t.Error("fuseTitle changed its input's channel map")
	}
	if got := fuseTitle(whole, byTitle, nil, 2); len(got) != 2 {
		t.Errorf("limit 2 kept %d results", len(got))
	}
}

// TestFuseTitlePatched checks that a file the query's diff changes is
// lifted by the patch list: here from second place to first, above the
// file both lists put first, with the "patched" boost; a patched file
// neither list found is not invented.
func TestFuseTitlePatched(t *testing.T) {
	saved := tune
	t.Cleanup(func() { tune = saved })
	tune.TitleWeight, tune.TitleRRFK, tune.Diversity, tune.PatchWeight = 1, 1, 0.1, 2
	r := func(id int64, p string) Result {
		return Result{ChunkID: id, Path: p, Boosts: []string{"file-name×0.10"}}
	}
	whole := []Result{r(1, "django/db/transaction.py"), r(2, "django/db/backends/base/creation.py")}
	byTitle := []Result{r(1, "django/db/transaction.py"), r(3, "docs/tools.txt")}
	patched := []string{"a/django/db/backends/base/creation.py", "django/never/found.py"}
	got := fuseTitle(whole, byTitle, patched, 10)
	var paths []string
	for _, g := range got {
		paths = append(paths, g.Path)
	}
	// creation.py: 1/3 (whole #2) + 2/2 (patch #1) beats transaction.py's
	// 1/2 + 1/2, first in both lists; found.py is in neither list.
	if want := []string{"django/db/backends/base/creation.py", "django/db/transaction.py", "docs/tools.txt"}; !slices.Equal(paths, want) {
		t.Fatalf("fused order %q, want %q", paths, want)
	}
	if !slices.Equal(got[0].Boosts, []string{"file-name×0.10", "patched"}) {
		t.Errorf("patched result's boosts %q, want the patched boost added", got[0].Boosts)
	}
	for _, g := range got[1:] {
		if slices.Contains(g.Boosts, "patched") {
			t.Errorf("%s has the patched boost", g.Path)
		}
	}
	if slices.Contains(whole[1].Boosts, "patched") {
		t.Error("fuseTitle changed its input's boosts")
	}
}
