// Package setup connects an agent client (Claude Code, Codex, Cursor,
// Gemini CLI, VS Code) to ctx's MCP server. For each client it edits two
// files: the client's MCP configuration, where it merges a "ctx" server
// entry that launches `ctx mcp`, and the instruction file the client's agent
// reads, where it keeps a delimited section saying when to prefer ctx's
// tools over grep.
//
// Invariants: everything else in those files survives (other servers,
// unknown keys, key order and formatting, the user's own text); a second run
// with the same options changes no bytes; a file that does not parse is an
// error that names it, and then nothing is written. [Plan] computes every
// change without writing; [Apply] writes them, each file atomically and
// with its mode kept.
package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
)

// Clients are the client names [Plan] accepts.
var Clients = []string{"claude", "codex", "cursor", "gemini", "vscode"}

// ServerName is the name of ctx's entry in each client's server list.
const ServerName = "ctx"

// Options say which files to edit and what the client should run.
type Options struct {
	// Root is the repository root, where the project-level files go.
	Root string
	// Global selects the user-level files instead (such as
	// ~/.codex/config.toml), for clients that have them.
	Global bool
	// Home is the user's home directory, under which most user-level
	// files live.
	Home string
	// UserConfigDir is the user configuration directory (os.UserConfigDir);
	// VS Code keeps its user-level mcp.json under it.
	UserConfigDir string
	// CodexHome is Codex's own directory ($CODEX_HOME); empty means
	// Home/.codex.
	CodexHome string
	// Command is the ctx executable the client starts, normally an
	// absolute path.
	Command string
	// Repo, when set, is passed on as `ctx mcp --repo Repo`. Otherwise the
	// server serves the directory the client starts it in, except that the
	// editors' project files pass ${workspaceFolder} (see layout.workspaceVar).
	Repo string
}

// Action says what [Apply] does, or would do, to one file.
type Action string

const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Skipped   Action = "skipped"
)

// Change is one file's planned edit.
type Change struct {
	// Path is the file, absolute, as the client names it.
	Path string
	// Kind is "MCP server" or "instructions".
	Kind string
	// Old is the file's content (nil when it does not exist); New is the
	// content after setup.
	Old, New []byte
	// Exists reports whether the file exists.
	Exists bool
	// Reason says why a [Skipped] change writes nothing.
	Reason string

	target string      // Path with symlinks resolved: where the bytes go
	mode   fs.FileMode // kept on rewrite
}

// Action reports what applying c does.
func (c *Change) Action() Action {
	switch {
	case c.Reason != "":
		return Skipped
	case !c.Exists:
		return Created
	case string(c.Old) != string(c.New):
		return Updated
	}
	return Unchanged
}

// layout is where one client keeps its files and how it spells a server.
type layout struct {
	// config is the MCP configuration file; toml selects Codex's
	// config.toml, else it is JSON with the servers under jsonKey.
	config  string
	toml    bool
	jsonKey string
	// stdioType writes "type": "stdio" into the entry (VS Code requires it).
	stdioType bool
	// instructions is the file the agent reads; head starts it when new.
	// noInstructions says why there is none.
	instructions, head, noInstructions string
	// workspaceVar passes ${workspaceFolder} as the root: editors may start
	// a stdio server in another directory (where the editor was launched,
	// or home), and both expand the variable in their project mcp.json.
	workspaceVar bool
}

// cursorRuleHead starts .cursor/rules/ctx.mdc: Cursor loads a project rule
// into every request only when its front matter says alwaysApply.
const cursorRuleHead = `---
description: When to use ctx's code search tools instead of grep
alwaysApply: true
---

`

func clientLayout(client string, o Options) (layout, error) {
	home := func(p ...string) string { return filepath.Join(append([]string{o.Home}, p...)...) }
	root := func(p ...string) string { return filepath.Join(append([]string{o.Root}, p...)...) }
	if o.Global && o.Home == "" {
		return layout{}, errors.New("no home directory for the user-level files")
	}
	switch client {
	case "claude":
		// Claude Code: project servers live in .mcp.json at the root (meant
		// to be committed; Claude asks once before starting them), user
		// servers in the top-level mcpServers of ~/.claude.json. Its agent
		// reads CLAUDE.md, and ~/.claude/CLAUDE.md in every project.
		if o.Global {
			return layout{config: home(".claude.json"), jsonKey: "mcpServers",
				instructions: home(".claude", "CLAUDE.md")}, nil
		}
		return layout{config: root(".mcp.json"), jsonKey: "mcpServers",
			instructions: root("CLAUDE.md")}, nil
	case "codex":
		// Codex reads [mcp_servers.<name>] tables from $CODEX_HOME/config.toml
		// (default ~/.codex) and, in projects the user trusts, from
		// .codex/config.toml. Its agent reads AGENTS.md, and
		// $CODEX_HOME/AGENTS.md everywhere.
		if o.Global {
			dir := o.CodexHome
			if dir == "" {
				dir = home(".codex")
			}
			return layout{config: filepath.Join(dir, "config.toml"), toml: true,
				instructions: filepath.Join(dir, "AGENTS.md")}, nil
		}
		return layout{config: root(".codex", "config.toml"), toml: true,
			instructions: root("AGENTS.md")}, nil
	case "cursor":
		// Cursor: .cursor/mcp.json in the project, ~/.cursor/mcp.json for
		// all projects. Instructions go in a project rule of their own,
		// .cursor/rules/ctx.mdc with alwaysApply, rather than AGENTS.md,
		// which Cursor also reads: the rule is Cursor's own mechanism, is
		// loaded into every request, and stays out of the AGENTS.md that
		// Codex and other agents share. User rules live in Cursor's
		// settings, not in a file, so --global writes none.
		if o.Global {
			return layout{config: home(".cursor", "mcp.json"), jsonKey: "mcpServers",
				noInstructions: "Cursor keeps user rules in its settings, not in a file; run setup in a project for .cursor/rules/ctx.mdc"}, nil
		}
		return layout{config: root(".cursor", "mcp.json"), jsonKey: "mcpServers",
			instructions: root(".cursor", "rules", "ctx.mdc"), head: cursorRuleHead, workspaceVar: true}, nil
	case "gemini":
		// Gemini CLI: mcpServers in .gemini/settings.json, or in
		// ~/.gemini/settings.json for every project; its agent reads
		// GEMINI.md, and ~/.gemini/GEMINI.md everywhere.
		if o.Global {
			return layout{config: home(".gemini", "settings.json"), jsonKey: "mcpServers",
				instructions: home(".gemini", "GEMINI.md")}, nil
		}
		return layout{config: root(".gemini", "settings.json"), jsonKey: "mcpServers",
			instructions: root("GEMINI.md")}, nil
	case "vscode":
		// VS Code: "servers" (with an explicit "type") in .vscode/mcp.json,
		// or in mcp.json in the user profile. Copilot reads
		// .github/copilot-instructions.md; user-level instructions live in
		// the profile's settings, so --global writes none.
		if o.Global {
			if o.UserConfigDir == "" {
				return layout{}, errors.New("no user configuration directory for VS Code's mcp.json")
			}
			return layout{config: filepath.Join(o.UserConfigDir, "Code", "User", "mcp.json"), jsonKey: "servers", stdioType: true,
				noInstructions: "VS Code keeps user instructions in its profile settings; run setup in a project for .github/copilot-instructions.md"}, nil
		}
		return layout{config: root(".vscode", "mcp.json"), jsonKey: "servers", stdioType: true,
			instructions: root(".github", "copilot-instructions.md"), workspaceVar: true}, nil
	}
	return layout{}, fmt.Errorf("unknown client %q: want one of %s", client, strings.Join(Clients, ", "))
}

// Title returns the client's product name ("Claude Code" for "claude").
func Title(client string) string {
	return titles[client]
}

var titles = map[string]string{"claude": "Claude Code", "codex": "Codex", "cursor": "Cursor", "gemini": "Gemini CLI", "vscode": "VS Code"}

// serverArgs returns the arguments the client passes to [Options.Command].
func serverArgs(l layout, o Options) []string {
	args := []string{"mcp"}
	switch {
	case o.Repo != "":
		args = append(args, "--repo", o.Repo)
	case l.workspaceVar:
		args = append(args, "--repo", "${workspaceFolder}")
	}
	return args
}

// Plan computes the edits that connect client to ctx's MCP server: the
// MCP configuration first, then the instructions. It reads the files and
// writes nothing. An error names the file at fault; then there is no plan.
func Plan(ctx context.Context, client string, o Options) ([]Change, error) {
	l, err := clientLayout(client, o)
	if err != nil {
		return nil, err
	}
	if o.Command == "" {
		return nil, errors.New("no command for the client to run")
	}
	cfg, err := load(l.config, "MCP server")
	if err != nil {
		return nil, err
	}
	args := serverArgs(l, o)
	if l.toml {
		cfg.New, err = mergeTOMLServer(cfg.Old, ServerName, o.Command, args)
	} else {
		var want []jsonField
		if l.stdioType {
			want = append(want, jsonField{"type", jsonValue("stdio")})
		}
		want = append(want, jsonField{"command", jsonValue(o.Command)}, jsonField{"args", jsonValue(args)})
		cfg.New, err = mergeJSONServer(cfg.Old, l.jsonKey, ServerName, want)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was written", l.config, err)
	}
	changes := []Change{cfg}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.noInstructions != "" {
		return append(changes, Change{Kind: "instructions", Reason: l.noInstructions}), nil
	}
	ins, err := load(l.instructions, "instructions")
	if err != nil {
		return nil, err
	}
	if ins.New, err = mergeSection(ins.Old, l.head); err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was written", l.instructions, err)
	}
	return append(changes, ins), nil
}

// load reads the file at path (through symlinks) into a Change.
func load(path, kind string) (Change, error) {
	c := Change{Path: path, Kind: kind, target: path, mode: 0o644}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		// Write through a symlink (CLAUDE.md -> AGENTS.md is common)
		// instead of replacing it with a file.
		c.target = real
	}
	fi, err := os.Stat(c.target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return c, err
	case !fi.Mode().IsRegular():
		return c, fmt.Errorf("%s is not a regular file", path)
	}
	c.Exists = true
	c.mode = fi.Mode().Perm()
	if c.Old, err = os.ReadFile(c.target); err != nil {
		return c, err
	}
	c.New = c.Old
	return c, nil
}

// Apply writes the changes that change something. Each file is written to
// a temporary file in its directory and renamed into place, keeping the
// old file's mode (new files get 0644); missing directories are created.
func Apply(ctx context.Context, changes []Change) error {
	for _, c := range changes {
		if a := c.Action(); a != Created && a != Updated {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := atomicfile.Write(c.target, c.New, c.mode); err != nil {
			return fmt.Errorf("writing %s: %w", c.Path, err)
		}
	}
	return nil
}
