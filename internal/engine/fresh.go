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
// bigger tree has the ones nearest the root checked, and the answer says
// the check was partial.
const maxFreshDirs = 20000

// dirTimes merges a run's walked directories into the recorded ones: a
// whole run's replace them, a run of some paths replaces the records at
// and below its paths.
func dirTimes(old string, paths []string, walked []discover.Dir) string {
	m := map[string]int64{}
	if paths != nil && old != "" {
		_ = json.Unmarshal([]byte(old), &m)
		for _, p := range paths {
			p = path.Clean(p)
			for k := range m {
				if k == p || strings.HasPrefix(k, p+"/") {
					delete(m, k)
				}
			}
		}
	}
	for _, d := range walked {
		m[d.Path] = d.ModTime
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// dirCheck is the outcome of comparing the recorded directory times with
// the disk's.
type dirCheck struct {
	changed []string // directories whose time differs or that are gone, sorted
	checked int
	total   int
}

// checkDirs stats the recorded directories (at most maxFreshDirs, those
// nearest the root first).
func (e *Engine) checkDirs(recorded string) dirCheck {
	var m map[string]int64
	if recorded == "" || json.Unmarshal([]byte(recorded), &m) != nil {
		return dirCheck{}
	}
	dirs := make([]string, 0, len(m))
	for d := range m {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if di != dj {
			return di < dj
		}
		return dirs[i] < dirs[j]
	})
	c := dirCheck{total: len(dirs)}
	for _, d := range dirs[:min(len(dirs), maxFreshDirs)] {
		c.checked++
		fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(d)))
		if err != nil || fi.ModTime().UnixNano() != m[d] {
			c.changed = append(c.changed, d)
		}
	}
	sort.Strings(c.changed)
	return c
}

// staleNote says what a dirCheck found, naming the fix; "" when nothing
// changed.
func (c dirCheck) staleNote() string {
	if len(c.changed) == 0 {
		return ""
	}
	first := c.changed[0]
	if first == "." {
		first = "the root"
	}
	return fmt.Sprintf("files were added, removed or renamed since the index in %d directories (%s first); results may miss them: run `ctx index`, or keep `ctx watch` running", len(c.changed), first)
}

// recordedDirs reads the recorded directory times of db.
func recordedDirs(ctx context.Context, db *store.DB) string {
	kv, err := db.MetaKeys(ctx, metaDirs)
	if err != nil {
		return ""
	}
	return kv[metaDirs]
}
