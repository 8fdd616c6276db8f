package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/config"
)

func newConfigCmd(deps *Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change settings: flags, CTX_* variables, project and user files",
		Long: `Every setting has a key (embed.provider), a CTX_* variable and a default. A value comes from,
highest first: a flag, the CTX_* variable, the project file <root>/.ctx/config.toml, the user
file $XDG_CONFIG_HOME/ctx/config.toml, the default. Files use one TOML table per section:

  log_level = "info"
  [embed]
  provider = "openai"
  model = "text-embedding-3-small"
  [index]
  exclude = ["gen/**", "*.pb.go"]

Relative paths in a file (cache_dir, embed.model for local models, embed.onnxruntime_lib)
are relative to the repository root for a project file and to the user file's directory for
the user file; "~/" is the home directory.

A repository is untrusted input, so its project file never holds keys (use ctx auth), and
the settings that decide where code, queries or keys are sent, what is loaded and what may
be spent (providers, URLs, the backend, cache_dir, index.include_secrets, spend) take effect
from it only after "ctx config trust"; until then they are ignored with a warning.`,
		Example: `  ctx config ls
  ctx config get embed.provider
  ctx config set index.exclude 'gen/**,*.pb.go'
  ctx config set --global embed.provider openai
  ctx config unset index.exclude
  ctx config trust
  ctx config path`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagError{fmt.Errorf("config needs a subcommand: ls, get, set, unset, path, trust or untrust")}
		},
	}
	cmd.AddCommand(newConfigLsCmd(deps, nil), newConfigGetCmd(deps, nil), newConfigSetCmd(deps, nil),
		newConfigUnsetCmd(deps, nil), newConfigPathCmd(deps, nil), newConfigTrustCmd(deps, nil, true), newConfigTrustCmd(deps, nil, false))
	return cmd
}

// resolveConfig resolves the settings of the command's repository with
// the origin of each, as config() does but keeping the warnings.
func (d *Deps) resolveConfig() (*config.Resolved, error) {
	root, err := d.root()
	if err != nil {
		return nil, err
	}
	r, err := config.Resolve(root, &config.Options{Flags: d.settingFlags()})
	if err != nil {
		return nil, flagError{err}
	}
	return r, nil
}

// settingText is a value as ctx config ls and get print it: a key only
// as (set) or (not set), text in the form its variable takes.
func settingText(v config.Value) string {
	if v.Setting.Secret {
		if v.Value.(string) == "" {
			return "(not set)"
		}
		return "(set)"
	}
	return v.Setting.Format(v.Value)
}

// settingJSON is a value for --json: numbers, bools and lists as JSON
// has them, durations and prices in their text form, keys as (set) or
// (not set).
func settingJSON(v config.Value) any {
	switch x := v.Value.(type) {
	case string:
		return settingText(v)
	case time.Duration, map[string]config.Price:
		return v.Setting.Format(x)
	case []string:
		if x == nil {
			return []string{}
		}
	}
	return v.Value
}

type configLsOptions struct {
	deps *Deps
	json bool
}

func newConfigLsCmd(deps *Deps, runF func(context.Context, *configLsOptions) error) *cobra.Command {
	opts := &configLsOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List every setting's value and where it came from",
		Long: `List every setting with its effective value and where that came from: default, user file,
project file, env CTX_X or flag --x. Keys and tokens show only as (set) or (not set). A
project file's value that is ignored because the project is not trusted is noted beside the
setting. Piped, each setting is one tab-separated row: key, value, source, note.`,
		Example: `  ctx config ls
  ctx config ls --json
  ctx --cache-dir /tmp/c config ls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigLs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// configList is ctx config ls --json.
type configList struct {
	UserFile    configFile      `json:"user_file"`
	ProjectFile configFile      `json:"project_file"`
	Settings    []configSetting `json:"settings"`
}

type configFile struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// Trusted is the project's trust (project file only).
	Trusted *bool `json:"trusted,omitempty"`
}

type configSetting struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	// Source is default, user file, project file, env CTX_X or flag --x.
	Source string `json:"source"`
	// File and Line locate a value from a file.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Env  string `json:"env"`
	// Secret marks a key, whose value is never shown.
	Secret bool `json:"secret,omitempty"`
	// Ignored is a project file's value left out because the project is
	// not trusted.
	Ignored *configIgnored `json:"ignored,omitempty"`
}

type configIgnored struct {
	Value any    `json:"value"`
	Line  int    `json:"line"`
	Fix   string `json:"fix"`
}

func runConfigLs(_ context.Context, opts *configLsOptions) error {
	d := opts.deps
	r, err := d.resolveConfig()
	if err != nil {
		return err
	}
	if opts.json {
		trusted := r.Trusted
		out := configList{
			UserFile:    configFile{Path: r.UserFile, Exists: r.UserFileExists},
			ProjectFile: configFile{Path: r.ProjectFile, Exists: r.ProjectFileExists, Trusted: &trusted},
			Settings:    make([]configSetting, 0, len(r.Values)),
		}
		for _, v := range r.Values {
			s := configSetting{Key: v.Setting.Key, Value: settingJSON(v), Source: v.Source.String(),
				File: v.Source.Path, Line: v.Source.Line, Env: v.Setting.Env, Secret: v.Setting.Secret}
			if v.Ignored != nil {
				s.Ignored = &configIgnored{Value: settingJSON(config.Value{Setting: v.Setting, Value: v.Ignored.Value}), Line: v.Ignored.Line, Fix: "ctx config trust"}
			}
			out.Settings = append(out.Settings, s)
		}
		return writeJSON(d.IO.Out, out)
	}
	note := func(v config.Value) string {
		if v.Ignored == nil {
			return ""
		}
		return fmt.Sprintf("project file's %s ignored: not trusted (ctx config trust)", settingText(config.Value{Setting: v.Setting, Value: v.Ignored.Value}))
	}
	if !d.IO.OutTTY {
		for _, v := range r.Values {
			fmt.Fprintf(d.IO.Out, "%s\t%s\t%s\t%s\n", v.Setting.Key, settingText(v), v.Source, note(v))
		}
		return nil
	}
	tw := tabwriter.NewWriter(d.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\t")
	for _, v := range r.Values {
		val := settingText(v)
		if val == "" {
			val = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Setting.Key, val, v.Source, note(v))
	}
	return tw.Flush()
}

type configGetOptions struct {
	deps *Deps
	key  string
}

func newConfigGetCmd(deps *Deps, runF func(context.Context, *configGetOptions) error) *cobra.Command {
	opts := &configGetOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's effective value",
		Long: `Print the effective value of the setting KEY, in the form its CTX_* variable takes (lists
comma-separated, durations such as 300ms). A key or token prints (set) or (not set).`,
		Example: `  ctx config get embed.provider
  ctx config get index.exclude`,
		Args: oneArg("config get needs one KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.key = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigGet(cmd.Context(), opts)
		},
	}
	return cmd
}

func runConfigGet(_ context.Context, opts *configGetOptions) error {
	d := opts.deps
	if _, err := config.Lookup(opts.key); err != nil {
		return flagError{err}
	}
	r, err := d.resolveConfig()
	if err != nil {
		return err
	}
	v, _ := r.Value(opts.key)
	fmt.Fprintln(d.IO.Out, settingText(v))
	return nil
}

// settingsFile is the file ctx config set and unset write: the project
// file of the command's repository, or the user file with --global.
func (d *Deps) settingsFile(global bool) (config.File, error) {
	if global {
		return config.UserFileTarget()
	}
	root, err := d.root()
	if err != nil {
		return config.File{}, err
	}
	return config.ProjectFileTarget(root), nil
}

type configSetOptions struct {
	deps       *Deps
	key, value string
	global     bool
}

func newConfigSetCmd(deps *Deps, runF func(context.Context, *configSetOptions) error) *cobra.Command {
	opts := &configSetOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Write a setting into the project file, or the user file with --global",
		Long: `Write KEY = VALUE into the project file <root>/.ctx/config.toml (created when missing), or
with --global into the user file $XDG_CONFIG_HOME/ctx/config.toml. VALUE is written as the
CTX_* variable takes it (lists comma-separated, durations such as 300ms, sizes such as 2MiB)
and checked as loading checks it. The rest of the file, comments included, is kept; the file
is replaced atomically. A file that holds ctx's settings in an inline table is not edited:
change it by hand.

Keys and tokens are never written by set: use "ctx auth set PROVIDER". A setting the
project's trust governs is written, and takes effect once the project is trusted.`,
		Example: `  ctx config set index.exclude 'gen/**,*.pb.go'
  ctx config set index.max_file_bytes 2MiB
  ctx config set --global embed.provider openai
  ctx config set --global log_level info`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return flagError{errors.New("config set needs a KEY and a VALUE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.key, opts.value = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigSet(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.global, "global", false, "write the user file instead of the project file")
	return cmd
}

func runConfigSet(_ context.Context, opts *configSetOptions) error {
	d := opts.deps
	s, err := config.Lookup(opts.key)
	if err != nil {
		return flagError{err}
	}
	if s.Secret {
		_, err := config.Set(config.File{}, opts.key, opts.value)
		return flagError{err}
	}
	f, err := d.settingsFile(opts.global)
	if err != nil {
		return err
	}
	v, err := config.Set(f, opts.key, opts.value)
	if ve := (*config.ValueError)(nil); errors.As(err, &ve) {
		return flagError{err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(d.IO.Out, "%s = %s in %s\n", opts.key, s.Format(v), f.Path)
	d.settingHints(s, f)
	return nil
}

// settingHints says on stderr why a value just written may not take
// effect: its variable is set, or the project is not trusted.
func (d *Deps) settingHints(s *config.Setting, f config.File) {
	if r, err := d.resolveConfig(); err == nil {
		if v, ok := r.Value(s.Key); ok {
			switch {
			case v.Source.Kind == config.FromEnv || v.Source.Kind == config.FromFlag:
				fmt.Fprintf(d.IO.ErrOut, "note: %s is given by %s, which wins over the file\n", s.Key, v.Source)
			case f.Project && s.Trust && !r.Trusted:
				fmt.Fprintf(d.IO.ErrOut, "note: %s takes effect in this project once you run `ctx config trust`\n", s.Key)
			case !f.Project && v.Source.Kind == config.FromProject:
				fmt.Fprintf(d.IO.ErrOut, "note: %s is set by this project's file (%s), which wins over the user file\n", s.Key, v.Source.Path)
			}
		}
	}
}

type configUnsetOptions struct {
	deps   *Deps
	key    string
	global bool
}

func newConfigUnsetCmd(deps *Deps, runF func(context.Context, *configUnsetOptions) error) *cobra.Command {
	opts := &configUnsetOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a setting from the project file, or the user file with --global",
		Long: `Remove KEY from the project file <root>/.ctx/config.toml, or with --global from the user
file, keeping the rest of the file. A key ctx does not know may be removed too, to repair a
file that ctx refuses to load.`,
		Example: `  ctx config unset index.exclude
  ctx config unset --global embed.provider`,
		Args: oneArg("config unset needs one KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.key = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigUnset(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.global, "global", false, "edit the user file instead of the project file")
	return cmd
}

func runConfigUnset(_ context.Context, opts *configUnsetOptions) error {
	d := opts.deps
	f, err := d.settingsFile(opts.global)
	if err != nil {
		return err
	}
	found, err := config.Unset(f, opts.key)
	if err != nil {
		if errors.Is(err, config.ErrUnknown) {
			return flagError{err}
		}
		return err
	}
	if !found {
		fmt.Fprintf(d.IO.ErrOut, "%s was not set in %s\n", opts.key, f.Path)
		return nil
	}
	fmt.Fprintf(d.IO.Out, "removed %s from %s\n", opts.key, f.Path)
	return nil
}

type configPathOptions struct {
	deps *Deps
	json bool
}

func newConfigPathCmd(deps *Deps, runF func(context.Context, *configPathOptions) error) *cobra.Command {
	opts := &configPathOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "path",
		Short: "Print the user and project files' paths and whether each exists",
		Long: `Print the user file ($XDG_CONFIG_HOME/ctx/config.toml) and the repository's project file
(<root>/.ctx/config.toml), whether each exists, and whether the project is trusted. Piped,
one tab-separated row each: user or project, path, exists or missing, and for the project,
trusted or not trusted.`,
		Example: `  ctx config path
  ctx config path --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigPath(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

func runConfigPath(_ context.Context, opts *configPathOptions) error {
	d := opts.deps
	root, err := d.root()
	if err != nil {
		return err
	}
	user, userExists := "", false
	if uf, err := config.UserFile(); err == nil {
		user = uf
		_, err := os.Stat(uf)
		userExists = err == nil
	}
	proj := config.ProjectFileTarget(root).Path
	_, err = os.Stat(proj)
	projExists := err == nil
	trusted, err := config.IsTrusted(root)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(d.IO.Out, struct {
			UserFile    configFile `json:"user_file"`
			ProjectFile configFile `json:"project_file"`
		}{configFile{Path: user, Exists: userExists}, configFile{Path: proj, Exists: projExists, Trusted: &trusted}})
	}
	exists := func(b bool) string {
		if b {
			return "exists"
		}
		return "missing"
	}
	trust := "not trusted"
	if trusted {
		trust = "trusted"
	}
	format := "%s\t%s\t%s\t%s\n"
	w := d.IO.Out
	var tw *tabwriter.Writer
	if d.IO.OutTTY {
		tw = tabwriter.NewWriter(d.IO.Out, 0, 0, 2, ' ', 0)
		w = tw
	}
	fmt.Fprintf(w, format, "user", user, exists(userExists), "")
	fmt.Fprintf(w, format, "project", proj, exists(projExists), trust)
	if tw != nil {
		return tw.Flush()
	}
	return nil
}

type configTrustOptions struct {
	deps  *Deps
	path  string
	trust bool
}

func newConfigTrustCmd(deps *Deps, runF func(context.Context, *configTrustOptions) error, trust bool) *cobra.Command {
	opts := &configTrustOptions{deps: deps, trust: trust}
	cmd := &cobra.Command{
		Use:   "trust [PATH]",
		Short: "Let a project file choose providers, URLs, the backend and spend",
		Long: `Record the repository at PATH (default: --repo, else the enclosing git work tree, else the
current directory), by its real path, as trusted in the user file. Its project file's
settings that decide where code, queries or keys are sent, what is loaded and what may be
spent (the embed, llm and rerank providers and URLs, backend.name, the weaviate server,
tenant and prefix, embed.onnxruntime_lib, cache_dir, index.include_secrets and spend) then
take effect; before, they are ignored with a warning. Read the project file first:
ctx config ls shows what it sets. Keys are never read from a project file, trusted or not.`,
		Example: `  ctx config trust
  ctx config trust ~/src/api`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConfigTrust(cmd.Context(), opts)
		},
	}
	if !trust {
		cmd.Use = "untrust [PATH]"
		cmd.Short = "Stop a project file from choosing providers, URLs, the backend and spend"
		cmd.Long = `Remove the repository at PATH (default: --repo, else the enclosing git work tree, else the
current directory) from the user file's trusted projects: its project file's settings that
decide where code, queries or keys are sent, what is loaded and what may be spent are ignored
again.`
		cmd.Example = `  ctx config untrust
  ctx config untrust ~/src/api`
	}
	return cmd
}

func runConfigTrust(_ context.Context, opts *configTrustOptions) error {
	d := opts.deps
	root := opts.path
	if root == "" {
		var err error
		if root, err = d.root(); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return flagError{fmt.Errorf("%s is not a directory", root)}
	}
	if opts.trust {
		real, err := config.Trust(root)
		if err != nil {
			return err
		}
		fmt.Fprintf(d.IO.Out, "trusted %s\n", real)
		return nil
	}
	real, err := config.Untrust(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.IO.Out, "no longer trusted: %s\n", real)
	return nil
}
