package discover

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIgnoreMatchesGit builds random trees with random .gitignore files and
// checks that Walk ignores exactly the files that git itself ignores. It is
// the guard for the way rules.match feeds go-git's matcher. It needs a git
// binary and is skipped without one or under -short.
func TestIgnoreMatchesGit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow: runs git")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary")
	}
	// Keep the user's and the system's git configuration, and global
	// excludes files, out of the comparison.
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	run := func(dir string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	for seed := range uint64(100) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run(dir, "init", "-q")
			randomTree(rand.New(rand.NewPCG(seed, 1)), dir, 0)

			var want []string
			for line := range strings.Lines(run(dir, "status", "--ignored", "--porcelain", "-uall")) {
				if p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "!! "); ok {
					want = append(want, filesBelow(t, dir, p)...)
				}
			}
			res, err := Walk(t.Context(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Skips {
				if s.Reason == ReasonGitignore {
					got = append(got, filesBelow(t, dir, s.Path)...)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ignored files (-git +walk):\n%s\n.gitignore files:\n%s", diff, ignoreFiles(t, dir))
			}
		})
	}
}

var (
	randomPatterns = []string{
		"*", "!*/", "!*.go", "*.txt", "!x.txt", "logs/", "!logs/", "docs/*", "!docs/*",
		"!keep", "keep/", "/a", "a/b", "**/deep", "!**/deep", "a/**", "!a/**/*.go",
		"**/x.txt", "!/b/*.txt", "*.log", "!z.log", "deep/", "c/**/y.go", "[!x].txt",
		"a/*/x.txt", "!a/*/", "b", "!b/c/", "a/**/b", "!a/**/b/", "*/", "/*", "!/*/",
		"**/logs/*", "docs/**/*.txt", "!docs/**/", "x.txt/", "a/", "!c", "c/*",
		"!**/a/x.txt", "**/b/**", "!keep/*.go", "/c/**", "*.go", "!*/*.go", "**/*.txt",
		"!**/k.txt", "keep/**/", "deep/**",
	}
	randomFiles = []string{"x.txt", "y.go", "z.log", "a.txt", "k.txt", "b.go"}
	randomDirs  = []string{"a", "b", "c", "logs", "docs", "keep", "deep"}
)

func randomTree(r *rand.Rand, dir string, depth int) {
	for range 1 + r.IntN(4) {
		os.WriteFile(filepath.Join(dir, randomFiles[r.IntN(len(randomFiles))]), []byte("x\n"), 0o644)
	}
	if r.IntN(10) < 6 {
		var pats []string
		for range 1 + r.IntN(5) {
			pats = append(pats, randomPatterns[r.IntN(len(randomPatterns))])
		}
		os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(strings.Join(pats, "\n")+"\n"), 0o644)
	}
	if depth == 3 {
		return
	}
	for range r.IntN(4) {
		sub := filepath.Join(dir, randomDirs[r.IntN(len(randomDirs))])
		os.Mkdir(sub, 0o755)
		randomTree(r, sub, depth+1)
	}
}

// filesBelow lists the files at or below a slash path relative to dir.
func filesBelow(t *testing.T, dir, rel string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, "/"))), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(r))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ignoreFiles(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".gitignore" {
			data, _ := os.ReadFile(p)
			r, _ := filepath.Rel(dir, p)
			fmt.Fprintf(&b, "%s: %q\n", r, strings.Fields(string(data)))
		}
		return err
	})
	return b.String()
}
