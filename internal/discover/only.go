package discover

import (
	"context"
	"path"
	"slices"
	"strings"
)

// WalkPaths walks only the given slash paths below root (files or
// directories, as a file watcher reports them) with the rules a whole
// [Walk] applies: the directories on the way to each path are listed and
// their ignore files read, and nothing else is. A path that does not
// exist (deleted, or renamed away) yields neither a file nor a skip; the
// caller compares with what it stored. Paths are cleaned; those that
// escape the root ("..", absolute) are dropped. Errors as for [Walk].
func WalkPaths(ctx context.Context, root string, paths []string, opts *Options) (*Result, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Only = cleanPaths(paths)
	if len(o.Only) == 0 {
		return &Result{}, nil
	}
	return Walk(ctx, root, &o)
}

// cleanPaths returns the paths cleaned, without those outside the root,
// never nil.
func cleanPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// pathSet answers whether a walk restricted to some paths enters an
// entry: a path of the set, one below a path of the set, or a directory
// on the way to one.
type pathSet struct {
	sorted []string // cleaned paths, sorted; "." means everything
}

func newPathSet(paths []string) *pathSet {
	s := &pathSet{sorted: slices.Clone(cleanPaths(paths))}
	slices.Sort(s.sorted)
	s.sorted = slices.Compact(s.sorted)
	return s
}

// wanted reports whether the walk should look at rel.
func (s *pathSet) wanted(rel string) bool {
	// A path of the set, or a directory holding one: paths below rel
	// sort together from rel+"/" on.
	if _, found := slices.BinarySearch(s.sorted, rel); found {
		return true
	}
	if i, _ := slices.BinarySearch(s.sorted, rel+"/"); i < len(s.sorted) && strings.HasPrefix(s.sorted[i], rel+"/") {
		return true
	}
	// Below a path of the set: one of rel's ancestors is in the set.
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if _, ok := slices.BinarySearch(s.sorted, d); ok {
			return true
		}
		if d == "." || d == "/" {
			return false
		}
	}
}

// BuiltinExcluded reports whether a root-relative slash path lies in, or
// is, a directory the built-in rules always exclude by name (version
// control, dependency and cache directories, credential stores), or is a
// version control file: what a file watcher can leave alone before any
// walk has seen the directory. Rules that depend on a directory's
// contents (build output next to its build file, virtualenv markers) and
// ignore files are not consulted; a walk still applies them.
func BuiltinExcluded(rel string) bool {
	parts := strings.Split(path.Clean(rel), "/")
	parent := ""
	for i, name := range parts {
		if i == len(parts)-1 && vcsNames[name] {
			return true
		}
		if _, _, ok := excludedDir(parent, name, nil); ok {
			return true
		}
		parent = name
	}
	return false
}
