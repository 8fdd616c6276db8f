package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type trainOptions struct {
	deps       *Deps
	path       string
	epochs     int
	timeBudget time.Duration
	force      bool
	remove     bool
	verbose    bool
	json       bool
}

func newTrainCmd(deps *Deps) *cobra.Command {
	opts := &trainOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "train [PATH]",
		Short: "Adapt the built-in embedding model to a repository",
		Long: `Fine-tune the built-in embedding model on PATH's own code (default: --repo, else the
enclosing git work tree, else the current directory): pairs of doc comment and definition,
split name and body, comment and the block it describes are mined from the files the index
reads; every 10th file is held out to measure the result. The adapted model is stored beside
the index and used for that repository only when it beats the built-in model on the held-out
pairs (--force keeps it regardless); the index is then rebuilt with it. --remove goes back
to the built-in model.`,
		Example: `  ctx train
  ctx train --epochs 3 --time-budget 5m
  ctx train --remove`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			return runTrain(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.epochs, "epochs", engine.DefaultAdaptEpochs, "passes over the repository's pairs")
	cmd.Flags().DurationVar(&opts.timeBudget, "time-budget", engine.DefaultAdaptTimeBudget, "stop training after this long")
	cmd.Flags().BoolVar(&opts.force, "force", false, "keep the adapted model even if it does not beat the built-in one")
	cmd.Flags().BoolVar(&opts.remove, "remove", false, "delete the adapted model and rebuild the index with the built-in one")
	cmd.Flags().BoolVarP(&opts.verbose, "verbose", "v", false, "print the training log")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func runTrain(ctx context.Context, opts *trainOptions) error {
	d := opts.deps
	if opts.path != "" {
		d.repo = opts.path
	}
	e, err := d.engineWith(engine.Options{NoAdapted: true})
	if err != nil {
		return err
	}
	if opts.remove {
		removed, err := e.RemoveAdapted()
		if err != nil {
			return err
		}
		if !removed {
			fmt.Fprintf(d.IO.Out, "%s has no adapted model\n", e.Root())
			return nil
		}
		fmt.Fprintf(d.IO.Out, "removed the adapted model of %s; rebuilding the index with the built-in model\n", e.Root())
		return reindex(ctx, d, e)
	}
	var log io.Writer
	if opts.verbose {
		log = d.IO.ErrOut
	}
	rep, err := e.Adapt(ctx, engine.AdaptOptions{Epochs: opts.epochs, TimeBudget: opts.timeBudget, Force: opts.force, Progress: log})
	if err != nil {
		return err
	}
	if opts.json {
		if err := writeJSON(d.IO.Out, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(d.IO.Out, "mined %d training and %d held-out pairs from %d files\n", rep.Pairs, rep.HeldOut, rep.Files)
		fmt.Fprintf(d.IO.Out, "held-out MRR@10: built-in model %.3f, adapted %.3f (BM25 over the same code %.3f) in %s\n",
			rep.Before.Dense, rep.After.Dense, rep.Before.BM25, rep.Duration)
		if rep.Kept {
			fmt.Fprintf(d.IO.Out, "stored %s as %s; rebuilding the index with it\n", rep.Model, rep.Path)
		} else {
			fmt.Fprintf(d.IO.Out, "the adapted model is no better on the held-out pairs, so the built-in one stays (--force keeps it anyway)\n")
		}
	}
	if !rep.Kept {
		return nil
	}
	return reindex(ctx, d, e)
}

// reindex brings e's index up to date (a rebuild, when the model
// changed), reporting progress on stderr.
func reindex(ctx context.Context, d *Deps, e *engine.Engine) error {
	phase, finish := indexPhases(d.IO.ErrOut, d.IO.ErrTTY, "")
	rep, err := e.Index(ctx, engine.IndexOptions{Phase: phase})
	finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(d.IO.ErrOut, "indexed %s: %d chunks written in %s\n", e.Root(), rep.Stats.Chunks, rep.Stats.Duration.Round(time.Millisecond))
	return nil
}
