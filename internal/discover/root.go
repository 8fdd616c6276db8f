package discover

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrUnsafeRoot is returned by [CheckRoot] for a root that is too broad to
// index without an explicit override: a filesystem root or the home directory
// itself.
var ErrUnsafeRoot = errors.New("unsafe index root")

// CheckRoot refuses to index a filesystem root ("/", or a volume root such as
// C:\) or the user's home directory itself, unless force is set. A
// subdirectory of home is fine. home is passed in by the caller (the config
// package resolves it; nothing else reads the environment); an empty home
// skips that check. Both paths are compared after making them absolute and
// resolving symlinks where they exist. The error wraps [ErrUnsafeRoot].
func CheckRoot(root, home string, force bool) error {
	if force {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("checking root %s: %w", root, err)
	}
	real := resolve(abs)
	if isVolumeRoot(abs) || isVolumeRoot(real) {
		return fmt.Errorf("%s is a filesystem root: %w", root, ErrUnsafeRoot)
	}
	if home == "" {
		return nil
	}
	h, err := filepath.Abs(home)
	if err != nil {
		return fmt.Errorf("checking home %s: %w", home, err)
	}
	if abs == h || real == resolve(h) {
		return fmt.Errorf("%s is the home directory: %w", root, ErrUnsafeRoot)
	}
	return nil
}

// FindRoot returns the top of the git work tree that contains dir: the
// nearest directory at or above it with a .git entry (a directory, or a file
// in linked worktrees and submodules). Outside any work tree it returns dir
// itself. The result is absolute and symlink-resolved; dir must exist.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("finding root of %s: %w", dir, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", fmt.Errorf("finding root of %s: %w", dir, err)
	}
	if top, ok := gitTop(abs); ok {
		return top, nil
	}
	return abs, nil
}

// WorkTree returns the top of the git work tree that contains dir (an
// absolute, clean path): the nearest directory at or above it with a .git
// entry. ok is false outside any work tree.
func WorkTree(dir string) (top string, ok bool) {
	return gitTop(dir)
}

// isVolumeRoot reports whether an absolute, clean path is "/" or a volume
// root.
func isVolumeRoot(p string) bool {
	return filepath.Dir(p) == p
}

// resolve returns p with symlinks resolved, or p itself if that fails.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
