package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type statusOptions struct {
	deps    *Deps
	json    bool
	skipped bool
}

func newStatusCmd(deps *Deps, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the index holds and whether it is fresh",
		Long: `Show the index of the repository: files, chunks, languages, skipped paths by reason,
where the index lives and its size, when it was last built, what it was built with, and how
many files changed on disk since. Exits 4 when there is no index.

--skipped lists instead what the index leaves out, one "path<TAB>reason" line each (a
directory, whose files are all left out, ends in /): the skips of the walk that compares the
files on disk with the index, and the files recorded as skipped for their content. With --json
the status object gains "skipped_files": [{"path", "reason", "detail", "dir"}].`,
		Example: `  ctx status
  ctx status --json
  ctx status --skipped | grep gitignore`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&opts.skipped, "skipped", false, "list the skipped files with their reasons")
	return cmd
}

func runStatus(ctx context.Context, opts *statusOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	st, err := e.StatusWith(ctx, engine.StatusOptions{SkippedFiles: opts.skipped})
	if err != nil {
		return err
	}
	switch {
	case opts.json && opts.skipped:
		// skipped_files is there even when empty.
		return writeJSON(d.IO.Out, struct {
			*engine.Status
			SkippedFiles []engine.SkippedFile `json:"skipped_files"`
		}{st, append([]engine.SkippedFile{}, st.SkippedFiles...)})
	case opts.json:
		return writeJSON(d.IO.Out, st)
	case opts.skipped:
		for _, f := range st.SkippedFiles {
			p := f.Path
			if f.Dir {
				p += "/"
			}
			fmt.Fprintf(d.IO.Out, "%s\t%s\n", p, f.Reason)
		}
		return nil
	}
	w := d.IO.Out
	fmt.Fprintf(w, "root:          %s\n", st.Root)
	if st.NoLocalIndex {
		writeBackend(w, st)
		fmt.Fprintln(w, "local index:   none here: searches read the tenant alone (`ctx index --backend weaviate` builds one and updates the tenant)")
		return nil
	}
	fmt.Fprintf(w, "index:         %s (%s)\n", st.IndexPath, indexSize(st.IndexBytes, st.SourceBytes))
	fmt.Fprintf(w, "files:         %d\n", st.Files)
	if st.Vectors > 0 {
		fmt.Fprintf(w, "chunks:        %d (%d embeddings)\n", st.Chunks, st.Vectors)
	} else {
		fmt.Fprintf(w, "chunks:        %d\n", st.Chunks)
	}
	langs := make([]string, 0, len(st.Languages))
	for l := range st.Languages {
		langs = append(langs, l)
	}
	sort.Slice(langs, func(i, j int) bool {
		return st.Languages[langs[i]] > st.Languages[langs[j]] || st.Languages[langs[i]] == st.Languages[langs[j]] && langs[i] < langs[j]
	})
	fmt.Fprintf(w, "languages:     ")
	for i, l := range langs {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %d", l, st.Languages[l])
	}
	fmt.Fprintln(w)
	if len(st.Skips) > 0 {
		fmt.Fprintf(w, "skipped:       %s\n", formatCounts(st.Skips))
	}
	if sm := st.SkippedMost; sm != nil {
		fmt.Fprintf(w, "skipped most:  %s\n               fix: %s\n", sm.Problem(), sm.Fix())
	}
	writeRedacted(w, st.Redacted)
	fmt.Fprintf(w, "semantic:      %s\n", st.Semantic)
	writeBackend(w, st)
	fmt.Fprintf(w, "last indexed:  %s (generation %d)\n", st.LastIndexed.Local().Format(time.DateTime), st.Generation)
	if im := st.Imported; im != nil {
		from := im.Archive
		if im.Origin != "" {
			from += " of " + im.Origin
		}
		fmt.Fprintf(w, "imported:      from archive %s at its generation %d, %s\n", from, im.Generation, im.At.Local().Format(time.DateTime))
	}
	fmt.Fprintf(w, "identity:      schema %d, chunker %d, analyzer %d, model %s (%s)\n", st.Identity.Schema, st.Identity.Chunker, st.Identity.Analyzer, st.Identity.Model, st.Identity.Hash)
	if st.Stale {
		fmt.Fprintf(w, "stale:         built as %s by another ctx build or model; run `ctx index` to rebuild\n", st.StoredIdentity)
	}
	if st.VectorsLost != "" {
		fmt.Fprintf(w, "vectors lost:  %s; semantic search is off until `ctx index` embeds those chunks again\n", st.VectorsLost)
	}
	switch {
	case st.Indexing:
		fmt.Fprintf(w, "indexing:      an index run is writing the index now; answers may mix old and new files\n")
	case st.Incomplete:
		fmt.Fprintf(w, "incomplete:    the last index run did not finish; files it had not reached answer from their earlier state (run `ctx index` to complete it)\n")
	}
	switch ws := st.Watch; {
	case ws == nil:
		fmt.Fprintf(w, "watching:      no (run `ctx watch`, or ctx mcp / ctx serve, to keep the index fresh as files change)\n")
	case ws.Mode == "events":
		fmt.Fprintf(w, "watching:      file events, pid %d since %s (%d runs, %d paths pending)\n", ws.PID, ws.Since.Local().Format(time.DateTime), ws.Batches, ws.Pending)
		if ws.Reason != "" {
			fmt.Fprintf(w, "               %s (the whole tree was compared again)\n", ws.Reason)
		}
	default:
		fmt.Fprintf(w, "watching:      %s, pid %d: %s\n               fix: sudo sysctl fs.inotify.max_user_watches=524288, then restart it\n", ws.Mode, ws.PID, ws.Reason)
	}
	fmt.Fprintf(w, "since indexed: %d changed, %d added, %d deleted", st.Changed, st.Added, st.Deleted)
	if st.Changed+st.Added+st.Deleted > 0 {
		fmt.Fprint(w, " (run `ctx index` to refresh)")
	}
	fmt.Fprintln(w)
	return nil
}

// indexSize says how much the index takes on disk (index bytes) beside
// the source it was built from: "137.0 MiB on disk, 2.51x the 54.6 MiB
// of indexed source".
func indexSize(index, source int64) string {
	if source <= 0 {
		return humanBytes(index) + " on disk"
	}
	return fmt.Sprintf("%s on disk, %.2fx the %s of indexed source", humanBytes(index), float64(index)/float64(source), humanBytes(source))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// redactedTextMax caps the files the text output lists.
const redactedTextMax = 10

// writeRedacted prints the secrets masked inside indexed files, one file
// a line under the total.
func writeRedacted(w io.Writer, r engine.Redacted) {
	switch {
	case r.Off:
		fmt.Fprintf(w, "secrets:       indexed as they are (CTX_INCLUDE_SECRETS is set)\n")
		return
	case r.Secrets == 0:
		return
	}
	fmt.Fprintf(w, "secrets:       %d masked in %d %s (never indexed nor shown)\n", r.Secrets, r.Files, plural(r.Files, "file", "files"))
	shown := r.List[:min(len(r.List), redactedTextMax)]
	for _, f := range shown {
		fmt.Fprintf(w, "               %s: %d (%s)\n", f.Path, f.Count, strings.Join(f.Rules, ", "))
	}
	if more := r.Files - len(shown); more > 0 {
		fmt.Fprintf(w, "               and %d more %s (ctx status --json lists %d)\n", more, plural(more, "file", "files"), engine.RedactedListMax)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeBackend prints the weaviate backend's line of ctx status.
func writeBackend(w io.Writer, st *engine.Status) {
	b := st.Backend
	if b == nil {
		return
	}
	switch {

	case b.Synced != nil:
		fmt.Fprintf(w, "backend:       weaviate %s, tenant %s: %d files, %d chunks, generation %d, synced %s from %s:%s\n",
			b.URL, b.Tenant, b.Synced.Files, b.Synced.Chunks, b.Synced.Generation, b.Synced.Synced, b.Synced.Host, b.Synced.Root)
		if b.Stale {
			fmt.Fprintf(w, "               the tenant was written by another ctx build or model (%s): run `ctx index --backend weaviate`\n", b.Synced.Model)
		}
	default:
		fmt.Fprintf(w, "backend:       weaviate %s, tenant %s: %s\n", b.URL, b.Tenant, b.Error)
	}
}
