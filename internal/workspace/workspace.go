// Package workspace keeps named sets of repositories that are searched as
// one. A workspace is declared in the user file (see [UserFile]),
//
//	[workspaces.backend]
//	repos = ["/abs/path/api", "/abs/path/shared-lib"]
//
// which `ctx workspace add` and `ctx workspace rm` write, or in a project
// file, .ctx/config.toml at a repository root, whose repos are relative to
// that root (or absolute). For that project a project workspace replaces a
// user one of the same name.
//
// Inputs are the two files; outputs are [Workspace] values whose members
// have absolute, cleaned, symlink-resolved roots and short names unique
// within the workspace, and, through [Packages], the packages each member
// publishes so that imports can be resolved across members. Nothing here
// opens an index.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// ErrNotFound is returned (wrapped) by [Get] and [Remove] when no
// workspace has the name.
var ErrNotFound = errors.New("no such workspace")

// ErrInvalid is returned (wrapped) for a workspace name outside
// [A-Za-z0-9._-]{1,64}.
var ErrInvalid = errors.New("invalid workspace name")

// UserFileName is the user file's name inside config.UserDir.
const UserFileName = "workspaces.toml"

// ProjectFile is the project file's path relative to a repository root.
const ProjectFile = ".ctx/config.toml"

var nameRE = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)

// Member is one repository of a workspace.
type Member struct {
	// Name is short and unique within the workspace: the root's base
	// name, qualified with as many parent directories as it takes when
	// two members share it ("api" beside "web"; "team-a/api" beside
	// "team-b/api").
	Name string `json:"name"`
	// Root is absolute and cleaned, with symlinks resolved (kept as
	// declared when the directory no longer exists).
	Root string `json:"root"`
}

// Workspace is a named set of repositories searched as one.
type Workspace struct {
	Name string `json:"name"`
	// Members are in the order they were added (declared).
	Members []Member `json:"members"`
	// File is the file that declared the workspace.
	File string `json:"file"`
}

// Member returns the member named nameOrPath, else the member whose root
// is nameOrPath (made absolute against the working directory, symlinks
// resolved). A path inside a member's root does not match it.
func (w *Workspace) Member(nameOrPath string) (*Member, bool) {
	for i := range w.Members {
		if w.Members[i].Name == nameOrPath {
			return &w.Members[i], true
		}
	}
	root, err := realPath(nameOrPath, "")
	if err != nil {
		return nil, false
	}
	for i := range w.Members {
		if w.Members[i].Root == root {
			return &w.Members[i], true
		}
	}
	return nil, false
}

// UserFile returns the user file's path: config.UserDir()/workspaces.toml
// ($XDG_CONFIG_HOME/ctx/workspaces.toml on Linux when that is set). It may
// not exist.
func UserFile() (string, error) {
	d, err := config.UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, UserFileName), nil
}

// Load returns the workspaces of the user file and of projectRoot's
// project file ("" = no project), sorted by name; a project workspace
// replaces a user one of the same name. Missing files declare nothing.
// Errors: a malformed file, named with the line; an invalid workspace
// name or an unknown key under [workspaces], named with the file.
func Load(projectRoot string) ([]*Workspace, error) {
	uf, err := UserFile()
	if err != nil {
		return nil, err
	}
	user, err := readFile(uf, filepath.Dir(uf))
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*Workspace, len(user))
	for _, w := range user {
		byName[w.Name] = w
	}
	if projectRoot != "" {
		root, err := realPath(projectRoot, "")
		if err != nil {
			return nil, err
		}
		proj, err := readFile(filepath.Join(root, filepath.FromSlash(ProjectFile)), root)
		if err != nil {
			return nil, err
		}
		for _, w := range proj {
			byName[w.Name] = w
		}
	}
	out := make([]*Workspace, 0, len(byName))
	for _, w := range byName {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Get returns the workspace called name, as [Load] sees it. Errors:
// [ErrNotFound], wrapped with the names that exist; those of [Load].
func Get(name, projectRoot string) (*Workspace, error) {
	all, err := Load(projectRoot)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(all))
	for _, w := range all {
		if w.Name == name {
			return w, nil
		}
		names = append(names, w.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("workspace %q: %w (none exist; create one with `ctx workspace add %s PATH…`)", name, ErrNotFound, name)
	}
	return nil, fmt.Errorf("workspace %q: %w (have %s)", name, ErrNotFound, strings.Join(names, ", "))
}

// Add adds the directories paths to the user file's workspace name,
// creating it when new, and returns it. Paths are made absolute against
// the working directory with symlinks resolved; one already a member (the
// same real path) is skipped. Nothing is written unless every path is
// valid. Errors: [ErrInvalid] for the name; a path that is not an existing
// directory, named; a malformed user file; writing it.
func Add(name string, paths []string) (*Workspace, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	roots := make([]string, 0, len(paths))
	for _, p := range paths {
		r, err := realPath(p, "")
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(r)
		if err != nil {
			return nil, fmt.Errorf("adding %s: %w", p, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("adding %s: not a directory", p)
		}
		roots = append(roots, r)
	}
	uf, err := UserFile()
	if err != nil {
		return nil, err
	}
	doc, err := readDoc(uf)
	if err != nil {
		return nil, err
	}
	if doc.Workspaces == nil {
		doc.Workspaces = map[string]wsDoc{}
	}
	ws := doc.Workspaces[name]
	seen := map[string]bool{}
	for _, r := range ws.Repos {
		if rr, err := realPath(r, filepath.Dir(uf)); err == nil {
			seen[rr] = true
		}
	}
	for _, r := range roots {
		if !seen[r] {
			seen[r] = true
			ws.Repos = append(ws.Repos, r)
		}
	}
	if ws.Repos == nil {
		ws.Repos = []string{}
	}
	doc.Workspaces[name] = ws
	if err := writeDoc(uf, doc); err != nil {
		return nil, err
	}
	return build(name, ws.Repos, uf, filepath.Dir(uf)), nil
}

// Remove removes the user file's workspace name when paths is empty, else
// those of its members (each a member name or root, as
// [Workspace.Member] takes it). Errors: [ErrNotFound] when the user file
// has no such workspace; a path that is not a member, named; a malformed
// user file; writing it.
func Remove(name string, paths []string) error {
	uf, err := UserFile()
	if err != nil {
		return err
	}
	doc, err := readDoc(uf)
	if err != nil {
		return err
	}
	ws, ok := doc.Workspaces[name]
	if !ok {
		return fmt.Errorf("workspace %q in %s: %w", name, uf, ErrNotFound)
	}
	if len(paths) == 0 {
		delete(doc.Workspaces, name)
		return writeDoc(uf, doc)
	}
	w := build(name, ws.Repos, uf, filepath.Dir(uf))
	drop := map[string]bool{}
	for _, p := range paths {
		m, ok := w.Member(p)
		if !ok {
			return fmt.Errorf("removing %s: not a member of workspace %q", p, name)
		}
		drop[m.Root] = true
	}
	kept := []string{}
	for _, r := range ws.Repos {
		if rr, err := realPath(r, filepath.Dir(uf)); err != nil || !drop[rr] {
			kept = append(kept, r)
		}
	}
	ws.Repos = kept
	doc.Workspaces[name] = ws
	return writeDoc(uf, doc)
}

// ValidName returns nil when name matches [A-Za-z0-9._-]{1,64}, else an
// error wrapping [ErrInvalid].
func ValidName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("workspace %q: %w: want 1 to 64 of A-Z a-z 0-9 . _ -", name, ErrInvalid)
	}
	return nil
}

// realPath returns p made absolute against base (the working directory
// when base is ""), cleaned, with symlinks resolved when it exists.
func realPath(p, base string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		if base == "" {
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", fmt.Errorf("resolving %s: %v", p, err)
			}
			p = abs
		} else {
			p = filepath.Join(base, p)
		}
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p, nil
}
