//go:build !unix

package engine

import "context"

// lockIndex is a no-op where flock is not available; SQLite's own locking
// still keeps concurrent index runs correct, only not free of double work.
func lockIndex(ctx context.Context, dbPath string, waiting func()) (func(), error) {
	return func() {}, nil
}

// indexRunning cannot tell where flock is not available: it reports no run,
// so an interrupted-or-running index is always reported as interrupted.
func indexRunning(dbPath string) bool { return false }
