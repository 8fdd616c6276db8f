package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Where says in which layers a setting may be given. Flags are the
// commands' own business: [Setting.Flag] only documents them.
type Where uint8

const (
	// InEnv: its CTX_* environment variable.
	InEnv Where = 1 << iota
	// InUserFile: the user file, $XDG_CONFIG_HOME/ctx/config.toml.
	InUserFile
	// InProjectFile: the project file, <root>/.ctx/config.toml.
	InProjectFile
	// InAuth: the [auth] table of the user file, by provider (keys and
	// tokens; see [AuthProviders]).
	InAuth
)

// Bound is the range a numeric setting must stay in.
type Bound uint8

const (
	// Any number.
	Any Bound = iota
	// NonNegative: 0 or more.
	NonNegative
	// Positive: more than 0.
	Positive
)

// Setting declares one setting: how it is named in files, the environment
// and the docs, what it holds, its default, and where it may come from.
// The table [Settings] is the only place a setting is declared: loading,
// `ctx config`, validation and the settings table in README are driven by
// it.
//
// To add a setting: add a field to [Config] (documented with its default),
// and one entry to the table in settings.go with at least Key, Env, Kind,
// Doc, Want and Field; run `go generate ./internal/config` to update
// README's table.
type Setting struct {
	// Key is the dotted name in `ctx config` and in files: "section.name"
	// is name under the [section] table; a name without a dot is a
	// top-level key.
	Key string
	// Env is the environment variable (CTX_…).
	Env string
	// Flag names the command-line flags that set it, for docs
	// ("--cache-dir"); "" when none.
	Flag string
	// Kind is the value's type.
	Kind Kind
	// Default is the default value, of the Go type Kind holds; nil is the
	// zero value.
	Default any
	// DefaultDoc, when set, is what the docs say instead of Default (a
	// default computed at run time, or one left to a provider).
	DefaultDoc string
	// Doc is a one-line description.
	Doc string
	// Want says what a valid value is, for errors: "want a positive
	// integer". Enums (Values) build theirs from What and Values.
	Want string
	// Values, when set, lists the valid values of a string setting (""
	// among them means it may be empty: off). Values are lowercased when
	// read.
	Values []string
	// What names an enum's value in errors: `LLM provider "gpt": want …`.
	What string
	// Min is a numeric setting's range; values outside it get Want.
	Min Bound
	// Max, when not zero, is a duration setting's upper bound.
	Max time.Duration
	// Secret marks a key or token: never read from a project file, never
	// written by `ctx config set`, shown only as (set) or (not set). Its
	// file source is the user file's [auth] table (AuthFor).
	Secret bool
	// Trust marks a setting that decides where code, queries or keys are
	// sent, what is loaded and run, or what may be spent. From a project
	// file it takes effect only once the user trusts that project (`ctx
	// config trust`); until then it is ignored with a warning.
	Trust bool
	// Where lists the layers it may come from; 0 means environment, user
	// file and project file (a Secret: environment and [auth]).
	Where Where
	// AuthFor returns the provider whose stored key (`ctx auth set`)
	// feeds a Secret, given the rest of the configuration; "" for none.
	AuthFor func(c *Config) string
	// AuthHint names the providers of AuthFor for messages and docs
	// ("openai|voyage").
	AuthHint string
	// FallbackEnv returns a second environment variable a Secret falls
	// back to (OPENAI_API_KEY, …), read after Env and before [auth]; ""
	// for none.
	FallbackEnv func(c *Config) string
	// IsPath reports whether the value is a file system path given the
	// rest of the configuration; a relative path in a file is then taken
	// relative to the file's base directory (see [Resolved]). nil: never.
	IsPath func(c *Config) bool
	// Field returns a pointer to the setting's field in c, of the Go type
	// Kind holds (*string, *bool, *int, *int64, *time.Duration, *float64,
	// *[]string, *map[string]Price).
	Field func(c *Config) any
}

// Section is the table that holds the key in a file ("" for a top-level
// key).
func (s *Setting) Section() string {
	sec, _, ok := strings.Cut(s.Key, ".")
	if !ok {
		return ""
	}
	return sec
}

// Name is the key's last part, its name inside its table.
func (s *Setting) Name() string {
	if i := strings.LastIndexByte(s.Key, '.'); i >= 0 {
		return s.Key[i+1:]
	}
	return s.Key
}

// Allowed reports whether the setting may come from layer w.
func (s *Setting) Allowed(w Where) bool { return s.where()&w != 0 }

func (s *Setting) where() Where {
	switch {
	case s.Where != 0:
		return s.Where
	case s.Secret:
		return InEnv | InAuth
	}
	return InEnv | InUserFile | InProjectFile
}

// Get returns the setting's value in c, of the Go type Kind holds.
func (s *Setting) Get(c *Config) any {
	switch p := s.Field(c).(type) {
	case *string:
		return *p
	case *bool:
		return *p
	case *int:
		return *p
	case *int64:
		return *p
	case *time.Duration:
		return *p
	case *float64:
		return *p
	case *[]string:
		return slices.Clone(*p)
	case *map[string]Price:
		return *p
	}
	panic("config: setting " + s.Key + ": unsupported field type")
}

// set stores v, of the Go type Kind holds, in c.
func (s *Setting) set(c *Config, v any) {
	switch p := s.Field(c).(type) {
	case *string:
		*p = v.(string)
	case *bool:
		*p = v.(bool)
	case *int:
		*p = v.(int)
	case *int64:
		*p = v.(int64)
	case *time.Duration:
		*p = v.(time.Duration)
	case *float64:
		*p = v.(float64)
	case *[]string:
		*p = slices.Clone(v.([]string))
	case *map[string]Price:
		*p = v.(map[string]Price)
	default:
		panic("config: setting " + s.Key + ": unsupported field type")
	}
}

// Format writes v in the text form ParseText reads back (durations as
// "300ms", lists comma-separated, prices as CTX_PRICES takes them).
func (s *Setting) Format(v any) string { return s.Kind.formatText(v) }

// ParseText reads the text form of a value, as the environment variable,
// a flag and `ctx config set` give it, and checks it. Errors are
// [*ValueError].
func (s *Setting) ParseText(text string) (any, error) {
	v, err := s.Kind.parseText(text)
	if err == nil {
		v, err = s.check(v)
	}
	if err != nil {
		return nil, &ValueError{Setting: s, Value: text, Err: err}
	}
	return v, nil
}

// parseTOML reads a value decoded from a file and checks it.
func (s *Setting) parseTOML(raw any) (any, error) {
	v, err := s.Kind.parseTOML(raw)
	if err == nil {
		v, err = s.check(v)
	}
	if err != nil {
		return nil, &ValueError{Setting: s, Value: formatTOMLRaw(raw), quoted: true, Err: err}
	}
	return v, nil
}

// check applies the setting's enum and range to a parsed value,
// lowercasing an enum's value.
func (s *Setting) check(v any) (any, error) {
	if len(s.Values) > 0 {
		str := strings.ToLower(v.(string))
		if !slices.Contains(s.Values, str) {
			return nil, fmt.Errorf("%s %q: want %s", s.What, str, orList(s.Values))
		}
		return str, nil
	}
	if n, ok := number(v); ok {
		switch {
		case s.Min == NonNegative && n < 0, s.Min == Positive && n <= 0:
			return nil, errWant{}
		case s.Max > 0 && n > float64(s.Max):
			return nil, errWant{}
		}
	}
	return v, nil
}

// ValueError is a value that a setting does not take.
type ValueError struct {
	Setting *Setting
	// Value is the value as given (quoted as TOML writes it when it came
	// from a file).
	Value  string
	quoted bool
	// Err is what is wrong with it.
	Err error
}

// Error says what is wanted, without naming where the value came from
// (the layers wrap it): `want a positive integer, got "x"`, or the enum's
// or the price table's own message.
func (e *ValueError) Error() string {
	if errors.As(e.Err, new(errWant)) {
		v := e.Value
		if !e.quoted {
			v = fmt.Sprintf("%q", v)
		}
		return fmt.Sprintf("%s, got %s", e.Setting.Want, v)
	}
	return e.Err.Error()
}

func (e *ValueError) Unwrap() error { return e.Err }

// envError words a bad environment variable or flag value as ctx always
// has: `CTX_EMBED_BATCH="0": want a positive integer`, or `CTX_BACKEND:
// backend "x": want local or weaviate`.
func envError(name string, err error) error {
	var ve *ValueError
	if errors.As(err, &ve) && errors.As(ve.Err, new(errWant)) {
		return fmt.Errorf("%s=%q: %s", name, ve.Value, ve.Setting.Want)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// orList joins values as "a, b or c", leaving out "" (off).
func orList(vals []string) string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// Settings returns the table of every setting, in the order `ctx config
// ls` and README list them. The slice is shared: do not modify it.
func Settings() []*Setting { return settings }

// Lookup returns the setting with key. Errors: [ErrUnknown], with the
// nearest known key suggested.
func Lookup(key string) (*Setting, error) {
	if s, ok := byKey[key]; ok {
		return s, nil
	}
	return nil, unknownKey(key)
}

// ErrUnknown is returned (wrapped) by [Lookup] and the functions that
// take a key, for a key no setting has.
var ErrUnknown = errors.New("unknown setting")

// unknownKey is the error for a key no setting has.
func unknownKey(key string) error {
	if near := nearestKey(key); near != "" {
		return fmt.Errorf("%w %q (did you mean %s?)", ErrUnknown, key, near)
	}
	return fmt.Errorf("%w %q (`ctx config ls` lists them)", ErrUnknown, key)
}

// nearestKey returns the known key closest to key by edit distance, if it
// is close enough to be a likely typo (or has the same last part).
func nearestKey(key string) string {
	best, bestD := "", 1<<30
	for _, s := range settings {
		d := editDistance(key, s.Key)
		if s.Name() == key || strings.HasSuffix(key, "."+s.Name()) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = s.Key, d
		}
	}
	if bestD <= max(2, len(key)/3) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var byKey = func() map[string]*Setting {
	m := make(map[string]*Setting, len(settings))
	for _, s := range settings {
		if _, dup := m[s.Key]; dup {
			panic("config: setting " + s.Key + " declared twice")
		}
		if s.Field == nil || s.Env == "" || s.Doc == "" || (s.Want == "" && len(s.Values) == 0 && s.Kind != KindString && s.Kind != KindList) {
			panic("config: setting " + s.Key + " lacks Field, Env, Doc or Want")
		}
		m[s.Key] = s
	}
	return m
}()

// sections are the tables that hold settings.
var sections = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range settings {
		if sec := s.Section(); sec != "" {
			m[sec] = true
		}
	}
	return m
}()
