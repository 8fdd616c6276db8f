// Package watch keeps an index fresh between runs: it watches a root
// directory tree with fsnotify (inotify on Linux) and hands coalesced
// batches of changed paths to a handler that the caller supplies (the
// engine runs a targeted index update of those paths). It never indexes
// anything itself and imports nothing from the pipeline above it.
//
// Input is a root directory and [Options]; output is a sequence of [Batch]
// values passed to the handler given to [Watcher.Run], one call at a time.
// Paths are root-relative and slash-separated; a directory path stands for
// everything under it, and a path that no longer exists means it was
// deleted.
//
// Invariants:
//
//   - Every directory under the root that Options.Ignore does not exclude is
//     watched, including directories created, moved in or unpacked while the
//     watcher runs; the files already inside such a directory are reported,
//     because their events may predate its watch. Ignored directories are
//     never watched, so they cost no inotify watches, and events for
//     ignored paths never count, extend the debounce or trigger a batch.
//   - A burst of events becomes one batch: a batch is handed over after
//     Options.Debounce without events, or after Options.MaxDelay at the
//     latest. Paths are de-duplicated and sorted.
//   - When events cannot be trusted (an event queue overflow, a watch error)
//     the next batch is [Batch.Full]: the handler rescans the whole tree.
//     When the kernel's watch limit is reached the watcher falls back to
//     polling: a Full batch every Options.Reconcile, and [State] says why.
//   - [Watcher.Sync] is a barrier for read-your-writes: after it returns,
//     every event the kernel queued before the call is in the pending set,
//     so Sync followed by [State.Quiet] tells whether the index reflects
//     every edit made before the call; [Watcher.Flush] hands the pending
//     set over at once and waits for it.
//
// Limits: inotify sees only changes made through the local kernel, so a
// root on a network file system (NFS, SMB, some container volume drivers)
// misses edits made elsewhere; symbolic links are reported, never followed;
// each watched directory costs one of the user's fs.inotify.max_user_watches
// and about 1 KiB of kernel memory.
//
// Goroutines: Run owns them all (the reader that drains fsnotify, the
// handler call) and waits for them before it returns.
package watch
