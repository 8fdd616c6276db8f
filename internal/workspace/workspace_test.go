package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/workspace"
)

// setup points the user config directory at a fresh temporary directory
// and returns a base directory for repositories (symlinks resolved, as
// member roots are).
func setup(t *testing.T) (base string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return base
}

func mkdirs(t *testing.T, base string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUserFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	got, err := workspace.UserFile()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "ctx", "workspaces.toml"); got != want {
		t.Errorf("UserFile() = %q, want %q", got, want)
	}
}

func TestAddLoadRemove(t *testing.T) {
	base := setup(t)
	mkdirs(t, base, "api", "shared-lib", "web")
	uf, _ := workspace.UserFile()
	p := func(s string) string { return filepath.Join(base, s) }

	w, err := workspace.Add("backend", []string{p("api"), p("shared-lib")})
	if err != nil {
		t.Fatal(err)
	}
	want := &workspace.Workspace{Name: "backend", File: uf, Members: []workspace.Member{
		{Name: "api", Root: p("api")}, {Name: "shared-lib", Root: p("shared-lib")}}}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	// Adding the same directory again, through a relative path, is a no-op;
	// a new one is appended.
	t.Chdir(base)
	if w, err = workspace.Add("backend", []string{"api", "./web"}); err != nil {
		t.Fatal(err)
	}
	want.Members = append(want.Members, workspace.Member{Name: "web", Root: p("web")})
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("second Add (-want +got):\n%s", diff)
	}
	if _, err := workspace.Add("tools", []string{p("web")}); err != nil {
		t.Fatal(err)
	}

	all, err := workspace.Load("")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*workspace.Workspace{want, {Name: "tools", File: uf, Members: []workspace.Member{{Name: "web", Root: p("web")}}}}, all); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}

	fi, err := os.Stat(uf)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("user file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(uf))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("user dir mode %v, want 0700", di.Mode().Perm())
	}

	// Remove members by name and by path, then the whole workspace.
	if err := workspace.Remove("backend", []string{"api", p("web")}); err != nil {
		t.Fatal(err)
	}
	got, err := workspace.Get("backend", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]workspace.Member{{Name: "shared-lib", Root: p("shared-lib")}}, got.Members); diff != "" {
		t.Errorf("members after Remove (-want +got):\n%s", diff)
	}
	if err := workspace.Remove("backend", []string{p("api")}); err == nil || !strings.Contains(err.Error(), "not a member") {
		t.Errorf("Remove of a non-member: %v, want not a member", err)
	}
	if err := workspace.Remove("backend", nil); err != nil {
		t.Fatal(err)
	}
	_, err = workspace.Get("backend", "")
	if !errors.Is(err, workspace.ErrNotFound) || !strings.Contains(err.Error(), "tools") {
		t.Errorf("Get after Remove: %v, want ErrNotFound naming tools", err)
	}
	if err := workspace.Remove("backend", nil); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("Remove of a missing workspace: %v, want ErrNotFound", err)
	}
}

func TestAddErrors(t *testing.T) {
	base := setup(t)
	mkdirs(t, base, "ok")
	writeFile(t, filepath.Join(base, "file.txt"), "x")
	tests := []struct {
		name    string
		ws      string
		paths   []string
		invalid bool
		want    string
	}{
		{name: "bad name", ws: "a b", paths: []string{filepath.Join(base, "ok")}, invalid: true, want: `workspace "a b"`},
		{name: "empty name", ws: "", invalid: true, want: "invalid workspace name"},
		{name: "long name", ws: strings.Repeat("x", 65), invalid: true, want: "invalid workspace name"},
		{name: "missing dir", ws: "w", paths: []string{filepath.Join(base, "ok"), filepath.Join(base, "nope")}, want: "nope"},
		{name: "not a dir", ws: "w", paths: []string{filepath.Join(base, "file.txt")}, want: "file.txt: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workspace.Add(tt.ws, tt.paths)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Add(%q, %q) = %v, want an error containing %q", tt.ws, tt.paths, err, tt.want)
			}
			if errors.Is(err, workspace.ErrInvalid) != tt.invalid {
				t.Errorf("errors.Is(%v, ErrInvalid) = %v, want %v", err, !tt.invalid, tt.invalid)
			}
		})
	}
	// Nothing was written by the failed calls.
	uf, _ := workspace.UserFile()
	if _, err := os.Stat(uf); !os.IsNotExist(err) {
		t.Errorf("user file exists after failed adds: %v", err)
	}
	// Valid names round-trip through the file, dots included (a dotted
	// TOML key would split them).
	for _, ok := range []string{"a", "A-b_c.1", "v1.2.3", strings.Repeat("x", 64)} {
		if _, err := workspace.Add(ok, []string{filepath.Join(base, "ok")}); err != nil {
			t.Errorf("Add(%q) = %v", ok, err)
			continue
		}
		if w, err := workspace.Get(ok, ""); err != nil || len(w.Members) != 1 {
			t.Errorf("Get(%q) = %v, %v", ok, w, err)
		}
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // after "FILE"
	}{
		{name: "syntax", content: "[workspaces.a]\nrepos = [\"x\"\n", want: ":2: expected a comma"},
		{name: "type", content: "\n[workspaces.a]\nrepos = \"x\"\n", want: ": line 3 (last key \"workspaces.a.repos\"): incompatible types"},
		{name: "unknown key", content: "[workspaces.a]\nrepo = [\"x\"]\n", want: ": unknown key workspaces.a.repo"},
		{name: "not a table", content: "workspaces = 3\n", want: ": workspaces is a Integer"},
		{name: "bad name", content: "[workspaces.\"a b\"]\nrepos = []\n", want: `: workspace "a b": invalid workspace name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t)
			uf, _ := workspace.UserFile()
			writeFile(t, uf, tt.content)
			_, err := workspace.Load("")
			if err == nil || !strings.HasPrefix(err.Error(), uf+tt.want) {
				t.Errorf("Load: %v, want prefix %q", err, uf+tt.want)
			}
			// Add never overwrites a file it could not read.
			if _, err := workspace.Add("b", nil); err == nil {
				t.Errorf("Add over a malformed file succeeded")
			}
		})
	}
}

func TestProjectFile(t *testing.T) {
	base := setup(t)
	mkdirs(t, base, "proj/svc", "lib", "other")
	proj := filepath.Join(base, "proj")
	pf := filepath.Join(proj, ".ctx", "config.toml")
	writeFile(t, pf, `# other settings live here too
[embed]
provider = "none"

[workspaces.backend]
repos = [".", "../lib", "svc"]

[workspaces.local]
repos = ["`+filepath.ToSlash(filepath.Join(base, "other"))+`"]
`)
	uf, _ := workspace.UserFile()
	if _, err := workspace.Add("backend", []string{filepath.Join(base, "other")}); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.Add("solo", []string{filepath.Join(base, "lib")}); err != nil {
		t.Fatal(err)
	}
	all, err := workspace.Load(proj)
	if err != nil {
		t.Fatal(err)
	}
	want := []*workspace.Workspace{
		{Name: "backend", File: pf, Members: []workspace.Member{
			{Name: "proj", Root: proj}, {Name: "lib", Root: filepath.Join(base, "lib")}, {Name: "svc", Root: filepath.Join(proj, "svc")}}},
		{Name: "local", File: pf, Members: []workspace.Member{{Name: "other", Root: filepath.Join(base, "other")}}},
		{Name: "solo", File: uf, Members: []workspace.Member{{Name: "lib", Root: filepath.Join(base, "lib")}}},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("Load(project) (-want +got):\n%s", diff)
	}
	// Without the project, the user's backend is back.
	w, err := workspace.Get("backend", "")
	if err != nil {
		t.Fatal(err)
	}
	if w.File != uf {
		t.Errorf("Get(backend, \"\").File = %q, want %q", w.File, uf)
	}
	// A malformed project file names itself.
	writeFile(t, pf, "[embed]\n\nprovider = = 1\n")
	if _, err := workspace.Load(proj); err == nil || !strings.HasPrefix(err.Error(), pf+":3:") {
		t.Errorf("Load with a malformed project file: %v, want prefix %q", err, pf+":3:")
	}
}

func TestMemberNames(t *testing.T) {
	tests := []struct {
		name  string
		dirs  []string
		names []string
	}{
		{name: "distinct", dirs: []string{"x/api", "y/web"}, names: []string{"api", "web"}},
		{name: "shared base", dirs: []string{"team-a/api", "team-b/api", "y/web"}, names: []string{"team-a/api", "team-b/api", "web"}},
		{name: "shared parent too", dirs: []string{"a/x/api", "b/x/api", "c/api"}, names: []string{"a/x/api", "b/x/api", "c/api"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := setup(t)
			mkdirs(t, base, tt.dirs...)
			var paths []string
			for _, d := range tt.dirs {
				paths = append(paths, filepath.Join(base, d))
			}
			w, err := workspace.Add("w", paths)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range w.Members {
				got = append(got, m.Name)
				if mm, ok := w.Member(m.Name); !ok || mm.Root != m.Root {
					t.Errorf("Member(%q) = %v, %v", m.Name, mm, ok)
				}
				if mm, ok := w.Member(m.Root); !ok || mm.Name != m.Name {
					t.Errorf("Member(%q) = %v, %v", m.Root, mm, ok)
				}
			}
			if diff := cmp.Diff(tt.names, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if _, ok := w.Member("nope"); ok {
				t.Errorf("Member(nope) found")
			}
		})
	}
}

func TestSymlinkDedupe(t *testing.T) {
	base := setup(t)
	mkdirs(t, base, "real/api")
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "real"), link); err != nil {
		t.Skip("symlinks:", err)
	}
	w, err := workspace.Add("w", []string{filepath.Join(link, "api"), filepath.Join(base, "real", "api")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = workspace.Add("w", []string{filepath.Join(link, "api", ".")}); err != nil {
		t.Fatal(err)
	}
	if w, err = workspace.Get("w", ""); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]workspace.Member{{Name: "api", Root: filepath.Join(base, "real", "api")}}, w.Members); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if m, ok := w.Member(filepath.Join(link, "api")); !ok || m.Name != "api" {
		t.Errorf("Member(through the link) = %v, %v", m, ok)
	}
}
