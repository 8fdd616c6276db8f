package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/embed/static"
)

// randomBags returns n texts of 1 to 4 distinct rows below rows, with
// coefficients in [0.5, 2).
func randomBags(r *rand.Rand, n, rows int) *bags {
	b := &bags{off: []int{0}}
	for range n {
		k := 1 + r.IntN(4)
		perm := r.Perm(rows)[:k]
		for _, x := range perm {
			b.rows = append(b.rows, int32(x))
			b.coef = append(b.coef, 0.5+1.5*r.Float32())
		}
		b.off = append(b.off, len(b.rows))
	}
	return b
}

func TestGradientCheck(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(3, 4))
			const rows, d, B = 12, 8, 4
			m := newModel(rows, d, 0.5, 0.1, workers, 9, nil)
			m.levels = []int{8, 4, 2}
			qb, cb := randomBags(r, B, rows), randomBags(r, B, rows)
			idx := []int{0, 1, 2, 3}
			m.forwardBackward(qb, cb, idx, idx)
			ana := make([]float64, rows*d)
			for s, row := range m.touched {
				for j := range d {
					ana[int(row)*d+j] = float64(m.rowGrad[s*d+j])
				}
			}
			m.release()
			loss := func() float64 {
				l := m.forwardBackward(qb, cb, idx, idx)
				m.release()
				return l
			}
			const h = 1e-2
			checked := 0
			for i := range m.e {
				orig := m.e[i]
				m.e[i] = orig + h
				lp := loss()
				m.e[i] = orig - h
				lm := loss()
				m.e[i] = orig
				num := (lp - lm) / (2 * h)
				if math.Abs(num-ana[i]) > 2e-3+2e-2*math.Abs(num) {
					t.Errorf("dL/dE[%d][%d]: analytic %.6f, numeric %.6f", i/d, i%d, ana[i], num)
				}
				if ana[i] != 0 {
					checked++
				}
			}
			if checked < rows*d/2 {
				t.Errorf("only %d non-zero gradient entries checked", checked)
			}
		})
	}
}

// synthPairs returns pairs whose queries share words with their code.
func synthPairs(n int, seed uint64, split string) []Pair {
	words := []string{"parse", "header", "read", "write", "socket", "buffer", "token", "cache",
		"index", "query", "merge", "sort", "hash", "tree", "node", "graph", "path", "file",
		"open", "close", "lock", "timer", "event", "queue", "stack", "frame", "image", "color"}
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]Pair, n)
	for i := range out {
		a, b, c := words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))]
		out[i] = Pair{
			Query: a + " the " + b,
			Code:  fmt.Sprintf("func %s%s%s(x int) { return %s(x) }", a, capital(b), capital(c), c),
			Split: split,
		}
	}
	return out
}

func capital(s string) string { return string(s[0]-'a'+'A') + s[1:] }

func smallOptions() Options {
	return Options{Dims: 32, Epochs: 8, Batch: 16, LR: 0.05, Tau: 0.1, Seed: 5, MaxVocab: 1000, Buckets: 64, Workers: 1, LogEvery: 4}
}

func TestTrainLossDecreases(t *testing.T) {
	t.Parallel()
	res, err := Train(t.Context(), synthPairs(256, 1, "train"), synthPairs(64, 2, "heldout"), smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loss) < 4 {
		t.Fatalf("loss curve %v is too short", res.Loss)
	}
	first, last := res.Loss[0], res.Loss[len(res.Loss)-1]
	if !(last < 0.7*first) {
		t.Errorf("loss went from %.4f to %.4f, want a drop of at least 30%%", first, last)
	}
	if init, end := res.Evals[0].Dense, res.Evals[len(res.Evals)-1].Dense; !(end > init) {
		t.Errorf("held-out dense MRR@10 went from %.4f to %.4f, want a rise", init, end)
	}
}

// TestEvalByKind: held-out scores are also reported per pair kind and
// per language, over exactly the queries of that kind or language.
func TestEvalByKind(t *testing.T) {
	t.Parallel()
	held := synthPairs(60, 2, "heldout")
	for i := range held {
		held[i].Kind = []string{"doc", "name", "name"}[i%3]
		held[i].Lang = []string{"go", "csharp", "go", "go", "bash"}[i%5]
	}
	o := smallOptions()
	o.Epochs = 2
	res, err := Train(t.Context(), synthPairs(256, 1, "train"), held, o)
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Evals[len(res.Evals)-1]
	doc, name := ev.ByKind["doc"], ev.ByKind["name"]
	if doc.Queries != 20 || name.Queries != 40 || len(ev.ByKind) != 2 {
		t.Fatalf("ByKind = %+v, want 20 doc and 40 name queries", ev.ByKind)
	}
	// The overall score is the query-weighted mean of the kinds'.
	for _, c := range []struct {
		score         string
		all, doc, nam float64
	}{{"dense", ev.Dense, doc.Dense, name.Dense}, {"bm25", ev.BM25, doc.BM25, name.BM25}, {"fused", ev.Fused, doc.Fused, name.Fused}} {
		if want := (20*c.doc + 40*c.nam) / 60; math.Abs(c.all-want) > 1e-9 {
			t.Errorf("%s: overall %.6f, want the mean of the kinds %.6f", c.score, c.all, want)
		}
	}
	gol, cs, sh := ev.ByLang["go"], ev.ByLang["csharp"], ev.ByLang["bash"]
	if gol.Queries != 36 || cs.Queries != 12 || sh.Queries != 12 || len(ev.ByLang) != 3 {
		t.Fatalf("ByLang = %+v, want 36 go, 12 csharp and 12 bash queries", ev.ByLang)
	}
	if want := (36*gol.Dense + 12*cs.Dense + 12*sh.Dense) / 60; math.Abs(ev.Dense-want) > 1e-9 {
		t.Errorf("dense: overall %.6f, want the mean of the languages %.6f", ev.Dense, want)
	}
}

func TestTrainDeterministic(t *testing.T) {
	t.Parallel()
	pairs := synthPairs(128, 3, "train")
	run := func(workers int) *Result {
		o := smallOptions()
		o.Epochs, o.Workers = 2, workers
		res, err := Train(t.Context(), pairs, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(1), run(1), run(2)
	if diff := cmp.Diff(a.Matrix.F32, b.Matrix.F32); diff != "" {
		t.Errorf("two runs with one worker differ (-first +second):\n%s", diff)
	}
	// Each row's gradient is summed in batch order by one goroutine, so
	// the worker count does not change the bits either.
	if diff := cmp.Diff(a.Matrix.F32, c.Matrix.F32); diff != "" {
		t.Errorf("one and two workers differ (-one +two):\n%s", diff)
	}
	if diff := cmp.Diff(a.Loss, c.Loss); diff != "" {
		t.Errorf("loss curves differ (-one +two):\n%s", diff)
	}
}

// TestExportLoad: the exported model, read back in either format, embeds
// texts as the trainer did, with each term-frequency scaling.
func TestExportLoad(t *testing.T) {
	t.Parallel()
	for _, tf := range []static.TF{static.TFRaw, static.TFSqrt, static.TFLog} {
		t.Run(tf.String(), func(t *testing.T) {
			t.Parallel()
			o := smallOptions()
			o.Epochs = 2
			o.TF = tf
			res, err := Train(t.Context(), synthPairs(128, 4, "train"), nil, o)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "model")
			if err := Export(dir, res); err != nil {
				t.Fatal(err)
			}
			m2v, err := static.LoadModel2Vec(dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, BinaryFile))
			if err != nil {
				t.Fatal(err)
			}
			bin, err := static.LoadBinary(b)
			if err != nil {
				t.Fatal(err)
			}
			m := &model{rows: res.Matrix.Rows, d: res.Matrix.Dims, e: res.Matrix.F32}
			// Repeated tokens (x, cache, parse) tell the scalings apart.
			texts := []string{"parse the header parse", "func readSocket(x int) { return cache(x) + cache(x) }", "unseenIdentifierXyz", "color"}
			tb, err := tokenize(t.Context(), res.Tokenizer, texts, 1)
			if err != nil {
				t.Fatal(err)
			}
			weigh(tb, res.Weights, tf)
			for _, got := range []*static.Model{m2v, bin} {
				if got.Dims() != o.Dims {
					t.Errorf("Dims = %d, want %d", got.Dims(), o.Dims)
				}
				if got.TF() != tf {
					t.Errorf("TF = %v, want %v", got.TF(), tf)
				}
				for i, text := range texts {
					want := make([]float32, m.d)
					m.embed(want, tb, i)
					v := got.Embed(text)
					if cos := dot(want, v); cos < 0.995 {
						t.Errorf("Embed(%q): cosine %.5f with the trainer's vector, want ≥ 0.995 (int8 tolerance)", text, cos)
					}
				}
			}
		})
	}
}

func TestBM25(t *testing.T) {
	t.Parallel()
	docs := []string{"fox dog", "fox cat cat", "cow"}
	for _, d := range docs {
		if got := analyze.TermList(d); len(got) != len(splitSpace(d)) {
			t.Fatalf("analyze.Terms(%q) = %q, want the words as they are", d, got)
		}
	}
	x := newBM25(docs)
	// N = 3, lengths 2, 3, 1, avgdl 2.
	// "cat": df 1, idf = ln(1 + 2.5/1.5); doc 1 has tf 2 and len 3:
	//   2·2.2 / (2 + 1.2·(0.25 + 0.75·1.5)) = 4.4/3.65.
	// "fox": df 2, idf = ln(1 + 1.5/2.5); doc 0 tf 1 len 2:
	//   2.2/(1 + 1.2) = 1; doc 1 tf 1 len 3: 2.2/(1 + 1.65).
	idfCat, idfFox := math.Log(1+2.5/1.5), math.Log(1+1.5/2.5)
	want := []float32{
		float32(idfFox * 1),
		float32(idfCat*4.4/3.65 + idfFox*2.2/2.65),
		0,
	}
	got := make([]float32, 3)
	x.score(got, "cat fox cat")
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Errorf("score[%d] = %.6f, want %.6f", i, got[i], want[i])
		}
	}
}

func splitSpace(s string) []string {
	var out []string
	analyze.Words(s, func(w string, _ int) { out = append(out, w) })
	return out
}

func TestRanking(t *testing.T) {
	t.Parallel()
	if got, want := mrr([]int{1, 2, 11, 5}, 10), (1+0.5+0+0.2)/4; math.Abs(got-want) > 1e-12 {
		t.Errorf("mrr = %v, want %v", got, want)
	}
	if got := mrr(nil, 10); got != 0 {
		t.Errorf("mrr(nil) = %v, want 0", got)
	}
	scores := []float32{0.5, 0.9, 0.5, 0.1, 0.7}
	for _, tt := range []struct{ target, want int }{{1, 1}, {4, 2}, {0, 3}, {2, 4}, {3, 5}} {
		if got := rankOf(scores, tt.target); got != tt.want {
			t.Errorf("rankOf(%d) = %d, want %d", tt.target, got, tt.want)
		}
	}
	if diff := cmp.Diff([]int{1, 4, 0}, topK(scores, 3)); diff != "" {
		t.Errorf("topK (-want +got):\n%s", diff)
	}
	// RRF k=60: a = [7 3 5], b = [3 9]. 3: 1/62 + 1/61; 7: 1/61;
	// 9: 1/62; 5: 1/63.
	a, b := []int{7, 3, 5}, []int{3, 9}
	for _, tt := range []struct{ target, want int }{{3, 1}, {7, 2}, {9, 3}, {5, 4}, {42, 5}} {
		if got := fusedRank(a, b, tt.target, 60); got != tt.want {
			t.Errorf("fusedRank(%d) = %d, want %d", tt.target, got, tt.want)
		}
	}
}

// TestGroupBatches: grouping keeps a permutation, and when every group
// fills whole batches each batch holds one group only.
func TestGroupBatches(t *testing.T) {
	t.Parallel()
	var pairs []Pair
	for i := range 48 {
		pairs = append(pairs, Pair{Lang: []string{"go", "rust", "ruby"}[i%3], Source: fmt.Sprint("s", i%6)})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, by := range []string{"lang", "source"} {
		order := rng.Perm(len(pairs))
		groupBatches(order, pairs, by, 8, rng)
		seen := map[int]bool{}
		for _, i := range order {
			seen[i] = true
		}
		if len(seen) != len(pairs) || len(order) != len(pairs) {
			t.Fatalf("by %s: order %v is not a permutation", by, order)
		}
		for b := 0; b < len(order); b += 8 {
			key := func(i int) string {
				if by == "lang" {
					return pairs[i].Lang
				}
				return pairs[i].Source
			}
			for _, i := range order[b+1 : b+8] {
				if key(i) != key(order[b]) {
					t.Errorf("by %s: batch %d mixes %q and %q", by, b/8, key(order[b]), key(i))
					break
				}
			}
		}
	}
}

// baseModel trains a model on synthetic pairs with o and returns it as
// trained and as the int8 model a fine-tune starts from.
func baseModel(t *testing.T, o Options, heldout []Pair) (*Result, *static.Model) {
	t.Helper()
	base, err := Train(t.Context(), synthPairs(256, 1, "train"), heldout, o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := static.NewModel(ModelName, base.Tokenizer, base.Matrix.Int8(), &static.Options{Weights: base.Weights})
	if err != nil {
		t.Fatal(err)
	}
	return base, m
}

// TestFineTune checks Options.Init: fine-tuning starts from the given
// model (its held-out score before the first step is the model's own,
// up to int8 rounding), keeps its tokenizer and weights, and trains on.
func TestFineTune(t *testing.T) {
	t.Parallel()
	o := smallOptions()
	o.Epochs = 2
	held := synthPairs(64, 2, "heldout")
	base, m := baseModel(t, o, held)
	ft := smallOptions()
	ft.Init, ft.Epochs, ft.Dims, ft.LR = m, 2, 999, 0.01 // Dims comes from Init
	res, err := Train(t.Context(), synthPairs(128, 7, "train"), held, ft)
	if err != nil {
		t.Fatal(err)
	}
	if res.Matrix.Dims != o.Dims || res.Matrix.Rows != m.Matrix().Rows || res.Tokenizer != base.Tokenizer {
		t.Errorf("fine-tuned %d×%d (tokenizer kept: %v), want the init's %d×%d", res.Matrix.Rows, res.Matrix.Dims, res.Tokenizer == base.Tokenizer, m.Matrix().Rows, o.Dims)
	}
	if !slices.Equal(res.Weights, base.Weights) {
		t.Error("fine-tuning changed the token weights")
	}
	trained, start := base.Evals[len(base.Evals)-1].Dense, res.Evals[0].Dense
	if math.Abs(trained-start) > 0.02 {
		t.Errorf("fine-tuning starts at held-out MRR %.4f, the init model scored %.4f", start, trained)
	}
	if res.Steps == 0 || cmp.Equal(res.Matrix.F32, m.Matrix().Float32().F32) {
		t.Error("fine-tuning did not change the matrix")
	}
}

// TestFineTuneOnlyLangs checks Options.OnlyLangs: a fine-tune restricted
// to one language changes only the rows of tokens that language's pairs
// use more than the rest, and leaves every other row as the init has it.
func TestFineTuneOnlyLangs(t *testing.T) {
	t.Parallel()
	o := smallOptions()
	o.Epochs = 2
	base, m := baseModel(t, o, nil)
	// The other language's pairs use the shared words; csharp's also use
	// words of its own.
	pairs := synthPairs(128, 7, "train")
	for i := range pairs {
		pairs[i].Lang = "go"
		if i%2 == 0 {
			pairs[i].Lang = "csharp"
			pairs[i].Query += " serializer"
			pairs[i].Code += " // dictionary serializer"
		}
	}
	ft := smallOptions()
	ft.Init, ft.Epochs, ft.LR, ft.OnlyLangs = m, 2, 0.05, []string{"csharp"}
	res, err := Train(t.Context(), pairs, nil, ft)
	if err != nil {
		t.Fatal(err)
	}
	scratch := smallOptions()
	scratch.OnlyLangs = []string{"csharp"}
	if _, err := Train(t.Context(), pairs, nil, scratch); err == nil {
		t.Error("OnlyLangs without Init trained, want an error: there is no row to keep")
	}
	init := m.Matrix().Float32()
	d := init.Dims
	changed := func(r int) bool { return !slices.Equal(res.Matrix.F32[r*d:r*d+d], init.F32[r*d:r*d+d]) }
	// csharp's own words are not in the base vocabulary: their rows are
	// the trigram buckets only they use.
	for _, term := range []string{"serializer", "dictionary"} {
		for _, id := range base.Tokenizer.AppendIDs(nil, term, -1) {
			if !changed(int(id)) {
				t.Errorf("row %s of %q, a word only csharp uses, did not train", base.Tokenizer.Token(int(id)), term)
			}
		}
	}
	for _, term := range []string{"parse", "header", "return"} {
		ids := base.Tokenizer.AppendIDs(nil, term, -1)
		if len(ids) == 0 || int(ids[0]) >= base.Tokenizer.VocabSize() {
			t.Fatalf("%q is not in the base vocabulary", term)
		}
		if changed(int(ids[0])) {
			t.Errorf("row of %q, used by both languages alike, changed", term)
		}
	}
}
