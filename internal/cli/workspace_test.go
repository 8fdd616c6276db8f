package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/workspace"
)

// workspaceFixture makes a user file with workspace "w" of three members
// (two sharing a base name) and returns their roots.
func workspaceFixture(t *testing.T) (uf string, roots []string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/api", "b/api", "web"} {
		p := filepath.Join(base, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, p)
	}
	w, err := workspace.Add("w", roots)
	if err != nil {
		t.Fatal(err)
	}
	return w.File, roots
}

func TestWorkspaceShow(t *testing.T) {
	uf, roots := workspaceFixture(t)
	fake := func(_ context.Context, root string) (memberIndex, error) {
		switch root {
		case roots[0]:
			return memberIndex{Indexed: true, Fresh: true, Files: 12, Generation: 3}, nil
		case roots[1]:
			return memberIndex{Indexed: true, Files: 4, Generation: 1, Note: "2 files changed since indexed"}, nil
		}
		return memberIndex{Note: "not indexed"}, nil
	}
	tests := []struct {
		name   string
		json   bool
		outTTY bool
		want   string
	}{
		{name: "tty", outTTY: true, want: "workspace w (" + uf + ")\n" +
			"  a/api  " + roots[0] + "  fresh (12 files, generation 3)\n" +
			"  b/api  " + roots[1] + "  indexed, not fresh: 2 files changed since indexed\n" +
			"  web    " + roots[2] + "    not indexed\n"},
		{name: "pipe", want: "a/api\t" + roots[0] + "\ttrue\ttrue\t\n" +
			"b/api\t" + roots[1] + "\ttrue\tfalse\t2 files changed since indexed\n" +
			"web\t" + roots[2] + "\tfalse\tfalse\tnot indexed\n"},
		{name: "json", json: true, want: `{
  "name": "w",
  "file": "` + uf + `",
  "members": [
    {
      "name": "a/api",
      "root": "` + roots[0] + `",
      "indexed": true,
      "fresh": true,
      "files": 12,
      "generation": 3
    },
    {
      "name": "b/api",
      "root": "` + roots[1] + `",
      "indexed": true,
      "fresh": false,
      "files": 4,
      "generation": 1,
      "note": "2 files changed since indexed"
    },
    {
      "name": "web",
      "root": "` + roots[2] + `",
      "indexed": false,
      "fresh": false,
      "files": 0,
      "generation": 0,
      "note": "not indexed"
    }
  ]
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			deps := &Deps{IO: IO{Out: &out, ErrOut: &out, OutTTY: tt.outTTY}, repo: t.TempDir()}
			opts := &workspaceShowOptions{deps: deps, name: "w", json: tt.json, status: fake}
			if err := runWorkspaceShow(t.Context(), opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}

	// A member whose status fails fails the command, naming the member.
	boom := errors.New("boom")
	deps := &Deps{IO: IO{Out: new(bytes.Buffer), ErrOut: new(bytes.Buffer)}, repo: t.TempDir()}
	err := runWorkspaceShow(t.Context(), &workspaceShowOptions{deps: deps, name: "w",
		status: func(context.Context, string) (memberIndex, error) { return memberIndex{}, boom }})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "member ") {
		t.Errorf("show with a failing status: %v, want member …: boom", err)
	}
}

func TestWorkspaceExitCodes(t *testing.T) {
	_, roots := workspaceFixture(t)
	repo := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "ls tty", args: []string{"workspace", "ls"}, stdout: "w\t3\t"},
		{name: "missing", args: []string{"workspace", "show", "nope"}, code: exitError, stderr: `workspace "nope": no such workspace (have w)`},
		{name: "bad name", args: []string{"workspace", "add", "a/b", roots[2]}, code: exitUsage, stderr: "invalid workspace name"},
		{name: "bad show name", args: []string{"workspace", "show", "a b"}, code: exitUsage, stderr: "invalid workspace name"},
		{name: "no paths", args: []string{"workspace", "add", "w"}, code: exitUsage, stderr: "needs a NAME and at least one PATH"},
		{name: "rm no name", args: []string{"workspace", "rm"}, code: exitUsage, stderr: "workspace rm needs a NAME"},
		{name: "not a dir", args: []string{"workspace", "add", "w", filepath.Join(repo, "nope")}, code: exitError, stderr: "adding " + filepath.Join(repo, "nope")},
		{name: "rm member", args: []string{"workspace", "rm", "w", "web"}, stdout: "removed 1 member from workspace w\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"--repo", repo}, tt.args...)
			code := Run(t.Context(), args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q, want it to contain %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", errOut.String(), tt.stderr)
			}
		})
	}
}
