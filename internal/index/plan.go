package index

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/store"
)

// Plan is what an index run of a root would do, judged by size and mtime
// alone (nothing is read): the input of [Run], and what `ctx status`
// reports as changed since the last run.
type Plan struct {
	// Discovered is the number of files the walk returned.
	Discovered int
	// Todo holds the files to read: new, or changed since they were
	// indexed or skipped for their content.
	Todo []discover.File
	// New counts the files of Todo the store has never seen.
	New int
	// Unchanged counts indexed files whose size and mtime match.
	Unchanged int
	// Skips holds the walk's skips and, carried forward, the content skips
	// of unchanged files.
	Skips []discover.Skip
	// ContentSkips counts the skips carried forward: files the walk
	// listed, so Discovered counts them too (see [Plan.SkipShare]).
	ContentSkips int
	// Dirs holds the directories walked with their modification times
	// (see [discover.Result.Dirs]).
	Dirs []discover.Dir
	// Gone lists, sorted, the indexed or skipped paths no longer found.
	Gone []string
	// GoneIndexed counts the paths of Gone that were indexed.
	GoneIndexed int

	stored map[string]store.FileState
}

// NewPlan walks root and compares it with db.
func NewPlan(ctx context.Context, db *store.DB, root string, opts *discover.Options) (*Plan, error) {
	return newPlan(ctx, db, root, opts, nil)
}

// newPlan walks root, or only paths when they are not nil (a run of
// some paths, [Options].Paths): only indexed or skipped paths at or below
// them can then be Gone, and Discovered, Unchanged and Skips describe
// those paths alone.
func newPlan(ctx context.Context, db *store.DB, root string, opts *discover.Options, paths []string) (*Plan, error) {
	// The stored states are read while the tree is walked: on ten copies
	// of the Go standard library (97k files) the walk took 0.8 s and the
	// read 0.2 s, one after the other; a no-change run took 1.31 s
	// (median of 4) before and 1.13 s after.
	var (
		walk    *discover.Result
		stored  map[string]store.FileState
		skipped map[string]store.Skipped
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		if stored, err = db.FileStates(gctx); err != nil {
			return err
		}
		skipped, err = db.SkippedFiles(gctx)
		return err
	})
	var werr error
	if paths == nil {
		walk, werr = discover.Walk(gctx, root, opts)
	} else {
		walk, werr = discover.WalkPaths(gctx, root, paths, opts)
	}
	// A failed read cancels the walk: its error is then the one to tell.
	if gerr := g.Wait(); gerr != nil && (werr == nil || ctx.Err() == nil) {
		return nil, gerr
	}
	if werr != nil {
		return nil, fmt.Errorf("walking %s: %w", root, werr)
	}
	// in reports whether a stored path is within the walked part.
	in := func(string) bool { return true }
	if paths != nil {
		clean := make([]string, len(paths))
		for i, q := range paths {
			clean[i] = path.Clean(q)
		}
		in = func(p string) bool {
			for _, q := range clean {
				if q == "." || p == q || strings.HasPrefix(p, q+"/") {
					return true
				}
			}
			return false
		}
	}
	p := &Plan{Discovered: len(walk.Files), Skips: append([]discover.Skip(nil), walk.Skips...), Dirs: walk.Dirs, stored: stored}
	seen := make(map[string]bool, len(walk.Files))
	for _, f := range walk.Files {
		seen[f.Path] = true
		if s, ok := stored[f.Path]; ok {
			if s.Size == f.Size && s.ModTime == f.ModTime {
				p.Unchanged++
				continue
			}
		} else if s, ok := skipped[f.Path]; ok {
			if s.Size == f.Size && s.ModTime == f.ModTime {
				// Skipped for its content last time and unchanged since.
				p.Skips = append(p.Skips, discover.Skip{Path: f.Path, Reason: discover.Reason(s.Reason), Detail: s.Detail})
				p.ContentSkips++
				continue
			}
		} else {
			p.New++
		}
		p.Todo = append(p.Todo, f)
	}
	for path := range stored {
		if !seen[path] && in(path) {
			p.Gone = append(p.Gone, path)
			p.GoneIndexed++
		}
	}
	for path := range skipped {
		if _, ok := stored[path]; !ok && !seen[path] && in(path) {
			p.Gone = append(p.Gone, path)
		}
	}
	sort.Strings(p.Gone)
	return p, nil
}
