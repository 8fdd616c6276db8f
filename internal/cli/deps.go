package cli

import (
	"context"
	"fmt"
	"github.com/ctx-dev/ctx/internal/engine"

	"github.com/spf13/cobra"
)

type depsOptions struct {
	deps      *Deps
	file      string
	json      bool
	workspace string
}

func newDepsCmd(deps *Deps) *cobra.Command {
	opts := &depsOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "deps FILE",
		Short: "Show what a file imports and which files import it",
		Long: `Show FILE's import statements, each with the repository file (or, for Go, the package
directory) it resolves to, and the files whose imports resolve to FILE or its Go package.
Go imports resolve through go.mod module paths and vendor directories, Python imports through
packages and relative imports, JavaScript and TypeScript relative imports through extensions and
index files, Java/Kotlin/Scala classes to their files, Rust use/mod through Cargo's layout, C/C++
quoted includes through include paths, C# namespaces to directories by convention, Ruby require and
PHP use by their load paths. Imports from outside the repository are listed without a target.

With --workspace, the repository must be a member of the workspace: an import that names
another member's Go module, npm package or Python package resolves into that member
(member:path), and files of other members that import FILE are listed with their member.`,
		Example: `  ctx deps net/http/server.go
  ctx deps src/app/views.py --json
  ctx deps main.go --workspace backend`,
		Args: oneArg("deps needs one FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runDeps(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	cmd.Flags().StringVarP(&opts.workspace, "workspace", "w", "", "resolve imports across the members of this workspace (ctx workspace add)")
	return cmd
}

func runDeps(ctx context.Context, opts *depsOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	var deps *engine.Deps
	if opts.workspace != "" {
		members, err := d.workspaceMembers(opts.workspace)
		if err != nil {
			return err
		}
		repo := ""
		for _, m := range members {
			if m.Engine.Root() == e.Root() {
				repo = m.Name
			}
		}
		if repo == "" {
			return fmt.Errorf("%s is not a member of workspace %s; run from a member, pass --repo, or `ctx workspace add %s %s`", e.Root(), opts.workspace, opts.workspace, e.Root())
		}
		deps, err = engine.DepsAcross(ctx, members, repo, opts.file)
		if err != nil {
			return err
		}
	} else if deps, err = e.Deps(ctx, opts.file); err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, deps)
	}
	w := d.IO.Out
	fmt.Fprintf(w, "%s imports (%d):\n", deps.Path, len(deps.Imports))
	for _, im := range deps.Imports {
		switch {
		case im.TargetRepo != "":
			fmt.Fprintf(w, "  L%-5d %s -> %s:%s\n", im.Line, im.Spec, im.TargetRepo, im.Target)
		case im.Target != "":
			fmt.Fprintf(w, "  L%-5d %s -> %s\n", im.Line, im.Spec, im.Target)
		case im.Internal:
			fmt.Fprintf(w, "  L%-5d %s (not found in the repository)\n", im.Line, im.Spec)
		default:
			fmt.Fprintf(w, "  L%-5d %s (external)\n", im.Line, im.Spec)
		}
	}
	fmt.Fprintf(w, "imported by (%d):\n", len(deps.Importers))
	for _, im := range deps.Importers {
		if im.Repo != "" {
			fmt.Fprintf(w, "  %s:", im.Repo)
		} else {
			fmt.Fprint(w, "  ")
		}
		fmt.Fprintf(w, "%s:%d  %s\n", im.Path, im.Line, im.Spec)
	}
	return nil
}
