package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/embed/builtin"
	"github.com/ctx-dev/ctx/internal/version"
)

type versionOptions struct {
	deps *Deps
	json bool
}

// versionInfo is `ctx version --json`: the build and the built-in model.
type versionInfo struct {
	version.Info
	Model versionModel `json:"model"`
}

// versionModel identifies the embedding model compiled into the binary.
type versionModel struct {
	// ID is the identity an index records ("builtin/ctx-code@<checksum>@256").
	ID       string `json:"id"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Dims     int    `json:"dims"`
	Checksum string `json:"checksum"`
}

func newVersionCmd(deps *Deps) *cobra.Command {
	opts := &versionOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go toolchain, platform and built-in model",
		Long: `Print which build of ctx this is: the module version, the commit it was built from and
whether that tree had uncommitted changes, the Go toolchain, the platform, and the identity of
the embedding model compiled into the binary (the checksum covers its vocabulary and weights).
It reads no configuration and opens no index. ctx --version prints the same.`,
		Example: `  ctx version
  ctx --version
  ctx version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

func runVersion(_ context.Context, opts *versionOptions) error {
	vi, err := getVersionInfo()
	if err != nil {
		return err
	}
	w := opts.deps.IO.Out
	if opts.json {
		return writeJSON(w, vi)
	}
	fmt.Fprintf(w, "ctx %s\n", vi.Version)
	switch {
	case vi.Commit == "":
		fmt.Fprintln(w, "commit:   unknown (built without VCS information)")
	case vi.Modified != nil && *vi.Modified:
		fmt.Fprintf(w, "commit:   %s (modified)\n", vi.Commit)
	default:
		fmt.Fprintf(w, "commit:   %s\n", vi.Commit)
	}
	if vi.CommitTime != "" {
		fmt.Fprintf(w, "time:     %s\n", vi.CommitTime)
	}
	fmt.Fprintf(w, "go:       %s %s/%s\n", vi.Go, vi.OS, vi.Arch)
	if vi.Tags != "" {
		fmt.Fprintf(w, "tags:     %s\n", vi.Tags)
	}
	m := vi.Model
	fmt.Fprintf(w, "model:    %s (%s, %d dimensions, checksum %s)\n", m.ID, m.Version, m.Dims, m.Checksum)
	return nil
}

// getVersionInfo reads the build info and the built-in model's header
// (embedded bytes: no file, configuration or index is read).
func getVersionInfo() (versionInfo, error) {
	m, err := builtin.Model()
	if err != nil {
		return versionInfo{}, fmt.Errorf("reading the built-in model: %w", err)
	}
	p, err := builtin.New()
	if err != nil {
		return versionInfo{}, fmt.Errorf("reading the built-in model: %w", err)
	}
	id := m.Identity()
	return versionInfo{
		Info: version.Get(),
		Model: versionModel{ID: p.Model().String(), Name: id.Name, Version: id.Version,
			Dims: id.Dims, Checksum: id.Checksum},
	}, nil
}
