package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/store"
)

// metaDirs holds the directories of the indexed tree with their
// modification times as the runs that indexed them saw them (a JSON
// object: root-relative slash path → Unix nanoseconds). A file added,
// removed or renamed in a directory since changes its time, which is how
// a query without a watcher learns that the index misses a new file.
const metaDirs = "dir_mtimes"

// maxFreshDirs bounds the directories one query stats to tell whether
// files were added or removed (about 1 µs each; the Go tree has 1.2k): a
// bigger tree has the ones nearest the root checked.
const maxFreshDirs = 20000

// dirTimes merges a run's walked directories into the recorded ones: a
// whole run's replace them, a run of some paths replaces the records at
// and below its paths.
func dirTimes(old string, paths []string, walked []discover.Dir) string {
	m := map[string]int64{}
	if paths != nil && old != "" {
		_ = json.Unmarshal([]byte(old), &m)
		for k := range m {
			if atOrBelowAny(k, paths) {
				delete(m, k)
			}
		}
	}
	for _, d := range walked {
		m[d.Path] = d.ModTime
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// dirStamp is a recorded directory and its modification time (Unix ns).
type dirStamp struct {
	path  string
	mtime int64
}

// parseDirs reads recorded directory times (metaDirs) into the list
// checkDirs goes through: those nearest the root first, at most
// maxFreshDirs.
func parseDirs(recorded string) []dirStamp {
	var m map[string]int64
	if recorded == "" || json.Unmarshal([]byte(recorded), &m) != nil {
		return nil
	}
	out := make([]dirStamp, 0, len(m))
	for d, t := range m {
		out = append(out, dirStamp{d, t})
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := strings.Count(out[i].path, "/"), strings.Count(out[j].path, "/")
		if di != dj {
			return di < dj
		}
		return out[i].path < out[j].path
	})
	return out[:min(len(out), maxFreshDirs)]
}

// dirCheck lists the recorded directories whose time differs on disk or
// that are gone, sorted.
type dirCheck []string

// checkDirs stats the directories of a parsed record.
func (e *Engine) checkDirs(dirs []dirStamp) dirCheck {
	var changed dirCheck
	for _, d := range dirs {
		fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(d.path)))
		if err != nil || fi.ModTime().UnixNano() != d.mtime {
			changed = append(changed, d.path)
		}
	}
	sort.Strings(changed)
	return changed
}

// atOrBelowAny reports whether the slash path p is one of paths or lies
// below one ("." holds everything).
func atOrBelowAny(p string, paths []string) bool {
	for _, q := range paths {
		q = path.Clean(q)
		if q == "." || p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// staleNote says what a dirCheck found, naming the fix; "" when nothing
// changed.
func (c dirCheck) staleNote() string {
	if len(c) == 0 {
		return ""
	}
	first := c[0]
	if first == "." {
		first = "the root"
	}
	return fmt.Sprintf("files were added, removed or renamed since the index in %d directories (%s first); results may miss them: run `ctx index`, or keep `ctx watch` running", len(c), first)
}

// recordedDirs reads the recorded directory times of db.
func recordedDirs(ctx context.Context, db *store.DB) string {
	kv, err := db.MetaKeys(ctx, metaDirs)
	if err != nil {
		return ""
	}
	return kv[metaDirs]
}
