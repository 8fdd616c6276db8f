package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctx-dev/ctx/internal/config"
)

const authProviders = "openai, anthropic, voyage, cohere, jina, weaviate or mcp"

func newAuthCmd(deps *Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Store, list and remove provider keys in the user file",
		Long: `Keys and tokens are kept in the [auth] table of the user file
$XDG_CONFIG_HOME/ctx/config.toml, which ctx writes with mode 0600, one per provider: ` + authProviders + `
(mcp is the token ctx serve requires). A stored key feeds embed.api_key, llm.api_key or
rerank.api_key when that section's provider is the key's provider, weaviate.api_key and
server.token; environment variables (CTX_EMBED_API_KEY, OPENAI_API_KEY, …) win over it. Keys
are never read from a project file and never printed.`,
		Example: `  ctx auth set openai < key.txt
  ctx auth set anthropic          # type the key; it is not echoed
  ctx auth ls
  ctx auth rm openai`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagError{fmt.Errorf("auth needs a subcommand: set, ls or rm")}
		},
	}
	cmd.AddCommand(newAuthSetCmd(deps, nil), newAuthLsCmd(deps, nil), newAuthRmCmd(deps, nil))
	return cmd
}

type authSetOptions struct {
	deps     *Deps
	provider string
}

func newAuthSetCmd(deps *Deps, runF func(context.Context, *authSetOptions) error) *cobra.Command {
	opts := &authSetOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "set PROVIDER",
		Short: "Store a provider's key, read from standard input",
		Long: `Read PROVIDER's key from standard input (one line, with spaces around it trimmed; at a
terminal it is typed without echo) and store it in the user file's [auth] table, replacing the
one stored before. The user file is rewritten atomically with mode 0600, whatever its mode
was. An empty key is refused. PROVIDER is ` + authProviders + `.`,
		Example: `  ctx auth set openai < ~/secrets/openai.txt
  pass show openai | ctx auth set openai
  ctx auth set mcp                 # the bearer token ctx serve requires`,
		Args: oneArg("auth set needs one PROVIDER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.provider = strings.ToLower(args[0])
			if err := config.CheckAuthProvider(opts.provider); err != nil {
				return flagError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthSet(cmd.Context(), opts)
		},
	}
	return cmd
}

// maxKeyBytes bounds what auth set reads: keys are short, and a file
// piped by mistake should not be read whole.
const maxKeyBytes = 16 << 10

func runAuthSet(_ context.Context, opts *authSetOptions) error {
	d := opts.deps
	key, err := readKey(d.IO, opts.provider)
	if err != nil {
		return err
	}
	path, err := config.SetAuth(opts.provider, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.IO.Out, "stored the %s key in %s (mode 0600)\n", opts.provider, path)
	if st, err := config.AuthStatus(nil); err == nil {
		for _, k := range st {
			if k.Provider == opts.provider && k.EnvSet {
				fmt.Fprintf(d.IO.ErrOut, "note: %s is set and wins over the stored key\n", k.Env)
			}
		}
	}
	return nil
}

// readKey reads one key from io.In: without echo at a terminal, else its
// first line, which must be the only one. The key is never written out.
func readKey(s IO, provider string) (string, error) {
	var raw string
	if f, ok := s.In.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(s.ErrOut, "%s key (not echoed): ", provider)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(s.ErrOut)
		if err != nil {
			return "", fmt.Errorf("reading the key: %v", err)
		}
		raw = string(b)
	} else {
		b, err := io.ReadAll(io.LimitReader(bufio.NewReader(s.In), maxKeyBytes+1))
		if err != nil {
			return "", fmt.Errorf("reading the key from standard input: %v", err)
		}
		if len(b) > maxKeyBytes {
			return "", flagError{fmt.Errorf("standard input holds more than %d bytes; give the key alone", maxKeyBytes)}
		}
		raw = string(b)
	}
	key := strings.TrimSpace(raw)
	switch {
	case key == "":
		return "", flagError{fmt.Errorf("no key on standard input for %s: pipe it in (ctx auth set %s < FILE) or type it at a terminal", provider, provider)}
	case strings.ContainsAny(key, "\r\n"):
		return "", flagError{errors.New("standard input holds several lines; give the key alone, on one line")}
	}
	return key, nil
}

type authLsOptions struct {
	deps *Deps
	json bool
}

func newAuthLsCmd(deps *Deps, runF func(context.Context, *authLsOptions) error) *cobra.Command {
	opts := &authLsOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "Show which providers have a key, and from where, without printing it",
		Long: `List every provider with whether it has a key and where it comes from: the user file, or
the provider's environment variable (which wins), and the settings that key feeds in this
repository's configuration. Keys are never printed. Piped, one tab-separated row each:
provider, set or not set, source, settings.`,
		Example: `  ctx auth ls
  ctx auth ls --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthLs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// authEntry is one provider in ctx auth ls --json.
type authEntry struct {
	Provider string `json:"provider"`
	Set      bool   `json:"set"`
	// Source is "env NAME", "user file" or "" when not set.
	Source string `json:"source"`
	// Stored reports a key in the user file (also when a variable wins).
	Stored bool `json:"stored"`
	// Env is the provider's own variable, if it has one.
	Env    string   `json:"env,omitempty"`
	UsedBy []string `json:"used_by"`
}

func runAuthLs(_ context.Context, opts *authLsOptions) error {
	d := opts.deps
	// The settings tell which keys feed what; a configuration that does
	// not load still lists the keys.
	r, _ := d.resolveConfig()
	st, err := config.AuthStatus(r)
	if err != nil {
		return err
	}
	entries := make([]authEntry, 0, len(st))
	for _, k := range st {
		e := authEntry{Provider: k.Provider, Stored: k.Stored, Env: k.Env, UsedBy: k.UsedBy}
		switch {
		case k.EnvSet:
			e.Set, e.Source = true, "env "+k.Env
		case k.Stored:
			e.Set, e.Source = true, "user file"
		}
		if e.UsedBy == nil {
			e.UsedBy = []string{}
		}
		entries = append(entries, e)
	}
	if opts.json {
		path, _ := config.UserFile()
		return writeJSON(d.IO.Out, struct {
			UserFile  string      `json:"user_file"`
			Providers []authEntry `json:"providers"`
		}{path, entries})
	}
	set := func(b bool) string {
		if b {
			return "set"
		}
		return "not set"
	}
	w := d.IO.Out
	var tw *tabwriter.Writer
	if d.IO.OutTTY {
		tw = tabwriter.NewWriter(d.IO.Out, 0, 0, 2, ' ', 0)
		w = tw
		fmt.Fprintln(w, "PROVIDER\tKEY\tFROM\tFEEDS")
	}
	for _, e := range entries {
		from := e.Source
		if tw != nil && from == "" {
			from = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Provider, set(e.Set), from, strings.Join(e.UsedBy, ","))
	}
	if tw != nil {
		return tw.Flush()
	}
	return nil
}

type authRmOptions struct {
	deps     *Deps
	provider string
}

func newAuthRmCmd(deps *Deps, runF func(context.Context, *authRmOptions) error) *cobra.Command {
	opts := &authRmOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "rm PROVIDER",
		Short: "Remove a provider's stored key",
		Long: `Remove PROVIDER's key from the user file's [auth] table. Environment variables are not
touched.`,
		Example: `  ctx auth rm openai`,
		Args:    oneArg("auth rm needs one PROVIDER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.provider = strings.ToLower(args[0])
			if err := config.CheckAuthProvider(opts.provider); err != nil {
				return flagError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthRm(cmd.Context(), opts)
		},
	}
	return cmd
}

func runAuthRm(_ context.Context, opts *authRmOptions) error {
	d := opts.deps
	found, err := config.RemoveAuth(opts.provider)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(d.IO.ErrOut, "no %s key was stored\n", opts.provider)
		return nil
	}
	fmt.Fprintf(d.IO.Out, "removed the %s key\n", opts.provider)
	return nil
}
