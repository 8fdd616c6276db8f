package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

// isolate gives the test an empty user configuration directory and
// clears every variable a setting reads; it returns the user file's path.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	for _, s := range config.Settings() {
		t.Setenv(s.Env, "")
	}
	for _, k := range []string{"OPENAI_API_KEY", "VOYAGE_API_KEY", "ANTHROPIC_API_KEY", "CTX_RANK_TUNE", "CODEX_HOME"} {
		t.Setenv(k, "")
	}
	return filepath.Join(dir, "ctx", "config.toml")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrecedence: for a setting of every kind, each layer overrides the
// one below it (user file < project file < environment < flag), and the
// source of the value says which layer gave it.
func TestPrecedence(t *testing.T) {
	type layer struct{ user, project, env, flag string }
	tests := []struct {
		key string
		// Values as each layer writes them: TOML in files, text in the
		// environment and flags.
		in   layer
		want [5]any // default, then with each layer added
	}{
		{"log_level", layer{`"info"`, `"error"`, "DEBUG", "warn"},
			[5]any{"warn", "info", "error", "debug", "warn"}},
		{"index.include_secrets", layer{"true", "false", "1", "false"},
			[5]any{false, true, false, true, false}},
		{"embed.batch", layer{"8", "16", "32", "4"},
			[5]any{64, 8, 16, 32, 4}},
		{"index.max_file_bytes", layer{"2048", `"2MiB"`, "4096", "1KiB"},
			[5]any{int64(1 << 20), int64(2048), int64(2 << 20), int64(4096), int64(1024)}},
		{"watch.debounce", layer{`"50ms"`, `"1s"`, "2s", "100ms"},
			[5]any{300 * time.Millisecond, 50 * time.Millisecond, time.Second, 2 * time.Second, 100 * time.Millisecond}},
		{"spend.embed_day", layer{"1", "2.5", "0", "7"},
			[5]any{5.0, 1.0, 2.5, 0.0, 7.0}},
		{"index.exclude", layer{`["a/**"]`, `"b, c"`, "d,e", "f"},
			[5]any{[]string(nil), []string{"a/**"}, []string{"b", "c"}, []string{"d", "e"}, []string{"f"}}},
		{"spend.prices", layer{`"m=1/2"`, `"m=3/4/0.5"`, "n=1", "o=0/0/0.002"},
			[5]any{map[string]config.Price(nil), map[string]config.Price{"m": {InPerMTok: 1, OutPerMTok: 2}},
				map[string]config.Price{"m": {InPerMTok: 3, OutPerMTok: 4, PerRequest: 0.5}},
				map[string]config.Price{"n": {InPerMTok: 1}}, map[string]config.Price{"o": {PerRequest: 0.002}}}},
		{"server.http", layer{`"127.0.0.1:1"`, `"127.0.0.1:2"`, "127.0.0.1:3", "127.0.0.1:4"},
			[5]any{"127.0.0.1:8765", "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:4"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			uf := isolate(t)
			root := t.TempDir()
			s, err := config.Lookup(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := config.Trust(root); err != nil { // spend and secrets settings need it
				t.Fatal(err)
			}
			// A file line for the key: top-level, or in its table.
			line := func(v string) string {
				if s.Section() == "" {
					return s.Name() + " = " + v + "\n"
				}
				return "[" + s.Section() + "]\n" + s.Name() + " = " + v + "\n"
			}
			trust := "\n[trust]\nprojects = [" + quote(realPath(t, root)) + "]\n"
			var flags []config.Flag
			wantSources := []string{"default", "user file", "project file", "env " + s.Env, "flag --x"}
			for i := range 5 {
				switch i {
				case 1:
					writeFile(t, uf, line(tt.in.user)+trust)
				case 2:
					writeFile(t, config.ProjectFile(root), line(tt.in.project))
				case 3:
					t.Setenv(s.Env, tt.in.env)
				case 4:
					flags = []config.Flag{{Key: tt.key, Name: "--x", Value: tt.in.flag}}
				}
				r, err := config.Resolve(root, &config.Options{Flags: flags})
				if err != nil {
					t.Fatalf("layer %d: %v", i, err)
				}
				v, _ := r.Value(tt.key)
				if d := cmp.Diff(tt.want[i], v.Value); d != "" {
					t.Errorf("layer %d (%s): value (-want +got):\n%s", i, wantSources[i], d)
				}
				if d := cmp.Diff(tt.want[i], s.Get(&r.Config)); d != "" {
					t.Errorf("layer %d: Config field (-want +got):\n%s", i, d)
				}
				if got := v.Source.String(); got != wantSources[i] {
					t.Errorf("layer %d: source %q, want %q", i, got, wantSources[i])
				}
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFileErrors: a file that is not TOML, an unknown key, a misplaced
// table, a bad value, or a key in the wrong file is an error that names
// the file, the line and the key.
func TestFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		project string
		// want is the error after the file's path.
		want string
	}{
		{name: "syntax", project: "[embed]\nbatch = = 3\n", want: `:2: expected value but found '=' instead`},
		{name: "bad int", project: "# ours\n[embed]\nbatch = \"x\"\n", want: `:3: embed.batch: want a positive integer, got "x"`},
		{name: "zero", project: "[embed]\nbatch = 0\n", want: `:2: embed.batch: want a positive integer, got 0`},
		{name: "bad duration", project: "[limits]\nrequest_timeout = 5\n", want: `:2: limits.request_timeout: want a positive duration such as 10s or 500ms, got 5`},
		{name: "bad bool", user: "[index]\ninclude_secrets = \"yes\"\n", want: `:2: index.include_secrets: want true or false, got "yes"`},
		{name: "bad bytes", project: "[index]\nmax_file_bytes = \"2MB\"\n", want: `:2: index.max_file_bytes: want a positive number of bytes, got "2MB"`},
		{name: "bad list", project: "[index]\nexclude = [1, 2]\n", want: `:2: index.exclude: want a list of strings, got [1, 2]`},
		{name: "bad enum", project: "[embed]\nprovider = \"magic\"\n", want: `:2: embed.provider: embedding provider "magic": want builtin, none, ollama, openai, voyage, model2vec or onnx`},
		{name: "bad prices", user: "[spend]\nprices = \"m=1/x\"\n", want: `:2: spend.prices: entry "m=1/x": price "x" is not a non-negative number`},
		{name: "unknown key", project: "[embed]\nprovider = \"none\"\nbach = 3\n", want: `:3: embed.bach: unknown setting (did you mean embed.batch?)`},
		{name: "unknown section", user: "[embedding]\nbatch = 3\n", want: `:1: embedding: unknown table (did you mean [embed]?)`},
		{name: "unknown top-level", project: "cachedir = \"x\"\n", want: `:1: cachedir: unknown setting (did you mean cache_dir?)`},
		{name: "section not a table", project: "embed = 3\n", want: `:1: embed: want a table ([embed])`},
		{name: "subtable", project: "[embed.extra]\nx = 1\n", want: `:1: embed.extra: unknown setting`},
		{name: "secret in project", project: "[embed]\napi_key = \"sk-1\"\n", want: ":2: embed.api_key: keys are never read from a project file; store it with `ctx auth set openai|voyage`, or set CTX_EMBED_API_KEY"},
		{name: "token in project", project: "[server]\ntoken = \"t\"\n", want: ":2: server.token: keys are never read from a project file; store it with `ctx auth set mcp`, or set CTX_MCP_TOKEN"},
		{name: "auth in project", project: "[auth]\nopenai = \"sk-1\"\n", want: ":1: auth: keys are never read from a project file; store them with `ctx auth set PROVIDER`"},
		{name: "trust in project", project: "[trust]\nprojects = [\".\"]\n", want: ":1: trust: projects are trusted in the user file (`ctx config trust`), not in a project file"},
		{name: "secret in a user section", user: "[llm]\napi_key = \"sk-1\"\n", want: ":2: llm.api_key: keys are kept in the [auth] table, with the file's mode 0600; store it with `ctx auth set openai|anthropic`, or set CTX_LLM_API_KEY"},
		{name: "unknown auth provider", user: "[auth]\nopenia = \"sk\"\n", want: ":2: auth.openia: unknown provider (want openai, anthropic, voyage, cohere, jina, weaviate or mcp)"},
		{name: "empty auth key", user: "[auth]\nopenai = \"\"\n", want: ":2: auth.openai: want the key as a non-empty string"},
		{name: "workspaces in user file", user: "[workspaces.x]\nrepos = []\n", want: ":1: workspaces: workspaces are kept in workspaces.toml beside this file (`ctx workspace add`)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uf := isolate(t)
			root := realPath(t, t.TempDir())
			path := config.ProjectFile(root)
			if tt.user != "" {
				writeFile(t, uf, tt.user)
				path = uf
			} else {
				writeFile(t, path, tt.project)
			}
			_, err := config.Load(root, nil)
			if err == nil {
				t.Fatal("Load: no error")
			}
			if got, want := err.Error(), path+tt.want; got != want {
				t.Errorf("Load error:\n got %s\nwant %s", got, want)
			}
			var fe *config.FileError
			if !errors.As(err, &fe) || fe.Path != path {
				t.Errorf("error %v is not a *FileError for %s", err, path)
			}
		})
	}
}

// TestProjectWorkspacesIgnored: a project file's [workspaces] table is
// internal/workspace's, and loading settings neither reads nor refuses it.
func TestProjectWorkspacesIgnored(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	writeFile(t, config.ProjectFile(root), "[workspaces.backend]\nrepos = [\".\", \"../api\"]\n\n[index]\nexclude = [\"gen/**\"]\n")
	c, err := config.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"gen/**"}, c.Exclude); d != "" {
		t.Errorf("Exclude (-want +got):\n%s", d)
	}
}

// TestTrust: a project file's Trust settings (where code and queries go)
// are ignored, with one warning naming `ctx config trust`, until the
// project is trusted; its other settings apply either way.
func TestTrust(t *testing.T) {
	isolate(t)
	t.Setenv("OPENAI_API_KEY", "sk-env")
	root := t.TempDir()
	writeFile(t, config.ProjectFile(root), `[embed]
provider = "openai"
url = "https://collector.example/v1"
batch = 16

[backend]
name = "weaviate"
`)
	var warn strings.Builder
	c, err := config.Load(root, &config.Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if c.Embed.Provider != "builtin" || c.Embed.BaseURL != "" || c.Backend.Name != "local" {
		t.Errorf("untrusted: provider %q, url %q, backend %q; want the defaults", c.Embed.Provider, c.Embed.BaseURL, c.Backend.Name)
	}
	if c.Embed.BatchSize != 16 {
		t.Errorf("untrusted: batch %d, want 16 (not a Trust setting)", c.Embed.BatchSize)
	}
	w := warn.String()
	if strings.Count(w, "\n") != 1 || !strings.Contains(w, "embed.provider, embed.url, backend.name") || !strings.Contains(w, "ctx config trust") {
		t.Errorf("warning %q: want one line naming the three keys and ctx config trust", w)
	}
	r, err := config.Resolve(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Value("embed.url"); v.Ignored == nil || v.Ignored.Value != "https://collector.example/v1" || v.Ignored.Line != 3 || v.Source.Kind != config.FromDefault {
		t.Errorf("embed.url = %+v, want the default with the project's value ignored (line 3)", v)
	}

	real, err := config.Trust(root)
	if err != nil {
		t.Fatal(err)
	}
	if real != realPath(t, root) {
		t.Errorf("Trust = %q, want the real path %q", real, realPath(t, root))
	}
	warn.Reset()
	c, err = config.Load(root, &config.Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if c.Embed.Provider != "openai" || c.Embed.BaseURL != "https://collector.example/v1" || c.Backend.Name != "weaviate" {
		t.Errorf("trusted: provider %q, url %q, backend %q; want the project's", c.Embed.Provider, c.Embed.BaseURL, c.Backend.Name)
	}
	if warn.Len() != 0 {
		t.Errorf("trusted: warning %q", warn.String())
	}
	// Through a symbolic link the project is the same.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if ok, err := config.IsTrusted(link); err != nil || !ok {
		t.Errorf("IsTrusted(link to root) = %v, %v; want true", ok, err)
	}

	if _, err := config.Untrust(root); err != nil {
		t.Fatal(err)
	}
	if c, err = config.Load(root, nil); err != nil || c.Embed.Provider != "builtin" {
		t.Errorf("untrusted again: provider %q, %v; want builtin", c.Embed.Provider, err)
	}
	if _, err := config.Untrust(root); err == nil {
		t.Error("Untrust of a project not trusted: no error")
	}
}

// TestSecrets: a key comes from its CTX_* variable, else the provider's
// own variable, else the user file's [auth] table for the section's
// provider.
func TestSecrets(t *testing.T) {
	uf := isolate(t)
	writeFile(t, uf, `[embed]
provider = "voyage"

[llm]
provider = "anthropic"

[auth]
voyage = "k-voyage-file"
anthropic = "k-ant-file"
openai = "k-openai-file"
mcp = "tok-file"
`)
	check := func(key, want, source string) {
		t.Helper()
		r, err := config.Resolve("", nil)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.Value(key)
		if v.Value != want || v.Source.String() != source {
			t.Errorf("%s = %q from %s, want %q from %s", key, v.Value, v.Source, want, source)
		}
	}
	check("embed.api_key", "k-voyage-file", "user file (auth.voyage)")
	check("llm.api_key", "k-ant-file", "user file (auth.anthropic)")
	check("server.token", "tok-file", "user file (auth.mcp)")
	check("rerank.api_key", "", "default")
	t.Setenv("VOYAGE_API_KEY", "k-voyage-env")
	check("embed.api_key", "k-voyage-env", "env VOYAGE_API_KEY")
	t.Setenv("CTX_EMBED_API_KEY", "k-own")
	check("embed.api_key", "k-own", "env CTX_EMBED_API_KEY")
	t.Setenv("CTX_LLM_PROVIDER", "openai")
	check("llm.api_key", "k-openai-file", "user file (auth.openai)")
	t.Setenv("CTX_MCP_TOKEN", "tok-env")
	check("server.token", "tok-env", "env CTX_MCP_TOKEN")
	r, err := config.Resolve("", &config.Options{Flags: []config.Flag{{Key: "server.token", Name: "--token", Value: "tok-flag"}}})
	if err != nil || r.Config.MCPToken != "tok-flag" {
		t.Errorf("--token: %q, %v; want tok-flag", r.Config.MCPToken, err)
	}
}

// TestUserFileKeysReadable: a user file that holds keys and that others
// can read is used, with a warning that names the fix.
func TestUserFileKeysReadable(t *testing.T) {
	uf := isolate(t)
	writeFile(t, uf, "[auth]\nopenai = \"sk-1\"\n")
	if err := os.Chmod(uf, 0o644); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	if _, err := config.Load("", &config.Options{Warn: &warn}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "chmod 600 "+uf) {
		t.Errorf("warning %q: want one naming chmod 600 %s", warn.String(), uf)
	}
}

// TestRelativePaths: a relative path in the project file is relative to
// the repository root, in the user file to the user file's directory;
// "~/" is the home directory; embed.model is a path only for local
// models.
func TestRelativePaths(t *testing.T) {
	uf := isolate(t)
	root := realPath(t, t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, err := config.Trust(root); err != nil {
		t.Fatal(err)
	}
	userDir := filepath.Dir(uf)
	writeFile(t, uf, "[trust]\nprojects = ["+quote(root)+"]\n[embed]\nonnxruntime_lib = \"lib/libonnxruntime.so\"\n")
	writeFile(t, config.ProjectFile(root), "cache_dir = \".ctx/cache\"\n[embed]\nprovider = \"model2vec\"\nmodel = \"models/potion\"\n")
	c, err := config.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{c.CacheDir, c.Embed.Model, c.Embed.Library}
	want := []string{filepath.Join(root, ".ctx/cache"), filepath.Join(root, "models/potion"), filepath.Join(userDir, "lib/libonnxruntime.so")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}

	writeFile(t, config.ProjectFile(root), "cache_dir = \"~/ctx-cache\"\n[embed]\nprovider = \"openai\"\nmodel = \"text-embedding-3-small\"\n")
	if c, err = config.Load(root, nil); err != nil {
		t.Fatal(err)
	}
	if c.CacheDir != filepath.Join(home, "ctx-cache") || c.Embed.Model != "text-embedding-3-small" {
		t.Errorf("CacheDir %q, Embed.Model %q; want ~ expanded and a model name kept", c.CacheDir, c.Embed.Model)
	}
	// The environment's paths stay as given (relative to the working
	// directory, as before).
	t.Setenv("CTX_CACHE_DIR", "rel/cache")
	if c, _ = config.Load(root, nil); c.CacheDir != "rel/cache" {
		t.Errorf("CTX_CACHE_DIR: CacheDir %q, want rel/cache", c.CacheDir)
	}
}

// TestFlagErrors: a bad flag value names the flag; an unknown key is a
// programmer's error naming the flag too.
func TestFlagErrors(t *testing.T) {
	isolate(t)
	for _, tt := range []struct {
		flag config.Flag
		want string
	}{
		{config.Flag{Key: "backend.name", Name: "--backend", Value: "x"}, `--backend: backend "x": want local or weaviate`},
		{config.Flag{Key: "watch.debounce", Name: "--debounce", Value: "soon"}, `--debounce="soon": want a positive duration such as 300ms or 1s`},
		{config.Flag{Key: "server.tools", Name: "--tools", Value: "some"}, `--tools: tool set "some": want default or all`},
		{config.Flag{Key: "nope", Name: "--nope", Value: "1"}, `flag --nope: unknown setting "nope"`},
	} {
		_, err := config.Load("", &config.Options{Flags: []config.Flag{tt.flag}})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("flag %s=%s: %v, want %s", tt.flag.Name, tt.flag.Value, err, tt.want)
		}
	}
}

// TestLookup: an unknown key suggests the nearest one.
func TestLookup(t *testing.T) {
	for key, want := range map[string]string{
		"embed.bach":         `unknown setting "embed.bach" (did you mean embed.batch?)`,
		"batch":              `unknown setting "batch" (did you mean embed.batch?)`,
		"llm.modle":          `unknown setting "llm.modle" (did you mean llm.model?)`,
		"completely.unknown": "unknown setting \"completely.unknown\" (`ctx config ls` lists them)",
	} {
		_, err := config.Lookup(key)
		if err == nil || err.Error() != want || !errors.Is(err, config.ErrUnknown) {
			t.Errorf("Lookup(%q) = %v, want %s", key, err, want)
		}
	}
}

// TestTable: every setting is well formed: a CTX_ variable, a doc line,
// its default valid for it, and secrets that say where their key comes
// from.
func TestTable(t *testing.T) {
	envs := map[string]bool{}
	for _, s := range config.Settings() {
		if !strings.HasPrefix(s.Env, "CTX_") || envs[s.Env] {
			t.Errorf("%s: variable %q is not a unique CTX_ variable", s.Key, s.Env)
		}
		envs[s.Env] = true
		if strings.Contains(s.Doc, "\n") || s.Doc == "" {
			t.Errorf("%s: doc %q is not one line", s.Key, s.Doc)
		}
		if s.Secret && (s.AuthFor == nil || s.AuthHint == "" || s.Allowed(config.InProjectFile) || s.Allowed(config.InUserFile)) {
			t.Errorf("%s: a secret needs AuthFor and AuthHint and no file but [auth]", s.Key)
		}
		c := config.Default()
		if _, err := s.ParseText(s.Format(s.Get(&c))); err != nil && s.Get(&c) != "" && s.Kind != config.KindPrices {
			t.Errorf("%s: default %v does not read back: %v", s.Key, s.Get(&c), err)
		}
	}
	if err := func() error { c := config.Default(); return c.Validate() }(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
}
