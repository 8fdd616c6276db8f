package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

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
// files were added or removed (about 4 µs each on a 2-core VM; the Go
// tree has 1.1k): a
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
// checkDirs goes through: all of them, or, past maxFreshDirs, those
// nearest the root (fewest slashes, then by path).
func parseDirs(recorded string) []dirStamp {
	out, ok := scanDirs(recorded)
	if !ok {
		var m map[string]int64
		if recorded == "" || json.Unmarshal([]byte(recorded), &m) != nil {
			return nil
		}
		out = make([]dirStamp, 0, len(m))
		for d, t := range m {
			out = append(out, dirStamp{d, t})
		}
	}
	if len(out) <= maxFreshDirs {
		// Every one is checked, and checkDirs sorts what it finds: the
		// order does not matter.
		return out
	}
	depth := make(map[string]int, len(out))
	for _, d := range out {
		depth[d.path] = strings.Count(d.path, "/")
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := depth[out[i].path], depth[out[j].path]
		if di != dj {
			return di < dj
		}
		return out[i].path < out[j].path
	})
	return out[:maxFreshDirs]
}

// scanDirs reads the record as [dirTimes] writes it (json.Marshal of a
// map[string]int64: one object, keys in ascending order, integer values,
// no spaces) without json.Unmarshal's reflection and map, which took
// 2.2 ms for the Go tree's 1.1k directories on every query. ok is false
// for anything else (an escape or control byte in a key, keys out of
// order or repeated, a number JSON would not write as an integer): the
// caller then decodes with encoding/json, so the result is the same
// either way.
func scanDirs(rec string) (out []dirStamp, ok bool) {
	if len(rec) < 2 || rec[0] != '{' || rec[len(rec)-1] != '}' {
		return nil, false
	}
	body := rec[1 : len(rec)-1]
	out = make([]dirStamp, 0, strings.Count(body, `":`))
	for body != "" {
		if body[0] != '"' {
			return nil, false
		}
		end := strings.IndexByte(body[1:], '"') + 1
		if end <= 0 || end+1 >= len(body) || body[end+1] != ':' {
			return nil, false
		}
		key := body[1:end]
		if !plainKey(key) || len(out) > 0 && key <= out[len(out)-1].path {
			return nil, false
		}
		body = body[end+2:]
		num := body
		if n := strings.IndexByte(body, ','); n >= 0 {
			num, body = body[:n], body[n+1:]
			if body == "" {
				return nil, false // a trailing comma
			}
		} else {
			body = ""
		}
		if !jsonInteger(num) {
			return nil, false
		}
		t, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, dirStamp{key, t})
	}
	return out, true
}

// plainKey reports whether a JSON string's body needs no decoding: valid
// UTF-8 without escapes or control bytes.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c == '\\' {
			return false
		}
	}
	return utf8.ValidString(k)
}

// jsonInteger reports whether s is an integer as JSON writes one: an
// optional minus, then 0 or digits without a leading zero.
func jsonInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dirCheck lists the recorded directories whose time differs on disk or
// that are gone, sorted.
type dirCheck []string

// checkDirs stats the directories of a parsed record, each relative to
// the root opened once where the system allows it (see [rootStatter]).
func (e *Engine) checkDirs(dirs []dirStamp) dirCheck {
	stat, done := rootStatter(e.root)
	defer done()
	var changed dirCheck
	for _, d := range dirs {
		if t, ok := stat(d.path); !ok || t != d.mtime {
			changed = append(changed, d.path)
		}
	}
	sort.Strings(changed)
	return changed
}

// pathStat returns the modification time (Unix ns) of the directory at
// the slash path rel under root, following symbolic links as os.Stat
// does; ok is false when it cannot be read.
func pathStat(root, rel string) (mtime int64, ok bool) {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return 0, false
	}
	return fi.ModTime().UnixNano(), true
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
