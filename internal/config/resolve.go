package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SourceKind is the layer a value came from.
type SourceKind string

// The layers, lowest precedence first.
const (
	FromDefault SourceKind = "default"
	FromUser    SourceKind = "user file"
	FromProject SourceKind = "project file"
	FromEnv     SourceKind = "env"
	FromFlag    SourceKind = "flag"
)

// Source says where a setting's value came from.
type Source struct {
	Kind SourceKind
	// Name is the environment variable or the flag (FromEnv, FromFlag),
	// or "auth.PROVIDER" for a key from the user file's [auth] table.
	Name string
	// Path and Line locate a value from a file.
	Path string
	Line int
}

// String reads "default", "user file", "user file (auth.openai)",
// "project file", "env CTX_EMBED_BATCH" or "flag --cache-dir".
func (s Source) String() string {
	switch s.Kind {
	case FromEnv, FromFlag:
		return string(s.Kind) + " " + s.Name
	case FromUser, FromProject:
		if s.Name != "" {
			return string(s.Kind) + " (" + s.Name + ")"
		}
	}
	return string(s.Kind)
}

// Flag is a value given on the command line, applied over every other
// layer.
type Flag struct {
	// Key is the setting's key ("cache_dir").
	Key string
	// Name is the flag as the user typed it, for errors and `ctx config
	// ls` ("--cache-dir").
	Name string
	// Value is its text form, as the environment variable takes it.
	Value string
}

// Options are [Load]'s and [Resolve]'s optional inputs.
type Options struct {
	// Flags are the command line's settings.
	Flags []Flag
	// Warn receives one line per warning (a project file's settings
	// ignored until the project is trusted; a user file holding keys that
	// others can read); nil discards them.
	Warn io.Writer
}

// Value is one setting's effective value and its origin.
type Value struct {
	Setting *Setting
	// Value is of the Go type the setting's Kind holds.
	Value  any
	Source Source
	// Ignored, when set, is the project file's value for a Trust setting
	// of a project that is not trusted, which did not take effect.
	Ignored *IgnoredValue
}

// IgnoredValue is a project file's value left out because the project is
// not trusted.
type IgnoredValue struct {
	Value any
	Line  int
}

// Set reports whether the value is not the setting's default.
func (v Value) Set() bool { return v.Source.Kind != FromDefault }

// Resolved is the configuration with the origin of every value: what
// `ctx config ls` shows.
type Resolved struct {
	// Config is the effective configuration, validated.
	Config Config
	// Values holds every setting of [Settings], in its order.
	Values []Value
	// UserFile is the user file's path ("" when there is no user
	// configuration directory); UserFileExists says whether it exists.
	UserFile       string
	UserFileExists bool
	// ProjectFile is root's project file ("" without a root);
	// ProjectFileExists says whether it exists.
	ProjectFile       string
	ProjectFileExists bool
	// Root is the repository root with symlinks resolved ("" without one).
	Root string
	// Trusted reports whether Root is among the user file's trusted
	// projects (`ctx config trust`).
	Trusted bool
	// Warnings are the lines [Load] writes to Options.Warn.
	Warnings []string
}

// Value returns the setting key's value.
func (r *Resolved) Value(key string) (Value, bool) {
	for _, v := range r.Values {
		if v.Setting.Key == key {
			return v, true
		}
	}
	return Value{}, false
}

// Load returns the configuration of the repository at root ("" for none):
// defaults, overridden by the user file, then root's project file, then
// CTX_* environment variables, then opts.Flags. Warnings go to opts.Warn.
// Errors: a file that is not TOML, or a key in it that is unknown, not
// allowed there or bad (a [*FileError] naming the file, line and key); a
// bad environment variable or flag, named; settings that do not go
// together ([Config.Validate]).
func Load(root string, opts *Options) (Config, error) {
	r, err := Resolve(root, opts)
	if err != nil {
		return Config{}, err
	}
	if opts != nil && opts.Warn != nil {
		for _, w := range r.Warnings {
			fmt.Fprintf(opts.Warn, "ctx: %s\n", w)
		}
	}
	return r.Config, nil
}

// Resolve is [Load] with the origin of every value, and without writing
// warnings.
func Resolve(root string, opts *Options) (*Resolved, error) {
	if opts == nil {
		opts = &Options{}
	}
	r := &Resolved{Config: Default()}
	c := &r.Config

	user := &fileDoc{}
	if uf, err := UserFile(); err == nil {
		r.UserFile = uf
		if user, err = readFile(uf, false, filepath.Dir(uf)); err != nil {
			return nil, err
		}
		if err := user.err(); err != nil {
			return nil, err
		}
		r.UserFileExists = user.exists
	}
	proj := &fileDoc{}
	if root != "" {
		r.Root = realPath(root)
		r.ProjectFile = ProjectFile(r.Root)
		var err error
		if proj, err = readFile(r.ProjectFile, true, r.Root); err != nil {
			return nil, err
		}
		if err := proj.err(); err != nil {
			return nil, err
		}
		r.ProjectFileExists = proj.exists
		r.Trusted = slices.Contains(user.trusted, r.Root)
	}

	flags := map[string]Flag{}
	for _, f := range opts.Flags {
		if _, err := Lookup(f.Key); err != nil {
			return nil, fmt.Errorf("flag %s: %w", f.Name, err)
		}
		flags[f.Key] = f
	}

	var ignored []string
	r.Values = make([]Value, len(settings))
	for i, s := range settings {
		v := &r.Values[i]
		v.Setting = s
		v.Source = Source{Kind: FromDefault}
		if fv, ok := user.values[s.Key]; ok {
			s.set(c, fv.v)
			v.Source = Source{Kind: FromUser, Path: user.path, Line: fv.line}
		}
		if fv, ok := proj.values[s.Key]; ok {
			if s.Trust && !r.Trusted {
				v.Ignored = &IgnoredValue{Value: fv.v, Line: fv.line}
				ignored = append(ignored, s.Key)
			} else {
				s.set(c, fv.v)
				v.Source = Source{Kind: FromProject, Path: proj.path, Line: fv.line}
			}
		}
		if text := os.Getenv(s.Env); text != "" {
			x, err := s.ParseText(text)
			if err != nil {
				return nil, envError(s.Env, err)
			}
			s.set(c, x)
			v.Source = Source{Kind: FromEnv, Name: s.Env}
		}
		if f, ok := flags[s.Key]; ok {
			x, err := s.ParseText(f.Value)
			if err != nil {
				return nil, envError(f.Name, err)
			}
			s.set(c, x)
			v.Source = Source{Kind: FromFlag, Name: f.Name}
		}
	}
	// Keys follow their provider, which any layer may have set: the
	// provider's own variable, then the user file's [auth] table.
	for i, s := range settings {
		v := &r.Values[i]
		if !s.Secret || v.Set() {
			continue
		}
		if s.FallbackEnv != nil {
			if name := s.FallbackEnv(c); name != "" {
				if text := os.Getenv(name); text != "" {
					s.set(c, text)
					v.Source = Source{Kind: FromEnv, Name: name}
					continue
				}
			}
		}
		if s.AuthFor != nil {
			if p := s.AuthFor(c); p != "" {
				if fv, ok := user.auth[p]; ok {
					s.set(c, fv.v)
					v.Source = Source{Kind: FromUser, Name: authTable + "." + p, Path: user.path, Line: fv.line}
				}
			}
		}
	}
	// Relative paths in a file are relative to its base directory.
	for i, s := range settings {
		v := &r.Values[i]
		if s.IsPath == nil || !s.IsPath(c) {
			continue
		}
		var base string
		switch v.Source.Kind {
		case FromUser:
			base = user.base
		case FromProject:
			base = proj.base
		default:
			continue
		}
		p, _ := s.Get(c).(string)
		if p = filePath(p, base, c.Home); p != "" {
			s.set(c, p)
		}
		v.Value = s.Get(c)
	}
	for i, s := range settings {
		r.Values[i].Value = s.Get(c)
	}
	c.CodexHome = os.Getenv("CODEX_HOME")
	c.RankTune = os.Getenv("CTX_RANK_TUNE")

	if len(ignored) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("ignoring %s from %s: this project is not trusted (run `ctx config trust` to use them)", strings.Join(ignored, ", "), proj.path))
	}
	if len(user.auth) > 0 && user.mode&0o077 != 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s holds keys and others can read it: run `chmod 600 %s`", user.path, user.path))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// filePath resolves a path from a file: "~/" is the home directory, and a
// relative path is joined to base. "" stays "".
func filePath(p, base, home string) string {
	switch {
	case p == "":
		return ""
	case home != "" && (p == "~" || strings.HasPrefix(p, "~/")):
		return filepath.Join(home, p[1:])
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(base, p)
}

// realPath returns p absolute, cleaned, with symlinks resolved when it
// exists.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}
