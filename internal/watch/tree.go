package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// process folds items into the pending set, in order. It runs on Run's
// goroutine and does its file system work without holding w.mu.
func (w *Watcher) process(items []item) {
	var acc []string // paths not yet in pending
	evs := 0         // events behind acc
	commit := func() {
		if len(acc) == 0 && evs == 0 {
			return
		}
		now := time.Now()
		w.mu.Lock()
		w.markLocked(now)
		for _, p := range acc {
			w.pending[p] = struct{}{}
		}
		w.pendEvs += evs
		w.st.Events += int64(evs)
		w.st.Watched = len(w.watched)
		w.mu.Unlock()
		acc, evs = acc[:0], 0
	}
	for _, it := range items {
		if w.fsw == nil {
			break // switched to polling: the Full batch covers the rest
		}
		if it.err != nil {
			commit()
			w.distrust(it.err)
			continue
		}
		if seq, ok := w.barrierSeq(it.ev.Name); ok {
			if it.ev.Has(fsnotify.Create) {
				// Everything read before the barrier must be pending
				// before its waiters are released.
				commit()
				w.reached(seq)
				os.Remove(it.ev.Name)
			}
			continue
		}
		paths, err := w.event(it.ev, acc)
		if err != nil {
			commit()
			w.toPolling(w.limitReason(err))
			break
		}
		if len(paths) > len(acc) {
			evs++
		}
		acc = paths
	}
	commit()
	if w.rewatchWanted && w.fsw != nil {
		// Rewatch now, not at the Full batch: directories created from
		// here on must produce events, or the Full scan could be the last
		// to see their files. One walk serves every error in items.
		w.rewatchWanted = false
		if err := w.rewatch(); err != nil {
			w.toPolling(w.limitReason(err))
			return
		}
		w.mu.Lock()
		w.st.Watched = len(w.watched)
		w.mu.Unlock()
	}
}

// event appends to acc the paths that ev makes pending and keeps the
// watches in step: a directory that appears is watched and scanned, one
// that goes away is unwatched. The error is a watch-limit error.
func (w *Watcher) event(ev fsnotify.Event, acc []string) ([]string, error) {
	rel, ok := w.rel(ev.Name)
	if !ok {
		return acc, nil
	}
	if ev.Op&^fsnotify.Chmod == 0 {
		// Attribute changes (chmod, touch, and Linux's link-count change
		// before a Remove) do not change what is indexed.
		return acc, nil
	}
	if rel == "" {
		// The root itself was removed or moved away; its watch is gone.
		w.distrust(fmt.Errorf("root %s was removed or renamed (%s)", w.root, ev.Op))
		return acc, nil
	}
	created := ev.Has(fsnotify.Create)
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	dir := w.watched[rel] || w.ignoredDirs[rel]
	isDir := false // a directory exists at rel now
	if created {
		// Lstat, so a symbolic link to a directory is reported, not
		// followed, as the index does. A path already gone is taken for a
		// file: fsnotify drops inotify's IN_ISDIR, so a directory that an
		// ignore rule matches only as a directory (node_modules/) and that
		// vanished before its event was read is reported. That costs a
		// batch with a missing path; ignoring it could leave a deleted
		// file in the index.
		fi, err := os.Lstat(ev.Name)
		isDir = err == nil && fi.IsDir()
		dir = dir || isDir
	}
	if w.ignore(rel, dir) {
		if created && isDir {
			w.ignoredDirs[rel] = true
		} else if gone {
			delete(w.ignoredDirs, rel)
		}
		return acc, nil
	}
	acc = append(acc, rel)
	if (gone || created) && w.watched[rel] {
		// Removed or renamed away (the directory path stands for
		// everything that was under it), or replaced by what was created:
		// drop the old watches before adding any, because inotify hands
		// back the same watch descriptor for an inode that is still
		// watched.
		w.unwatch(rel)
	}
	if created && isDir {
		return w.addTree(rel, acc)
	}
	return acc, nil
}

// addTree watches the directory rel and, recursively, its subdirectories
// that are not ignored. With acc non-nil it appends every path it finds
// (the directory's contents may predate its watch, so their events may be
// lost). A directory is watched before it is read, so an entry created in
// between shows up as an event if the read misses it. The only error it
// returns is a watch-limit error; other errors are logged and the
// directory is left out.
func (w *Watcher) addTree(rel string, acc []string) ([]string, error) {
	abs := w.abs(rel)
	if err := w.addWatch(rel, abs); err != nil {
		if isLimit(err) {
			return acc, err
		}
		if !errors.Is(err, fs.ErrNotExist) {
			w.log.Warn("watch: directory left out", "path", rel, "err", err)
		}
		return acc, nil
	}
	ents, err := os.ReadDir(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.log.Warn("watch: directory not read", "path", rel, "err", err)
	}
	for _, e := range ents {
		crel := join(rel, e.Name())
		isDir := e.IsDir()
		if isDir && w.abs(crel) == w.barrierDir {
			continue
		}
		if w.ignore(crel, isDir) {
			if isDir {
				w.ignoredDirs[crel] = true
			}
			continue
		}
		if acc != nil {
			acc = append(acc, crel)
		}
		if isDir {
			if acc, err = w.addTree(crel, acc); err != nil {
				return acc, err
			}
		}
	}
	return acc, nil
}

// addWatch adds the watch for one directory, honouring Options.MaxWatches.
func (w *Watcher) addWatch(rel, abs string) error {
	if w.maxWatches > 0 && !w.watched[rel] && len(w.watched) >= w.maxWatches {
		return fmt.Errorf("watching %s: %w (Options.MaxWatches=%d)", abs, errWatchLimit, w.maxWatches)
	}
	if err := w.fsw.Add(abs); err != nil {
		return fmt.Errorf("watching %s: %w", abs, err)
	}
	w.watched[rel] = true
	return nil
}

// unwatch removes the watches for rel and everything under it.
func (w *Watcher) unwatch(rel string) {
	prefix := rel + "/"
	for p := range w.watched {
		if p == rel || strings.HasPrefix(p, prefix) {
			delete(w.watched, p)
			// Errors mean the kernel dropped the watch already (the
			// directory was deleted); nothing is left to undo.
			_ = w.fsw.Remove(w.abs(p))
		}
	}
	for p := range w.ignoredDirs {
		if p == rel || strings.HasPrefix(p, prefix) {
			delete(w.ignoredDirs, p)
		}
	}
}

// rewatch walks the whole tree again after events were lost: it adds the
// watches of directories whose creation went unseen and drops those of
// directories that are gone.
func (w *Watcher) rewatch() error {
	old := w.watched
	w.watched = make(map[string]bool, len(old))
	w.ignoredDirs = map[string]bool{}
	_, err := w.addTree("", nil)
	for p := range old {
		if !w.watched[p] {
			_ = w.fsw.Remove(w.abs(p))
		}
	}
	if err == nil && !w.watched[""] {
		err = fmt.Errorf("cannot watch the root %s any more", w.root)
	}
	return err
}

// distrust handles an overflow or a watch error: the next batch is Full,
// and before it the watches are brought back in step with the tree.
func (w *Watcher) distrust(err error) {
	now := time.Now()
	overflow := errors.Is(err, fsnotify.ErrEventOverflow) || errors.Is(err, errQueueFull)
	var reason string
	if overflow {
		reason = fmt.Sprintf("event queue overflowed at %s; rescanning the whole tree (raise fs.inotify.max_queued_events if this recurs)", now.Format(time.TimeOnly))
	} else {
		reason = fmt.Sprintf("watch error at %s: %v; rescanning the whole tree", now.Format(time.TimeOnly), err)
	}
	w.log.Warn("watch: events lost", "err", err)
	w.rewatchWanted = true
	w.mu.Lock()
	if overflow {
		w.st.Overflows++
	} else {
		w.st.Errors++
	}
	w.st.Reason = reason
	w.markLocked(now)
	w.full = true
	w.st.Watched = len(w.watched)
	w.untrust++
	// Barrier events may be among the lost ones. The pending Full batch
	// covers every edit made before now, so waiting rounds may go.
	w.releaseWrittenLocked()
	w.mu.Unlock()
}

// toPolling gives up on events: it releases every watch and makes the next
// batch Full; Run then hands over a Full batch every Options.Reconcile.
func (w *Watcher) toPolling(reason string) {
	w.log.Warn("watch: falling back to polling", "reason", reason)
	if w.fsw != nil {
		w.fsw.Close()
		w.fsw = nil
	}
	w.watched = map[string]bool{}
	w.ignoredDirs = map[string]bool{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.st.Mode = ModePolling
	w.st.Reason = reason
	w.st.Watched = 0
	w.markLocked(time.Now())
	w.full, w.flushNow = true, true
	w.untrust++
	// Sync does not wait in polling mode.
	w.releaseAllLocked(nil)
}
