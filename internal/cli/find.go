package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/tokens"
)

type findOptions struct {
	deps           *Deps
	query          string
	json           bool
	full           bool
	explain        bool
	limit          int
	languages      []string
	paths          []string
	channels       []string
	budget         int
	limitSet       bool
	mode           string
	decompose      string
	explainResults bool
	noRerank       bool
	workspace      string
}

func newFindCmd(deps *Deps, runF func(context.Context, *findOptions) error) *cobra.Command {
	opts := &findOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "find QUERY",
		Short: "Find the code that answers a question or defines a symbol",
		Long: `Search the index for QUERY: a symbol (ReadMIMEHeader, http.Server), a question
("how are idle connections closed"), or a whole issue text with tracebacks. Prints one line
per result: path, line range and a one-line summary. The first find on an unindexed
repository builds the index first, saying so on stderr. Outside a git work tree that first
index stops at CTX_NON_REPO_MAX_FILES (20000) files unless --force: run ctx inside the
repository you mean, or pass --repo.

QUERY - reads the query from standard input. A query over CTX_MAX_QUERY_BYTES (32 KiB) is
searched by its first 32 KiB, with a warning. When the embedding provider fails or does not
answer within CTX_EMBED_QUERY_TIMEOUT (2s), the results come from the lexical channels,
with a warning and "degraded" in the JSON stats.

Each find has a deadline, limits.request_timeout (CTX_REQUEST_TIMEOUT, default 10s; 0 for
none). At nine tenths of it the search stops and answers with what it has found, marked
"partial" in the JSON stats with the reason: a channel that had not finished, or a first index
another process is still building (the answer then comes from the files indexed so far). The
first index this find builds itself runs to the end first; the deadline starts after it. With
nothing found by then it fails with the timeout error. With --json an error is one JSON object on stdout, {"error": {"code", "message",
"fix"}}, and the exit code follows the code (README: Error codes).

Optional, off unless configured: with an LLM (CTX_LLM_PROVIDER) a complex question is split
into sub-queries whose results are fused with its own (--decompose), and --explain-results adds
a one-line summary per result; with a reranker (CTX_RERANK_PROVIDER) the first results are
reordered by it. Either ends the output with a footer of results, ms, tokens and cost.`,
		Example: `  ctx find "where are request headers parsed"
  ctx find ReadMIMEHeader --limit 3 --full
  ctx find "retry with backoff" --json --language go --path 'net/**'
  ctx find "how are idle connections closed" --budget 8000 --full
  ctx find --json - < issue.txt
  ctx find ReadMIMEHeader --explain
  ctx find "how do retries back off and where is the limit set" --explain-results`,
		Args: needsArg("find needs a QUERY"),
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
			if opts.budget < 0 {
				return flagError{fmt.Errorf("--budget must be positive")}
			}
			if opts.mode != "" {
				m, ok := engine.Modes[opts.mode]
				if !ok {
					return flagError{fmt.Errorf("--mode %q: want quick, balanced or deep", opts.mode)}
				}
				if opts.budget == 0 {
					opts.budget = m.Budget
				}
			} else if opts.budget > 0 {
				opts.mode = "balanced"
			}
			opts.limitSet = cmd.Flags().Changed("limit")
			chans, err := expandChannels(opts.channels)
			if err != nil {
				return flagError{err}
			}
			opts.channels = chans
			switch opts.decompose {
			case "auto", "on", "off":
			default:
				return flagError{fmt.Errorf("--decompose %q: want auto, on or off", opts.decompose)}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runFind(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print one JSON object (the result contract)")
	f.BoolVar(&opts.full, "full", false, "print each result's code with line numbers")
	f.BoolVar(&opts.explain, "explain", false, "show how the query was understood and, per result, its channel ranks, why it ranked (in words), its definition, callers, importers and tests, and the confidence's basis")
	f.IntVarP(&opts.limit, "limit", "n", 10, "number of results")
	f.StringSliceVarP(&opts.languages, "language", "l", nil, "only these languages (go, python, typescript, …)")
	f.StringSliceVarP(&opts.paths, "path", "p", nil, "only paths matching these globs (e.g. 'net/http/**')")
	f.IntVar(&opts.budget, "budget", 0, "pack results into this many tokens (o200k_base): grouped by file, weak hits cut, touching hits merged, with their code")
	f.StringVar(&opts.decompose, "decompose", "auto", "split a complex question into sub-queries with the configured LLM: auto (when one is configured), on, off")
	f.BoolVar(&opts.explainResults, "explain-results", false, "add a one-line summary per result written by the configured LLM (cached by the code's hash)")
	f.BoolVar(&opts.noRerank, "no-rerank", false, "skip the configured reranker")
	f.StringVarP(&opts.workspace, "workspace", "w", "", "search every repository of this workspace (ctx workspace add); each result names its repo")
	f.StringVar(&opts.mode, "mode", "", "pack with a mode's budget and context: quick (4k, no context), balanced (8k, the type and callees of the top 3), deep (16k, of the top 8, and callers)")
	f.BoolVar(&deps.force, "force", false, "index the root first even where ctx would refuse it: /, the home directory, or over CTX_NON_REPO_MAX_FILES files outside a git work tree")
	f.StringSliceVar(&opts.channels, "channels", nil, "recall only from these channels: lexical, dense, hybrid, or names among "+strings.Join(search.ChannelNames, ", ")+" (for ablations)")
	return cmd
}

func runFind(ctx context.Context, opts *findOptions) error {
	d := opts.deps
	limit := opts.limit
	if opts.budget > 0 && !opts.limitSet {
		limit = packCandidates
	}
	req := engine.FindRequest{
		Query: opts.query, Limit: limit, Languages: opts.languages, PathGlobs: opts.paths, Channels: opts.channels,
		Full: opts.full && opts.budget == 0, Grouped: opts.budget > 0, AutoIndex: true, Expand: engine.Modes[opts.mode].Expand,
		Decompose: decomposeMode(opts.decompose), ExplainResults: opts.explainResults, NoRerank: opts.noRerank,
		Explain: opts.explain,
	}
	var (
		resp *engine.FindResponse
		pack func(*engine.FindResponse)
	)
	gcWrap, gcRestore := queryGC()
	defer gcRestore()
	if opts.workspace != "" {
		members, err := d.workspaceMembers(opts.workspace)
		if err != nil {
			return err
		}
		phase, finish := indexPhases(d.IO.ErrOut, d.IO.ErrTTY, "a member of workspace "+opts.workspace+" has no index yet; indexing it first")
		req.Phase = gcWrap(phase)
		resp, err = engine.FindAcross(ctx, members, req)
		finish()
		if err != nil {
			return err
		}
		engines := map[string]*engine.Engine{}
		for _, m := range members {
			engines[m.Name] = m.Engine
		}
		pack = func(resp *engine.FindResponse) {
			packWith(resp, opts, func(hits []engine.Hit, budget int, cost func(engine.Hit) int) ([]engine.Hit, int, int) {
				return engine.PackAcross(engines, hits, budget, cost)
			})
		}
	} else {
		e, err := d.engine()
		if err != nil {
			return err
		}
		phase, finish := indexPhases(d.IO.ErrOut, d.IO.ErrTTY, firstIndexNote(e))
		req.Phase = gcWrap(phase)
		resp, err = e.Find(ctx, req)
		finish()
		if err != nil {
			return err
		}
		pack = func(resp *engine.FindResponse) { packResults(e, resp, opts) }
	}
	// A cut query or a degraded search changes what the results mean:
	// said on stderr whatever the format (the JSON stats say it too).
	for _, n := range resp.Stats.Notes() {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", n)
	}
	if opts.budget > 0 {
		pack(resp)
	}
	for _, m := range resp.Stats.Members {
		if m.Error != "" {
			fmt.Fprintf(d.IO.ErrOut, "warning: %s did not answer: %s\n", m.Repo, m.Error)
		}
	}
	if !opts.explain {
		for i := range resp.Results {
			resp.Results[i].Channels, resp.Results[i].Boosts = nil, nil
		}
		resp.Stats.Basis = nil
	}
	if opts.json {
		return writeJSON(d.IO.Out, resp)
	}
	if resp.Confidence == engine.ConfidenceLow && len(resp.Results) > 0 {
		// Said whatever stderr is: an agent reading plain output must not
		// take the least bad matches for answers.
		fmt.Fprintln(d.IO.ErrOut, lowConfidenceNote)
	}
	if len(resp.Results) == 0 && d.IO.ErrTTY {
		fmt.Fprintln(d.IO.ErrOut, "no results")
	}
	if !resp.Stats.Fresh && d.IO.ErrTTY {
		fmt.Fprintln(d.IO.ErrOut, "note: some files changed since the last index; run `ctx index` to refresh")
	}
	if opts.explain && resp.Understood != nil {
		printUnderstood(d.IO.Out, resp.Understood)
	}
	if opts.explain && resp.Stats.Basis != nil {
		fmt.Fprintf(d.IO.Out, "confidence: %s (%s)\n", resp.Confidence, resp.Stats.Basis.Reason)
	}
	if opts.explain && resp.Stats.DenseQuery != "" {
		fmt.Fprintf(d.IO.Out, "dense query: %q (words most chunks hold left out)\n", resp.Stats.DenseQuery)
	}
	for _, h := range resp.Results {
		printHit(d.IO.Out, h, opts)
	}
	if resp.Stats.LLM != nil || resp.Stats.Rerank != nil {
		if len(resp.Stats.SubQueries) > 0 {
			fmt.Fprintf(d.IO.Out, "sub-queries: %s\n", strings.Join(resp.Stats.SubQueries, " | "))
		}
		fmt.Fprintln(d.IO.Out, engine.Footer(len(resp.Results), resp.Stats.SearchMS, resp.Stats.LLM, resp.Stats.Rerank))
	}
	return nil
}

// lowConfidenceNote is what plain output says of a low-confidence answer.
const lowConfidenceNote = "note: low confidence: nothing in the index matches the query well; these are the closest matches, not answers (rephrase with words or identifiers the code would use, or see --explain)"

// decomposeMode maps --decompose to the engine's setting.
func decomposeMode(s string) engine.Decompose {
	switch s {
	case "on":
		return engine.DecomposeOn
	case "off":
		return engine.DecomposeOff
	}
	return engine.DecomposeAuto
}

// maxStdinQuery bounds a query read from standard input; the engine
// searches only its first CTX_MAX_QUERY_BYTES, but reads the rest to say
// how long it was.
const maxStdinQuery = 64 << 20

// needsArg is the Args check of a command that takes free text (a query,
// a question): msg names what is missing.
func needsArg(msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return flagError{errors.New(msg)}
		}
		return nil
	}
}

// oneArg is the positional-argument check of a command that takes
// exactly one argument: anything else is a usage error saying msg.
func oneArg(msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return flagError{errors.New(msg)}
		}
		return nil
	}
}

// textArg returns a command's free text: its arguments joined by spaces,
// or standard input when the only argument is "-".
func textArg(args []string, in io.Reader) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		return readQuery(in)
	}
	return strings.Join(args, " "), nil
}

// readQuery reads a query from r (ctx find -).
func readQuery(r io.Reader) (string, error) {
	if r == nil {
		return "", flagError{fmt.Errorf("no standard input to read the query from")}
	}
	b, err := io.ReadAll(io.LimitReader(r, maxStdinQuery+1))
	if err != nil {
		return "", fmt.Errorf("reading the query from standard input: %w", err)
	}
	if len(b) > maxStdinQuery {
		return "", flagError{fmt.Errorf("the query on standard input is over %d MiB", maxStdinQuery>>20)}
	}
	return string(b), nil
}

// expandChannels resolves --channels values: "hybrid" (every channel,
// the default), "lexical" (all but dense), "dense", or channel names.
func expandChannels(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		switch v = strings.ToLower(strings.TrimSpace(v)); {
		case v == "hybrid":
			return nil, nil
		case v == "lexical":
			out = append(out, search.LexicalChannels...)
		case slices.Contains(search.ChannelNames, v):
			out = append(out, v)
		default:
			return nil, fmt.Errorf("--channels %q: want lexical, dense, hybrid or one of %s", v, strings.Join(search.ChannelNames, ", "))
		}
	}
	return out, nil
}

func printHit(w io.Writer, h engine.Hit, opts *findOptions) {
	if h.Repo != "" {
		fmt.Fprintf(w, "%s:", h.Repo)
	}
	fmt.Fprintf(w, "%s  L%d-L%d  %s\n", h.Path, h.StartLine, h.EndLine, h.Summary)
	if h.Explanation != "" {
		fmt.Fprintf(w, "    → %s\n", h.Explanation)
	}
	if opts.explain {
		var parts []string
		for _, ch := range append(search.ChannelNames, "dense-rerank", "rerank") {
			c, ok := h.Channels[ch]
			switch {
			case !ok:
			case c.Score != 0:
				parts = append(parts, fmt.Sprintf("%s #%d (%.3g)", ch, c.Rank, c.Score))
			default:
				parts = append(parts, fmt.Sprintf("%s #%d", ch, c.Rank))
			}
		}
		fmt.Fprintf(w, "    score %.4g  %s", h.Score, strings.Join(parts, ", "))
		if len(h.Boosts) > 0 {
			fmt.Fprintf(w, "  [%s]", strings.Join(h.Boosts, " "))
		}
		fmt.Fprintln(w)
		for _, why := range h.Why {
			fmt.Fprintf(w, "    why: %s\n", why)
		}
		printRelationships(w, h.Relationships)
	}
	if (opts.full || opts.budget > 0) && h.Code != "" {
		printCode(w, h.Code, h.StartLine)
	}
}

// printUnderstood prints how the query was understood (--explain): one
// line of what the analysis found, one of its heaviest terms.
func printUnderstood(w io.Writer, u *engine.Understood) {
	line := "understood as: " + u.Kind + " query"
	if u.Name != "" {
		line += " for " + u.Name
	}
	list := func(label string, xs []string, more int) {
		if len(xs) == 0 {
			return
		}
		line += "; " + label + ": " + strings.Join(xs, ", ")
		if more > 0 {
			line += fmt.Sprintf(" (+%d more)", more)
		}
	}
	list("symbols", u.Symbols, u.SymbolsMore)
	list("paths", u.Paths, u.PathsMore)
	list("phrases", quoteAll(u.Phrases), 0)
	list("frames", u.Frames, 0)
	list("patched", u.Patched, 0)
	list("names", u.Names, 0)
	fmt.Fprintln(w, line)
	if u.Defined != nil {
		if d := u.Definition; d != nil {
			fmt.Fprintf(w, "%s is defined at %s:%d-%d (%s)\n", u.Name, d.Path, d.Line, d.EndLine, d.Symbol)
		} else {
			fmt.Fprintf(w, "%s is not defined in this index: the results mention it or match its words\n", u.Name)
		}
	}
	if u.Title != "" {
		fmt.Fprintf(w, "title searched on its own too: %q\n", u.Title)
	}
	if len(u.Terms) > 0 {
		var terms, shown []string
		for _, t := range u.Terms {
			if slices.ContainsFunc(shown, func(w string) bool { return strings.HasPrefix(w, t.Term) }) {
				continue // a stem beside its word
			}
			shown = append(shown, t.Term)
			terms = append(terms, fmt.Sprintf("%s ×%g (idf %.1f)", t.Term, t.Weight, t.IDF))
		}
		fmt.Fprintf(w, "terms: %s\n", strings.Join(terms, ", "))
	}
	if len(u.Missing) > 0 {
		fmt.Fprintf(w, "not in the index: %s\n", strings.Join(u.Missing, ", "))
	}
}

// quoteAll returns each of xs in double quotes.
func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// printRelationships prints a result's relationships (--explain), one
// line each for those it has.
func printRelationships(w io.Writer, r *engine.Relationships) {
	if r == nil {
		return
	}
	if d := r.Definition; d != nil {
		fmt.Fprintf(w, "    definition: %s:%d-%d %s\n", d.Path, d.Line, d.EndLine, d.Symbol)
	}
	list := func(label string, rs []engine.Related, more int) {
		if len(rs) == 0 {
			return
		}
		parts := make([]string, len(rs))
		for i, x := range rs {
			parts[i] = fmt.Sprintf("%s:%d", x.Path, x.Line)
			if x.Symbol != "" {
				parts[i] += " (" + x.Symbol + ")"
			}
		}
		line := strings.Join(parts, ", ")
		if more > 0 {
			line += fmt.Sprintf(" +%d more", more)
		}
		fmt.Fprintf(w, "    %s: %s\n", label, line)
	}
	list("callers", r.Callers, r.CallersMore)
	list("importers", r.Importers, r.ImportersMore)
	list("tests", r.Tests, r.TestsMore)
}

// printCode prints code with line numbers from start, then a blank line.
func printCode(w io.Writer, code string, start int) {
	lines := strings.Split(strings.TrimSuffix(code, "\n"), "\n")
	width := len(fmt.Sprint(start + len(lines)))
	for i, l := range lines {
		fmt.Fprintf(w, "%*d  %s\n", width, start+i, l)
	}
	fmt.Fprintln(w)
}

// packCandidates is how many ranked hits --budget packs from when
// --limit is not given.
const packCandidates = 30

// packResults replaces resp's results by a pack within opts.budget
// tokens ([engine.Engine.PackHits]), each hit counted as printed (its
// JSON object with --json, else its heading and numbered code lines).
func packResults(e *engine.Engine, resp *engine.FindResponse, opts *findOptions) {
	packWith(resp, opts, e.PackHits)
}

// packWith is packResults with the packer given (a workspace's reads each
// hit's code from its member).
func packWith(resp *engine.FindResponse, opts *findOptions, packHits func([]engine.Hit, int, func(engine.Hit) int) ([]engine.Hit, int, int)) {
	packed, used, left := packHits(resp.Results, opts.budget, func(h engine.Hit) int {
		var b strings.Builder
		if opts.json {
			writeJSON(&b, h)
		} else {
			printHit(&b, h, &findOptions{full: true, explain: opts.explain})
		}
		return tokens.Count(b.String())
	})
	resp.Results = packed
	resp.Pack = &engine.PackStats{Budget: opts.budget, Tokens: used, Segments: len(packed), Left: left}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
