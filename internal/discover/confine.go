package discover

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is returned by [Confine] for a path that leaves the indexed
// root.
var ErrOutsideRoot = errors.New("path is outside the indexed root")

// Confine resolves p, a path a client passed in, against the indexed root and
// returns it slash-separated and relative to the symlink-resolved root ("."
// for the root itself). A relative p is taken relative to root; an absolute p
// may name root through any of its spellings.
//
// Symlinks are resolved, so the result names the real file, the same path
// [Walk] lists it under; the part of p that does not exist yet is kept as
// written. Confine fails with an error wrapping [ErrOutsideRoot] when p
// escapes root lexically (a relative path with "..", such as "../x" or
// "a/../../x") or through a symlink. It does not require p to exist, but root
// must.
func Confine(root, p string) (string, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("confining %s: %w", p, err)
	}
	rootReal, err := filepath.EvalSymlinks(rootAbs)
	if err != nil {
		return "", fmt.Errorf("confining %s: %w", p, err)
	}

	var cand string
	if filepath.IsAbs(p) {
		cand = filepath.Clean(p)
		// Rebase a path written under the unresolved root.
		if rel, ok := within(rootAbs, cand); ok {
			cand = filepath.Join(rootReal, filepath.FromSlash(rel))
		}
	} else {
		clean := filepath.Clean(filepath.FromSlash(p))
		if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || filepath.VolumeName(clean) != "" {
			return "", fmt.Errorf("confining %s: %w", p, ErrOutsideRoot)
		}
		cand = filepath.Join(rootReal, clean)
	}

	real, err := resolveExisting(cand)
	if err != nil {
		return "", fmt.Errorf("confining %s: %w", p, err)
	}
	rel, ok := within(rootReal, real)
	if !ok {
		return "", fmt.Errorf("confining %s: %w", p, ErrOutsideRoot)
	}
	return rel, nil
}

// resolveExisting resolves the symlinks in the longest existing prefix of the
// absolute, clean path p and appends the rest unchanged; a path that does
// not exist cannot hold symlinks. A dangling symlink is resolved as far as
// it goes, so a link that points outside the root is caught even when its
// target does not exist.
func resolveExisting(p string) (string, error) {
	var rest []string
	for hops := 0; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// p itself may be a dangling link: follow it by hand.
		if dest, lerr := os.Readlink(p); lerr == nil {
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(p), dest)
			}
			if hops++; hops > 255 {
				return "", fmt.Errorf("too many levels of symbolic links")
			}
			p = filepath.Clean(dest)
			continue
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
