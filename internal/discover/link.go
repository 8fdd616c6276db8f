package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// This file decides what a symbolic link found by the walk becomes. A link
// to a regular file inside the repository is listed under its own path,
// the path the user sees, provided its target would be listed too: the
// target is judged by the same rules as if it were walked under its real
// path (ignore files, secrets, name, size), so a link cannot bring an
// ignored or secret file into the index. Everything else is skipped with
// [ReasonSymlink] and a detail that says where the link points.

// pendingLink is a link to a regular file inside the repository, listed
// once its target's own verdict is known (see [walker.resolveLinks]).
type pendingLink struct {
	rel, abs string
	target   string      // absolute and symlink-resolved
	fi       fs.FileInfo // the target's, as os.Stat returns it through the link
}

// link handles a symlink entry that the ignore rules kept: rel and abs are
// the link's own paths.
func (w *walker) link(name, rel, abs string) {
	if w.noLinks {
		w.skip(rel, ReasonSymlink, "not followed while judging link targets", false)
		return
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		dest, _ := os.Readlink(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			w.skip(rel, ReasonSymlink, "dangling: points to "+dest+", which does not exist", false)
		case strings.Contains(err.Error(), "too many links"):
			w.skip(rel, ReasonSymlink, "link loop: points to "+dest, false)
		default:
			w.skip(rel, ReasonSymlink, "unresolvable: points to "+dest+": "+errDetail(err), false)
		}
		return
	}
	fi, err := os.Stat(target)
	if err != nil {
		w.skip(rel, ReasonSymlink, "unresolvable: "+errDetail(err), false)
		return
	}
	repo := w.repo()
	if _, in := within(repo, target); !in {
		w.skip(rel, ReasonSymlink, "points outside the repository: "+target, false)
		return
	}
	shown := target
	if r, in := within(w.root, target); in {
		shown = r
	}
	switch {
	case fi.IsDir():
		w.skip(rel, ReasonSymlink, "directory symlink to "+shown+", not followed (links to directories can loop)", false)
		return
	case !fi.Mode().IsRegular():
		w.skip(rel, ReasonSymlink, "points to special file "+shown, false)
		return
	}
	if reason, d, ok := classifyName(name); ok {
		w.skip(rel, reason, d, false)
		return
	}
	w.links = append(w.links, pendingLink{rel: rel, abs: abs, target: target, fi: fi})
}

// repo returns the boundary a link target must stay within: the top of the
// git work tree that encloses the root, else the root itself.
func (w *walker) repo() string {
	if w.repoTop == "" {
		w.repoTop = w.root
		if top, ok := gitTop(w.root); ok {
			w.repoTop = top
		}
	}
	return w.repoTop
}

// resolveLinks lists or skips each pending link by its target's verdict.
// The targets are walked with [Options.Only]: those inside the root from
// the root, with this walk's options, and those elsewhere in the work tree
// from its top, without [Options.Exclude], whose patterns are relative to
// the root and cannot name them. Those walks do not follow links, so link
// resolution never recurses.
func (w *walker) resolveLinks(ctx context.Context) error {
	if len(w.links) == 0 {
		return nil
	}
	var inRoot, inRepo []string
	for _, l := range w.links {
		if r, ok := within(w.root, l.target); ok {
			inRoot = append(inRoot, r)
		} else if r, ok := within(w.repo(), l.target); ok {
			inRepo = append(inRepo, r)
		}
	}
	rootVerdicts, err := w.judge(ctx, w.root, inRoot, w.opts.Exclude)
	if err != nil {
		return err
	}
	repoVerdicts, err := w.judge(ctx, w.repo(), inRepo, nil)
	if err != nil {
		return err
	}
	for _, l := range w.links {
		verdicts, shown := rootVerdicts, ""
		r, ok := within(w.root, l.target)
		if ok {
			shown = r
		} else {
			verdicts, shown = repoVerdicts, l.target
			r, _ = within(w.repo(), l.target)
		}
		v, found := verdicts.of(r)
		switch {
		case !found:
			w.skip(l.rel, ReasonUnreadable, "link target "+shown+" vanished during the walk", false)
		case v != nil:
			w.skip(l.rel, v.Reason, "link to "+shown+": "+v.Detail, false)
		default:
			w.res.Files = append(w.res.Files, File{
				Path:     l.rel,
				Abs:      l.abs,
				Size:     l.fi.Size(),
				ModTime:  l.fi.ModTime().UnixNano(),
				Language: Language(l.rel),
			})
		}
	}
	return nil
}

// verdicts holds what a walk restricted to some targets found: listed
// files, and skips by path (a skipped directory covers what is below it).
type verdicts struct {
	files map[string]bool
	skips map[string]*Skip
}

// of returns the verdict on the file at rel: nil and true when it is
// listed, its skip or that of a directory above it, or false when the walk
// saw neither (the file vanished).
func (v verdicts) of(rel string) (*Skip, bool) {
	if v.files[rel] {
		return nil, true
	}
	for p := rel; ; p = path.Dir(p) {
		if s, ok := v.skips[p]; ok {
			return s, true
		}
		if p == "." || p == "/" {
			return nil, false
		}
	}
}

// judge walks only the targets (slash paths relative to dir) with this
// walk's options but exclude, and no link resolution.
func (w *walker) judge(ctx context.Context, dir string, targets, exclude []string) (verdicts, error) {
	v := verdicts{files: map[string]bool{}, skips: map[string]*Skip{}}
	if len(targets) == 0 {
		return v, nil
	}
	opts := w.opts
	opts.Exclude, opts.Only = exclude, targets
	sub := newWalker(&opts)
	sub.noLinks = true
	res, err := sub.walk(ctx, dir)
	if err != nil {
		return v, fmt.Errorf("judging link targets: %w", err)
	}
	for _, f := range res.Files {
		v.files[f.Path] = true
	}
	for i := range res.Skips {
		v.skips[res.Skips[i].Path] = &res.Skips[i]
	}
	return v, nil
}
