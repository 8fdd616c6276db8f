package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// ErrCacheDir means the cache directory, where the index databases live,
// cannot be created, read or written by this process (no permission, a
// read-only file system, a path through a regular file, an index file
// SQLite cannot open): the fix is its permissions, or another directory in
// --cache-dir or CTX_CACHE_DIR. The error wraps the cause.
var ErrCacheDir = errors.New("cache directory not usable")

// cacheDirError is an [ErrCacheDir] error: the cause, then the directory
// and the fixes.
type cacheDirError struct {
	dir string
	err error
}

func (e *cacheDirError) Error() string {
	return fmt.Sprintf("%v; ctx cannot use its cache directory %s (where indexes are kept): fix its permissions, or use another with --cache-dir DIR or CTX_CACHE_DIR", e.err, e.dir)
}

func (e *cacheDirError) Unwrap() error        { return e.err }
func (e *cacheDirError) Is(target error) bool { return target == ErrCacheDir }

// cacheDirErr wraps err, a failure to use the cache directory dir, as an
// [ErrCacheDir] error; nil stays nil.
func cacheDirErr(dir string, err error) error {
	if err == nil {
		return nil
	}
	return &cacheDirError{dir: dir, err: err}
}

// fsRefused reports whether err is the file system refusing a path: no
// permission, a read-only file system, a path through a regular file.
func fsRefused(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}

// openErr is the error of opening the index file itself: [ErrCacheDir]
// when the file system refuses it.
func (e *Engine) openErr(err error) error {
	err = fmt.Errorf("opening index %s: %w", e.dbPath, err)
	if fsRefused(err) {
		return cacheDirErr(dirOf(e.dbPath), err)
	}
	return err
}
