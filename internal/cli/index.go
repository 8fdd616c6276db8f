package cli

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type indexOptions struct {
	deps    *Deps
	path    string
	rebuild bool
	json    bool
	dryRun  bool
}

func newIndexCmd(deps *Deps, runF func(context.Context, *indexOptions) error) *cobra.Command {
	opts := &indexOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "index [PATH]",
		Short: "Build or update the index of a repository",
		Long: `Build the index of PATH (default: --repo, else the enclosing git work tree, else the
current directory), or bring it up to date: unchanged files are skipped by size and mtime,
changed and new files are re-chunked, deleted files are removed. A root outside any git work
tree is indexed whole (stderr says so), and its first index is refused over
CTX_NON_REPO_MAX_FILES (20000) files unless --force.

With --dry-run, nothing is indexed and nothing is sent: ctx walks and chunks the files as a
run would and prints how many texts it would embed, their tokens (o200k_base), and, for a
remote embedding provider, the estimated cost in US dollars and today's spend against the
daily cap (CTX_SPEND_EMBED_DAY). Prices come from a built-in table; CTX_PRICES overrides it.`,
		Example: `  ctx index
  ctx index ~/src/project
  ctx index --rebuild
  ctx index --dry-run --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runIndex(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "discard the existing index and build it again")
	cmd.Flags().BoolVar(&deps.force, "force", false, "allow indexing / or the home directory itself, or over CTX_NON_REPO_MAX_FILES files outside a git work tree")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the run's statistics as JSON")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "estimate what a run would embed and cost; index nothing, send nothing")
	return cmd
}

func runIndex(ctx context.Context, opts *indexOptions) error {
	d := opts.deps
	if opts.path != "" {
		d.repo = opts.path
	}
	e, err := d.engine()
	if err != nil {
		return err
	}
	if opts.dryRun {
		return runIndexDryRun(ctx, opts, e)
	}
	iopts := engine.IndexOptions{Rebuild: opts.rebuild}
	finish := func() {}
	if !opts.json {
		// The phases go to stderr: bars on a terminal, else a line for
		// each once the run has taken a while (phasePrinter).
		ph := newPhasePrinter(d.IO.ErrOut, d.IO.ErrTTY, time.Now)
		ph.startTicker()
		iopts.Phase, iopts.SyncProgress = ph.report, syncPhase(ph.report)
		finish = ph.finish
	}
	if !e.HasIndex() && e.WorkTree() == "" {
		// Whatever the format: a directory indexed by mistake (a home
		// or temporary directory) is seen before the run ends.
		iopts.Phase = withNote(d.IO.ErrOut, "indexing "+e.Root()+nonRepoNote, iopts.Phase)
	}
	rep, err := e.Index(ctx, iopts)
	finish() // before the summary, which may share the terminal
	if err != nil {
		return err
	}
	st := rep.Stats
	// A run that skips most of what it looked at is said on stderr
	// whatever the format: the user may not know the code is not indexed.
	most := engine.SkippedMostOf(st.SkipShare())
	if most != nil {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", most)
	}
	if opts.json {
		out := map[string]any{
			"root": e.Root(), "index_path": e.DBPath(), "generation": rep.Generation, "rebuilt": rep.Rebuilt, "resumed": rep.Resumed,
			"files": st.Discovered, "added": st.Added, "changed": st.Changed, "unchanged": st.Unchanged,
			"touched": st.Touched, "deleted": st.Deleted, "chunks_written": st.Chunks, "embedded": st.Embedded,
			"skips": st.SkipCounts(), "duration_ms": st.Duration.Milliseconds(),
		}
		if most != nil {
			out["skipped_most"] = most
		}
		if rep.Weaviate != nil {
			out["backend"], out["weaviate"] = e.Backend(), rep.Weaviate
		}
		return writeJSON(d.IO.Out, out)
	}
	fmt.Fprintf(d.IO.Out, "indexed %s: %d files (%d added, %d changed, %d unchanged, %d deleted), %d chunks written in %s\n",
		e.Root(), st.Discovered, st.Added, st.Changed, st.Unchanged+st.Touched, st.Deleted, st.Chunks, st.Duration.Round(time.Millisecond))
	if sk := st.SkipCounts(); len(sk) > 0 {
		fmt.Fprintf(d.IO.Out, "skipped: %s\n", formatCounts(sk))
	}
	if rep.Resumed {
		fmt.Fprintln(d.IO.Out, "completed the previous index run, which did not finish")
	}
	if w := rep.Weaviate; w != nil {
		b := e.Backend()
		fmt.Fprintf(d.IO.Out, "synced into Weaviate (%s, tenant %s): %d files written (%d chunk objects), %d deleted in %s\n",
			b.URL, w.Tenant, w.Written, w.Objects, w.Deleted, (time.Duration(w.MS) * time.Millisecond).Round(time.Millisecond))
		if w.Rebuilt {
			fmt.Fprintln(d.IO.Out, "the tenant held another ctx build's or model's objects: it was emptied and written again")
		}
		if w.SettleMS >= 1000 && w.Unsettled == "" {
			fmt.Fprintf(d.IO.Out, "waited %s of that for Weaviate to count the new objects, which its BM25 ranks by\n", (time.Duration(w.SettleMS) * time.Millisecond).Round(time.Second))
		}
		if w.Unsettled != "" {
			fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", w.Unsettled)
		}
	}
	return nil
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", m[k], k)
	}
	return s
}

// runIndexDryRun prints what an index run would embed and cost.
func runIndexDryRun(ctx context.Context, opts *indexOptions, e *engine.Engine) error {
	d := opts.deps
	rep, err := e.DryRun(ctx, engine.DryRunOptions{Rebuild: opts.rebuild})
	if err != nil {
		return err
	}
	if !rep.WithinCaps && !opts.json {
		// --json says so in within_caps.
		fmt.Fprintf(d.IO.ErrOut, "warning: the estimated $%.4f would pass the embedding spend cap (run $%.4f, day $%.4f with $%.4f spent; 0: none); the run would stop there: raise CTX_SPEND_EMBED_RUN or CTX_SPEND_EMBED_DAY\n",
			rep.EstimatedUSD, rep.RunCapUSD, rep.DayCapUSD, rep.DaySpentUSD)
	}
	if opts.json {
		return writeJSON(d.IO.Out, rep)
	}
	files := fmt.Sprintf("%d to index, %d unchanged, %d skipped", rep.Files.ToIndex, rep.Files.Unchanged, rep.Files.Skipped)
	if len(rep.Skips) > 0 {
		files += " (" + formatCounts(rep.Skips) + ")"
	}
	provider := rep.Provider
	switch {
	case rep.Provider == "none":
		provider = "none (lexical-only)"
	case rep.Local:
		provider += " (local)"
	default:
		provider += " (remote)"
	}
	var price, cost string
	switch rep.Price.Source {
	case engine.PriceLocal:
		price, cost = "local provider: $0", "$0"
	case engine.PriceUnknown:
		price, cost = fmt.Sprintf("price unknown for model %s: set CTX_PRICES", rep.Model), "unknown"
	default:
		price = fmt.Sprintf("$%.4f per million tokens (%s)", rep.Price.InPerMTok, rep.Price.Source)
		cost = fmt.Sprintf("$%.4f", rep.EstimatedUSD)
	}
	rows := [][2]string{
		{"root", rep.Root},
		{"provider", provider},
		{"model", rep.Model},
		{"files", files},
		{"chunks", fmt.Sprint(rep.Chunks)},
		{"texts to embed", fmt.Sprintf("%d (%d already in the embedding cache)", rep.TextsToEmbed, rep.TextsCached)},
		{"requests", fmt.Sprint(rep.Requests)},
		{"tokens to embed", fmt.Sprintf("%d (%s)", rep.Tokens, rep.Encoding)},
		{"price", price},
		{"estimated cost", cost},
	}
	if !rep.Local {
		day := "no cap"
		if rep.DayCapUSD > 0 {
			day = fmt.Sprintf("cap $%.4f (CTX_SPEND_EMBED_DAY)", rep.DayCapUSD)
		}
		rows = append(rows, [2]string{"spent today", fmt.Sprintf("$%.4f, %s", rep.DaySpentUSD, day)})
	}
	if rep.Rebuild {
		rows = append(rows, [2]string{"note", "the run would build the index anew"})
	}
	for _, r := range rows {
		if r[1] == "" {
			continue
		}
		fmt.Fprintf(d.IO.Out, "%-16s %s\n", r[0], r[1])
	}
	return nil
}
