package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOriginRemote: the origin remote is read from the work tree's git
// configuration (a linked work tree's too) with credentials dropped.
func TestOriginRemote(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	git := filepath.Join(top, ".git")
	if err := os.MkdirAll(git, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://example.com/other.git\n" +
		"[remote \"origin\"]\n\turl = https://x-access-token:ghp_secret@github.com/acme/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	if err := os.WriteFile(filepath.Join(git, "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := originRemote(top), "https://github.com/acme/app.git"; got != want {
		t.Errorf("originRemote = %q, want %q", got, want)
	}

	// A linked work tree: .git is a file naming its git directory, whose
	// commondir is the main one.
	linked := t.TempDir()
	wt := filepath.Join(git, "worktrees", "feature")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: "+wt+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := originRemote(linked), "https://github.com/acme/app.git"; got != want {
		t.Errorf("originRemote(linked) = %q, want %q", got, want)
	}

	for in, want := range map[string]string{
		"git@github.com:acme/app.git":            "git@github.com:acme/app.git",
		"ssh://git@github.com/acme/app.git":      "ssh://github.com/acme/app.git",
		"https://user:pw@example.com/r.git":      "https://example.com/r.git",
		"https://example.com/r.git":              "https://example.com/r.git",
		"https://user:pw@example.com:8443/r.git": "https://example.com:8443/r.git",
	} {
		if got := redactRemote(in); got != want {
			t.Errorf("redactRemote(%q) = %q, want %q", in, got, want)
		}
	}
	if got := originRemote(""); got != "" {
		t.Errorf("originRemote outside a work tree = %q", got)
	}
}
