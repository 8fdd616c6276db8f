package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/eval"
)

type evalOptions struct {
	deps      *Deps
	path      string
	queries   int
	seed      uint64
	all       bool
	keepNames bool
	json      bool
	details   bool
	html      string
}

func newEvalCmd(deps *Deps, runF func(context.Context, *evalOptions) error) *cobra.Command {
	opts := &evalOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "eval [PATH]",
		Short: "Measure retrieval on a repository with queries made from its own code",
		Long: `Measure how well ctx finds code in PATH (default: --repo, else the enclosing git work
tree, else the current directory), with queries made from the repository itself, and compare
it with a grep baseline. The index is built first when there is none.

The queries are the pairs ctx train mines, taken from the files it holds out of training
(every 10th file by a hash of its path; --all takes every file): a doc comment with the
definition's own name taken out (so that looking the name up does not answer it; --keep-names
leaves it in), a definition's split name and enclosing type ("read mime header (Reader)"),
and a comment inside a function. A query's answer is the file of the code it was mined from;
a text mined from two files is not asked. --queries of them are sampled by --seed, the three
kinds in turn. The words of a query occur in its file, so these queries are easier than a
person's questions: compare the systems on your code rather than read the numbers as
absolute quality.

Systems: default (ctx find as it answers: every channel fused and ranked), lexical (--channels
lexical: no embedding model), dense (--channels dense: the embedding model alone; left out when
CTX_EMBED_PROVIDER is none), and grep (what an agent without ctx does: for each file, the
lines holding any of the query's words, as grep -c -i -F -e WORD ... counts them, stop words
and 1-letter words left out; files ranked by that count). No LLM or reranker is called.

Metrics, over the first 10 distinct files of each system's first 10 results: Recall@1, @5 and
@10 (the query's file is among the first k), MRR (1/its rank), NDCG@10 (1/log2(rank+1)), and
the time to answer one query (p50, p95; ctx find in this process, grep over files held in
memory).`,
		Example: `  ctx eval
  ctx eval ~/src/project --queries 500 --seed 7
  ctx eval --json --details > eval.json
  ctx eval --html eval.html
  ctx eval --keep-names          # doc queries keep the definition's name: how much it helps`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			if opts.queries <= 0 {
				return flagError{fmt.Errorf("--queries must be positive")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runEval(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.queries, "queries", "n", eval.DefaultQueries, "ask at most this many queries")
	f.Uint64Var(&opts.seed, "seed", 1, "pick the queries with this seed")
	f.BoolVar(&opts.deps.force, "force", false, "index the root first even where ctx would refuse it: /, the home directory, or over CTX_NON_REPO_MAX_FILES files outside a git work tree")
	f.BoolVar(&opts.all, "all", false, "ask of every file, not only those ctx train holds out")
	f.BoolVar(&opts.keepNames, "keep-names", false, "leave the definition's own name in doc-comment queries")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	f.BoolVar(&opts.details, "details", false, "add every query with each system's answer (JSON and HTML), or a line per query")
	f.StringVar(&opts.html, "html", "", "also write a self-contained HTML report with charts to this file")
	return cmd
}

func runEval(ctx context.Context, opts *evalOptions) error {
	d := opts.deps
	if opts.path != "" {
		d.repo = opts.path
	}
	e, err := d.engine()
	if err != nil {
		return err
	}
	phase, finish := indexPhases(d.IO.ErrOut, d.IO.ErrTTY, firstIndexNote(e))
	eo := engine.EvalOptions{Queries: opts.queries, Seed: opts.seed, All: opts.all, KeepNames: opts.keepNames,
		Details: opts.details || opts.html != "", Phase: phase}
	if d.IO.ErrTTY && !opts.json {
		eo.Progress = func(step string, done, total int) {
			if total == 0 {
				fmt.Fprintf(d.IO.ErrOut, "\r\033[K%s queries from the code", step)
				return
			}
			fmt.Fprintf(d.IO.ErrOut, "\r\033[Kasking %s: %d/%d", step, done, total)
		}
	}
	rep, err := e.Eval(ctx, eo)
	finish()
	if eo.Progress != nil {
		fmt.Fprint(d.IO.ErrOut, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if opts.all && strings.Contains(rep.Model, engine.AdaptedModelName) {
		fmt.Fprintln(d.IO.ErrOut, "warning: the adapted model (ctx train) was trained on these files' pairs; without --all the queries come from the files it never saw")
	}
	if opts.html != "" {
		var b bytes.Buffer
		if err := eval.WriteHTML(&b, rep); err != nil {
			return err
		}
		if err := os.WriteFile(opts.html, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if d.IO.ErrTTY && !opts.json {
			fmt.Fprintf(d.IO.ErrOut, "wrote %s\n", opts.html)
		}
	}
	if !opts.details {
		rep.Details = nil
	}
	if opts.json {
		return writeJSON(d.IO.Out, rep)
	}
	printEval(d.IO.Out, rep)
	return nil
}

// printEval prints rep as aligned tables: the run's facts, the metrics
// per system, NDCG@10 per query kind, and with details a line per query.
func printEval(w io.Writer, rep *eval.Report) {
	from := "held-out files (every 10th file, which ctx train never trains on)"
	if rep.Split == "all" {
		from = "every file"
	}
	var kinds []string
	for _, k := range eval.Kinds {
		if n := rep.ByKind[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
	}
	names := ""
	if rep.KeepNames {
		names = ", doc queries keep the definition's name"
	}
	fmt.Fprintf(w, "repository  %s (%d files)\n", rep.Repository, rep.Files)
	fmt.Fprintf(w, "queries     %d from %s: %s; seed %d%s\n", rep.Queries, from, strings.Join(kinds, ", "), rep.Seed, names)
	fmt.Fprintf(w, "index       generation %d, model %s\n\n", rep.IndexGeneration, rep.Model)

	// Names align left, numbers right under their headings.
	width := len("system")
	for _, s := range rep.Systems {
		width = max(width, len(s.Name))
	}
	fmt.Fprintf(w, "%-*s  Recall@1  Recall@5  Recall@10    MRR  NDCG@10    p50 ms    p95 ms\n", width, "system")
	for _, s := range rep.Systems {
		fmt.Fprintf(w, "%-*s  %8.3f  %8.3f  %9.3f  %5.3f  %7.3f  %8.1f  %8.1f\n", width, s.Name, s.Recall1, s.Recall5, s.Recall10, s.MRR, s.NDCG10, s.LatencyP50MS, s.LatencyP95MS)
	}

	fmt.Fprintln(w, "\nNDCG@10 by query kind")
	var heads []string
	fmt.Fprintf(w, "%-*s", width, "system")
	for _, k := range eval.Kinds {
		if n := rep.ByKind[k]; n > 0 {
			heads = append(heads, fmt.Sprintf("%s (%d)", k, n))
			fmt.Fprintf(w, "  %s", heads[len(heads)-1])
		}
	}
	fmt.Fprintln(w)
	for _, s := range rep.Systems {
		fmt.Fprintf(w, "%-*s", width, s.Name)
		i := 0
		for _, k := range eval.Kinds {
			if rep.ByKind[k] > 0 {
				fmt.Fprintf(w, "  %*.3f", len(heads[i]), s.ByKind[k].NDCG10)
				i++
			}
		}
		fmt.Fprintln(w)
	}

	if len(rep.Details) == 0 {
		return
	}
	fmt.Fprintln(w, "\nrank of the answer's file per system (0: not in the first 10 files)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range rep.Systems {
		fmt.Fprintf(tw, "%s\t", s.Name)
	}
	fmt.Fprintln(tw, "kind\tfile\tquery")
	for _, q := range rep.Details {
		for _, s := range rep.Systems {
			fmt.Fprintf(tw, "%d\t", q.Answers[s.Name].Rank)
		}
		fmt.Fprintf(tw, "%s\t%s:%d\t%s\n", q.Kind, q.Path, q.StartLine, clip(q.Text, 80))
	}
	tw.Flush()
}

// clip cuts s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
