//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a waiting indexer retries the lock.
const lockPoll = 50 * time.Millisecond

// lockIndex takes the root's exclusive index lock (an flock on
// dbPath+".lock"), waiting while another process or goroutine holds it, so
// two index runs of one root never write at once: the second waits, then
// finds the work done and runs incrementally. The lock dies with its
// process. The returned func releases it.
func lockIndex(ctx context.Context, dbPath string, waiting func()) (func(), error) {
	if err := os.MkdirAll(dirOf(dbPath), 0o755); err != nil {
		return nil, cacheDirErr(dirOf(dbPath), fmt.Errorf("creating index directory: %w", err))
	}
	f, err := os.OpenFile(dbPath+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, cacheDirErr(dirOf(dbPath), fmt.Errorf("opening index lock: %w", err))
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking index: %w", err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// indexRunning reports whether an index run of the root holds its lock
// now. It probes with a shared lock, taken and dropped at once, so it
// never waits; a run that starts during the probe waits one poll.
func indexRunning(dbPath string) bool {
	f, err := os.Open(dbPath + ".lock")
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
