package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testOptions(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	return Options{
		Root:          filepath.Join(dir, "repo"),
		Home:          filepath.Join(dir, "home"),
		UserConfigDir: filepath.Join(dir, "home", ".config"),
		Command:       "/usr/local/bin/ctx",
	}
}

// TestPlanFiles: each client's files, project and user level, and the
// actions of a first and a second run.
func TestPlanFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		client string
		global bool
		codex  bool // set CodexHome
		want   []string
	}{
		{client: "claude", want: []string{"repo/.mcp.json", "repo/CLAUDE.md"}},
		{client: "claude", global: true, want: []string{"home/.claude.json", "home/.claude/CLAUDE.md"}},
		{client: "codex", want: []string{"repo/.codex/config.toml", "repo/AGENTS.md"}},
		{client: "codex", global: true, want: []string{"home/.codex/config.toml", "home/.codex/AGENTS.md"}},
		{client: "codex", global: true, codex: true, want: []string{"codexhome/config.toml", "codexhome/AGENTS.md"}},
		{client: "cursor", want: []string{"repo/.cursor/mcp.json", "repo/.cursor/rules/ctx.mdc"}},
		{client: "cursor", global: true, want: []string{"home/.cursor/mcp.json", ""}},
		{client: "gemini", want: []string{"repo/.gemini/settings.json", "repo/GEMINI.md"}},
		{client: "gemini", global: true, want: []string{"home/.gemini/settings.json", "home/.gemini/GEMINI.md"}},
		{client: "vscode", want: []string{"repo/.vscode/mcp.json", "repo/.github/copilot-instructions.md"}},
		{client: "vscode", global: true, want: []string{"home/.config/Code/User/mcp.json", ""}},
	}
	for _, tt := range tests {
		name := tt.client
		if tt.global {
			name += "/global"
		}
		if tt.codex {
			name += "/CODEX_HOME"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := testOptions(t)
			o.Global = tt.global
			base := filepath.Dir(o.Root)
			if tt.codex {
				o.CodexHome = filepath.Join(base, "codexhome")
			}
			changes, err := Plan(t.Context(), tt.client, o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var actions []Action
			for _, c := range changes {
				rel := ""
				if c.Path != "" {
					rel, _ = filepath.Rel(base, c.Path)
				}
				got = append(got, filepath.ToSlash(rel))
				actions = append(actions, c.Action())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			wantActions := []Action{Created, Created}
			if tt.want[1] == "" {
				wantActions[1] = Skipped
			}
			if diff := cmp.Diff(wantActions, actions); diff != "" {
				t.Errorf("first run (-want +got):\n%s", diff)
			}
			if err := Apply(t.Context(), changes); err != nil {
				t.Fatal(err)
			}
			again, err := Plan(t.Context(), tt.client, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range again {
				if a := c.Action(); a != Unchanged && a != Skipped {
					t.Errorf("second run: %s %s", a, c.Path)
				}
			}
		})
	}
}

// TestServerArgs: the editors' project files name the workspace, an
// explicit repository wins, and the CLI clients use their directory.
func TestServerArgs(t *testing.T) {
	t.Parallel()
	o := testOptions(t)
	read := func(client string, o Options) string {
		t.Helper()
		changes, err := Plan(t.Context(), client, o)
		if err != nil {
			t.Fatal(err)
		}
		return string(changes[0].New)
	}
	if got := read("cursor", o); !strings.Contains(got, `"${workspaceFolder}"`) {
		t.Errorf("cursor project config has no ${workspaceFolder}:\n%s", got)
	}
	if got := read("claude", o); strings.Contains(got, "--repo") {
		t.Errorf("claude project config passes --repo:\n%s", got)
	}
	g := o
	g.Global = true
	if got := read("vscode", g); strings.Contains(got, "--repo") {
		t.Errorf("vscode user config passes --repo:\n%s", got)
	}
	r := o
	r.Repo = "/src/proj"
	if got := read("codex", r); !strings.Contains(got, `args = ["mcp", "--repo", "/src/proj"]`) {
		t.Errorf("codex config does not pass --repo:\n%s", got)
	}
}

// TestApplyKeepsModeAndSymlinks: a rewritten file keeps its permissions,
// and a symlinked instruction file stays a symlink to the edited target.
func TestApplyKeepsModeAndSymlinks(t *testing.T) {
	t.Parallel()
	o := testOptions(t)
	must(t, os.MkdirAll(o.Root, 0o755))
	mcp := filepath.Join(o.Root, ".mcp.json")
	must(t, os.WriteFile(mcp, []byte(`{"mcpServers": {}}`), 0o600))
	must(t, os.WriteFile(filepath.Join(o.Root, "AGENTS.md"), []byte("# Agents\n"), 0o644))
	must(t, os.Symlink("AGENTS.md", filepath.Join(o.Root, "CLAUDE.md")))
	changes, err := Plan(t.Context(), "claude", o)
	if err != nil {
		t.Fatal(err)
	}
	must(t, Apply(t.Context(), changes))
	fi, err := os.Stat(mcp)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf(".mcp.json mode = %v, want 0600", fi.Mode().Perm())
	}
	li, err := os.Lstat(filepath.Join(o.Root, "CLAUDE.md"))
	must(t, err)
	if li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a symlink")
	}
	agents, err := os.ReadFile(filepath.Join(o.Root, "AGENTS.md"))
	must(t, err)
	if !strings.HasPrefix(string(agents), "# Agents\n\n"+beginMarker) {
		t.Errorf("AGENTS.md:\n%s", agents)
	}
	left, err := filepath.Glob(filepath.Join(o.Root, ".*ctx-*"))
	must(t, err)
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestPlanInvalidWritesNothing: a configuration that does not parse is an
// error naming it, and no file is written, not even the instructions.
func TestPlanInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	o := testOptions(t)
	dir := filepath.Join(o.Root, ".gemini")
	must(t, os.MkdirAll(dir, 0o755))
	bad := "{\n  \"theme\": \"dark\",\n}\n"
	must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(bad), 0o644))
	_, err := Plan(t.Context(), "gemini", o)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "settings.json")+": not valid JSON at line 3") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(o.Root, "GEMINI.md")); !os.IsNotExist(err) {
		t.Errorf("GEMINI.md was written: %v", err)
	}
}

func TestPlanUnknownClient(t *testing.T) {
	t.Parallel()
	_, err := Plan(t.Context(), "emacs", testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "claude, codex, cursor, gemini, vscode") {
		t.Errorf("err = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
