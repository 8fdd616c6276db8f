package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type importOptions struct {
	deps *Deps
	file string
	json bool
}

func newImportCmd(deps *Deps, runF func(context.Context, *importOptions) error) *cobra.Command {
	opts := &importOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Install an index archive (ctx export) for this checkout and catch up with its files",
		Long: `Install the index archive FILE (- for standard input), written by ctx export in any checkout
of the same repository, as this checkout's index, then bring it up to date: files whose
content (SHA-256) is the archive's are not chunked or embedded again, only their times here
are recorded; changed and new files are indexed and deleted ones removed, as ctx index does.

Nothing is changed until the archive is verified: its format, schema, chunker, analyzer and
embedding model must be this build's (else the error archive_incompatible), and the whole
archive must read back as written, checksums and file list included (else archive_corrupt).
An existing index is replaced in one transaction: queries answer from it until then. Import
waits for an index run of this root to finish, as ctx index does. ctx status then says where
the index came from.`,
		Example: `  ctx import ctx-index.tar.gz
  ctx import --json ctx-index.tar.gz
  curl -sL "$URL" | ctx import -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runImport(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was imported and re-indexed as JSON")
	cmd.Flags().BoolVar(&deps.force, "force", false, "allow importing into / or the home directory itself")
	return cmd
}

func runImport(ctx context.Context, opts *importOptions) error {
	d := opts.deps
	var r io.Reader = d.IO.In
	if opts.file != "-" {
		f, err := os.Open(opts.file)
		if err != nil {
			return engine.Errorf(engine.ErrNotFound, "opening the archive: %w", err)
		}
		defer f.Close()
		r = f
	}
	e, err := d.engine()
	if err != nil {
		return err
	}
	iopts := engine.ImportIndexOptions{Name: opts.file}
	finish := func() {}
	if !opts.json {
		ph := newPhasePrinter(d.IO.ErrOut, d.IO.ErrTTY, time.Now)
		ph.startTicker()
		iopts.Phase = ph.report
		finish = ph.finish
	}
	rep, err := e.ImportIndex(ctx, r, iopts)
	finish()
	if err != nil {
		return err
	}
	m := rep.Manifest
	if opts.json {
		return writeJSON(d.IO.Out, map[string]any{
			"archive": opts.file, "root": e.Root(), "index_path": e.DBPath(), "origin": m.Origin,
			"archive_generation": m.Generation, "generation": rep.Generation, "replaced": rep.Replaced,
			"files": m.Files, "unchanged": rep.Unchanged, "reindexed": rep.Reindexed, "added": rep.Added, "removed": rep.Removed,
			"chunks_written": rep.Chunks, "embedded": rep.Embedded,
			"install_ms": rep.Install.Milliseconds(), "catch_up_ms": rep.CatchUp.Milliseconds(), "elapsed_ms": rep.Elapsed.Milliseconds(),
		})
	}
	fmt.Fprintf(d.IO.Out, "imported %s (generation %d, %d files) into %s: %d unchanged, %d re-indexed, %d added, %d removed in %s (install %s, catch-up %s)\n",
		opts.file, m.Generation, m.Files, e.Root(), rep.Unchanged, rep.Reindexed, rep.Added, rep.Removed,
		rep.Elapsed.Round(time.Millisecond), rep.Install.Round(time.Millisecond), rep.CatchUp.Round(time.Millisecond))
	return nil
}
