package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type answerOptions struct {
	deps      *Deps
	question  string
	json      bool
	budget    int
	languages []string
	paths     []string
}

func newAnswerCmd(deps *Deps, runF func(context.Context, *answerOptions) error) *cobra.Command {
	opts := &answerOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "answer QUESTION",
		Short: "Answer a question about the code with the configured LLM, citing the lines it used",
		Long: `Retrieve the code for QUESTION, pack it to --budget tokens, ask the configured LLM to answer
from that code alone, and check every citation in its answer (path:L3-L6, path:3-6, path#L3-L6
or a bare path) against the code it was shown: a citation of a file or lines outside it is
removed from the answer and counted. Ends with a footer: results, index ms, LLM ms, tokens and
cost.

Needs an LLM: CTX_LLM_PROVIDER (openai for any OpenAI-compatible server, anthropic, ollama),
CTX_LLM_MODEL, CTX_LLM_URL and, for a hosted service, CTX_LLM_API_KEY. What leaves the machine:
the question and the packed code, with anything the secret detector flags masked; nothing when
the LLM runs on this machine. Spend caps: CTX_SPEND_LLM_RUN, CTX_SPEND_LLM_DAY.

QUESTION - reads the question from standard input.`,
		Example: `  CTX_LLM_PROVIDER=ollama CTX_LLM_MODEL=llama3.2 ctx answer "how are idle connections closed"
  ctx answer "where is the retry policy configured" --json
  ctx answer --budget 4000 --path 'internal/**' "what does the watcher do on overflow"`,
		Args: needsArg("answer needs a QUESTION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(args, deps.IO.In)
			if err != nil {
				return err
			}
			opts.question = text
			if strings.TrimSpace(opts.question) == "" {
				return flagError{fmt.Errorf("empty question")}
			}
			if opts.budget < 0 {
				return flagError{fmt.Errorf("--budget must be positive")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAnswer(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, `print one JSON object: {"answer", "citations", "dropped_citations", "context", "usage", "cost_usd", "stats"}`)
	f.IntVar(&opts.budget, "budget", engine.DefaultAnswerBudget, "tokens (o200k_base) of code shown to the model")
	f.StringSliceVarP(&opts.languages, "language", "l", nil, "only these languages")
	f.StringSliceVarP(&opts.paths, "path", "p", nil, "only paths matching these globs")
	f.BoolVar(&deps.force, "force", false, "index the root first even where ctx would refuse it: /, the home directory, or over CTX_NON_REPO_MAX_FILES files outside a git work tree")
	return cmd
}

func runAnswer(ctx context.Context, opts *answerOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	phase, finish := indexPhases(d.IO.ErrOut, d.IO.ErrTTY, firstIndexNote(e))
	req := engine.AnswerRequest{Question: opts.question, Budget: opts.budget, Languages: opts.languages, PathGlobs: opts.paths, AutoIndex: true, Phase: phase}
	if d.IO.ErrTTY && !opts.json {
		// The answer is printed once its citations are checked; meanwhile
		// stderr shows that the model is writing.
		n := 0
		req.Stream = func(string) {
			if n++; n%20 == 1 {
				fmt.Fprint(d.IO.ErrOut, ".")
			}
		}
	}
	resp, err := e.Answer(ctx, req)
	finish()
	if req.Stream != nil {
		fmt.Fprintln(d.IO.ErrOut)
	}
	if err != nil {
		return err
	}
	for _, n := range resp.Stats.Notes() {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", n)
	}
	if opts.json {
		return writeJSON(d.IO.Out, resp)
	}
	w := d.IO.Out
	fmt.Fprintln(w, strings.TrimSpace(resp.Answer))
	fmt.Fprintln(w)
	if len(resp.Citations) > 0 {
		fmt.Fprintln(w, "Citations:")
		for _, c := range resp.Citations {
			fmt.Fprintf(w, "  %s:L%d-L%d\n", c.Path, c.StartLine, c.EndLine)
		}
	}
	if resp.DroppedCitations > 0 {
		fmt.Fprintf(w, "%d citation(s) named code the model was not shown and were removed\n", resp.DroppedCitations)
	}
	fmt.Fprintln(w, engine.Footer(len(resp.Context), resp.Usage.IndexMS, &resp.Usage.LLMUsage, resp.Stats.Rerank))
	return nil
}
