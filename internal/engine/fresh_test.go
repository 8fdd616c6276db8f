package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeDirs is what parseDirs returned before it read the record itself:
// encoding/json into a map, then sorted by path.
func decodeDirs(rec string) []dirStamp {
	var m map[string]int64
	if rec == "" || json.Unmarshal([]byte(rec), &m) != nil {
		return nil
	}
	out := []dirStamp{}
	for d, t := range m {
		out = append(out, dirStamp{d, t})
	}
	slices.SortFunc(out, func(a, b dirStamp) int { return strings.Compare(a.path, b.path) })
	return out
}

func TestParseDirsAgreesWithJSON(t *testing.T) {
	t.Parallel()
	written, _ := json.Marshal(map[string]int64{".": 1, "a": -2, "a/b": 0, "a<b>&c": 3, "x\ny": 4, "é/ü": 5, "\xff": 6, `q"uote`: 7, `back\slash`: 8})
	for _, rec := range []string{
		"", "{}", "[]", "null", `{"a":1}`, string(written),
		`{"a":1,"a":2}`, `{"b":1,"a":2}`, `{"a":01}`, `{"a":+1}`, `{"a":1.5}`, `{"a":1e3}`, `{"a":-0}`,
		`{"a":1,}`, `{"a" :1}`, `{ "a":1}`, `{"a":99999999999999999999}`, `{"a\u0062":1}`, "{\"a\tb\":1}",
		`{"a":1`, `{"a":}`, `{"":3}`, `{"a":"1"}`, `{"a":1}x`,
	} {
		got := parseDirs(rec)
		slices.SortFunc(got, func(a, b dirStamp) int { return strings.Compare(a.path, b.path) })
		if d := cmp.Diff(decodeDirs(rec), got, cmp.AllowUnexported(dirStamp{})); d != "" {
			t.Errorf("parseDirs(%q) differs from decoding it as JSON (-json +parseDirs):\n%s", rec, d)
		}
	}
}

func TestParseDirsKeepsNearestRootPastLimit(t *testing.T) {
	t.Parallel()
	m := map[string]int64{}
	for i := range maxFreshDirs + 5 {
		m[strings.Repeat("d/", i%7)+"x"+strings.Repeat("y", i/7)] = int64(i)
	}
	rec, _ := json.Marshal(m)
	got := parseDirs(string(rec))
	if len(got) != maxFreshDirs {
		t.Fatalf("parseDirs kept %d of %d directories, want %d", len(got), len(m), maxFreshDirs)
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1].path, got[i].path
		if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da > db || da == db && a >= b {
			t.Fatalf("parseDirs order: %q before %q", a, b)
		}
	}
}

// TestCheckDirsFindsEveryChange: a directory whose entries changed, one
// removed, one replaced by a file, one reached through a symbolic link and
// the root itself are each reported, by the root-relative stat and by the
// whole-path one alike.
func TestCheckDirsFindsEveryChange(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"same", "added", "gone", "file", "sub/deep", "target"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("target", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	stamp := func(rel string) int64 {
		fi, err := os.Stat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime().UnixNano()
	}
	rels := []string{".", "same", "added", "gone", "file", "sub", "sub/deep", "link", "a/../same", "missing"}
	var dirs []dirStamp
	for _, r := range rels {
		var ts int64
		if r != "missing" {
			ts = stamp(r)
		}
		dirs = append(dirs, dirStamp{r, ts})
	}
	e := &Engine{root: root}
	if got := e.checkDirs(dirs); !slices.Equal(got, dirCheck{"missing"}) {
		t.Fatalf("checkDirs before any change = %q, want only the missing one", got)
	}
	later := time.Now().Add(time.Hour)
	for _, d := range []string{"added", "sub/deep", "target", "."} {
		if err := os.Chtimes(filepath.Join(root, d), later, later); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "file")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := dirCheck{".", "added", "file", "gone", "link", "missing", "sub/deep"}
	if got := e.checkDirs(dirs); !slices.Equal(got, want) {
		t.Errorf("checkDirs after the changes = %q, want %q", got, want)
	}
	var byPath dirCheck
	for _, d := range dirs {
		if ts, ok := pathStat(root, d.path); !ok || ts != d.mtime {
			byPath = append(byPath, d.path)
		}
	}
	slices.Sort(byPath)
	if !slices.Equal(byPath, want) {
		t.Errorf("whole-path stats found %q, the root-relative ones %q", byPath, want)
	}
}
