package watch

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// errWatchLimit is what reaching Options.MaxWatches looks like: the
// kernel's own error for a full watch table.
var errWatchLimit = syscall.ENOSPC

// isLimit reports whether err means the kernel (or Options.MaxWatches)
// refuses more watches: ENOSPC from inotify_add_watch when
// fs.inotify.max_user_watches is reached, EMFILE from inotify_init when
// fs.inotify.max_user_instances (or the process's file limit) is.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

// limitReason explains, for State.Reason, why the watcher polls and how to
// make it stop. err is normally a limit error; any other error (the root
// cannot be watched any more) is reported as it is.
func (w *Watcher) limitReason(err error) string {
	switch {
	case errors.Is(err, syscall.EMFILE):
		return fmt.Sprintf("inotify instance limit reached (fs.inotify.max_user_instances=%s, or the open-file limit): %v; "+
			"polling every %s; raise it with `sudo sysctl -w fs.inotify.max_user_instances=1024` "+
			"(persist it in /etc/sysctl.d/) or `ulimit -n`", sysctl("max_user_instances"), err, w.reconcile)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Sprintf("inotify watch limit reached (fs.inotify.max_user_watches=%s): %v; "+
			"polling every %s; raise it with `sudo sysctl -w fs.inotify.max_user_watches=524288` "+
			"(persist it in /etc/sysctl.d/), or ignore large generated directories", sysctl("max_user_watches"), err, w.reconcile)
	default:
		return fmt.Sprintf("%v; polling every %s", err, w.reconcile)
	}
}

// sysctl reads an inotify limit from /proc, or "unknown" where there is
// none (other systems, or a sandbox hiding it).
func sysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
