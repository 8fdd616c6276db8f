package discover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultMaxFileBytes is the size cap used when [Options.MaxFileBytes] is 0.
const DefaultMaxFileBytes = 1 << 20

// Options tunes [Walk]. A nil *Options means the defaults.
type Options struct {
	// MaxFileBytes is the size cap in bytes: larger files are skipped with
	// [ReasonTooLarge]. Zero means [DefaultMaxFileBytes] (1 MiB).
	MaxFileBytes int64
	// IncludeSecrets indexes files that look like credentials too. Off by
	// default: such files are skipped with [ReasonSecret].
	IncludeSecrets bool
	// Exclude holds extra gitignore-syntax patterns relative to the root,
	// from the configuration. Matches are skipped with [ReasonCtxignore].
	Exclude []string
	// NoIgnore disregards .gitignore files and .git/info/exclude. The
	// built-in excludes, .ctxignore files and Exclude still apply.
	NoIgnore bool
	// Only restricts a walk to these slash paths relative to the root
	// (files or directories; a directory means everything under it), as
	// a watcher's batch names them. Directories on the way are listed
	// and their ignore files read, so each path gets exactly the rules a
	// whole walk would apply. Nil walks everything. See [WalkPaths].
	Only []string
	// MaxFiles, when positive, stops the walk as soon as it has listed
	// more than this many indexable files: Walk then fails with
	// [ErrTooManyFiles], having read no more of the tree.
	MaxFiles int
}

// ErrTooManyFiles is returned (wrapped) by [Walk] when the walk lists more
// than [Options.MaxFiles] files.
var ErrTooManyFiles = errors.New("too many files")

// File is one indexable file.
type File struct {
	Path     string // slash-separated, relative to the root
	Abs      string // absolute OS path below the symlink-resolved root
	Size     int64  // bytes
	ModTime  int64  // Unix nanoseconds
	Language string // Language(Path)
}

// Skip records a path that [Walk] or [Sniff] left out.
type Skip struct {
	// Path is slash-separated and relative to the root; "." is the root. A
	// skipped directory counts once: its contents are not walked.
	Path string
	// Reason says which rule skipped the path.
	Reason Reason
	// Detail is for humans: the matching pattern and its file, the size, the
	// link target or the OS error.
	Detail string
	// Dir is set when Path is a directory.
	Dir bool
}

// Result is what [Walk] found.
type Result struct {
	Files []File // sorted by Path
	Skips []Skip // sorted by Path
	// Dirs holds each directory the walk listed ("." is the root), with
	// its modification time read just before the listing: a file added,
	// removed or renamed in it later changes that time, which is how a
	// reader without a watcher tells that the index missed a new file.
	// Sorted by Path.
	Dirs []Dir
}

// Dir is a listed directory and its modification time then.
type Dir struct {
	Path    string // slash-separated, relative to the root; "." is the root
	ModTime int64  // Unix nanoseconds
}

// SkipCounts returns how many paths were skipped for each reason. A skipped
// directory counts once.
func (r *Result) SkipCounts() map[Reason]int {
	m := make(map[Reason]int)
	for _, s := range r.Skips {
		m[s.Reason]++
	}
	return m
}

// Walk lists the indexable files under root, which is resolved to an absolute
// path without symlinks first. It applies the rules of the package
// documentation and takes sizes and modification times from the directory
// listing: it reads ignore files but not the files it lists (see [Sniff]).
// Directories are listed in order, one at a time, and ctx is checked between
// them.
//
// Per-path problems become [Skip]s, never errors. Walk returns an error only
// when ctx is done or root does not exist or is not a directory.
func Walk(ctx context.Context, root string, opts *Options) (*Result, error) {
	return newWalker(opts).walk(ctx, root)
}

// walker holds the state of one walk.
type walker struct {
	opts    Options
	root    string   // absolute and symlink-resolved
	prefix  []string // root below the enclosing git work tree's top, the base of git rules
	res     Result
	only    *pathSet      // the Only paths; nil: the whole tree
	links   []pendingLink // links to regular files in the repository, judged after the walk (link.go)
	repoTop string        // the boundary of link targets, set on first use (see walker.repo)
	noLinks bool          // skip every link unresolved: set while judging link targets
	readDir func(dir string) ([]fs.DirEntry, error)
	// info returns the lstat information of an entry; tests replace it to
	// delete files between the listing and the lstat.
	info func(e fs.DirEntry, abs string) (fs.FileInfo, error)
}

func newWalker(opts *Options) *walker {
	w := &walker{
		readDir: os.ReadDir,
		info:    func(e fs.DirEntry, _ string) (fs.FileInfo, error) { return e.Info() },
	}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.Only != nil {
		w.only = newPathSet(w.opts.Only)
	}
	if w.opts.MaxFileBytes <= 0 {
		w.opts.MaxFileBytes = DefaultMaxFileBytes
	}
	return w
}

func (w *walker) walk(ctx context.Context, root string) (*Result, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("walking %s: not a directory", root)
	}
	w.root = abs

	var git rules
	if !w.opts.NoIgnore {
		git, w.prefix = outerRules(abs)
	}
	ctxRules := rules(nil).with(parseIgnore([]byte(strings.Join(w.opts.Exclude, "\n")), "config exclude", nil))
	if err := w.dir(ctx, ".", abs, nil, git, ctxRules); err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	if err := w.resolveLinks(ctx); err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	slices.SortFunc(w.res.Files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	slices.SortFunc(w.res.Skips, func(a, b Skip) int { return cmp.Compare(a.Path, b.Path) })
	slices.SortFunc(w.res.Dirs, func(a, b Dir) int { return cmp.Compare(a.Path, b.Path) })
	return &w.res, nil
}

// dir walks one directory. rel is its slash path ("." for the root), comps
// the same as components (nil for the root); git and ctxRules are the rules
// inherited from the parent.
func (w *walker) dir(ctx context.Context, rel, abs string, comps []string, git, ctxRules rules) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dfi, statErr := os.Stat(abs)
	entries, err := w.readDir(abs)
	if err != nil {
		w.skip(rel, ReasonUnreadable, errDetail(err), true)
		return nil
	}
	if rel != "." {
		for _, e := range entries {
			if d, ok := dirMarkers[e.Name()]; ok {
				w.skip(rel, ReasonExcluded, d, true)
				return nil
			}
		}
	}

	if statErr == nil {
		w.res.Dirs = append(w.res.Dirs, Dir{Path: rel, ModTime: dfi.ModTime().UnixNano()})
	}

	// This directory's ignore files extend the inherited rules. Ignore
	// files behind symlinks are not read, as in git.
	gitDomain := append(w.prefix[:len(w.prefix):len(w.prefix)], comps...)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		switch e.Name() {
		case gitignoreFile:
			if !w.opts.NoIgnore {
				git = git.with(readIgnore(filepath.Join(abs, gitignoreFile), join(rel, gitignoreFile), gitDomain))
			}
		case ctxignoreFile:
			ctxRules = ctxRules.with(readIgnore(filepath.Join(abs, ctxignoreFile), join(rel, ctxignoreFile), comps))
		}
	}

	// gitPath and ctxPath are reused for every entry: the matcher does not
	// keep them.
	gitPath := append(gitDomain, "")
	ctxPath := gitPath[len(w.prefix):]
	// dirName is this directory's own name, which some secret rules need
	// (.docker/config.json, .kube/config).
	dirName := filepath.Base(abs)
	for _, e := range entries {
		name := e.Name()
		childRel := join(rel, name)
		childAbs := filepath.Join(abs, name)
		gitPath[len(gitPath)-1] = name
		if w.only != nil && !w.only.wanted(childRel) {
			continue
		}
		typ := e.Type()
		isDir := typ.IsDir()

		if rel == "." && rootMarkers[name] {
			w.skip(childRel, ReasonExcluded, "benchmark checkout marker", isDir)
			continue
		}
		if isDir {
			if reason, d, ok := excludedDir(dirName, name, entries); ok && !(reason == ReasonSecret && w.opts.IncludeSecrets) {
				w.skip(childRel, reason, d, true)
				continue
			}
		} else if vcsNames[name] {
			w.skip(childRel, ReasonExcluded, "version control", false)
			continue
		}
		if !isDir && !w.opts.IncludeSecrets {
			if d, ok := secretFile(dirName, name, entries); ok {
				w.skip(childRel, ReasonSecret, d, false)
				continue
			}
		}
		if src, ok := git.match(gitPath, isDir); ok {
			w.skip(childRel, ReasonGitignore, src, isDir)
			continue
		}
		if src, ok := ctxRules.match(ctxPath, isDir); ok {
			w.skip(childRel, ReasonCtxignore, src, isDir)
			continue
		}

		switch {
		case isDir:
			child := make([]string, len(ctxPath))
			copy(child, ctxPath)
			if err := w.dir(ctx, childRel, childAbs, child, git, ctxRules); err != nil {
				return err
			}
		case typ&fs.ModeSymlink != 0:
			w.link(name, childRel, childAbs) // link.go
		case typ.IsRegular():
			w.file(e, childRel, childAbs)
			if w.overMax() {
				return fmt.Errorf("more than %d files: %w", w.opts.MaxFiles, ErrTooManyFiles)
			}
		default:
			w.skip(childRel, ReasonSpecial, typeName(typ), false)
		}
	}
	return nil
}

// file applies the name, size and readability rules to a regular file and
// records it as a [File] or a [Skip].
func (w *walker) file(e fs.DirEntry, rel, abs string) {
	if reason, d, ok := classifyName(e.Name()); ok {
		w.skip(rel, reason, d, false)
		return
	}
	fi, err := w.info(e, abs)
	if err != nil {
		w.skip(rel, ReasonUnreadable, errDetail(err), false)
		return
	}
	if !fi.Mode().IsRegular() {
		// Replaced by something else since the directory was read.
		w.skip(rel, ReasonUnreadable, "changed type during the walk", false)
		return
	}
	if fi.Size() > w.opts.MaxFileBytes {
		w.skip(rel, ReasonTooLarge, fmt.Sprintf("%d bytes > %d", fi.Size(), w.opts.MaxFileBytes), false)
		return
	}
	if err := checkReadable(abs, fi); err != nil {
		w.skip(rel, ReasonUnreadable, errDetail(err), false)
		return
	}
	w.res.Files = append(w.res.Files, File{
		Path:     rel,
		Abs:      abs,
		Size:     fi.Size(),
		ModTime:  fi.ModTime().UnixNano(),
		Language: Language(rel),
	})
}

// overMax reports whether the walk has listed more files than
// [Options.MaxFiles] allows.
func (w *walker) overMax() bool {
	return w.opts.MaxFiles > 0 && len(w.res.Files) > w.opts.MaxFiles
}

func (w *walker) skip(rel string, reason Reason, detail string, dir bool) {
	w.res.Skips = append(w.res.Skips, Skip{Path: rel, Reason: reason, Detail: detail, Dir: dir})
}

// within reports whether path lies inside (or is) root, both absolute and
// clean, and returns it relative to root with slashes.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// join joins a slash path relative to the root with a name.
func join(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// errDetail shortens an OS error to its cause: the path is in the Skip.
func errDetail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "vanished during the walk"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// typeName names a non-regular file type.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}
