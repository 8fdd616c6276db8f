package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
)

// TestSetUnset: Set writes a checked value into the project file
// (creating it) keeping the rest of the file, Load reads it back, and
// Unset removes it.
func TestSetUnset(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	f := config.ProjectFileTarget(root)
	writeFile(t, f.Path, "# team settings\n[workspaces.backend]\nrepos = [\".\"] # us\n")
	if _, err := config.Set(f, "index.exclude", "gen/**, *.pb.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Set(f, "index.max_file_bytes", "2MiB"); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Set(f, "log_level", "INFO"); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Set(f, "embed.query_timeout", "750ms"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Path)
	want := `# team settings
log_level = "info"

[workspaces.backend]
repos = ["."] # us

[index]
exclude = ["gen/**", "*.pb.go"]
max_file_bytes = "2MiB"

[embed]
query_timeout = "750ms"
`
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	c, err := config.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Exclude, ",") != "gen/**,*.pb.go" || c.MaxFileBytes != 2<<20 || c.LogLevel != "info" {
		t.Errorf("Load after Set: %v %d %q", c.Exclude, c.MaxFileBytes, c.LogLevel)
	}
	if ok, err := config.Unset(f, "index.exclude"); err != nil || !ok {
		t.Fatalf("Unset = %v, %v", ok, err)
	}
	if ok, err := config.Unset(f, "index.exclude"); err != nil || ok {
		t.Errorf("Unset again = %v, %v; want false, nil", ok, err)
	}
	if c, _ := config.Load(root, nil); c.Exclude != nil {
		t.Errorf("Exclude after Unset = %v", c.Exclude)
	}
}

// TestSetRefuses: an unknown key (with the nearest one), a bad value,
// and a key or token are refused, and the file is left alone.
func TestSetRefuses(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	f := config.ProjectFileTarget(root)
	user, err := config.UserFileTarget()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		f          config.File
		key, value string
		want       string
	}{
		{f, "embed.bach", "3", `unknown setting "embed.bach" (did you mean embed.batch?)`},
		{f, "embed.batch", "x", `embed.batch: want a positive integer, got "x"`},
		{f, "embed.provider", "magic", `embed.provider: embedding provider "magic": want builtin`},
		{f, "index.max_file_bytes", "2MB", `want a positive number of bytes, got "2MB"`},
		{f, "embed.api_key", "sk-1", "embed.api_key is a key: `ctx config set` never writes keys; store it with `ctx auth set openai|voyage`"},
		{user, "server.token", "t", "server.token is a key"},
		{user, "weaviate.api_key", "k", "ctx auth set weaviate"},
	} {
		_, err := config.Set(tt.f, tt.key, tt.value)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Set(%s, %q): %v, want an error with %q", tt.key, tt.value, err, tt.want)
		}
	}
	for _, p := range []string{f.Path, user.Path} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written", p)
		}
	}
}

// TestSetBrokenFile: a file that is not TOML is not edited; a file whose
// bad key is the one being set or removed is repaired.
func TestSetBrokenFile(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	f := config.ProjectFileTarget(root)
	writeFile(t, f.Path, "[embed\nbatch = 3\n")
	if _, err := config.Set(f, "embed.batch", "4"); err == nil || !strings.Contains(err.Error(), f.Path+":2:") || !strings.Contains(err.Error(), "fix the file") {
		t.Errorf("Set into a broken file: %v, want the file and line", err)
	}
	writeFile(t, f.Path, "[embed]\nbatch = \"x\"\nbach = 2\n")
	if _, err := config.Set(f, "embed.batch", "4"); err != nil {
		t.Fatalf("Set over a bad value: %v", err)
	}
	if ok, err := config.Unset(f, "embed.bach"); err != nil || !ok {
		t.Fatalf("Unset of an unknown key in the file: %v, %v", ok, err)
	}
	if c, err := config.Load(root, nil); err != nil || c.Embed.BatchSize != 4 {
		t.Errorf("Load after the repair: %d, %v", c.Embed.BatchSize, err)
	}
	if _, err := config.Unset(f, "embed.bach"); !errors.Is(err, config.ErrUnknown) {
		t.Errorf("Unset of an unknown key not in the file: %v, want ErrUnknown", err)
	}
}

// TestSetAuth: a key goes into the user file's [auth] table with mode
// 0600, even when the file was readable by others, keeping the rest of
// the file; it feeds the provider's settings; RemoveAuth takes it out.
func TestSetAuth(t *testing.T) {
	uf := isolate(t)
	writeFile(t, uf, "# mine\nlog_level = \"info\"\n\n[embed]\nprovider = \"openai\"\n")
	if err := os.Chmod(uf, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := config.SetAuth("openai", "sk-one")
	if err != nil {
		t.Fatal(err)
	}
	if path != uf {
		t.Errorf("SetAuth wrote %s, want %s", path, uf)
	}
	fi, err := os.Stat(uf)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(uf)
	if want := "# mine\nlog_level = \"info\"\n\n[embed]\nprovider = \"openai\"\n\n[auth]\nopenai = \"sk-one\"\n"; string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	if _, err := config.SetAuth("openai", "sk-two"); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load("", nil)
	if err != nil || c.Embed.APIKey != "sk-two" {
		t.Errorf("embed.api_key = %q, %v; want the stored sk-two", c.Embed.APIKey, err)
	}
	for _, bad := range []struct{ provider, key string }{{"openia", "k"}, {"openai", ""}, {"openai", "a\nb"}} {
		if _, err := config.SetAuth(bad.provider, bad.key); err == nil {
			t.Errorf("SetAuth(%q, %q): no error", bad.provider, bad.key)
		}
	}
	if ok, err := config.RemoveAuth("openai"); err != nil || !ok {
		t.Fatalf("RemoveAuth = %v, %v", ok, err)
	}
	if c, _ := config.Load("", nil); c.Embed.APIKey != "" {
		t.Errorf("embed.api_key after RemoveAuth = %q", c.Embed.APIKey)
	}
}

// TestWriteFollowsLink: a user file that is a symbolic link (a managed
// dotfile) stays one; the file it points to is replaced.
func TestWriteFollowsLink(t *testing.T) {
	uf := isolate(t)
	target := filepath.Join(t.TempDir(), "dotfiles", "ctx.toml")
	writeFile(t, target, "log_level = \"info\"\n")
	if err := os.MkdirAll(filepath.Dir(uf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, uf); err != nil {
		t.Fatal(err)
	}
	f, _ := config.UserFileTarget()
	if _, err := config.Set(f, "embed.batch", "8"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(uf); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("user file is no longer a link: %v", err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "batch = 8") {
		t.Errorf("target:\n%s", b)
	}
}
