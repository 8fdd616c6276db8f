package discover

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalkPathsMatchesWalk checks, on every walk fixture, that walking one
// path (each file and skip of the whole walk, and each directory on the
// way) gives exactly what the whole walk gives under that path: the same
// rules, ignore files of every ancestor included.
func TestWalkPathsMatchesWalk(t *testing.T) {
	t.Parallel()
	fixtures, err := filepath.Glob(filepath.Join("testdata", "walk", "*.txtar"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range fixtures {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(data)
			opts, sub := fixtureOptions(t, a.comment)
			root := filepath.Join(writeTree(t, a, "want"), sub)
			whole, err := Walk(t.Context(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			targets := map[string]bool{}
			for _, f := range whole.Files {
				for p := f.Path; p != "."; p = path.Dir(p) {
					targets[p] = true
				}
			}
			for _, s := range whole.Skips {
				if s.Path != "." {
					targets[s.Path] = true
				}
			}
			for p := range targets {
				got, err := WalkPaths(t.Context(), root, []string{p}, opts)
				if err != nil {
					t.Fatal(err)
				}
				want := under(whole, p)
				if diff := cmp.Diff(formatResult(want), formatResult(got)); diff != "" {
					t.Errorf("WalkPaths(%q) differs from the whole walk under it (-whole +paths):\n%s", p, diff)
				}
			}
		})
	}
}

// under returns the part of a whole walk's result at or below p.
func under(r *Result, p string) *Result {
	in := func(q string) bool { return q == p || strings.HasPrefix(q, p+"/") }
	out := &Result{}
	for _, f := range r.Files {
		if in(f.Path) {
			out.Files = append(out.Files, f)
		}
	}
	for _, s := range r.Skips {
		if in(s.Path) {
			out.Skips = append(out.Skips, s)
		}
	}
	return out
}

func TestPathSet(t *testing.T) {
	t.Parallel()
	s := newPathSet([]string{"a/b", "a-c/d.go", "x/y/z.go", "../escape", "./m/"})
	for rel, want := range map[string]bool{
		"a":          true, // on the way to a/b
		"a/b":        true,
		"a/b/c/d.go": true, // below a/b
		"a/bb":       false,
		"a-c":        true,
		"a-c/e.go":   false,
		"x":          true,
		"x/y":        true,
		"x/y/z.go":   true,
		"x/y/w.go":   false,
		"m":          true,
		"m/n.go":     true,
		"..":         false,
		"escape":     false,
		"b":          false,
	} {
		if got := s.wanted(rel); got != want {
			t.Errorf("wanted(%q) = %v, want %v", rel, got, want)
		}
	}
	if got := newPathSet(nil).sorted; len(got) != 0 {
		t.Errorf("empty set holds %v", got)
	}
	if !newPathSet([]string{"."}).wanted("any/thing.go") {
		t.Error(`"." does not hold every path`)
	}
	if got := cleanPaths([]string{"/abs", "a/../..", "ok/./f.go"}); !slices.Equal(got, []string{"ok/f.go"}) {
		t.Errorf("cleanPaths = %v", got)
	}
}

func TestBuiltinExcluded(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]bool{
		".git":                     true,
		".git/index":               true,
		"sub/node_modules/x/y.js":  true,
		".ssh/id_rsa":              true,
		"pkg/.gitignore":           false,
		"src/main.go":              false,
		"build/out.o":              false, // excluded only next to its build file
		"lib/thing.egg-info/PKG":   true,
		"node_modules_not/file.js": false,
		"docs/git/notes.md":        false,
	} {
		if got := BuiltinExcluded(rel); got != want {
			t.Errorf("BuiltinExcluded(%q) = %v, want %v", rel, got, want)
		}
	}
}
