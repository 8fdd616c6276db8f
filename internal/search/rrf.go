package search

// RRFK is the rank constant of reciprocal rank fusion, 1/(k + rank), from
// Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms
// Condorcet and individual Rank Learning Methods" (SIGIR 2009), where k = 60
// was found robust across collections.
const RRFK = 60

// Ranked is one channel's result list: chunk ids, best first.
type Ranked struct {
	// Channel names the list ("bm25", "symbol", "path", "dense").
	Channel string
	// Weight multiplies the channel's RRF contribution.
	Weight float64
	// IDs are chunk ids, best first; duplicates after the first are ignored.
	IDs []int64
	// Scores are the channel's own scores for IDs (same length), kept for
	// --explain; may be nil.
	Scores []float64
}

// ChannelHit is one chunk's place in one channel.
type ChannelHit struct {
	Rank  int     `json:"rank"` // 1-based
	Score float64 `json:"score"`
}

// Fused is a chunk's fused score and where each channel ranked it.
type Fused struct {
	ID       int64
	Score    float64
	Channels map[string]ChannelHit
}

// Fuse combines channel lists with weighted RRF: score(d) = Σ_c w_c /
// (RRFK + rank_c(d)), rank 1-based. It returns one entry per distinct id,
// in order of first appearance across the lists (callers sort by score);
// the result is deterministic for a given input.
func Fuse(lists []Ranked) []Fused {
	idx := map[int64]int{}
	var out []Fused
	for _, l := range lists {
		seen := make(map[int64]bool, len(l.IDs))
		rank := 0
		for i, id := range l.IDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			rank++
			j, ok := idx[id]
			if !ok {
				j = len(out)
				idx[id] = j
				out = append(out, Fused{ID: id, Channels: map[string]ChannelHit{}})
			}
			out[j].Score += l.Weight / float64(RRFK+rank)
			h := ChannelHit{Rank: rank}
			if l.Scores != nil && i < len(l.Scores) {
				h.Score = l.Scores[i]
			}
			out[j].Channels[l.Channel] = h
		}
	}
	return out
}
