package discover

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckRoot(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		root    string
		home    string
		force   bool
		wantErr bool
	}{
		{"slash", "/", home, false, true},
		{"slash-dotdot", "/tmp/..", home, false, true},
		{"slash-forced", "/", home, true, false},
		{"home", home, home, false, true},
		{"home-trailing-slash", home + "/", home, false, true},
		{"home-through-link", link, home, false, true},
		{"home-forced", home, home, true, false},
		{"home-subdir", filepath.Join(home, "src", "proj"), home, false, false},
		{"home-parent-is-not-home", filepath.Dir(home), home, false, false},
		{"no-home", home, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckRoot(tt.root, tt.home, tt.force)
			if tt.wantErr != (err != nil) {
				t.Fatalf("CheckRoot(%q, %q, %v) = %v, want error %v", tt.root, tt.home, tt.force, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUnsafeRoot) {
				t.Errorf("error %v does not wrap ErrUnsafeRoot", err)
			}
		})
	}
}

func TestFindRoot(t *testing.T) {
	t.Parallel()
	repo := tree(t, `
-- .git/HEAD --
ref: refs/heads/main
-- a/b/c/x.go --
package c
-- wt/.git --
gitdir: ../.git/worktrees/wt
-- wt/d/y.go --
package d
`)
	repo, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := filepath.EvalSymlinks(tree(t, `
-- a/b/x.go --
package b
`))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(repo, "a", "b"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
	}{
		{"top", repo, repo},
		{"nested", filepath.Join(repo, "a", "b", "c"), repo},
		{"through-symlink", link, repo},
		{"git-file", filepath.Join(repo, "wt", "d"), filepath.Join(repo, "wt")},
		{"outside-any", filepath.Join(plain, "a", "b"), filepath.Join(plain, "a", "b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if top, ok := gitTop(filepath.Dir(plain)); ok && tt.want == filepath.Join(plain, "a", "b") {
				t.Skipf("the temporary directory is inside the work tree %s", top)
			}
			got, err := FindRoot(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("FindRoot(%s) = %s, want %s", tt.dir, got, tt.want)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		if got, err := FindRoot(filepath.Join(plain, "nope")); err == nil {
			t.Errorf("FindRoot(missing) = %s, want an error", got)
		}
	})
}
