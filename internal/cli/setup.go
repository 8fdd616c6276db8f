package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/setup"
)

type setupOptions struct {
	deps    *Deps
	client  string
	global  bool
	print   bool
	command string
}

func newSetupCmd(deps *Deps, runF func(context.Context, *setupOptions) error) *cobra.Command {
	opts := &setupOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "setup CLIENT",
		Short: "Connect an agent client (claude, codex, cursor, gemini, vscode) to ctx's MCP server",
		Long: `Connect an agent client to ctx's MCP server: add a "ctx" server that runs ` + "`ctx mcp`" + ` to the
client's MCP configuration, and a section to the file its agent reads that says when to use
ctx's tools instead of grep. Everything else in those files is kept, and running setup again
changes nothing. Files are written in the repository root (--repo, else the enclosing git
work tree, else the current directory); --global writes the user-level files instead.

  claude   .mcp.json and CLAUDE.md
           --global: ~/.claude.json and ~/.claude/CLAUDE.md
  codex    .codex/config.toml (read in projects you trust) and AGENTS.md
           --global: config.toml and AGENTS.md in $CODEX_HOME, else ~/.codex
  cursor   .cursor/mcp.json and .cursor/rules/ctx.mdc
           --global: ~/.cursor/mcp.json
  gemini   .gemini/settings.json and GEMINI.md
           --global: ~/.gemini/settings.json and ~/.gemini/GEMINI.md
  vscode   .vscode/mcp.json and .github/copilot-instructions.md
           --global: mcp.json in VS Code's user directory

The server command in the repository's files, which teammates share, is "ctx" when a ctx is
on PATH (a warning says so when it is not this one); without one it is this executable's
absolute path, with a warning that other machines will not have it. The user-level files
(--global) name this executable by its absolute path, which clients started outside a shell
find without PATH. --command overrides both. With --repo the server serves that repository;
without it, the directory the client starts it in (Cursor's and VS Code's project files pass
${workspaceFolder}). --print shows the changes as diffs and writes nothing.`,
		Example: `  ctx setup claude
  ctx setup codex --global
  ctx setup vscode --print
  ctx setup cursor --command /usr/local/bin/ctx`,
		ValidArgs: setup.Clients,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagError{fmt.Errorf("setup needs one CLIENT: %s", strings.Join(setup.Clients, ", "))}
			}
			if !slices.Contains(setup.Clients, args[0]) {
				return flagError{fmt.Errorf("unknown client %q: want one of %s", args[0], strings.Join(setup.Clients, ", "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.client = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSetup(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.global, "global", false, "write the client's user-level files instead of the repository's")
	f.BoolVar(&opts.print, "print", false, "show the files and changes that setup would write, and write nothing")
	f.StringVar(&opts.command, "command", "", `the ctx executable the client runs (default: "ctx" in the repository's files when it is on PATH, else this one's absolute path)`)
	return cmd
}

func runSetup(ctx context.Context, opts *setupOptions) error {
	d := opts.deps
	// config.Default resolves the home directory without the CTX_*
	// variables, which setup does not use: a bad one should not stop it.
	home := config.Default().Home
	o := setup.Options{Global: opts.global, Home: home, Command: opts.command}
	if o.Command == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the ctx executable: %v; pass --command", err)
		}
		onPath, err := exec.LookPath("ctx")
		if err != nil {
			onPath = "" // not found, or found only through a relative PATH entry
		}
		var warning string
		if o.Command, warning, err = serverCommand(opts.global, exe, onPath); err != nil {
			return err
		}
		if warning != "" {
			fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", warning)
		}
	}
	root, err := d.root()
	if err != nil {
		return err
	}
	if o.Root, err = filepath.Abs(root); err != nil {
		return err
	}
	if d.repo != "" {
		o.Repo = o.Root
	}
	if !opts.global {
		if discover.CheckRoot(o.Root, home, false) != nil {
			return flagError{fmt.Errorf("%s is the home directory or a filesystem root, not a project; run setup in a repository, pass --repo, or use --global", o.Root)}
		}
	}
	if dir, err := os.UserConfigDir(); err == nil {
		o.UserConfigDir = dir
	}
	// CODEX_HOME is Codex's own variable: setup reads it (through the
	// config) only to find the file Codex reads.
	cfg, err := d.config()
	if err != nil {
		return err
	}
	o.CodexHome = cfg.CodexHome

	changes, err := setup.Plan(ctx, opts.client, o)
	if err != nil {
		return err
	}
	show := func(p string) string { return displayPath(p, o.Root, home) }
	w := d.IO.Out
	if opts.print {
		printSetupPlan(w, changes, show)
		return nil
	}
	if err := setup.Apply(ctx, changes); err != nil {
		return err
	}
	for _, c := range changes {
		if c.Action() == setup.Skipped {
			fmt.Fprintf(w, "skipped %s: %s\n", c.Kind, c.Reason)
			continue
		}
		fmt.Fprintf(w, "%s %s\n", c.Action(), show(c.Path))
	}
	if d.IO.ErrTTY {
		fmt.Fprintf(d.IO.ErrOut, "Restart %s, or reload its MCP servers, to start ctx (%s mcp).\n", setup.Title(opts.client), o.Command)
	}
	return nil
}

// serverCommand chooses the command a client runs to start ctx mcp, from
// exe (this executable) and onPath (what "ctx" on PATH resolves to, ""
// when none does), with a warning for stderr when the choice has a catch.
//
// The repository's files are shared: they get "ctx", which each machine
// resolves on its own PATH, whenever a ctx is on PATH here, and a warning
// when it is another file than this one (the client will run that one).
// With none on PATH they get exe, which works here, and a warning that it
// names this machine's file. The user-level files (global) are this
// machine's alone: they get exe, since clients started from a desktop
// session do not see the PATH a shell profile sets. A temporary build
// (go run) cannot be named: then PATH's ctx is used, or it is an error.
func serverCommand(global bool, exe, onPath string) (command, warning string, err error) {
	temp := strings.Contains(filepath.ToSlash(exe), "/go-build")
	switch {
	case !global && onPath != "":
		if !sameFile(exe, onPath) {
			warning = fmt.Sprintf(`the client will run the ctx on PATH (%s), not this one (%s): install this one with go install ./cmd/ctx, or pass --command`, onPath, exe)
		}
		return "ctx", warning, nil
	case temp && onPath != "":
		return onPath, fmt.Sprintf("this ctx is a temporary build (%s); the client will run the ctx on PATH (%s)", exe, onPath), nil
	case temp:
		return "", "", flagError{fmt.Errorf("this ctx is a temporary build (%s), which clients could not start later, and no ctx is on PATH; install it (go install ./cmd/ctx) or pass --command", exe)}
	case !global:
		return exe, fmt.Sprintf("ctx is not on PATH, so the repository's MCP configuration names this executable by its absolute path (%s), which other machines do not have: put ctx on PATH (go install ./cmd/ctx installs it in $(go env GOPATH)/bin) and run setup again to write \"ctx\", or pass --command", exe), nil
	}
	return exe, "", nil
}

// sameFile reports whether the paths name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// printSetupPlan lists what setup would do to each file, then the changes
// as unified diffs.
func printSetupPlan(w io.Writer, changes []setup.Change, show func(string) string) {
	for _, c := range changes {
		switch a := c.Action(); a {
		case setup.Skipped:
			fmt.Fprintf(w, "skipped %s: %s\n", c.Kind, c.Reason)
		case setup.Unchanged:
			fmt.Fprintf(w, "unchanged %s\n", show(c.Path))
		default:
			fmt.Fprintf(w, "would %s %s\n", strings.TrimSuffix(string(a), "d"), show(c.Path))
		}
	}
	for _, c := range changes {
		a := c.Action()
		if a != setup.Created && a != setup.Updated {
			continue
		}
		old := show(c.Path)
		if a == setup.Created {
			old = "/dev/null"
		}
		fmt.Fprintf(w, "\n%s", diff.Diff(old, c.Old, show(c.Path), c.New))
	}
}

// displayPath shows p relative to the repository root or as ~/..., which
// ever is the closer, else as it is.
func displayPath(p, root, home string) string {
	best, bestBase := p, ""
	for _, base := range []struct{ dir, prefix string }{{root, ""}, {home, "~" + string(filepath.Separator)}} {
		if base.dir == "" {
			continue
		}
		rel, err := filepath.Rel(base.dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if len(base.dir) > len(bestBase) {
			best, bestBase = base.prefix+rel, base.dir
		}
	}
	return best
}
