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
// The result is the path [Walk] lists the file under. Directory symlinks are
// resolved, so a path through one names the real file; a symlink to a
// regular file that lies in the repository (the git work tree that holds
// root, else root; see [Walk]) keeps its own name, as Walk lists it. The
// part of p that does not exist yet is kept as written. Confine fails with
// an error wrapping [ErrOutsideRoot] when p escapes root lexically (a
// relative path with "..", such as "../x" or "a/../../x") or through a
// symlink, a file symlink whose target leaves the repository included. It
// does not require p to exist, but root must.
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

	if rel, ok, err := confineLink(rootReal, cand); ok || err != nil {
		if err != nil {
			return "", fmt.Errorf("confining %s: %w", p, err)
		}
		return rel, nil
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

// confineLink handles a cand (absolute and clean) that is a symlink to a
// regular file: it returns the link's path relative to rootReal, with the
// directories above it resolved, when both the link and its target are
// inside, and ErrOutsideRoot when the target leaves the repository. ok is
// false for anything else, which [Confine] resolves as usual.
func confineLink(rootReal, cand string) (rel string, ok bool, err error) {
	if fi, err := os.Lstat(cand); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", false, nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(cand))
	if err != nil {
		return "", false, nil
	}
	dirRel, in := within(rootReal, dir)
	if !in {
		return "", false, nil
	}
	target, err := filepath.EvalSymlinks(cand)
	if err != nil {
		return "", false, nil
	}
	if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
		return "", false, nil
	}
	repo := rootReal
	if top, ok := gitTop(rootReal); ok {
		repo = top
	}
	if _, in := within(repo, target); !in {
		return "", true, ErrOutsideRoot
	}
	return join(dirRel, filepath.Base(cand)), true, nil
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

// ConfineIndexed is [Confine] for reading back an indexed file: rel is a
// slash path relative to rootReal, an absolute, symlink-resolved root. It
// returns nil when rel is inside the repository and an error wrapping
// [ErrOutsideRoot] when it leaves it, as Confine would. When rel is clean
// and every component of it below the root exists and is no symlink (the
// common case), rel names rootReal/rel itself and one Lstat per component
// decides, without resolving the root and the whole path again; anything
// else (a link on the way, a missing component, "..") goes through
// Confine.
func ConfineIndexed(rootReal, rel string) error {
	native := filepath.FromSlash(rel)
	if rel == "" || filepath.IsAbs(native) || filepath.Clean(native) != native ||
		native == ".." || strings.HasPrefix(native, ".."+string(filepath.Separator)) || filepath.VolumeName(native) != "" {
		_, err := Confine(rootReal, rel)
		return err
	}
	p := rootReal
	for comp := range strings.SplitSeq(native, string(filepath.Separator)) {
		p += string(filepath.Separator) + comp
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			_, err := Confine(rootReal, rel)
			return err
		}
	}
	return nil
}
