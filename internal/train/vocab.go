package train

import (
	"cmp"
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/embed/static"
)

// sifA is the SIF smoothing constant a in w = a/(a + p).
const sifA = 1e-3

// buildVocab returns the at most maxVocab terms ([static.CodeTerms]) of
// the training texts seen at least twice, most frequent first, ties in
// byte order. Counting runs on workers goroutines; the result does not
// depend on their number.
func buildVocab(ctx context.Context, pairs []Pair, maxVocab, workers int) ([]string, error) {
	counts := make([]map[string]int, workers)
	g, ctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			c := map[string]int{}
			for i := w; i < len(pairs); i += workers {
				if i%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				add := func(term string, _ bool) { c[term]++ }
				static.CodeTerms(pairs[i].Query, add)
				static.CodeTerms(pairs[i].Code, add)
			}
			counts[w] = c
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	total := counts[0]
	for _, c := range counts[1:] {
		for t, n := range c {
			total[t] += n
		}
	}
	type tc struct {
		t string
		n int
	}
	var all []tc
	for t, n := range total {
		if n >= 2 {
			all = append(all, tc{t, n})
		}
	}
	slices.SortFunc(all, func(a, b tc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	if len(all) > maxVocab {
		all = all[:maxVocab]
	}
	vocab := make([]string, len(all))
	for i, x := range all {
		vocab[i] = x.t
	}
	return vocab, nil
}

// bags holds tokenised texts as bags of distinct rows: text i has rows
// rows[off[i]:off[i+1]], each with its count (later its count times the
// row's weight, see weigh) in coef, rows in order of first occurrence.
type bags struct {
	off  []int
	rows []int32
	coef []float32
}

func (b *bags) len() int { return len(b.off) - 1 }

func (b *bags) bag(i int) ([]int32, []float32) {
	return b.rows[b.off[i]:b.off[i+1]], b.coef[b.off[i]:b.off[i+1]]
}

// tokenize returns the bags of texts under tok, capped at
// [static.MaxTokens] ids as the model's inference is, tokenising on
// workers goroutines.
func tokenize(ctx context.Context, tok *static.CodeTokenizer, texts []string, workers int) (*bags, error) {
	per := make([]bags, workers)
	chunk := (len(texts) + workers - 1) / max(workers, 1)
	g, ctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			lo, hi := min(w*chunk, len(texts)), min((w+1)*chunk, len(texts))
			b := &per[w]
			b.off = append(b.off, 0)
			var ids []int32
			seen := map[int32]int{}
			for i := lo; i < hi; i++ {
				if i%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				ids = tok.AppendIDs(ids[:0], texts[i], static.MaxTokens)
				clear(seen)
				start := len(b.rows)
				for _, id := range ids {
					if j, ok := seen[id]; ok {
						b.coef[start+j]++
						continue
					}
					seen[id] = len(b.rows) - start
					b.rows = append(b.rows, id)
					b.coef = append(b.coef, 1)
				}
				b.off = append(b.off, len(b.rows))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := &bags{off: []int{0}}
	for _, b := range per {
		base := len(out.rows)
		out.rows = append(out.rows, b.rows...)
		out.coef = append(out.coef, b.coef...)
		for _, o := range b.off[1:] {
			out.off = append(out.off, base+o)
		}
	}
	return out, nil
}

// sifWeights returns a/(a + p(r)) for each of n rows, p(r) being row r's
// share of all token occurrences in b (counts, before weigh); rows never
// seen weigh 1.
func sifWeights(b *bags, n int) []float32 {
	counts := make([]float64, n)
	var total float64
	for i, r := range b.rows {
		counts[r] += float64(b.coef[i])
		total += float64(b.coef[i])
	}
	w := make([]float32, n)
	for r := range w {
		p := 0.0
		if total > 0 {
			p = counts[r] / total
		}
		w[r] = float32(sifA / (sifA + p))
	}
	return w
}

// weigh replaces each count c in b by its row's weight times tf(c), as
// [static.Model] embeds a text.
func weigh(b *bags, w []float32, tf static.TF) {
	for i, r := range b.rows {
		b.coef[i] = w[r] * tf.Scale(b.coef[i])
	}
}
