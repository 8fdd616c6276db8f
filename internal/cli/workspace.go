package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/workspace"
)

func newWorkspaceCmd(deps *Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workspace",
		Short: "Name sets of repositories that are searched as one",
		Long: `A workspace is a named set of repositories searched as one; each result names the member
repository it comes from. Workspaces live in the user file $XDG_CONFIG_HOME/ctx/workspaces.toml
(written by add and rm) or in a repository's .ctx/config.toml:

  [workspaces.backend]
  repos = [".", "../shared-lib"]   # relative to that repository's root, or absolute

Inside that repository, a workspace it declares replaces a user one of the same name.
Members are named by their directory's base name, with parent directories added when two
share it (team-a/api, team-b/api).`,
		Example: `  ctx workspace add backend ~/src/api ~/src/shared-lib
  ctx workspace ls
  ctx workspace show backend --json
  ctx workspace rm backend ~/src/shared-lib
  ctx workspace rm backend`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagError{fmt.Errorf("workspace needs a subcommand: add, rm, ls or show")}
		},
	}
	cmd.AddCommand(newWorkspaceAddCmd(deps, nil), newWorkspaceRmCmd(deps, nil),
		newWorkspaceLsCmd(deps, nil), newWorkspaceShowCmd(deps, nil))
	return cmd
}

// workspaceErr turns an invalid workspace name into a usage error (exit
// 2).
func workspaceErr(err error) error {
	if errors.Is(err, workspace.ErrInvalid) {
		return flagError{err}
	}
	return err
}

// projectRoot is the repository whose .ctx/config.toml may declare
// workspaces: --repo, else the enclosing git work tree; "" when neither
// can be found, so that the user file still answers.
func (d *Deps) projectRoot() string {
	r, err := d.root()
	if err != nil {
		return ""
	}
	return r
}

type workspaceAddOptions struct {
	deps  *Deps
	name  string
	paths []string
	json  bool
}

func newWorkspaceAddCmd(deps *Deps, runF func(context.Context, *workspaceAddOptions) error) *cobra.Command {
	opts := &workspaceAddOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "add NAME PATH...",
		Short: "Add repositories to a workspace, creating it",
		Long: `Add the directories PATH... to the workspace NAME in the user file, creating the workspace
when it is new. Each PATH must be an existing directory; it is stored absolute with symlinks
resolved, and one already a member is skipped. NAME is 1 to 64 of A-Z a-z 0-9 . _ -.
Adding does not index: run ctx index in each member (or let ctx find do it).`,
		Example: `  ctx workspace add backend ~/src/api ~/src/shared-lib
  ctx workspace add backend ../billing --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return flagError{errors.New("workspace add needs a NAME and at least one PATH")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name, opts.paths = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWorkspaceAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the workspace as one JSON object")
	return cmd
}

func runWorkspaceAdd(_ context.Context, opts *workspaceAddOptions) error {
	d := opts.deps
	w, err := workspace.Add(opts.name, opts.paths)
	if err != nil {
		return workspaceErr(err)
	}
	if opts.json {
		return writeJSON(d.IO.Out, w)
	}
	fmt.Fprintf(d.IO.Out, "workspace %s: %d %s (%s)\n", w.Name, len(w.Members), plural(len(w.Members), "member", "members"), w.File)
	return nil
}

type workspaceRmOptions struct {
	deps  *Deps
	name  string
	paths []string
}

func newWorkspaceRmCmd(deps *Deps, runF func(context.Context, *workspaceRmOptions) error) *cobra.Command {
	opts := &workspaceRmOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "rm NAME [PATH|MEMBER...]",
		Short: "Remove a workspace, or members from it",
		Long: `Remove the workspace NAME from the user file, or with PATH... only those members (each a
path or a member name as ctx workspace show prints it). Indexes are kept. Workspaces that a
repository's .ctx/config.toml declares are edited in that file.`,
		Example: `  ctx workspace rm backend ~/src/shared-lib
  ctx workspace rm backend team-b/api
  ctx workspace rm backend`,
		Args: needsArg("workspace rm needs a NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name, opts.paths = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWorkspaceRm(cmd.Context(), opts)
		},
	}
	return cmd
}

func runWorkspaceRm(_ context.Context, opts *workspaceRmOptions) error {
	d := opts.deps
	if err := workspace.Remove(opts.name, opts.paths); err != nil {
		return workspaceErr(err)
	}
	if len(opts.paths) == 0 {
		fmt.Fprintf(d.IO.Out, "removed workspace %s\n", opts.name)
		return nil
	}
	fmt.Fprintf(d.IO.Out, "removed %d %s from workspace %s\n", len(opts.paths), plural(len(opts.paths), "member", "members"), opts.name)
	return nil
}

type workspaceLsOptions struct {
	deps *Deps
	json bool
}

func newWorkspaceLsCmd(deps *Deps, runF func(context.Context, *workspaceLsOptions) error) *cobra.Command {
	opts := &workspaceLsOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the workspaces",
		Long: `List the workspaces of the user file and of the current repository's .ctx/config.toml
(--repo names another), by name: each with its member count and the file that declares it.
Piped, each is one tab-separated row: name, members, file.`,
		Example: `  ctx workspace ls
  ctx workspace ls --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWorkspaceLs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// workspaceList is ctx workspace ls --json.
type workspaceList struct {
	Workspaces []*workspace.Workspace `json:"workspaces"`
}

func runWorkspaceLs(_ context.Context, opts *workspaceLsOptions) error {
	d := opts.deps
	all, err := workspace.Load(d.projectRoot())
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, workspaceList{Workspaces: all})
	}
	if len(all) == 0 {
		if d.IO.ErrTTY {
			fmt.Fprintln(d.IO.ErrOut, "no workspaces (create one with `ctx workspace add NAME PATH...`)")
		}
		return nil
	}
	if !d.IO.OutTTY {
		for _, w := range all {
			fmt.Fprintf(d.IO.Out, "%s\t%d\t%s\n", w.Name, len(w.Members), w.File)
		}
		return nil
	}
	tw := tabwriter.NewWriter(d.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMEMBERS\tFILE")
	for _, w := range all {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", w.Name, len(w.Members), w.File)
	}
	return tw.Flush()
}

// memberIndex is what ctx workspace show says of a member's index.
type memberIndex struct {
	// Indexed is set when the member has an index.
	Indexed bool `json:"indexed"`
	// Fresh is set when that index matches the files on disk and this
	// build (no changed, added or deleted files, not stale, complete).
	Fresh bool `json:"fresh"`
	// Files and Generation are the index's, when indexed.
	Files      int   `json:"files"`
	Generation int64 `json:"generation"`
	// Note says why the member is not fresh ("" when it is).
	Note string `json:"note,omitempty"`
}

// memberStatusFunc reports on the index of the member at root.
type memberStatusFunc func(ctx context.Context, root string) (memberIndex, error)

type workspaceShowOptions struct {
	deps *Deps
	name string
	json bool
	// status reports on each member's index; nil means
	// [Deps.memberStatus].
	status memberStatusFunc
}

func newWorkspaceShowCmd(deps *Deps, runF func(context.Context, *workspaceShowOptions) error) *cobra.Command {
	opts := &workspaceShowOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a workspace's members and whether each is indexed and fresh",
		Long: `Show the workspace NAME: the file that declares it and each member's name and root, with
whether the member is indexed and whether its index is fresh (as ctx status --repo ROOT says:
no files changed since, built by this ctx and model). Piped, each member is one
tab-separated row: name, root, indexed, fresh, note.`,
		Example: `  ctx workspace show backend
  ctx workspace show backend --json`,
		Args: oneArg("workspace show needs one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWorkspaceShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// workspaceShow is ctx workspace show --json.
type workspaceShow struct {
	Name    string         `json:"name"`
	File    string         `json:"file"`
	Members []memberReport `json:"members"`
}

type memberReport struct {
	Name string `json:"name"`
	Root string `json:"root"`
	// Names are what a question may call the member by
	// (workspace.Identity).
	Names []string `json:"names,omitempty"`
	memberIndex
}

// showLimit bounds the members whose status is read at once: each walks
// its tree to count changed files.
const showLimit = 4

func runWorkspaceShow(ctx context.Context, opts *workspaceShowOptions) error {
	d := opts.deps
	if err := workspace.ValidName(opts.name); err != nil {
		return flagError{err}
	}
	w, err := workspace.Get(opts.name, d.projectRoot())
	if err != nil {
		return err
	}
	status := opts.status
	if status == nil {
		status = d.memberStatus
	}
	out := workspaceShow{Name: w.Name, File: w.File, Members: make([]memberReport, len(w.Members))}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(showLimit)
	for i, m := range w.Members {
		g.Go(func() error {
			st, err := status(gctx, m.Root)
			if err != nil {
				return fmt.Errorf("member %s: %w", m.Name, err)
			}
			out.Members[i] = memberReport{Name: m.Name, Root: m.Root, Names: workspace.Identity(m.Root), memberIndex: st}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, out)
	}
	if !d.IO.OutTTY {
		for _, m := range out.Members {
			fmt.Fprintf(d.IO.Out, "%s\t%s\t%t\t%t\t%s\n", m.Name, m.Root, m.Indexed, m.Fresh, m.Note)
		}
		return nil
	}
	fmt.Fprintf(d.IO.Out, "workspace %s (%s)\n", out.Name, out.File)
	tw := tabwriter.NewWriter(d.IO.Out, 0, 0, 2, ' ', 0)
	for _, m := range out.Members {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", m.Name, m.Root, describeMember(m.memberIndex))
	}
	return tw.Flush()
}

// describeMember is a member's index state in words.
func describeMember(st memberIndex) string {
	switch {
	case st.Fresh:
		return fmt.Sprintf("fresh (%d files, generation %d)", st.Files, st.Generation)
	case st.Indexed:
		return "indexed, not fresh: " + st.Note
	default:
		return st.Note
	}
}

// memberStatus reports on the index of root as ctx status does. A root
// that no longer exists, or has no index, is a state, not an error.
func (d *Deps) memberStatus(ctx context.Context, root string) (memberIndex, error) {
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return memberIndex{Note: "missing: the directory does not exist"}, nil
	}
	cfg, err := d.config()
	if err != nil {
		return memberIndex{}, err
	}
	e, err := engine.Open(cfg, root, &engine.Options{Logger: d.logger(cfg)})
	if err != nil {
		return memberIndex{}, err
	}
	st, err := e.Status(ctx)
	if errors.Is(err, engine.ErrNotIndexed) {
		return memberIndex{Note: "not indexed (run `ctx index --repo " + root + "`)"}, nil
	}
	if err != nil {
		return memberIndex{}, err
	}
	mi := memberIndex{Indexed: true, Files: st.Files, Generation: st.Generation}
	mi.Fresh, mi.Note = st.Freshness()
	return mi, nil
}

// workspaceMembers opens an engine for each member of the named
// workspace (see engine.FindAcross). Errors: the workspace is unknown (its
// message lists the known ones) or has no members, or the configuration
// is invalid.
func (d *Deps) workspaceMembers(name string) ([]engine.Member, error) {
	ws, err := workspace.Get(name, d.projectRoot())
	if err != nil {
		return nil, workspaceErr(err)
	}
	if len(ws.Members) == 0 {
		return nil, fmt.Errorf("workspace %s has no repositories; add one with `ctx workspace add %s PATH`", name, name)
	}
	cfg, err := d.config()
	if err != nil {
		return nil, err
	}
	out := make([]engine.Member, 0, len(ws.Members))
	for _, m := range ws.Members {
		e, err := engine.Open(cfg, m.Root, &engine.Options{Logger: d.logger(cfg)})
		if err != nil {
			return nil, fmt.Errorf("workspace %s, member %s: %w", name, m.Name, err)
		}
		out = append(out, engine.Member{Name: m.Name, Engine: e, Names: workspace.Identity(m.Root)})
	}
	return out, nil
}
