package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

type depsOptions struct {
	deps *Deps
	file string
	json bool
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
PHP use by their load paths. Imports from outside the repository are listed without a target.`,
		Example: `  ctx deps net/http/server.go
  ctx deps src/app/views.py --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagError{fmt.Errorf("deps needs one FILE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runDeps(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

func runDeps(ctx context.Context, opts *depsOptions) error {
	d := opts.deps
	e, err := d.engine()
	if err != nil {
		return err
	}
	deps, err := e.Deps(ctx, opts.file)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, deps)
	}
	w := d.IO.Out
	fmt.Fprintf(w, "%s imports (%d):\n", deps.Path, len(deps.Imports))
	for _, im := range deps.Imports {
		switch {
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
		fmt.Fprintf(w, "  %s:%d  %s\n", im.Path, im.Line, im.Spec)
	}
	return nil
}
