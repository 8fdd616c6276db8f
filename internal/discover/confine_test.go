package discover

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestConfine(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	root := tree(t, `
-- a/b.go --
package a
-- c.go --
package c
`)
	if err := os.WriteFile(filepath.Join(outside, "real.go"), []byte("package real\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	rootLink := filepath.Join(t.TempDir(), "root-link")
	for _, l := range []struct{ target, name string }{
		{outside, filepath.Join(root, "out")},                        // a directory outside
		{filepath.Join(outside, "f"), filepath.Join(root, "out.go")}, // a file outside
		{"c.go", filepath.Join(root, "link.go")},                     // a file inside
		{"../c.go", filepath.Join(root, "a", "l.go")},                // a file inside, from below
		{filepath.Join(outside, "real.go"), filepath.Join(root, "out-real.go")},
		{"a", filepath.Join(root, "adir")},        // a directory inside
		{"../..", filepath.Join(root, "a", "up")}, // up and out
		{filepath.Join(outside, "missing"), filepath.Join(root, "dangling")},
		{root, rootLink},
	} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, root, p string
		want          string // "" means ErrOutsideRoot
	}{
		{"relative", root, "a/b.go", "a/b.go"},
		{"dot", root, ".", "."},
		{"empty", root, "", "."},
		{"inner-dotdot", root, "a/../c.go", "c.go"},
		{"not-yet-existing", root, "a/new/file.go", "a/new/file.go"},
		{"dotdot", root, "..", ""},
		{"dotdot-file", root, "../x", ""},
		{"dotdot-nested", root, "a/../../x", ""},
		{"absolute-inside", root, filepath.Join(root, "a", "b.go"), "a/b.go"},
		{"absolute-root", root, root, "."},
		{"absolute-outside", root, outside, ""},
		{"absolute-etc", root, "/etc/passwd", ""},
		{"absolute-dotdot", root, root + "/../x", ""},
		{"symlink-dir-out", root, "out/f", ""},
		{"symlink-file-out", root, "out.go", ""},
		{"symlink-up", root, "a/up", ""},
		{"symlink-dangling-out", root, "dangling", ""},
		{"symlink-dangling-out-below", root, "dangling/x/y", ""},
		{"symlink-file-in", root, "link.go", "link.go"}, // as Walk lists it
		{"symlink-file-in-below-dir-link", root, "adir/l.go", "a/l.go"},
		{"symlink-file-out-existing", root, "out-real.go", ""},
		{"symlink-dir-in", root, "adir/b.go", "a/b.go"},
		{"root-through-link", rootLink, "a/b.go", "a/b.go"},
		{"absolute-through-root-link", root, filepath.Join(rootLink, "c.go"), "c.go"},
		{"absolute-real-with-link-root", rootLink, filepath.Join(real, "c.go"), "c.go"},
		{"absolute-unresolved-with-link-root", rootLink, filepath.Join(rootLink, "c.go"), "c.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Confine(tt.root, tt.p)
			if tt.want == "" {
				if !errors.Is(err, ErrOutsideRoot) {
					t.Errorf("Confine(%q) = %q, %v; want ErrOutsideRoot", tt.p, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Confine(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
			}
		})
	}
	// ConfineIndexed answers as Confine does for every relative path,
	// given the resolved root.
	for _, tt := range tests {
		if tt.root != root || filepath.IsAbs(tt.p) {
			continue
		}
		t.Run("indexed-"+tt.name, func(t *testing.T) {
			t.Parallel()
			err := ConfineIndexed(real, tt.p)
			if out := errors.Is(err, ErrOutsideRoot); out != (tt.want == "") || !out && err != nil {
				t.Errorf("ConfineIndexed(%q) = %v; want outside %v", tt.p, err, tt.want == "")
			}
		})
	}
	t.Run("missing-root", func(t *testing.T) {
		t.Parallel()
		if _, err := Confine(filepath.Join(root, "nope"), "x"); err == nil || errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Confine(missing root) error = %v, want a not-exist error", err)
		}
	})
}
