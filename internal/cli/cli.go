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
}

// flagError marks a usage problem (exit 2, usage printed).
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }
func (e flagError) Unwrap() error { return e.err }

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
	root.SetArgs(args)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	err := root.ExecuteContext(ctx)
	return exitCode(err, io.ErrOut)
}

// exitCode prints err (if any) and maps it to an exit code: the one table
// of the CLI's error classes.
func exitCode(err error, w io.Writer) int {
	if err == nil {
		return exitOK
	}
	var fe flagError
	switch {
	case errors.As(err, &fe):
		fmt.Fprintf(w, "error: %v\nRun 'ctx help' for usage.\n", err)
		return exitUsage
	case errors.Is(err, engine.ErrNotIndexed):
		fmt.Fprintf(w, "error: %v\n", err)
		return exitNotIndexed
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "canceled")
		return exitError
	case errors.Is(err, discover.ErrUnsafeRoot):
		fmt.Fprintf(w, "error: %v (pass --force to index it anyway)\n", err)
		return exitUsage
	}
	fmt.Fprintf(w, "error: %v\n", err)
	return exitError
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
			return runVersion(c.Context(), &versionOptions{deps: deps})
		}
		return c.Help()
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&deps.repo, "repo", "", "root to index and search (default: the enclosing git work tree, else the current directory)")
	pf.StringVar(&deps.cacheDir, "cache-dir", "", "where index databases live (default: $CTX_CACHE_DIR, else the user cache dir/ctx)")
	pf.BoolVarP(&deps.verbose, "verbose", "v", false, "log debug records to stderr")
	pf.StringVar(&deps.backend, "backend", "", "where the index is kept and searched: local (default) or weaviate ($CTX_BACKEND; the server is $CTX_WEAVIATE_URL)")
	cmd.AddCommand(newIndexCmd(deps, nil), newFindCmd(deps, nil), newStatusCmd(deps, nil), newSetupCmd(deps, nil), newMCPCmd(deps), newServeCmd(deps), newDepsCmd(deps),
		newDefCmd(deps), newRefsCmd(deps), newSymbolsCmd(deps), newChunkCmd(deps), newCalleesCmd(deps), newHierarchyCmd(deps), newTrainCmd(deps), newWatchCmd(deps, nil),
		newMemoryCmd(deps), newAnswerCmd(deps, nil), newWorkspaceCmd(deps))
	cmd.AddCommand(newVersionCmd(deps))
	return cmd
}

// config resolves the configuration: flags over CTX_* variables over
// defaults.
func (d *Deps) config() (config.Config, error) {
	cfg, err := config.Load()
	if err != nil {
		return cfg, flagError{err}
	}
	if d.cacheDir != "" {
		cfg.CacheDir = d.cacheDir
	}
	if d.force {
		cfg.Force = true
	}
	if d.verbose {
		cfg.LogLevel = "debug"
	}
	if d.watchDebounce > 0 {
		cfg.WatchDebounce = d.watchDebounce
	}
	if d.backend != "" {
		if err := config.CheckBackend(d.backend); err != nil {
			return cfg, flagError{fmt.Errorf("--backend: %w", err)}
		}
		cfg.Backend.Name = d.backend
	}
	if v := os.Getenv(search.TuneEnv); v != "" {
		if err := search.SetTuning(v); err != nil {
			return cfg, flagError{err}
		}
	}
	return cfg, nil
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
