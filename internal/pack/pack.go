// Package pack turns ranked hits into what an agent reads: segments
// grouped by file, weak hits cut, overlapping and adjacent pieces of a
// file merged, then as many as fit in a token budget, counted with a real
// tokenizer by the caller's rendering.
package pack

import (
	"slices"
)

// Segment is a line range of one file, in rank order of its best hit.
type Segment struct {
	Path      string  // slash path relative to the root
	StartLine int     // 1-based, inclusive
	EndLine   int     // 1-based, inclusive
	StartByte int     // 0-based, of the indexed file
	EndByte   int     // 0-based, exclusive
	Score     float64 // the best score among the hits merged into it
	// Hits holds the positions (in the ranked input) of the hits merged
	// into this segment, best first.
	Hits []int
	// Context marks a piece added around the ranked hits rather than
	// found by the search (engine.Expand); a merged segment is context
	// only when all its hits are.
	Context bool
}

// SelectOptions bounds [Select]; zero fields take the defaults.
type SelectOptions struct {
	MaxFiles int // most distinct files (default 10)
	PerFile  int // most found segments per file after merging (default 3; context pieces are not counted)
	// CutoffRatio drops, past the first MinKeep hits, a hit scoring below
	// this fraction of the best hit's score (default 0.1; negative keeps
	// all).
	CutoffRatio float64
	MinKeep     int // hits always kept, in rank order (default 3)
	// Floor drops, past the first MinKeep hits, a hit scoring below this
	// absolute score (default 0: none). Ranking scores of unrelated code
	// (package clauses, import blocks matched only through their file)
	// sit around 1e-5 to 1e-4 on the project's fixtures.
	Floor float64
	// MergeGap merges two segments of a file when at most this many lines
	// lie between them (default 1: adjacent or one blank line apart).
	MergeGap int
}

func (o *SelectOptions) defaults() {
	if o.MaxFiles <= 0 {
		o.MaxFiles = 10
	}
	if o.PerFile <= 0 {
		o.PerFile = 3
	}
	if o.CutoffRatio == 0 {
		o.CutoffRatio = 0.1
	}
	if o.MinKeep <= 0 {
		o.MinKeep = 3
	}
	if o.MergeGap == 0 {
		o.MergeGap = 1
	}
}

// Select orders ranked hits for reading: files by their best hit, segments
// by line within a file, and context pieces after every found segment (so
// a budget is spent on what the search found before what was added
// around it). It drops weak hits (the score cutoff), hits of
// files past MaxFiles, and merges hits that overlap, nest or lie within
// MergeGap lines of each other into one segment (its byte range spans
// them). A file keeps at most PerFile found segments, its best ones, and
// every context piece: a method's callee in its own file is the piece a
// reader needs next, not a fourth hit to cut. hits must
// be in rank order (best first); their Hits fields are ignored.
//
// The cutoff: ranking scores fall steeply past the relevant hits (package
// clauses and import blocks that came along through their file score
// under a tenth of the answer on the project's fixtures), and every
// segment shown is tokens the agent pays to read.
func Select(hits []Segment, o SelectOptions) []Segment {
	o.defaults()
	var order []string
	byFile := map[string][]Segment{}
	for i, h := range hits {
		if i >= o.MinKeep && (o.CutoffRatio > 0 && h.Score < o.CutoffRatio*hits[0].Score || h.Score < o.Floor) {
			continue
		}
		if _, ok := byFile[h.Path]; !ok {
			if len(order) == o.MaxFiles {
				continue
			}
			order = append(order, h.Path)
		}
		h.Hits = []int{i}
		byFile[h.Path] = append(byFile[h.Path], h)
	}
	var out []Segment
	for _, p := range order {
		segs := merge(byFile[p], o.MergeGap)
		if found := len(segs) - countContext(segs); found > o.PerFile {
			// Keep the best PerFile found segments and every context
			// piece (each was added for a found one, and counted by its
			// own limit), then restore line order.
			byRank := func(s Segment) int { // context pieces last
				if s.Context {
					return len(hits)
				}
				return s.Hits[0]
			}
			slices.SortStableFunc(segs, func(a, b Segment) int { return byRank(a) - byRank(b) })
			segs = slices.Delete(segs, o.PerFile, found)
			slices.SortFunc(segs, func(a, b Segment) int { return a.StartLine - b.StartLine })
		}
		out = append(out, segs...)
	}
	slices.SortStableFunc(out, func(a, b Segment) int {
		switch {
		case a.Context == b.Context:
			return 0
		case b.Context:
			return -1
		}
		return 1
	})
	return out
}

// countContext is the number of context pieces among segs.
func countContext(segs []Segment) int {
	n := 0
	for _, s := range segs {
		if s.Context {
			n++
		}
	}
	return n
}

// merge sorts one file's segments by line and joins those that overlap or
// lie within gap lines of each other.
func merge(segs []Segment, gap int) []Segment {
	slices.SortStableFunc(segs, func(a, b Segment) int { return a.StartLine - b.StartLine })
	var out []Segment
	for _, s := range segs {
		if n := len(out); n > 0 && s.StartLine <= out[n-1].EndLine+gap+1 {
			m := &out[n-1]
			m.EndLine = max(m.EndLine, s.EndLine)
			m.StartByte = min(m.StartByte, s.StartByte)
			m.EndByte = max(m.EndByte, s.EndByte)
			m.Score = max(m.Score, s.Score)
			m.Context = m.Context && s.Context
			m.Hits = append(m.Hits, s.Hits...)
			slices.Sort(m.Hits)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Fill takes segments from the front while their costs fit in budget
// tokens beyond the fixed cost (headers, footers), and returns how many
// it took and the tokens used. When the first segment alone does not
// fit, it is taken anyway if shrink makes it fit (shrink cuts the
// segment in place to at most the given tokens and returns its new
// cost, or -1 when it cannot). cost returns a segment's tokens as
// rendered.
func Fill(n, budget, fixed int, cost func(i int) int, shrink func(i, avail int) int) (taken, used int) {
	used = fixed
	for i := range n {
		c := cost(i)
		if used+c > budget {
			if i > 0 || shrink == nil {
				break
			}
			if c = shrink(i, budget-used); c < 0 {
				break
			}
		}
		used += c
		taken++
	}
	return taken, used
}
