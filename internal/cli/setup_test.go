package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServerCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "ctx")
	link := filepath.Join(dir, "link", "ctx")
	other := filepath.Join(dir, "other", "ctx")
	temp := filepath.Join(dir, "go-build123", "b001", "exe", "ctx")
	for _, p := range []string{exe, other, temp} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		global        bool
		exe, onPath   string
		want, warning string // warning: a substring, "" for none
		usage         bool   // a usage error
	}{
		{name: "project, this ctx on PATH", exe: exe, onPath: exe, want: "ctx"},
		{name: "project, a link to this ctx on PATH", exe: exe, onPath: link, want: "ctx"},
		{name: "project, another ctx on PATH", exe: exe, onPath: other, want: "ctx", warning: "the client will run the ctx on PATH (" + other + "), not this one"},
		{name: "project, none on PATH", exe: exe, want: exe, warning: "ctx is not on PATH"},
		{name: "global, this ctx on PATH", global: true, exe: exe, onPath: exe, want: exe},
		{name: "global, another ctx on PATH", global: true, exe: exe, onPath: other, want: exe},
		{name: "global, none on PATH", global: true, exe: exe, want: exe},
		{name: "temporary build, project, ctx on PATH", exe: temp, onPath: other, want: "ctx", warning: "not this one"},
		{name: "temporary build, global, ctx on PATH", global: true, exe: temp, onPath: other, want: other, warning: "temporary build"},
		{name: "temporary build, none on PATH", exe: temp, usage: true},
		{name: "temporary build, global, none on PATH", global: true, exe: temp, usage: true},
	} {
		got, warning, err := serverCommand(c.global, c.exe, c.onPath)
		if c.usage {
			var fe flagError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "go install ./cmd/ctx") {
				t.Errorf("%s: error %v, want a usage error naming go install", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: command %q, want %q", c.name, got, c.want)
		}
		if (c.warning == "") != (warning == "") || !strings.Contains(warning, c.warning) {
			t.Errorf("%s: warning %q, want one containing %q", c.name, warning, c.warning)
		}
	}
}
