package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/engine"
)

// likeOptions are the flags and arguments of ctx like.
type likeOptions struct {
	deps      *Deps
	req       engine.LikeRequest
	json      bool
	channels  []string
	languages []string
	paths     []string
}

func newLikeCmd(deps *Deps) *cobra.Command {
	opts := &likeOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "like [FILE:START-END | FILE:LINE | -]",
		Short: "Find code structurally similar to a snippet, in any language",
		Long: `Find code shaped like a snippet: the same syntax with other names and constants, or with
small edits. FILE:START-END takes lines START to END of FILE (1-based, inclusive);
FILE:LINE takes the indexed chunk holding LINE (as ctx chunk prints it). With - or no
argument the snippet is read from standard input, and its language is the first --language
(or, failing that, the one a --path glob's extension names); its common indentation is
removed, and it must parse.

Each result is scored 0.8 x structure + 0.2 x dense: structure is the similarity of the
two syntax trees with identifiers and literals abstracted (node-kind paths, normalised
across languages), dense the embedding cosine (left out without an embedding model). The
snippet's own lines are never a result. --language and --path filter the results as in
ctx find; --json prints the ctx find result shape, each result with a "similarity"
object {"structure", "dense"}.`,
		Example: `  ctx like strings/strings.go:300-320
  ctx like net/http/server.go:3199 --json --limit 5
  ctx like --language python - < snippet.py`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.req.Limit <= 0 {
				return flagError{fmt.Errorf("--limit must be positive")}
			}
			if len(args) == 0 || args[0] == "-" {
				b, err := io.ReadAll(deps.IO.In)
				if err != nil {
					return fmt.Errorf("reading the snippet: %w", err)
				}
				opts.req.Code = string(b)
				opts.req.Language = snippetLanguage(opts.languages, opts.paths)
				if opts.req.Language == "" {
					return flagError{fmt.Errorf("a snippet on standard input needs its language: pass --language (go, python, …)")}
				}
			} else {
				file, start, end, err := parseFileLines(args[0])
				if err != nil {
					return flagError{err}
				}
				opts.req.Path, opts.req.StartLine, opts.req.EndLine = file, start, end
			}
			opts.req.Languages, opts.req.PathGlobs, opts.req.Channels = opts.languages, opts.paths, opts.channels
			return runLike(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print one JSON object (the result contract, plus each result's similarity)")
	f.BoolVar(&opts.req.Full, "full", false, "print each result's code with line numbers")
	f.IntVarP(&opts.req.Limit, "limit", "n", 10, "number of results")
	f.StringSliceVarP(&opts.languages, "language", "l", nil, "only these languages; the first is a stdin snippet's language")
	f.StringSliceVarP(&opts.paths, "path", "p", nil, "only paths matching these globs (e.g. 'net/http/**')")
	f.StringSliceVar(&opts.channels, "channels", nil, "score with only these channels: structure, dense (for ablations)")
	return cmd
}

// snippetLanguage is a stdin snippet's language: the first of langs,
// else the language a glob's extension names ("" when none does).
func snippetLanguage(langs, globs []string) string {
	if len(langs) > 0 {
		return langs[0]
	}
	for _, g := range globs {
		if l := discover.Language(g); l != discover.LangText {
			return l
		}
	}
	return ""
}

// parseFileLines parses FILE:START-END or FILE:LINE (END 0); the lines
// follow the last colon, since a file name may hold one.
func parseFileLines(arg string) (file string, start, end int, err error) {
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 {
		return "", 0, 0, fmt.Errorf("%q: want FILE:START-END or FILE:LINE, lines 1-based", arg)
	}
	file, spec := arg[:i], arg[i+1:]
	a, b, ranged := strings.Cut(spec, "-")
	if start, err = strconv.Atoi(a); err != nil || start < 1 {
		return "", 0, 0, fmt.Errorf("%q: want FILE:START-END or FILE:LINE, lines 1-based", arg)
	}
	if ranged {
		if end, err = strconv.Atoi(b); err != nil || end < start {
			return "", 0, 0, fmt.Errorf("%q: want START-END with 1 <= START <= END", arg)
		}
	}
	return file, start, end, nil
}

func runLike(ctx context.Context, opts *likeOptions) error {
	d := opts.deps
	_, gcRestore := queryGC() // Like never indexes
	defer gcRestore()
	e, err := d.engine()
	if err != nil {
		return err
	}
	resp, err := e.Like(ctx, opts.req)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, resp)
	}
	for _, h := range resp.Results {
		fmt.Fprintf(d.IO.Out, "%s\tL%d-L%d\t%.3f\t(structure %.2f, dense %.2f)\t%s\n", h.Path, h.StartLine, h.EndLine, h.Score,
			h.Similarity.Structure, h.Similarity.Dense, h.Summary)
		if opts.req.Full {
			printCode(d.IO.Out, h.Code, h.StartLine)
		}
	}
	if len(resp.Results) == 0 && d.IO.ErrTTY {
		fmt.Fprintln(d.IO.ErrOut, "no results")
	}
	if resp.Stats.Note != "" && d.IO.ErrTTY {
		fmt.Fprintln(d.IO.ErrOut, "note: "+resp.Stats.Note)
	}
	return nil
}
