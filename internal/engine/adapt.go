package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed/builtin"
	"github.com/ctx-dev/ctx/internal/embed/static"
	"github.com/ctx-dev/ctx/internal/mine"
	"github.com/ctx-dev/ctx/internal/mmap"
	"github.com/ctx-dev/ctx/internal/train"
)

// AdaptedModelName names a built-in model fine-tuned on one repository.
const AdaptedModelName = "ctx-code-adapted"

// AdaptOptions configures [Engine.Adapt]; zero fields take the defaults
// shown.
type AdaptOptions struct {
	Epochs     int           // passes over the repository's pairs; DefaultAdaptEpochs
	LR         float64       // Adagrad learning rate; 0.01 (the shipped model trained at 0.05)
	TimeBudget time.Duration // stop training after this long; DefaultAdaptTimeBudget
	Seed       uint64        // shuffling seed; 1
	// Force keeps the adapted model even when it does not beat the
	// built-in one on the held-out pairs.
	Force bool
	// Progress receives the training log; nil discards it.
	Progress io.Writer
}

// The defaults of [AdaptOptions] (and of ctx train's flags).
const (
	DefaultAdaptEpochs     = 2
	DefaultAdaptTimeBudget = 2 * time.Minute
)

// AdaptReport is what [Engine.Adapt] did.
type AdaptReport struct {
	Files   int `json:"files"`   // files mined
	Pairs   int `json:"pairs"`   // training pairs
	HeldOut int `json:"heldout"` // held-out pairs (from every 10th file by path hash)
	// Before and After are held-out MRR@10 of the built-in and the
	// fine-tuned model (and of BM25 over the same codes, for scale).
	Before train.Eval `json:"before"`
	After  train.Eval `json:"after"`
	// Kept says whether the adapted model was stored (it must beat the
	// built-in model's held-out dense MRR@10, unless forced).
	Kept     bool   `json:"kept"`
	Path     string `json:"path,omitempty"` // where it is stored
	Model    string `json:"model"`          // the identity queries will use
	Duration string `json:"duration"`
}

// minAdaptPairs is the fewest training pairs worth fine-tuning on.
const minAdaptPairs = 64

// AdaptedModelPath is where [Engine.Adapt] stores the repository's
// fine-tuned model: beside its index database.
func (e *Engine) AdaptedModelPath() string { return e.dbPath + ".model" }

// Adapt fine-tunes the built-in embedding model on this repository: it
// mines (doc comment → definition, name → body, comment → block) pairs
// from the files the index would read, holds out every 10th file (by a
// hash of its path) for evaluation, trains from the built-in weights, and
// stores the result beside the index when it beats the built-in model on
// the held-out pairs. The engine then embeds with it, so the next
// [Engine.Index] rebuilds the index (the model identity changed); the
// caller runs it. Errors: another embedding provider is configured, too
// few pairs, ctx's cancellation, file system failures.
func (e *Engine) Adapt(ctx context.Context, opts AdaptOptions) (*AdaptReport, error) {
	start := time.Now()
	if e.cfg.Embed.Provider != builtin.ProviderName {
		return nil, fmt.Errorf("ctx train adapts the built-in model, and the configured embedding provider is %q", e.cfg.Embed.Provider)
	}
	base, err := builtin.Model()
	if err != nil {
		return nil, fmt.Errorf("loading the built-in model: %w", err)
	}
	trainSet, heldout, files, err := e.minePairs(ctx)
	if err != nil {
		return nil, err
	}
	rep := &AdaptReport{Files: files, Pairs: len(trainSet), HeldOut: len(heldout)}
	if len(trainSet) < minAdaptPairs {
		return nil, fmt.Errorf("%s has %d training pairs (documented definitions, named functions), want at least %d to adapt the model", e.root, len(trainSet), minAdaptPairs)
	}
	o := train.Options{
		Init:       base,
		Epochs:     cmp.Or(opts.Epochs, DefaultAdaptEpochs),
		LR:         opts.LR,
		Seed:       cmp.Or(opts.Seed, 1),
		TimeBudget: opts.TimeBudget,
		PathHeader: true, // as the index embeds chunks (index.EmbedText)
		Progress:   opts.Progress,
		Workers:    runtime.GOMAXPROCS(0),
	}
	if o.LR <= 0 {
		o.LR = 0.01
	}
	if o.TimeBudget <= 0 {
		o.TimeBudget = DefaultAdaptTimeBudget
	}
	res, err := train.Train(ctx, trainSet, heldout, o)
	if err != nil {
		return nil, err
	}
	if len(res.Evals) > 0 {
		rep.Before, rep.After = res.Evals[0], res.Evals[len(res.Evals)-1]
	}
	rep.Kept = opts.Force || len(heldout) > 0 && rep.After.Dense > rep.Before.Dense
	if rep.Kept {
		m, err := static.NewModel(AdaptedModelName, res.Tokenizer, res.Matrix.Int8(), &static.Options{Weights: res.Weights, Version: train.ModelVersion, TF: res.TF})
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := static.WriteBinary(&buf, m); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(e.AdaptedModelPath(), buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("storing the adapted model: %w", err)
		}
		// Embed with the model as later engines will load it.
		p, err := loadAdapted(e.AdaptedModelPath())
		if err != nil {
			return nil, err
		}
		rep.Path = e.AdaptedModelPath()
		e.emb = p
	}
	rep.Model = e.emb.Model().Name
	rep.Duration = time.Since(start).Round(time.Millisecond).String()
	return rep, nil
}

// RemoveAdapted deletes the repository's adapted model (a no-op when
// there is none); the engine goes back to the built-in model, so the next
// [Engine.Index] rebuilds the index.
func (e *Engine) RemoveAdapted() (bool, error) {
	err := os.Remove(e.AdaptedModelPath())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing the adapted model: %w", err)
	}
	if e.cfg.Embed.Provider == builtin.ProviderName {
		p, err := builtin.New()
		if err != nil {
			return true, fmt.Errorf("loading the built-in model: %w", err)
		}
		e.emb = p
	}
	return true, nil
}

// loadAdapted returns the repository's adapted model as a provider, nil
// when there is none. A file that does not load is an error naming the
// fix.
//
// The file is mapped, not read (a one-query process would otherwise copy
// 30 MB), and stays mapped for the process's life: [static.LoadBinary]
// uses the bytes in place, and a later ctx train replaces the file by
// rename, which leaves this mapping intact.
func loadAdapted(path string) (*static.Provider, error) {
	b, unmap, err := mmap.Map(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if fsRefused(err) {
		// It lives in the cache directory: the first file an engine reads.
		return nil, cacheDirErr(dirOf(path), fmt.Errorf("reading the adapted model %s: %w", path, err))
	}
	if err != nil {
		return nil, fmt.Errorf("reading the adapted model %s: %w", path, err)
	}
	m, err := static.LoadBinary(b)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("loading the adapted model %s: %w; run `ctx train --remove` (or `ctx train` again)", path, err)
	}
	return static.New(m, ""), nil
}

// minePairs mines the repository's pairs, split into training and
// held-out pairs by file ([heldOutFile]), and returns how many files it
// read.
func (e *Engine) minePairs(ctx context.Context) (trainSet, heldout []train.Pair, nFiles int, err error) {
	_, files, per, err := e.mineRepo(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	for i, ps := range per {
		if len(ps) == 0 {
			continue
		}
		nFiles++
		held := heldOutFile(files[i].Path)
		for _, p := range ps {
			tp := train.Pair{Query: p.Query, Code: p.Code, Path: p.Path, Lang: p.Lang, Kind: p.Kind, Source: "repo"}
			if held {
				tp.Split = "heldout"
				heldout = append(heldout, tp)
			} else {
				tp.Split = "train"
				trainSet = append(trainSet, tp)
			}
		}
	}
	return trainSet, heldout, nFiles, nil
}

// mineRepo mines the (doc comment → definition, name → body, comment →
// block) pairs of the files the index would read: it returns those files
// (all of them), the code files among them (Markdown and plain text left
// out) and each code file's pairs.
func (e *Engine) mineRepo(ctx context.Context) (all, code []discover.File, per [][]mine.Pair, err error) {
	walk, err := discover.Walk(ctx, e.root, walkOptions(e.cfg))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range walk.Files {
		if f.Language != discover.LangText && f.Language != discover.LangMarkdown {
			code = append(code, f)
		}
	}
	per, err = mine.MineFiles(ctx, chunk.New(nil), code, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, nil, nil, err
	}
	return walk.Files, code, per, nil
}

// heldOutFile reports whether ctx train holds the file at path (slash
// separated, relative to the root) out of training: every 10th file, by
// an FNV-1a hash of its path. ctx eval asks its queries of these files.
func heldOutFile(path string) bool {
	h := fnv.New32a()
	h.Write([]byte(path))
	return h.Sum32()%10 == 0
}
