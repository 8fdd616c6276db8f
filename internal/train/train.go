package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/embed/static"
)

// ModelVersion is the trainer's recipe version, recorded in the exported
// model's identity.
//
//	1: embedding bag over CodeTokenizer ids, SIF weights, symmetric
//	   InfoNCE with Matryoshka levels, sparse Adagrad.
//	2: the same, trained with --path-header on the 16-language data set
//	   (internal/mine/README.md) with batches of 1024.
//	3: the same with --tf sqrt: each token's row scaled by the square
//	   root of its count in the text (static.TFSqrt).
const ModelVersion = "ctx-code-3"

// Options configure a training run. Zero fields take the defaults shown.
type Options struct {
	Dims        int           // vector length; 256
	Epochs      int           // passes over the training pairs; 3
	Batch       int           // pairs per batch; 256
	LR          float64       // Adagrad learning rate; 0.05
	Tau         float64       // InfoNCE temperature; 0.05
	Seed        uint64        // initialisation and shuffling seed
	MaxVocab    int           // vocabulary terms before the buckets; 60000
	Buckets     int           // trigram hash buckets; 1<<15
	Workers     int           // goroutines; GOMAXPROCS
	TimeBudget  time.Duration // stop training after this long; 0 means no limit
	LogEvery    int           // batches between loss lines; 100
	EvalQueries int           // held-out queries evaluated; 0 means all
	// PathHeader prefixes each code text with its file path on a line of
	// its own, as the index embeds a chunk (index.EmbedText), so the model
	// learns what path words say about the code.
	PathHeader bool
	// BatchBy groups each batch's pairs by "lang" or "source" (empty: no
	// grouping), so the in-batch negatives share the positives' language
	// or package: harder negatives than code in another language, which
	// its syntax alone tells apart. Batch order is still shuffled.
	// Measured on semble DEV (same data, 2 epochs): by "lang", hybrid
	// 0.810 and dense alone 0.785 against 0.816 and 0.786 without; the
	// shipped model does not use it.
	BatchBy string
	// TF is how a token's count in a text scales its row in the bag
	// ([static.TF]); it is part of the exported model. A fine-tune keeps
	// Init's.
	TF static.TF
	// Init, when set, fine-tunes this model instead of training one from
	// scratch: its [static.CodeTokenizer], token weights and matrix
	// (dequantised) are the starting point, and Dims, MaxVocab and
	// Buckets are taken from it. Per-repository adaptation (ctx train)
	// starts from the built-in model this way.
	Init *static.Model
	// OnlyLangs, with Init, fine-tunes only the rows of the tokens these
	// languages' training pairs use more often than the other pairs do
	// (occurrences over queries and codes): a language whose data was
	// thin learns its own identifiers while every shared word (the
	// English of doc comments, "serialize", "stream") keeps Init's row,
	// and so the other languages' vectors do not move. Empty: every row
	// trains.
	OnlyLangs []string
	// Progress receives the loss curve and evaluations; nil discards.
	Progress io.Writer
}

// frozenRows marks the rows that a fine-tune restricted to langs leaves
// alone (see [Options.OnlyLangs]): every row but those whose tokens
// occur more often in langs' training pairs (qb and cb hold the pairs'
// query and code bags, in trainSet's order) than in the rest. It also
// returns how many rows train.
func frozenRows(rows int, trainSet []Pair, qb, cb *bags, langs []string) ([]bool, int) {
	in, out := make([]int32, rows), make([]int32, rows)
	for i, p := range trainSet {
		count := out
		if slices.Contains(langs, p.Lang) {
			count = in
		}
		for _, b := range []*bags{qb, cb} {
			rs, _ := b.bag(i)
			for _, r := range rs {
				count[r]++
			}
		}
	}
	frozen := make([]bool, rows)
	n := 0
	for r := range frozen {
		frozen[r] = in[r] <= out[r]
		if !frozen[r] {
			n++
		}
	}
	return frozen, n
}

func (o *Options) setDefaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.Dims, 256)
	def(&o.Epochs, 3)
	def(&o.Batch, 256)
	def(&o.MaxVocab, 60000)
	def(&o.Buckets, 1<<15)
	def(&o.Workers, runtime.GOMAXPROCS(0))
	def(&o.LogEvery, 100)
	if o.LR <= 0 {
		o.LR = 0.05
	}
	if o.Tau <= 0 {
		o.Tau = 0.05
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
}

// Result is a trained model and its record.
type Result struct {
	Tokenizer *static.CodeTokenizer `json:"-"`
	Matrix    static.Matrix         `json:"-"` // float32, Tokenizer.Size() × Dims
	Weights   []float32             `json:"-"` // SIF weight per row
	TF        static.TF             `json:"tf"`
	Vocab     int                   `json:"vocab"`
	Buckets   int                   `json:"buckets"`
	Dims      int                   `json:"dims"`
	Pairs     int                   `json:"pairs"`
	Steps     int                   `json:"steps"`
	Epochs    float64               `json:"epochs"` // fraction done when the budget stopped it
	Duration  string                `json:"duration"`
	Loss      []float64             `json:"loss"` // mean batch loss per LogEvery batches
	Evals     []Eval                `json:"evals"`
	Seed      uint64                `json:"seed"`
}

// Train trains a model on trainSet and evaluates it on heldout after each
// epoch (and before the first). It stops early, but still returns the
// model, when opts.TimeBudget runs out; it returns ctx's error when ctx
// ends.
func Train(ctx context.Context, trainSet, heldout []Pair, opts Options) (*Result, error) {
	opts.setDefaults()
	start := time.Now()
	out := opts.Progress
	if len(trainSet) < 2 {
		return nil, fmt.Errorf("%d training pairs, want at least 2", len(trainSet))
	}
	if len(opts.OnlyLangs) > 0 && opts.Init == nil {
		return nil, fmt.Errorf("only languages %v: a model trained from scratch trains every row; fine-tune one (Init, ctx-train --init)", opts.OnlyLangs)
	}
	var (
		tok     *static.CodeTokenizer
		initE   []float32
		weights []float32
	)
	if opts.Init != nil {
		ct, ok := opts.Init.TextTokenizer().(*static.CodeTokenizer)
		if !ok {
			return nil, fmt.Errorf("fine-tuning %s: not a code-tokenizer model", opts.Init.Identity().Name)
		}
		tok = ct
		mat := opts.Init.Matrix().Float32()
		opts.Dims, initE = mat.Dims, mat.F32
		weights = opts.Init.Weights()
		opts.TF = opts.Init.TF()
		if weights == nil {
			weights = make([]float32, mat.Rows)
			for i := range weights {
				weights[i] = 1
			}
		}
	} else {
		vocab, err := buildVocab(ctx, trainSet, opts.MaxVocab, opts.Workers)
		if err != nil {
			return nil, err
		}
		if tok, err = static.NewCodeTokenizer(vocab, opts.Buckets); err != nil {
			return nil, err
		}
	}
	texts := func(ps []Pair, code bool) []string {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = p.Query
			switch {
			case code && opts.PathHeader && p.Path != "":
				s[i] = p.Path + "\n" + p.Code
			case code:
				s[i] = p.Code
			}
		}
		return s
	}
	qb, err := tokenize(ctx, tok, texts(trainSet, false), opts.Workers)
	if err != nil {
		return nil, err
	}
	cb, err := tokenize(ctx, tok, texts(trainSet, true), opts.Workers)
	if err != nil {
		return nil, err
	}
	// Weights from both sides' token frequencies (a fine-tuned model
	// keeps its own: they are part of what its vectors mean).
	if weights == nil {
		both := &bags{off: append(append([]int(nil), qb.off...), cb.off[1:]...), rows: append(append([]int32(nil), qb.rows...), cb.rows...), coef: append(append([]float32(nil), qb.coef...), cb.coef...)}
		weights = sifWeights(both, tok.Size())
	}
	weigh(qb, weights, opts.TF)
	weigh(cb, weights, opts.TF)
	fmt.Fprintf(out, "vocab %d terms + %d buckets, %d train pairs, %d held-out pairs, prepared in %s\n",
		tok.VocabSize(), tok.Buckets(), len(trainSet), len(heldout), time.Since(start).Round(time.Millisecond))

	var es *evalSet
	if len(heldout) > 0 {
		es = newEvalSet(heldout, opts.EvalQueries, opts.PathHeader)
		if es.qb, err = tokenize(ctx, tok, es.queries, opts.Workers); err != nil {
			return nil, err
		}
		if es.db, err = tokenize(ctx, tok, es.docs, opts.Workers); err != nil {
			return nil, err
		}
		weigh(es.qb, weights, opts.TF)
		weigh(es.db, weights, opts.TF)
	}

	rows := tok.Size()
	if initE != nil {
		rows = len(initE) / opts.Dims
	}
	m := newModel(rows, opts.Dims, float32(opts.Tau), float32(opts.LR), opts.Workers, opts.Seed, initE)
	if len(opts.OnlyLangs) > 0 {
		var n int
		m.frozen, n = frozenRows(rows, trainSet, qb, cb, opts.OnlyLangs)
		fmt.Fprintf(out, "training the %d of %d rows that %s pairs use most\n", n, rows, strings.Join(opts.OnlyLangs, ", "))
	}
	res := &Result{Tokenizer: tok, Weights: weights, TF: opts.TF, Vocab: tok.VocabSize(), Buckets: tok.Buckets(), Dims: opts.Dims, Pairs: len(trainSet), Seed: opts.Seed}
	evaluate := func(label string) error {
		if es == nil {
			return nil
		}
		t0 := time.Now()
		ev, err := es.evaluate(ctx, m, opts.Workers)
		if err != nil {
			return err
		}
		res.Evals = append(res.Evals, ev)
		fmt.Fprintf(out, "%s: held-out MRR@10 dense %.4f  bm25 %.4f  fused %.4f  (%d queries, %d codes, %s)\n",
			label, ev.Dense, ev.BM25, ev.Fused, ev.Queries, ev.Docs, time.Since(t0).Round(time.Millisecond))
		for _, g := range []map[string]KindEval{ev.ByKind, ev.ByLang} {
			for _, k := range slices.Sorted(maps.Keys(g)) {
				ke := g[k]
				fmt.Fprintf(out, "    %-10s dense %.4f  bm25 %.4f  fused %.4f  (%d queries)\n", k, ke.Dense, ke.BM25, ke.Fused, ke.Queries)
			}
		}
		return nil
	}
	if err := evaluate("init"); err != nil {
		return nil, err
	}

	trainStart := time.Now()
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5bff1e))
	order := make([]int, len(trainSet))
	for i := range order {
		order[i] = i
	}
	B := min(opts.Batch, len(trainSet))
	perEpoch := len(trainSet) / B
	var sum float64
	var n int
	stopped := false
	for epoch := 1; epoch <= opts.Epochs && !stopped; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if opts.BatchBy != "" {
			groupBatches(order, trainSet, opts.BatchBy, B, rng)
		}
		for b := range perEpoch {
			if opts.TimeBudget > 0 && time.Since(trainStart) >= opts.TimeBudget {
				fmt.Fprintf(out, "time budget %s reached at epoch %d batch %d/%d\n", opts.TimeBudget, epoch, b, perEpoch)
				res.Epochs = float64(epoch-1) + float64(b)/float64(perEpoch)
				stopped = true
				break
			}
			idx := order[b*B : (b+1)*B]
			loss, err := m.step(ctx, qb, cb, idx, idx)
			if err != nil {
				return nil, err
			}
			res.Steps++
			sum += loss
			n++
			if n == opts.LogEvery {
				res.Loss = append(res.Loss, sum/float64(n))
				fmt.Fprintf(out, "epoch %d step %d loss %.4f (%s)\n", epoch, res.Steps, sum/float64(n), time.Since(trainStart).Round(time.Second))
				sum, n = 0, 0
			}
		}
		if !stopped {
			res.Epochs = float64(epoch)
		}
		if err := evaluate(fmt.Sprintf("epoch %d", epoch)); err != nil {
			return nil, err
		}
	}
	if n > 0 {
		res.Loss = append(res.Loss, sum/float64(n))
	}
	res.Matrix = static.Matrix{Rows: m.rows, Dims: m.d, F32: m.e}
	res.Duration = time.Since(trainStart).Round(time.Millisecond).String()
	return res, nil
}

// groupBatches reorders order (a shuffled permutation of pair indices) so
// that pairs of one group (by "lang" or "source") are contiguous, then
// shuffles the order of its whole batches of size b; a tail shorter than
// a batch stays at the end.
func groupBatches(order []int, pairs []Pair, by string, b int, rng *rand.Rand) {
	key := func(i int) string {
		if by == "lang" {
			return pairs[i].Lang
		}
		return pairs[i].Source
	}
	sort.SliceStable(order, func(x, y int) bool { return key(order[x]) < key(order[y]) })
	nb := len(order) / b
	perm := rng.Perm(nb)
	tmp := make([]int, nb*b)
	for i, p := range perm {
		copy(tmp[i*b:(i+1)*b], order[p*b:(p+1)*b])
	}
	copy(order, tmp)
}

// ModelName is the name of the model ctx-train exports, recorded in its
// identity.
const ModelName = "ctx-code"

// BinaryFile is the name of the binary model file [Export] writes (the
// form ctx embeds as its built-in model; see internal/embed/builtin).
const BinaryFile = "model.ctxm"

// Export writes res into dir as an int8 model with per-row scales that
// [static.LoadModel2Vec] reads ([static.WriteCodeModel]), the same model
// in the binary format ([static.WriteBinary], file [BinaryFile]), and
// train.json, the run's record.
func Export(dir string, res *Result) error {
	q := res.Matrix.Int8()
	opts := &static.Options{Weights: res.Weights, Version: ModelVersion, TF: res.TF}
	if err := static.WriteCodeModel(dir, res.Tokenizer, q, opts); err != nil {
		return err
	}
	m, err := static.NewModel(ModelName, res.Tokenizer, q, opts)
	if err != nil {
		return err
	}
	if err := writeBinaryFile(filepath.Join(dir, BinaryFile), m); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("writing train record: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "train.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing train record: %w", err)
	}
	return nil
}

// writeBinaryFile writes m to path in the binary model format.
func writeBinaryFile(path string, m *static.Model) error {
	var buf bytes.Buffer
	if err := static.WriteBinary(&buf, m); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing binary model: %w", err)
	}
	return nil
}

// Convert writes the model2vec-format code model in dir (as [Export]
// wrote it) into dst in the binary format, named [ModelName] with version
// [ModelVersion]: how a trained model becomes the built-in one.
func Convert(dir, dst string) error {
	m, err := static.LoadModel2Vec(dir)
	if err != nil {
		return err
	}
	return writeBinaryFile(dst, m.Renamed(ModelName, ModelVersion))
}

// Main is the ctx-train command: it parses args (without the program
// name), trains on --pairs, writes the model into --out, and reports
// progress on stderr. It returns the process exit code: 0 ok, 1 error,
// 2 usage.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctx-train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	pairs := fs.String("pairs", "/tmp/mine-out/pairs.jsonl", "mined pairs (JSON lines from ctx-mine)")
	out := fs.String("out", "", "model directory to write (required); with --convert, the binary model file")
	convert := fs.String("convert", "", "convert this model2vec-format code model directory into the binary file --out instead of training")
	fs.Func("only-langs", "with --init, train only the rows of tokens that these languages' pairs (comma-separated, e.g. csharp,swift,bash) use more than the others do", func(v string) error {
		o.OnlyLangs = strings.Split(v, ",")
		return nil
	})
	initFile := fs.String("init", "", "fine-tune this binary model file (a .ctxm such as internal/embed/builtin/model.ctxm) instead of training from scratch: its vocabulary, weights and dimensions are kept")
	fs.IntVar(&o.Dims, "dims", 256, "vector length")
	fs.IntVar(&o.Epochs, "epochs", 3, "passes over the training pairs")
	fs.IntVar(&o.Batch, "batch", 256, "pairs per batch (in-batch negatives)")
	fs.Float64Var(&o.LR, "lr", 0.05, "Adagrad learning rate")
	fs.Float64Var(&o.Tau, "tau", 0.05, "InfoNCE temperature")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.IntVar(&o.MaxVocab, "max-vocab", 60000, "vocabulary terms before the hash buckets")
	fs.IntVar(&o.Buckets, "buckets", 1<<15, "trigram hash buckets")
	fs.IntVar(&o.Workers, "workers", runtime.GOMAXPROCS(0), "goroutines")
	fs.DurationVar(&o.TimeBudget, "time-budget", 0, "stop training after this wall-clock time (0: none)")
	fs.IntVar(&o.LogEvery, "log-every", 100, "batches per loss line")
	fs.IntVar(&o.EvalQueries, "eval-queries", 0, "held-out queries evaluated (0: all)")
	fs.BoolVar(&o.PathHeader, "path-header", false, "prefix code texts with their file path, as the index embeds chunks")
	fs.Func("tf", "term-frequency scaling in the bag: raw, sqrt or log (default raw)", func(v string) (err error) {
		o.TF, err = static.ParseTF(v)
		return err
	})
	fs.StringVar(&o.BatchBy, "batch-by", "", `group each batch's pairs by "lang" or "source" (harder in-batch negatives)`)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ctx-train --pairs FILE --out DIR [flags]\n\nExample:\n  ctx-train --pairs /tmp/mine-out/pairs.jsonl --out /tmp/ctx-model --time-budget 15m\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	o.Progress = stderr
	if *convert != "" {
		if err := Convert(*convert, *out); err != nil {
			fmt.Fprintf(stderr, "ctx-train: %v\n", err)
			return 1
		}
		return 0
	}
	if *initFile != "" {
		b, err := os.ReadFile(*initFile)
		if err != nil {
			fmt.Fprintf(stderr, "ctx-train: %v\n", err)
			return 1
		}
		if o.Init, err = static.LoadBinary(b); err != nil {
			fmt.Fprintf(stderr, "ctx-train: %s: %v\n", *initFile, err)
			return 1
		}
	}
	start := time.Now()
	trainSet, heldout, err := LoadPairs(*pairs)
	if err != nil {
		fmt.Fprintf(stderr, "ctx-train: loading pairs: %v\n", err)
		return 1
	}
	res, err := Train(ctx, trainSet, heldout, o)
	if err != nil {
		fmt.Fprintf(stderr, "ctx-train: training: %v\n", err)
		return 1
	}
	if err := Export(*out, res); err != nil {
		fmt.Fprintf(stderr, "ctx-train: %v\n", err)
		return 1
	}
	var size int64
	for _, f := range []string{"model.safetensors", "tokenizer.json", "config.json", BinaryFile} {
		if st, err := os.Stat(filepath.Join(*out, f)); err == nil {
			size += st.Size()
		}
	}
	fmt.Fprintf(stderr, "wrote %s (%.1f MB) after %s total\n", *out, float64(size)/(1<<20), time.Since(start).Round(time.Second))
	return 0
}
