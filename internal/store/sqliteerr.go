package store

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// classedErr keeps an SQLite error's text but not its driver type, and
// matches the class it belongs to ([ErrCantOpen], [ErrCorrupt]).
type classedErr struct {
	text  string
	class error
}

func (e *classedErr) Error() string { return e.text }
func (e *classedErr) Unwrap() error { return e.class }

// sqliteClass returns err with its driver type hidden (callers wrap it
// with %w): an error of the classes callers branch on (a database that
// cannot be opened or written, a damaged one) matches its sentinel; any
// other error matches nothing.
func sqliteClass(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return &classedErr{text: err.Error()}
	}
	switch se.Code() & 0xff { // the primary result code
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_READONLY:
		return &classedErr{text: err.Error(), class: ErrCantOpen}
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return &classedErr{text: err.Error(), class: ErrCorrupt}
	}
	return &classedErr{text: err.Error()}
}
