package store

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refEntry is one posting of the reference scorer's input.
type refEntry struct {
	id int64
	tf [NumColumns]uint32
}

// refScore is the scorer the windowed one must equal bit for bit: whole
// terms added one after the other, in query order, into a map of every
// chunk.
func refScore(s *bm25Scorer, terms [][][]refEntry, limit int) []Hit {
	var wc [NumColumns]float64
	for c := range NumColumns {
		if s.columns&(1<<c) != 0 {
			wc[c] = s.weights[c]
		}
	}
	holds := func(e refEntry) bool {
		for c, n := range e.tf {
			if n > 0 && s.columns&(1<<c) != 0 {
				return true
			}
		}
		return false
	}
	score := map[int64]float64{}
	bits := map[int64]uint64{}
	type contribution struct {
		id   int64
		term int
		s    float64
	}
	var later []contribution
	for t, rows := range terms {
		df := 0
		for _, row := range rows {
			for _, e := range row {
				if !s.dead[e.id] && holds(e) {
					df++
				}
			}
		}
		idf := math.Log((float64(s.docs) - float64(df) + 0.5) / (float64(df) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for _, row := range rows {
			for _, e := range row {
				if s.dead[e.id] || !holds(e) || s.allowed != nil && !s.allowed[e.id] {
					continue
				}
				dl, _ := s.docLen(e.id)
				f := 0.0
				for c, w := range wc {
					f += w * float64(e.tf[c])
				}
				v := idf * (f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/s.avgdl))
				bits[e.id] |= 1 << t
				if s.groups != nil {
					later = append(later, contribution{e.id, t, v})
					v = 0
				}
				score[e.id] += v
			}
		}
	}
	if s.groups != nil {
		for id, b := range bits {
			keep := uint64(0)
			for _, g := range s.groups {
				var m uint64
				for _, t := range g {
					m |= 1 << t
				}
				if b&m == m {
					keep |= m
				}
			}
			bits[id] = keep
		}
		// Term by term, as the contributions were made.
		for _, c := range later {
			if bits[c.id]&(1<<c.term) != 0 {
				score[c.id] += c.s
			}
		}
	}
	var out []Hit
	for id, v := range score {
		if s.groups == nil || bits[id] != 0 {
			out = append(out, Hit{id, v})
		}
	}
	slices.SortFunc(out, better)
	return out[:min(limit, len(out))]
}

// TestScorerMatchesReference checks the windowed scorer against
// [refScore] bit for bit on random postings whose ids fall on and around
// window edges, far apart (past any dense range) and in several rows per
// term whose id ranges interleave (segments before a merge), with dead
// chunks, a path filter, column masks and groups.
func TestScorerMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 9))
	// Candidate ids: clustered at window edges and spread to 2^40.
	var ids []int64
	for _, base := range []int64{0, windowIDs, 3 * windowIDs, 1 << 20, 1<<20 + windowIDs, 1 << 40} {
		for d := int64(-3); d < 40; d++ {
			if base+d >= 1 {
				ids = append(ids, base+d)
			}
		}
	}
	for range 300 {
		ids = append(ids, 1+rng.Int64N(5*windowIDs))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	dl := map[int64]uint32{}
	for _, id := range ids {
		dl[id] = 1 + rng.Uint32N(400)
	}
	for trial := range 200 {
		nterms := 1 + rng.IntN(6)
		terms := make([][][]refEntry, nterms)
		rows := make([]termPostings, nterms)
		for ti := range nterms {
			// Each id goes to one of the term's rows, or none.
			nrows := 1 + rng.IntN(3)
			parts := make([][]refEntry, nrows)
			for _, id := range ids {
				if rng.IntN(3) != 0 {
					continue
				}
				var e refEntry
				e.id = id
				for e.tf == ([NumColumns]uint32{}) {
					for c := range NumColumns {
						if rng.IntN(3) == 0 {
							e.tf[c] = 1 + uint32(rng.IntN(3)*rng.IntN(40))
						}
					}
				}
				r := rng.IntN(nrows)
				parts[r] = append(parts[r], e)
			}
			for _, p := range parts {
				var data []byte
				var prev int64
				for _, e := range p {
					data = appendEntry(data, e.id-prev, &e.tf)
					prev = e.id
				}
				rows[ti].rows = append(rows[ti].rows, data)
				rows[ti].n += len(p)
			}
			terms[ti] = parts
		}
		s := bm25Scorer{
			docs:    int64(len(ids)) + rng.Int64N(1000),
			avgdl:   50 + 100*rng.Float64(),
			weights: BM25Weights{3, 2, 2, 1},
			columns: uint8(1 + rng.IntN(allColumns)),
			dead:    map[int64]bool{},
			docLen:  func(id int64) (uint32, error) { return dl[id], nil },
		}
		if trial%5 == 0 {
			// No dead chunk, every column: df is the rows' entry count.
			s.columns = allColumns
		} else {
			for _, id := range ids {
				if rng.IntN(10) == 0 {
					s.dead[id] = true
				}
			}
		}
		if trial%7 == 3 {
			// A zero weight and fractional ones.
			s.weights = BM25Weights{0, 2.5, 0.1, 7}
		}
		if trial%3 == 1 {
			s.allowed = map[int64]bool{}
			for _, id := range ids {
				if rng.IntN(2) == 0 {
					s.allowed[id] = true
				}
			}
		}
		if trial%4 == 2 && nterms > 1 {
			s.groups = [][]int{{0, nterms - 1}}
			if nterms > 2 {
				s.groups = append(s.groups, []int{1})
			}
		}
		limit := 1 + rng.IntN(len(ids))
		names := make([]string, nterms)
		for i := range names {
			names[i] = fmt.Sprint("t", i)
		}
		got, err := s.score(names, rows, limit)
		if err != nil {
			t.Fatal(err)
		}
		want := refScore(&s, terms, limit)
		if len(want) == 0 {
			want = []Hit{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("trial %d (columns %04b, groups %v, filtered %v): hits (-want +got):\n%s", trial, s.columns, s.groups, s.allowed != nil, diff)
		}
	}
}

// TestScorerCorruptRows checks that truncated or non-ascending postings
// data is reported as corrupt, not scored.
func TestScorerCorruptRows(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"delta without entry": {5},
		"truncated varint":    {0x80},
		"empty long mask":     {5, longEntry},
		"zero frequency":      {5, longEntry | 1, 0},
		"id overflow":         {5, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0},
	} {
		s := bm25Scorer{docs: 10, avgdl: 10, weights: BM25Weights{1, 1, 1, 1}, columns: allColumns,
			docLen: func(int64) (uint32, error) { return 1, nil }}
		if _, err := s.score([]string{"t"}, []termPostings{{rows: [][]byte{data}, n: 1}}, 10); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}
