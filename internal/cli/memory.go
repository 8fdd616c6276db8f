package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/memory"
)

func newMemoryCmd(deps *Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Keep notes about the code beside the index, searched with it",
		Long: `Memories are short notes you or your agents keep about the repository: why something is done
a certain way, a command that works, a convention, a pointer to a document. They are stored in
a database of their own beside the index (rebuilding or clearing the index never touches them),
searched with the same BM25 and embedding channels as the code, and blended with code results by
the MCP tool context_search. No index is needed to add or find them.

Kinds: ` + strings.Join(memory.Kinds, ", ") + ` (default ` + memory.DefaultKind + `).`,
		Example: `  ctx memory add "Retries are capped at 5 because the upstream rate-limits at 10/s" --tags retry,http --path client/retry.go
  ctx memory add --kind snippet - < snippet.txt
  ctx memory find "why are retries capped"
  ctx memory ls --json
  ctx memory rm 12
  ctx memory export memories.jsonl
  ctx memory import memories.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagError{fmt.Errorf("memory needs a subcommand: add, find, ls, rm, export or import")}
		},
	}
	cmd.AddCommand(newMemoryAddCmd(deps, nil), newMemoryFindCmd(deps, nil), newMemoryLsCmd(deps, nil),
		newMemoryRmCmd(deps, nil), newMemoryExportCmd(deps, nil), newMemoryImportCmd(deps, nil))
	return cmd
}

// memoryErr turns invalid memory input into a usage error (exit 2).
func memoryErr(err error) error {
	if errors.Is(err, memory.ErrInvalid) {
		return flagError{err}
	}
	return err
}

type memoryAddOptions struct {
	deps     *Deps
	text     string
	kind     string
	tags     []string
	path     string
	priority int
	json     bool
}

func newMemoryAddCmd(deps *Deps, runF func(context.Context, *memoryAddOptions) error) *cobra.Command {
	opts := &memoryAddOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "add TEXT",
		Short: "Store a memory",
		Long: `Store TEXT as a memory (TEXT - reads it from standard input; at most 64 KiB). The same
text with the same kind and path is stored once: adding it again prints the stored memory.
--path names the file or directory the memory is about, relative to the repository root.`,
		Example: `  ctx memory add "Config is read once at startup; restart to apply changes" --tags config
  ctx memory add "go test -run TestRetry ./client" --kind snippet --path client --priority 2
  git log -1 --format=%B | ctx memory add --kind reference -`,
		Args: needsArg("memory add needs a TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(args, deps.IO.In)
			if err != nil {
				return err
			}
			opts.text = text
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryAdd(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.kind, "kind", "", "what the memory is: "+strings.Join(memory.Kinds, ", ")+" (default "+memory.DefaultKind+")")
	f.StringSliceVar(&opts.tags, "tags", nil, "comma-separated tags (lower-cased; searched with the text)")
	f.StringVar(&opts.path, "path", "", "the file or directory the memory is about, relative to the root")
	f.IntVar(&opts.priority, "priority", 0, "higher ranks first among similar hits")
	f.BoolVar(&opts.json, "json", false, "print the stored memory as one JSON object")
	return cmd
}

func runMemoryAdd(ctx context.Context, opts *memoryAddOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	m, err := e.AddMemory(ctx, engine.MemoryInput{Text: opts.text, Kind: opts.kind, Tags: opts.tags, Path: opts.path, Priority: opts.priority})
	if err != nil {
		return memoryErr(err)
	}
	if opts.json {
		return writeJSON(d.IO.Out, m)
	}
	if m.Duplicate {
		fmt.Fprintf(d.IO.Out, "memory %d already holds this text\n", m.ID)
		return nil
	}
	fmt.Fprintf(d.IO.Out, "stored memory %d\n", m.ID)
	return nil
}

type memoryFindOptions struct {
	deps       *Deps
	query      string
	limit      int
	kind       string
	tags       []string
	pathPrefix string
	json       bool
}

func newMemoryFindCmd(deps *Deps, runF func(context.Context, *memoryFindOptions) error) *cobra.Command {
	opts := &memoryFindOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "find QUERY",
		Short: "Search the memories",
		Long: `Search the memories for QUERY with BM25 over their text, tags and path and, with an embedding
model, their embeddings, fused by reciprocal rank. Prints one memory per hit, best first.
QUERY - reads the query from standard input.`,
		Example: `  ctx memory find "why are retries capped"
  ctx memory find deploy --kind reference --limit 3
  ctx memory find "test setup" --tag postgres --json`,
		Args: needsArg("memory find needs a QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(args, deps.IO.In)
			if err != nil {
				return err
			}
			opts.query = text
			if strings.TrimSpace(opts.query) == "" {
				return flagError{fmt.Errorf("empty query")}
			}
			if opts.limit <= 0 {
				return flagError{fmt.Errorf("--limit must be positive")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryFind(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.limit, "limit", "n", 10, "number of memories")
	f.StringVar(&opts.kind, "kind", "", "only memories of this kind")
	f.StringSliceVar(&opts.tags, "tag", nil, "only memories with these tags (all of them)")
	f.StringVar(&opts.pathPrefix, "path-prefix", "", "only memories about this path or paths under it")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

func runMemoryFind(ctx context.Context, opts *memoryFindOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	resp, err := e.SearchMemories(ctx, engine.MemoryQuery{Text: opts.query, Limit: opts.limit,
		Filter: engine.MemoryFilter{Kind: opts.kind, Tags: opts.tags, PathPrefix: opts.pathPrefix}})
	if err != nil {
		return memoryErr(err)
	}
	if resp.Stats.Degraded != "" {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s; results come from BM25 alone\n", resp.Stats.Degraded)
	}
	for i := range resp.Results {
		// As ctx find without --explain: ranks and channel scores are
		// for tuning, not for readers.
		resp.Results[i].Channels = nil
	}
	if opts.json {
		return writeJSON(d.IO.Out, resp)
	}
	if len(resp.Results) == 0 && d.IO.ErrTTY {
		if resp.Stats.Memories == 0 {
			fmt.Fprintln(d.IO.ErrOut, "no results: this repository has no memories yet (ctx memory add TEXT)")
		} else {
			fmt.Fprintln(d.IO.ErrOut, "no results")
		}
	}
	for _, h := range resp.Results {
		printMemory(d.IO.Out, h.Memory)
	}
	return nil
}

// memoryLine is the most of a memory's text the list formats print.
const memoryLine = 120

// printMemory prints a memory as two lines: "#ID kind [path] [tags] [pN]"
// and its text's first line, indented, cut to memoryLine bytes.
func printMemory(w io.Writer, m engine.Memory) {
	head := fmt.Sprintf("#%d  %s", m.ID, m.Kind)
	if m.Path != "" {
		head += "  " + m.Path
	}
	if len(m.Tags) > 0 {
		head += "  [" + strings.Join(m.Tags, ",") + "]"
	}
	if m.Priority != 0 {
		head += "  p" + strconv.Itoa(m.Priority)
	}
	text := strings.TrimSpace(m.Text)
	more := ""
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text, more = strings.TrimSpace(text[:i]), " …"
	}
	if len(text) > memoryLine {
		text = cutRunes(text, memoryLine)
		more = " …"
	}
	fmt.Fprintf(w, "%s\n    %s%s\n", head, text, more)
}

// cutRunes cuts s to at most n bytes at a UTF-8 boundary.
func cutRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

type memoryLsOptions struct {
	deps       *Deps
	kind       string
	tags       []string
	pathPrefix string
	json       bool
}

func newMemoryLsCmd(deps *Deps, runF func(context.Context, *memoryLsOptions) error) *cobra.Command {
	opts := &memoryLsOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the memories",
		Long:  `List the repository's memories by id, optionally only those of a kind, with tags, or about a path.`,
		Example: `  ctx memory ls
  ctx memory ls --kind snippet
  ctx memory ls --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryLs(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.kind, "kind", "", "only memories of this kind")
	f.StringSliceVar(&opts.tags, "tag", nil, "only memories with these tags (all of them)")
	f.StringVar(&opts.pathPrefix, "path-prefix", "", "only memories about this path or paths under it")
	f.BoolVar(&opts.json, "json", false, `print one JSON object: {"memories": [...]}`)
	return cmd
}

func runMemoryLs(ctx context.Context, opts *memoryLsOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	ms, err := e.ListMemories(ctx, engine.MemoryFilter{Kind: opts.kind, Tags: opts.tags, PathPrefix: opts.pathPrefix})
	if err != nil {
		return memoryErr(err)
	}
	if opts.json {
		return writeJSON(d.IO.Out, struct {
			Memories []engine.Memory `json:"memories"`
		}{ms})
	}
	if len(ms) == 0 && d.IO.ErrTTY {
		fmt.Fprintln(d.IO.ErrOut, "no memories")
	}
	for _, m := range ms {
		printMemory(d.IO.Out, m)
	}
	return nil
}

type memoryRmOptions struct {
	deps *Deps
	id   int64
	json bool
}

func newMemoryRmCmd(deps *Deps, runF func(context.Context, *memoryRmOptions) error) *cobra.Command {
	opts := &memoryRmOptions{deps: deps}
	cmd := &cobra.Command{
		Use:     "rm ID",
		Short:   "Remove a memory",
		Long:    `Remove the memory with ID (as ctx memory ls and find print it). An unknown ID is an error.`,
		Example: `  ctx memory rm 12`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagError{fmt.Errorf("memory rm needs one ID")}
			}
			id, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
			if err != nil || id <= 0 {
				return flagError{fmt.Errorf("memory rm: ID %q is not a memory id (a positive number)", args[0])}
			}
			opts.id = id
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryRm(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, `print one JSON object: {"removed": ID}`)
	return cmd
}

func runMemoryRm(ctx context.Context, opts *memoryRmOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	if err := e.RemoveMemory(ctx, opts.id); err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, struct {
			Removed int64 `json:"removed"`
		}{opts.id})
	}
	fmt.Fprintf(d.IO.Out, "removed memory %d\n", opts.id)
	return nil
}

type memoryExportOptions struct {
	deps *Deps
	file string
}

func newMemoryExportCmd(deps *Deps, runF func(context.Context, *memoryExportOptions) error) *cobra.Command {
	opts := &memoryExportOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "export [FILE]",
		Short: "Write the memories as JSON Lines",
		Long: `Write every memory to FILE (default: standard output) as JSON Lines, one object per memory:
id, kind, text, tags, path, priority, created and updated (RFC 3339). Embeddings are left out;
ctx memory import makes them again.`,
		Example: `  ctx memory export > memories.jsonl
  ctx memory export memories.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return flagError{fmt.Errorf("memory export takes at most one FILE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] != "-" {
				opts.file = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryExport(cmd.Context(), opts)
		},
	}
	return cmd
}

func runMemoryExport(ctx context.Context, opts *memoryExportOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	if opts.file == "" {
		_, err := e.ExportMemories(ctx, d.IO.Out)
		return err
	}
	f, err := os.Create(opts.file)
	if err != nil {
		return fmt.Errorf("exporting memories: %w", err)
	}
	n, err := e.ExportMemories(ctx, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("exporting memories: %w", cerr)
	}
	if err != nil {
		return err
	}
	if d.IO.ErrTTY {
		fmt.Fprintf(d.IO.ErrOut, "exported %d %s to %s\n", n, plural(n, "memory", "memories"), opts.file)
	}
	return nil
}

type memoryImportOptions struct {
	deps *Deps
	file string
	json bool
}

func newMemoryImportCmd(deps *Deps, runF func(context.Context, *memoryImportOptions) error) *cobra.Command {
	opts := &memoryImportOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Read memories from JSON Lines",
		Long: `Store the memories in FILE (- for standard input), JSON Lines as ctx memory export writes
them. Memories already stored (same kind, text and path) are skipped; a line that does not
parse or holds an invalid memory is skipped and reported with its line number, and the rest
are still imported.`,
		Example: `  ctx memory import memories.jsonl
  ctx memory export --repo ../old | ctx memory import -
  ctx memory import memories.jsonl --json`,
		Args: oneArg("memory import needs one FILE (- for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMemoryImport(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the import report as one JSON object")
	return cmd
}

func runMemoryImport(ctx context.Context, opts *memoryImportOptions) error {
	d := opts.deps
	var r io.Reader
	if opts.file == "-" {
		if d.IO.In == nil {
			return flagError{fmt.Errorf("no standard input to import from")}
		}
		r = d.IO.In
	} else {
		f, err := os.Open(opts.file)
		if err != nil {
			return fmt.Errorf("importing memories: %w", err)
		}
		defer f.Close()
		r = f
	}
	e, err := d.engine()
	if err != nil {
		return err
	}
	rep, err := e.ImportMemories(ctx, r)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, rep)
	}
	fmt.Fprintf(d.IO.Out, "imported %d, skipped %d\n", rep.Added, rep.Skipped)
	for _, msg := range rep.Errors {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", msg)
	}
	return nil
}
