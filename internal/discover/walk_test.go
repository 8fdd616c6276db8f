package discover

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/walk/*.txtar")

// TestWalkGolden walks each fixture tree in testdata/walk and compares the
// result with the archive's "want" section. The archive comment may hold a
// line "opts: ..." with the words maxbytes=N, secrets, noignore, exclude=PAT
// (repeatable) and root=DIR (walk a subdirectory of the tree).
func TestWalkGolden(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "walk", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range paths {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(data)
			opts, sub := fixtureOptions(t, a.comment)
			dir := writeTree(t, a, "want")
			res, err := Walk(t.Context(), filepath.Join(dir, sub), opts)
			if err != nil {
				t.Fatal(err)
			}
			checkAbs(t, res, filepath.Join(dir, sub))
			got := formatResult(res)
			i := slices.IndexFunc(a.files, func(f archiveFile) bool { return f.name == "want" })
			if *update {
				if i < 0 {
					a.files = append(a.files, archiveFile{name: "want"})
					i = len(a.files) - 1
				}
				a.files[i].data = []byte(got)
				if err := os.WriteFile(file, formatArchive(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if i < 0 {
				t.Fatal("no want section; run with -update")
			}
			if diff := cmp.Diff(string(a.files[i].data), got); diff != "" {
				t.Errorf("walk %s (-want +got):\n%s", file, diff)
			}
		})
	}
}

func fixtureOptions(t *testing.T, comment []byte) (*Options, string) {
	t.Helper()
	opts, sub := new(Options), "."
	for line := range strings.Lines(string(comment)) {
		words, ok := strings.CutPrefix(strings.TrimSpace(line), "opts:")
		if !ok {
			continue
		}
		for _, w := range strings.Fields(words) {
			k, v, _ := strings.Cut(w, "=")
			switch k {
			case "maxbytes":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				opts.MaxFileBytes = n
			case "secrets":
				opts.IncludeSecrets = true
			case "noignore":
				opts.NoIgnore = true
			case "exclude":
				opts.Exclude = append(opts.Exclude, v)
			case "root":
				sub = v
			default:
				t.Fatalf("unknown option %q", w)
			}
		}
	}
	return opts, sub
}

// formatResult prints files and skips, merged in path order, one a line:
// "file PATH LANGUAGE" or "skip PATH[/] REASON: DETAIL".
func formatResult(res *Result) string {
	type line struct{ path, text string }
	var lines []line
	for _, f := range res.Files {
		lines = append(lines, line{f.Path, fmt.Sprintf("file %s %s", f.Path, f.Language)})
	}
	for _, s := range res.Skips {
		p := s.Path
		if s.Dir {
			p += "/"
		}
		text := fmt.Sprintf("skip %s %s", p, s.Reason)
		if s.Detail != "" {
			text += ": " + s.Detail
		}
		lines = append(lines, line{s.Path, text})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(a.path, b.path) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

// checkAbs checks the invariants of a result that the golden text leaves
// out: sorted paths, Abs below the resolved root, sizes and times.
func checkAbs(t *testing.T, res *Result, root string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(res.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("files not sorted by path")
	}
	if !slices.IsSortedFunc(res.Skips, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("skips not sorted by path")
	}
	for _, f := range res.Files {
		if want := filepath.Join(real, filepath.FromSlash(f.Path)); f.Abs != want {
			t.Errorf("%s: Abs = %s, want %s", f.Path, f.Abs, want)
		}
		fi, err := os.Stat(f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size != fi.Size() || f.ModTime != fi.ModTime().UnixNano() {
			t.Errorf("%s: size %d mtime %d, want %d %d", f.Path, f.Size, f.ModTime, fi.Size(), fi.ModTime().UnixNano())
		}
	}
}

// walkOne walks dir with default options and returns the golden text.
func walkOne(t *testing.T, dir string) string {
	t.Helper()
	res, err := Walk(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return formatResult(res)
}

func TestWalkSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := tree(t, `
-- real.go --
package real
-- sub/inner.go --
package sub
`)
	links := []struct{ name, target string }{
		{"in-file.go", "real.go"}, // a file inside the root
		{"in-abs.go", filepath.Join(dir, "sub", "inner.go")},
		{"out-file.go", filepath.Join(outside, "secret.go")},
		{"out-dir", outside},
		{"in-dir", "sub"}, // a directory inside the root
		{"sub/up", ".."},  // a loop through a directory
		{"dangling.go", "missing.go"},
		{"loop-a", "loop-b"}, // a loop between links
		{"loop-b", "loop-a"},
		{"self", "self"},
		{"chain.go", "in-file.go"}, // a link to a link
	}
	for _, l := range links {
		if err := os.Symlink(l.target, filepath.Join(dir, filepath.FromSlash(l.name))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	got := walkOne(t, dir)
	outsideReal, err := filepath.EvalSymlinks(outside) // macOS: /var -> /private/var
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("OUTSIDE", outsideReal).Replace(`file chain.go go
skip dangling.go symlink: dangling: points to missing.go, which does not exist
file in-abs.go go
skip in-dir symlink: directory symlink to sub, not followed (links to directories can loop)
file in-file.go go
skip loop-a symlink: link loop: points to loop-b
skip loop-b symlink: link loop: points to loop-a
skip out-dir symlink: points outside the repository: OUTSIDE
skip out-file.go symlink: points outside the repository: OUTSIDE/secret.go
file real.go go
skip self symlink: link loop: points to self
file sub/inner.go go
skip sub/up symlink: directory symlink to ., not followed (links to directories can loop)
`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	res, err := Walk(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A link is listed under its own path, with its target's size and
	// time, so editing the target changes the link's file too.
	checkAbs(t, res, dir)
}

// TestWalkSymlinkRoot walks a root given through a symlink: paths are
// relative to it and Abs is below the resolved directory.
func TestWalkSymlinkRoot(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a.go --
package a
`)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	res, err := Walk(t.Context(), link, nil)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := []File{{Path: "a.go", Abs: filepath.Join(real, "a.go"), Language: LangGo}}
	if diff := cmp.Diff(want, res.Files, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Size" || p.Last().String() == ".ModTime"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWalkHooks simulates what a real tree rarely shows on cue: a file
// deleted between the directory listing and its lstat, a directory deleted
// before it is listed, and a directory whose listing is denied.
func TestWalkHooks(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a.go --
package a
-- gone.go --
package gone
-- gonedir/c.go --
package c
-- locked/b.go --
package b
`)
	w := newWalker(nil)
	w.info = func(e fs.DirEntry, abs string) (fs.FileInfo, error) {
		if e.Name() == "gone.go" {
			if err := os.Remove(abs); err != nil {
				t.Fatal(err)
			}
		}
		return e.Info()
	}
	w.readDir = func(d string) ([]fs.DirEntry, error) {
		switch filepath.Base(d) {
		case "gonedir":
			if err := os.RemoveAll(d); err != nil {
				t.Fatal(err)
			}
		case "locked":
			return nil, &fs.PathError{Op: "open", Path: d, Err: syscall.EACCES}
		}
		return os.ReadDir(d)
	}
	res, err := w.walk(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `file a.go go
skip gone.go unreadable: vanished during the walk
skip gonedir/ unreadable: vanished during the walk
skip locked/ unreadable: permission denied
`
	if diff := cmp.Diff(want, formatResult(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWalkErrors(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a.go --
package a
`)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		root string
		is   error // errors.Is target, nil for any error
	}{
		{"missing", t.Context(), filepath.Join(dir, "nope"), fs.ErrNotExist},
		{"file", t.Context(), filepath.Join(dir, "a.go"), nil},
		{"canceled", canceled, dir, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Walk(tt.ctx, tt.root, nil)
			if err == nil {
				t.Fatalf("Walk = %v, want an error", res)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Walk error %v, want %v", err, tt.is)
			}
		})
	}
}

// TestWalkCancelBetweenDirectories cancels the walk from inside: it stops at
// the next directory.
func TestWalkCancelBetweenDirectories(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a/x.go --
package a
-- b/y.go --
package b
`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := newWalker(nil)
	var listed []string
	w.readDir = func(d string) ([]fs.DirEntry, error) {
		listed = append(listed, filepath.Base(d))
		if filepath.Base(d) == "a" {
			cancel()
		}
		return os.ReadDir(d)
	}
	if _, err := w.walk(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Fatalf("walk error = %v, want context.Canceled", err)
	}
	if slices.Contains(listed, "b") {
		t.Errorf("listed %v after cancel", listed)
	}
}

// TestWalkMaxFiles: a walk with MaxFiles stops at the file that passes it
// and lists no further directory; skipped files do not count, and a tree
// at the cap walks whole.
func TestWalkMaxFiles(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a/1.go --
package a
-- a/2.go --
package a
-- a/logo.png --
PNG
-- b/3.go --
package b
-- c/4.go --
package c
`)
	for _, tc := range []struct {
		max    int
		over   bool
		listed []string // directories listed, in order
	}{
		{max: 0, listed: []string{".", "a", "b", "c"}},
		{max: 4, listed: []string{".", "a", "b", "c"}},
		{max: 2, over: true, listed: []string{".", "a", "b"}},
		{max: 1, over: true, listed: []string{".", "a"}},
	} {
		w := newWalker(&Options{MaxFiles: tc.max})
		var listed []string
		w.readDir = func(d string) ([]fs.DirEntry, error) {
			rel, _ := filepath.Rel(dir, d)
			listed = append(listed, filepath.ToSlash(rel))
			return os.ReadDir(d)
		}
		_, err := w.walk(t.Context(), dir)
		if tc.over != errors.Is(err, ErrTooManyFiles) || !tc.over && err != nil {
			t.Errorf("MaxFiles %d: error %v, want ErrTooManyFiles: %v", tc.max, err, tc.over)
		}
		if !slices.Equal(listed, tc.listed) {
			t.Errorf("MaxFiles %d: listed %v, want %v", tc.max, listed, tc.listed)
		}
	}
}

func TestSkipCounts(t *testing.T) {
	t.Parallel()
	r := &Result{Skips: []Skip{
		{Path: "a", Reason: ReasonBinary},
		{Path: "b", Reason: ReasonBinary},
		{Path: "c", Reason: ReasonExcluded, Dir: true},
	}}
	want := map[Reason]int{ReasonBinary: 2, ReasonExcluded: 1}
	if diff := cmp.Diff(want, r.SkipCounts()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
