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
}

func newIndexCmd(deps *Deps, runF func(context.Context, *indexOptions) error) *cobra.Command {
	opts := &indexOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "index [PATH]",
		Short: "Build or update the index of a repository",
		Long: `Build the index of PATH (default: --repo, else the enclosing git work tree, else the
current directory), or bring it up to date: unchanged files are skipped by size and mtime,
changed and new files are re-chunked, deleted files are removed.`,
		Example: `  ctx index
  ctx index ~/src/project
  ctx index --rebuild`,
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
	cmd.Flags().BoolVar(&deps.force, "force", false, "allow indexing / or the home directory itself")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the run's statistics as JSON")
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
	progress, finish := indexProgress(d.IO.ErrOut, d.IO.ErrTTY && !opts.json, "")
	rep, err := e.Index(ctx, engine.IndexOptions{Progress: progress, Rebuild: opts.rebuild})
	finish()
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
