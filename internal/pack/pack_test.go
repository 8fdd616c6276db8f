package pack

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seg(path string, start, end int, score float64) Segment {
	return Segment{Path: path, StartLine: start, EndLine: end, StartByte: start * 10, EndByte: end*10 + 9, Score: score}
}

func brief(segs []Segment) []string {
	var out []string
	for _, s := range segs {
		out = append(out, fmt.Sprintf("%s:%d-%d %v", s.Path, s.StartLine, s.EndLine, s.Hits))
	}
	return out
}

func TestSelect(t *testing.T) {
	hits := []Segment{
		seg("a.go", 40, 60, 1.0),   // 0
		seg("b.go", 10, 20, 0.8),   // 1
		seg("a.go", 10, 20, 0.7),   // 2
		seg("a.go", 61, 70, 0.6),   // 3: adjacent to 0
		seg("c.go", 1, 5, 0.5),     // 4
		seg("a.go", 45, 50, 0.4),   // 5: inside 0
		seg("b.go", 22, 30, 0.3),   // 6: one blank line after 1
		seg("a.go", 100, 110, 0.2), // 7
		seg("d.go", 1, 3, 0.05),    // 8: under the cutoff
	}
	got := brief(Select(hits, SelectOptions{}))
	want := []string{
		"a.go:10-20 [2]",
		"a.go:40-70 [0 3 5]",
		"a.go:100-110 [7]",
		"b.go:10-30 [1 6]",
		"c.go:1-5 [4]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Select (-want +got):\n%s", d)
	}
	m := Select(hits, SelectOptions{})[1]
	if m.StartByte != 400 || m.EndByte != 709 || m.Score != 1.0 {
		t.Errorf("merged segment bytes [%d,%d) score %v, want [400,709) and the best score", m.StartByte, m.EndByte, m.Score)
	}

	// PerFile keeps a file's best segments, in line order; MaxFiles the
	// best files.
	got = brief(Select(hits, SelectOptions{PerFile: 2, MaxFiles: 2}))
	want = []string{"a.go:10-20 [2]", "a.go:40-70 [0 3 5]", "b.go:10-30 [1 6]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Select PerFile 2, MaxFiles 2 (-want +got):\n%s", d)
	}
	// A negative ratio keeps weak hits; MinKeep keeps the first hits
	// whatever their score.
	if got := Select(hits, SelectOptions{CutoffRatio: -1, MaxFiles: 9}); len(got) != 6 || got[5].Path != "d.go" {
		t.Errorf("no cutoff: %v", brief(got))
	}
	weak := []Segment{seg("x.go", 1, 2, 1), seg("y.go", 1, 2, 0.01), seg("z.go", 1, 2, 0.01), seg("w.go", 1, 2, 0.01)}
	if got := Select(weak, SelectOptions{}); len(got) != 3 {
		t.Errorf("MinKeep 3 kept %v", brief(got))
	}
	// Context pieces go after every found segment; merged with a found
	// one they are found.
	ctx := []Segment{seg("a.go", 1, 10, 1), seg("b.go", 1, 5, 0.9), seg("a.go", 30, 35, 0.5), seg("a.go", 11, 12, 0.5), seg("c.go", 1, 2, 0.4)}
	ctx[2].Context, ctx[3].Context, ctx[4].Context = true, true, true
	got = brief(Select(ctx, SelectOptions{}))
	want = []string{"a.go:1-12 [0 3]", "b.go:1-5 [1]", "a.go:30-35 [2]", "c.go:1-2 [4]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Select with context pieces (-want +got):\n%s", d)
	}
	// PerFile counts found segments: the context pieces of a file past
	// it stay, after every found segment.
	ctx = []Segment{seg("a.go", 1, 5, 1), seg("a.go", 20, 25, 0.9), seg("a.go", 40, 45, 0.8), seg("a.go", 60, 65, 0.7), seg("a.go", 80, 85, 0.6), seg("a.go", 100, 105, 0.5)}
	ctx[1].Context, ctx[4].Context = true, true
	got = brief(Select(ctx, SelectOptions{PerFile: 2}))
	want = []string{"a.go:1-5 [0]", "a.go:40-45 [2]", "a.go:20-25 [1]", "a.go:80-85 [4]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Select PerFile 2 with context pieces (-want +got):\n%s", d)
	}
	if got := Select(weak, SelectOptions{MinKeep: 1, CutoffRatio: -1, Floor: 0.05}); len(got) != 1 {
		t.Errorf("Floor 0.05 kept %v", brief(got))
	}
	if got := Select(nil, SelectOptions{}); len(got) != 0 {
		t.Errorf("Select(nil) = %v", got)
	}
}

func TestFill(t *testing.T) {
	costs := []int{40, 30, 50, 10}
	cost := func(i int) int { return costs[i] }
	for _, tc := range []struct {
		budget, fixed, taken, used int
	}{
		{200, 10, 4, 140},
		{100, 10, 2, 80}, // the third does not fit; the fourth would, but order is kept
		{80, 10, 2, 80},  // exactly at the budget
		{30, 10, 0, 10},  // the first does not fit and nothing shrinks it
	} {
		taken, used := Fill(len(costs), tc.budget, tc.fixed, cost, nil)
		if taken != tc.taken || used != tc.used {
			t.Errorf("Fill(budget %d, fixed %d) = %d segments, %d tokens; want %d, %d", tc.budget, tc.fixed, taken, used, tc.taken, tc.used)
		}
	}
	shrunk := -1
	taken, used := Fill(len(costs), 30, 10, cost, func(i, avail int) int { shrunk = avail; return avail - 2 })
	if taken != 1 || used != 28 || shrunk != 20 {
		t.Errorf("Fill with shrink = %d, %d (avail %d); want 1 segment, 28 tokens, avail 20", taken, used, shrunk)
	}
	if taken, _ := Fill(len(costs), 30, 10, cost, func(int, int) int { return -1 }); taken != 0 {
		t.Errorf("Fill with a failing shrink took %d", taken)
	}
}
