package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ctx-dev/ctx/internal/discover"
)

// ErrTooManyFiles means a root that is not inside a git work tree and has
// no index holds more files than config.Config.NonRepoMaxFiles: ctx does
// not index it (ctx index, the first find, a server's first run) without
// Force. The error is a [*TooManyFilesError]; the fixes are --force, or a
// root inside the repository meant.
var ErrTooManyFiles = errors.New("too many files to index outside a repository")

// TooManyFilesError is the [ErrTooManyFiles] refusal of one root.
type TooManyFilesError struct {
	// Root is the refused root (absolute).
	Root string
	// Found is how many indexable files the walk had listed when it
	// stopped, Max the limit it passed (Found is Max+1: the walk stops at
	// the first file over the limit).
	Found, Max int
}

func (e *TooManyFilesError) Error() string {
	return fmt.Sprintf("not indexing %s: it is not inside a git work tree and holds more than %d files to index (the count stopped at %d; the limit is CTX_NON_REPO_MAX_FILES); pass --force to index it anyway, or run ctx inside the repository you meant, or pass --repo DIR",
		e.Root, e.Max, e.Found)
}

// Is makes errors.Is(err, [ErrTooManyFiles]) true.
func (e *TooManyFilesError) Is(target error) bool { return target == ErrTooManyFiles }

// WorkTree returns the top of the git work tree that holds the root, ""
// when the root is not inside one (then a first index is capped; see
// [Engine.CheckFirstIndex]).
func (e *Engine) WorkTree() string {
	top, _ := discover.WorkTree(e.root)
	return top
}

// HasIndex reports whether the root has an index database, possibly one
// whose first run did not finish.
func (e *Engine) HasIndex() bool {
	_, err := os.Stat(e.dbPath)
	return err == nil
}

// CheckFirstIndex returns a [*TooManyFilesError] when indexing the root
// now would be a first index of a tree outside any git work tree with
// more than config.Config.NonRepoMaxFiles indexable files, and Force is
// off. It counts them with a walk that applies the index's rules and
// stops at the first file over the limit, so a huge directory (a home or
// temporary directory) costs no more than the limit's worth of files. It
// returns nil at once for a root inside a work tree, a root with an
// index, Force or a limit of 0, and for a root it has passed before.
// Other errors: the walk's (ctx done, root gone).
func (e *Engine) CheckFirstIndex(ctx context.Context) error {
	max := e.cfg.NonRepoMaxFiles
	if e.cfg.Force || max <= 0 || e.sizeChecked.Load() || e.HasIndex() || e.WorkTree() != "" {
		return nil
	}
	opts := walkOptions(e.cfg)
	opts.MaxFiles = max
	if _, err := discover.Walk(ctx, e.root, opts); errors.Is(err, discover.ErrTooManyFiles) {
		return &TooManyFilesError{Root: e.root, Found: max + 1, Max: max}
	} else if err != nil {
		return err
	}
	e.sizeChecked.Store(true)
	return nil
}
