package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrAccess is returned (wrapped) by [Open] when the database file or its
// directory cannot be created, opened or written: no permission, a
// read-only file system, a path through a regular file, or a file SQLite
// cannot open (SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM). The error
// keeps its own text and cause.
var ErrAccess = errors.New("index file not accessible")

// accessError marks an error as [ErrAccess] without changing its text.
type accessError struct{ error }

func (e accessError) Unwrap() error        { return e.error }
func (e accessError) Is(target error) bool { return target == ErrAccess }

// markAccess returns err marked as [ErrAccess] when it is an access
// problem (see [ErrAccess]), else err; nil stays nil.
func markAccess(err error) error {
	if err == nil || errors.Is(err, ErrAccess) || !isAccess(err) {
		return err
	}
	return accessError{err}
}

// sqlErr is the error of a SQLite call made for op: the driver's message
// (%v: callers do not branch on the driver's types), marked as [ErrAccess]
// when SQLite could not open or write the file.
func sqlErr(op string, err error) error {
	e := fmt.Errorf("%s: %v", op, err)
	switch {
	case isAccess(err):
		return accessError{e}
	case isCorrupt(err):
		return corruptError{e}
	}
	return e
}

// corruptError marks an error as [ErrCorrupt] without changing its text.
type corruptError struct{ error }

func (e corruptError) Unwrap() error        { return e.error }
func (e corruptError) Is(target error) bool { return target == ErrCorrupt }

// isCorrupt reports whether SQLite found the database damaged or not a
// database at all.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

func isAccess(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		// Extended result codes keep the primary code in the low byte.
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return true
		}
		return false
	}
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}
