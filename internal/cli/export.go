package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/engine"
)

type exportOptions struct {
	deps *Deps
	file string
	json bool
}

func newExportCmd(deps *Deps, runF func(context.Context, *exportOptions) error) *cobra.Command {
	opts := &exportOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Write the index to a portable archive that teammates and CI can import",
		Long: `Write the repository's index to FILE (- for standard output), a gzip-compressed tar that
ctx import installs in another checkout of the same repository, anywhere: a teammate or CI
indexes once, everyone else imports and is ready in seconds.

The archive holds a manifest.json (archive format, ctx version, schema, chunker, analyzer and
embedding model identity, generation, every indexed file's path, size and SHA-256, the
origin remote without credentials) and a consistent snapshot of the index database, taken
while other ctx processes may read or write it. Paths are relative to the root: no path of
this machine is in it. Files the index leaves out (secrets among them) are not in it either;
with CTX_INCLUDE_SECRETS on, export refuses. FILE is written through a temporary file and
renamed, so it is whole or untouched.`,
		Example: `  ctx index && ctx export ctx-index.tar.gz
  ctx export - | ssh host 'cd src/project && ctx import -'
  ctx export --json ctx-index.tar.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			if opts.file == "-" && opts.json {
				return flagError{fmt.Errorf("--json prints to standard output, which export - writes the archive to")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runExport(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was exported as JSON")
	return cmd
}

func runExport(ctx context.Context, opts *exportOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	start := time.Now()
	var rep *engine.IndexExportReport
	summary := d.IO.Out
	if opts.file == "-" {
		summary = d.IO.ErrOut
		rep, err = e.ExportIndex(ctx, d.IO.Out)
	} else {
		err = atomicfile.WriteFunc(opts.file, 0o644, func(w io.Writer) error {
			var err error
			rep, err = e.ExportIndex(ctx, w)
			return err
		})
	}
	if err != nil {
		return err
	}
	m := rep.Manifest
	if opts.json {
		return writeJSON(d.IO.Out, map[string]any{
			"file": opts.file, "root": e.Root(), "format": m.Format, "identity": m.Identity, "model": m.Model,
			"generation": m.Generation, "files": m.Files, "source_bytes": m.SourceBytes, "index_bytes": m.Index.Size,
			"archive_bytes": rep.Bytes, "origin": m.Origin, "duration_ms": time.Since(start).Milliseconds(),
		})
	}
	fmt.Fprintf(summary, "exported %s: %d files at generation %d, %.1f MB to %s in %s\n",
		e.Root(), m.Files, m.Generation, float64(rep.Bytes)/1e6, opts.file, time.Since(start).Round(time.Millisecond))
	return nil
}
