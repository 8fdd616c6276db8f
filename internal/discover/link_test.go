package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// symlinks makes each link name (slash path below dir) point at its target,
// written as given; the test is skipped where links cannot be made.
func symlinks(t *testing.T, dir string, links [][2]string) {
	t.Helper()
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(dir, filepath.FromSlash(l[0]))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
}

// TestWalkLinkTargetRules checks that a link to a file inside the root is
// listed only when its target would be: it takes the target's skip reason
// otherwise, so a link cannot bring an ignored, excluded or secret file
// into the index.
func TestWalkLinkTargetRules(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- .gitignore --
build/
-- .ctxignore --
private/
-- build/gen.go --
package build
-- private/notes.md --
notes
-- .env --
TOKEN=x
-- node_modules/x/index.js --
module.exports = 1
-- src/ok.go --
package src
-- src/big.txt --
0123456789012345678901234567890123456789
-- src/app.min.js --
x
-- src/.git/config --
[core]
`)
	symlinks(t, dir, [][2]string{
		{"ok.go", "src/ok.go"},
		{"gen.go", "build/gen.go"},
		{"notes.md", "private/notes.md"},
		{"env.txt", ".env"},
		{"dep.js", "node_modules/x/index.js"},
		{"big.txt", "src/big.txt"},
		{"app.js", "src/app.min.js"},
		{"gitconfig", "src/.git/config"},
		{"ok.lock", "src/ok.go"}, // the link's own name counts too
	})
	opts := &Options{MaxFileBytes: 20}
	res, err := Walk(t.Context(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := formatResult(res)
	want := `file .ctxignore text
skip .env secret: env file
file .gitignore text
skip app.js minified: link to src/app.min.js: name ends in .min.js
skip big.txt too-large: link to src/big.txt: 41 bytes > 20
skip build/ gitignore: .gitignore:1: build/
skip dep.js excluded: link to node_modules/x/index.js: dependencies
skip env.txt secret: link to .env: env file
skip gen.go gitignore: link to build/gen.go: .gitignore:1: build/
skip gitconfig excluded: link to src/.git/config: version control
skip node_modules/ excluded: dependencies
skip notes.md ctxignore: link to private/notes.md: .ctxignore:1: private/
file ok.go go
skip ok.lock lockfile
skip private/ ctxignore: .ctxignore:1: private/
skip src/.git/ excluded: version control
skip src/app.min.js minified: name ends in .min.js
skip src/big.txt too-large: 41 bytes > 20
file src/ok.go go
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	checkAbs(t, res, dir)

	// With secrets included, the link to .env is listed like .env itself.
	res, err = Walk(t.Context(), dir, &Options{IncludeSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := formatResult(res); !strings.Contains(got, "file env.txt text\n") || !strings.Contains(got, "file .env ") {
		t.Errorf("IncludeSecrets: env.txt and .env not both listed:\n%s", got)
	}
}

// TestWalkLinkWorkTree indexes a package that is a subdirectory of a git
// work tree whose Sources/<Name>/ folder links to files elsewhere in the
// work tree, as Swift packages do: the work tree is the boundary, and its
// ignore files judge the targets outside the root.
func TestWalkLinkWorkTree(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "far.swift"), []byte("let far = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := tree(t, `
-- .git/HEAD --
ref: refs/heads/main
-- .gitignore --
*.gen.swift
-- shared/Util.swift --
let util = 1
-- shared/Model.gen.swift --
let generated = 1
-- shared/.ssh/id_rsa --
key
-- pkg/Package.swift --
// swift-tools-version:5.9
-- pkg/Sources/Name/Own.swift --
let own = 1
`)
	symlinks(t, repo, [][2]string{
		{"pkg/Sources/Name/Util.swift", "../../../shared/Util.swift"},
		{"pkg/Sources/Name/Model.gen.swift", "../../../shared/Model.gen.swift"},
		{"pkg/Sources/Name/Model.swift", "../../../shared/Model.gen.swift"}, // the target's name is ignored
		{"pkg/Sources/Name/Key.swift", "../../../shared/.ssh/id_rsa"},
		{"pkg/Sources/Name/HEAD.swift", "../../../.git/HEAD"},
		{"pkg/Sources/Name/Far.swift", filepath.Join(outside, "far.swift")},
	})
	root := filepath.Join(repo, "pkg")
	res, err := Walk(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	repoReal, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	outsideReal, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("REPO", repoReal, "OUTSIDE", outsideReal).Replace(`file Package.swift swift
skip Sources/Name/Far.swift symlink: points outside the repository: OUTSIDE/far.swift
skip Sources/Name/HEAD.swift excluded: link to REPO/.git/HEAD: version control
skip Sources/Name/Key.swift secret: link to REPO/shared/.ssh/id_rsa: credential store
skip Sources/Name/Model.gen.swift gitignore: ../.gitignore:1: *.gen.swift
skip Sources/Name/Model.swift gitignore: link to REPO/shared/Model.gen.swift: .gitignore:1: *.gen.swift
file Sources/Name/Own.swift swift
file Sources/Name/Util.swift swift
`)
	if diff := cmp.Diff(want, formatResult(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	checkAbs(t, res, root)

	// Without a .git, the root is the boundary: the sibling is outside.
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	res, err = Walk(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formatResult(res), "skip Sources/Name/Util.swift symlink: points outside the repository: "+filepath.Join(repoReal, "shared", "Util.swift")+"\n"; !strings.Contains(got, want) {
		t.Errorf("without .git, got:\n%s\nwant a line %q", got, want)
	}
}

// TestWalkPathsLink checks that a walk restricted to a link's path (as a
// watcher's batch names it) judges the link as a whole walk does, though
// the target's directory is not walked.
func TestWalkPathsLink(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- .gitignore --
build/
-- src/ok.go --
package src
-- build/gen.go --
package build
-- links/.keep --
`)
	symlinks(t, dir, [][2]string{
		{"links/ok.go", "../src/ok.go"},
		{"links/gen.go", "../build/gen.go"},
	})
	whole, err := Walk(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"links/ok.go", "links/gen.go", "links"} {
		got, err := WalkPaths(t.Context(), dir, []string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(formatResult(under(whole, p)), formatResult(got)); diff != "" {
			t.Errorf("WalkPaths(%q) (-whole +paths):\n%s", p, diff)
		}
	}
	if got := formatResult(under(whole, "links")); !strings.Contains(got, "file links/ok.go go\n") {
		t.Errorf("links/ok.go not listed:\n%s", got)
	}
}
