// Package cli is ctx's command tree: it parses flags, calls the engine and
// formats output. Results go to stdout; progress, warnings and hints go to
// stderr, and only when stderr is a terminal.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
)

// Exit codes (../shared/DESIGN.md, CLI contract).
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitNotIndexed = 4
)

// IO holds the streams a command writes to; tests swap them.
type IO struct {
	In          io.Reader
	Out, ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal (progress and hints are
	// shown only then).
	ErrTTY bool
	// OutTTY reports whether Out is a terminal.
	OutTTY bool
}

// Deps are the lazily built services commands share, so --help never
// opens a database.
type Deps struct {
	IO   IO
	repo string // --repo
	// cacheDir, verbose and force are global flags.
	cacheDir string
	verbose  bool
	force    bool
	// backend is --backend ("": the configured one).
	backend string
	// watchDebounce is ctx watch's --debounce (0: the configured one).
	watchDebounce time.Duration
	// flags are other commands' flags that set a setting (ctx serve's
	// --http, …), added before the configuration is first resolved.
	flags []config.Flag
	// mu guards loaded and loadedRoot: commands resolve the
	// configuration from several goroutines (ctx workspace show).
	mu sync.Mutex
	// loaded is the configuration resolved for loadedRoot.
	loaded     *config.Config
	loadedRoot string
}

// flagError marks a usage problem (exit 2, usage printed): the error
// table's [engine.ErrUsage].
type flagError struct{ err error }

func (e flagError) Error() string        { return e.err.Error() }
func (e flagError) Unwrap() error        { return e.err }
func (e flagError) Is(target error) bool { return target == engine.ErrUsage }

// Main runs ctx with os.Args and returns the process exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	io := IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())), OutTTY: term.IsTerminal(int(os.Stdout.Fd()))}
	return Run(ctx, os.Args[1:], io)
}

// Run runs ctx with args and returns the exit code.
func Run(ctx context.Context, args []string, io IO) int {
	deps := &Deps{IO: io}
	root := newRootCmd(deps)
	usageErrors(root)
	root.SetArgs(args)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	return exitCode(err, io, cmd, jsonErrors(cmd, args))
}

// exitCodes maps the error table's codes ([engine.Classify]; README,
// "Error codes") to exit codes: 2 when the request itself must change, 4
// when the index must be built or finished first, 1 for the rest.
var exitCodes = map[engine.Code]int{
	engine.CodeUsage:           exitUsage,
	engine.CodeInvalidArgument: exitUsage,
	engine.CodeOutsideRoot:     exitUsage,
	engine.CodeUnsafeRoot:      exitUsage,
	engine.CodeTooLarge:        exitUsage,
	engine.CodeNotIndexed:      exitNotIndexed,
	engine.CodeStale:           exitNotIndexed,
	engine.CodeIndexing:        exitNotIndexed,
	engine.CodePartial:         exitNotIndexed,
	engine.CodeInterrupted:     exitNotIndexed,
}

// exitCode reports err (if any), classified by the error table, and
// returns its exit code. With asJSON the report is one JSON object on
// stdout, {"error": {"code", "message", "fix", ...}}, and nothing else is
// written; otherwise "error: …" on stderr, then the fix when the message
// does not already name it.
func exitCode(err error, io IO, cmd *cobra.Command, asJSON bool) int {
	if err == nil {
		return exitOK
	}
	f := engine.Classify(err)
	code, ok := exitCodes[f.Code]
	if !ok {
		code = exitError
	}
	if f.Code == engine.CodeUsage && cmd != nil && cmd.HasParent() {
		f.Fix = "ctx help " + strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	if asJSON {
		writeJSON(io.Out, struct {
			Error engine.Failure `json:"error"`
		}{f})
		return code
	}
	w := io.ErrOut
	switch f.Code {
	case engine.CodeCanceled:
		fmt.Fprintln(w, "canceled")
	case engine.CodeUsage:
		fmt.Fprintf(w, "error: %v\nRun '%s' for usage.\n", err, f.Fix)
	default:
		fmt.Fprintf(w, "error: %v\n", err)
		if f.Fix != "" && !strings.Contains(f.Message, f.Fix) {
			fmt.Fprintf(w, "fix: %s\n", f.Fix)
		}
	}
	return code
}

// jsonErrors reports whether cmd's error is printed as JSON: it takes
// --json and was given it, or, when the command line did not parse (an
// unknown flag or command), --json is among the arguments before "--".
func jsonErrors(cmd *cobra.Command, args []string) bool {
	if cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Changed {
			return f.Value.String() == "true"
		}
	}
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

// usageErrors makes every argument-count check in the tree a usage error
// (cobra's own, such as cobra.NoArgs, return plain errors), and an
// unknown command one too.
func usageErrors(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				if err != nil && !errors.Is(err, engine.ErrUsage) {
					return flagError{err}
				}
				return err
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// The root runs only for a word that is no command ("ctx fnd"), or
	// for none at all (help). It takes a hidden --json so that "ctx fnd
	// --json" reports the unknown command, as JSON.
	root.Args = cobra.ArbitraryArgs
	root.Flags().Bool("json", false, "print an error as one JSON object")
	root.Flags().MarkHidden("json")
	if root.SuggestionsMinimumDistance <= 0 {
		root.SuggestionsMinimumDistance = 2
	}
	bare := root.RunE // what the root does with no argument (help, --version)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if bare != nil {
				return bare(cmd, args)
			}
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
		}
		return flagError{errors.New(msg)}
	}
}

func newRootCmd(deps *Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ctx",
		Short: "Codebase context for AI coding agents: the files and line ranges that answer a question",
		Long: `ctx indexes a repository (tree-sitter chunks, a code-aware BM25 index) and answers
natural-language or symbol questions with the exact files and line ranges that matter.
No services, no API keys, no downloads.`,
		Example: `  ctx find "how does the server close idle connections"
  ctx find ReadMIMEHeader --json --limit 5
  ctx index --repo ~/src/project
  ctx status
  ctx setup claude          # let Claude Code call ctx's MCP tools (ctx mcp)
  ctx watch                 # keep the index fresh while files change
  ctx def Server.Shutdown`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError{err} })
	// --version prints what `ctx version` prints; without it, the root
	// prints its help as before.
	showVersion := cmd.Flags().Bool("version", false, "print the version, commit and built-in model (as ctx version)")
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		if *showVersion {
			// The root's hidden --json (see usageErrors) asks for the
			// version as JSON, as `ctx version --json` prints it.
			asJSON, _ := c.Flags().GetBool("json")
			return runVersion(c.Context(), &versionOptions{deps: deps, json: asJSON})
		}
		return c.Help()
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&deps.repo, "repo", "", "root to index and search (default: the enclosing git work tree, else the current directory)")
	pf.StringVar(&deps.cacheDir, "cache-dir", "", "where index databases live (default: $CTX_CACHE_DIR, else the user cache dir/ctx)")
	pf.BoolVarP(&deps.verbose, "verbose", "v", false, "log debug records to stderr")
	pf.StringVar(&deps.backend, "backend", "", "where the index is kept and searched: local (default) or weaviate ($CTX_BACKEND; the server is $CTX_WEAVIATE_URL)")
	cmd.AddCommand(newIndexCmd(deps, nil), newFindCmd(deps, nil), newStatusCmd(deps, nil), newSetupCmd(deps, nil), newMCPCmd(deps), newServeCmd(deps), newDepsCmd(deps),
		newDefCmd(deps), newRefsCmd(deps), newSymbolsCmd(deps), newChunkCmd(deps), newLikeCmd(deps), newCalleesCmd(deps), newHierarchyCmd(deps), newTrainCmd(deps), newWatchCmd(deps, nil),
		newMemoryCmd(deps), newAnswerCmd(deps, nil), newWorkspaceCmd(deps), newConfigCmd(deps), newAuthCmd(deps),
		newEvalCmd(deps, nil), newVersionCmd(deps))
	cmd.AddCommand(newExportCmd(deps, nil), newImportCmd(deps, nil))
	return cmd
}

// config resolves the configuration of the command's repository: flags
// over CTX_* variables over the project file over the user file over
// defaults (see internal/config). It is resolved once per root, so its
// warnings are written once.
func (d *Deps) config() (config.Config, error) {
	root, err := d.root()
	if err != nil {
		return config.Config{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.loaded != nil && d.loadedRoot == root {
		return *d.loaded, nil
	}
	cfg, err := config.Load(root, &config.Options{Flags: d.settingFlags(), Warn: d.IO.ErrOut})
	if err != nil {
		return cfg, flagError{err}
	}
	cfg.Force = d.force
	if cfg.RankTune != "" {
		if err := search.SetTuning(cfg.RankTune); err != nil {
			return cfg, flagError{err}
		}
	}
	d.loaded, d.loadedRoot = &cfg, root
	return cfg, nil
}

// settingFlags are the flags given that set a setting, for config.Load.
func (d *Deps) settingFlags() []config.Flag {
	var fs []config.Flag
	if d.cacheDir != "" {
		fs = append(fs, config.Flag{Key: "cache_dir", Name: "--cache-dir", Value: d.cacheDir})
	}
	if d.verbose {
		fs = append(fs, config.Flag{Key: "log_level", Name: "--verbose", Value: "debug"})
	}
	if d.watchDebounce > 0 {
		fs = append(fs, config.Flag{Key: "watch.debounce", Name: "--debounce", Value: d.watchDebounce.String()})
	}
	if d.backend != "" {
		fs = append(fs, config.Flag{Key: "backend.name", Name: "--backend", Value: d.backend})
	}
	return append(fs, d.flags...)
}

// engine opens the engine for --repo, else the enclosing git work tree,
// else the current directory.
func (d *Deps) engine() (*engine.Engine, error) {
	return d.engineWith(engine.Options{})
}

// engineWith is [Deps.engine] with options (the logger is set here).
func (d *Deps) engineWith(opts engine.Options) (*engine.Engine, error) {
	cfg, err := d.config()
	if err != nil {
		return nil, err
	}
	root, err := d.root()
	if err != nil {
		return nil, err
	}
	opts.Logger = d.logger(cfg)
	return engine.Open(cfg, root, &opts)
}

// root is --repo, else the enclosing git work tree of the current
// directory, else the current directory.
func (d *Deps) root() (string, error) {
	if d.repo != "" {
		return d.repo, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return discover.FindRoot(wd)
}

func (d *Deps) logger(cfg config.Config) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(d.IO.ErrOut, &slog.HandlerOptions{Level: lvl}))
}
