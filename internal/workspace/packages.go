package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Package is something a member publishes that other members import.
type Package struct {
	// Kind is "go", "npm" or "python".
	Kind string `json:"kind"`
	// Name is what importers write: a Go module path (go.mod's module),
	// an npm package name (package.json's name), or a Python import name
	// (pyproject's [project] name normalised, or a top-level directory
	// holding __init__.py).
	Name string `json:"name"`
	// Dir is where the package lives, a slash path relative to the
	// member root ("" = the root itself).
	Dir string `json:"dir"`
}

// Package kinds.
const (
	KindGo     = "go"
	KindNPM    = "npm"
	KindPython = "python"
)

// manifestMax caps how much of a manifest is read, in bytes: manifests
// are small, and a huge one is not worth a member's whole memory.
const manifestMax = 1 << 20

// dirsMax caps the directories a workspace glob pattern may expand to.
const dirsMax = 1000

// Packages returns the packages the repository at root publishes, sorted
// by kind, name and dir. It reads only a few small files, never walking
// the tree:
//   - go: go.mod at root, and go.mod in each directory go.work uses;
//   - npm: package.json's name, and the name of each workspace package
//     that package.json's "workspaces" (an array or {"packages": […]}) or
//     pnpm-workspace.yaml's packages list, with globs ("*", "**") expanded
//     at most two directory levels per wildcard and skipping node_modules
//     and hidden directories;
//   - python: pyproject.toml's [project] name (else
//     [tool.poetry] name), normalised to an import name (lower case, runs
//     of "-", "_" and "." become "_") and placed in src/NAME or NAME when
//     such a directory exists, and every directory directly under root or
//     root/src holding __init__.py (also root itself, named by its base).
//
// A malformed manifest is an error naming the file (with the line for
// TOML); the packages found in the other manifests come back with it.
func Packages(root string) ([]Package, error) {
	var (
		out  []Package
		errs []error
	)
	add := func(p []Package, err error) {
		out = append(out, p...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(goPackages(root))
	add(npmPackages(root))
	add(pythonPackages(root))
	seen := map[Package]bool{}
	uniq := out[:0]
	for _, p := range out {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	sort.Slice(uniq, func(i, j int) bool {
		a, b := uniq[i], uniq[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Dir < b.Dir
	})
	return uniq, errors.Join(errs...)
}

// readSmall reads at most manifestMax bytes of root/rel; ok is false when
// the file does not exist.
func readSmall(root, rel string) (data []byte, ok bool, err error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, manifestMax))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	return data, true, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// inside returns the slash form of rel cleaned, and false when it leaves
// the root.
func inside(rel string) (string, bool) {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." {
		return "", true
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// goPackages reads go.mod at root and in the directories go.work uses.
func goPackages(root string) ([]Package, error) {
	dirs := []string{""}
	if data, ok, err := readSmall(root, "go.work"); err != nil {
		return nil, err
	} else if ok {
		for _, u := range goWorkUses(data) {
			if filepath.IsAbs(u) {
				rel, err := filepath.Rel(root, u)
				if err != nil {
					continue
				}
				u = rel
			}
			if d, ok := inside(u); ok && d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	var out []Package
	for _, d := range dirs {
		data, ok, err := readSmall(root, path.Join(d, "go.mod"))
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		if mod := goModule(data); mod != "" {
			out = append(out, Package{Kind: KindGo, Name: mod, Dir: d})
		}
	}
	return out, nil
}

// goFields splits a go.mod or go.work line into its fields, dropping a
// // comment and unquoting quoted fields.
func goFields(line string) []string {
	if i := strings.Index(line, "//"); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	for i, s := range f {
		if u, err := strconv.Unquote(s); err == nil {
			f[i] = u
		}
	}
	return f
}

// goModule returns go.mod's module path, "" when it has none.
func goModule(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		f := goFields(line)
		if len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

// goWorkUses returns the directories of go.work's use directives, single
// or in a block.
func goWorkUses(data []byte) []string {
	var dirs []string
	block := false
	for _, line := range strings.Split(string(data), "\n") {
		f := goFields(line)
		switch {
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 1:
			dirs = append(dirs, f[0])
		case len(f) == 2 && f[0] == "use" && f[1] == "(":
			block = true
		case len(f) == 2 && f[0] == "use":
			dirs = append(dirs, f[1])
		}
	}
	return dirs
}

// npmPackages reads package.json at root and at each workspace package
// its workspaces (or pnpm-workspace.yaml) name.
func npmPackages(root string) ([]Package, error) {
	var out []Package
	var patterns []string
	data, ok, err := readSmall(root, "package.json")
	if err != nil {
		return nil, err
	}
	if ok {
		var pj struct {
			Name       string          `json:"name"`
			Workspaces json.RawMessage `json:"workspaces"`
		}
		if err := json.Unmarshal(data, &pj); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(root, "package.json"), err)
		}
		if pj.Name != "" {
			out = append(out, Package{Kind: KindNPM, Name: pj.Name})
		}
		if len(pj.Workspaces) > 0 {
			var list []string
			var obj struct {
				Packages []string `json:"packages"`
			}
			if json.Unmarshal(pj.Workspaces, &list) == nil {
				patterns = append(patterns, list...)
			} else if json.Unmarshal(pj.Workspaces, &obj) == nil {
				patterns = append(patterns, obj.Packages...)
			}
		}
	}
	if data, ok, err := readSmall(root, "pnpm-workspace.yaml"); err != nil {
		return out, err
	} else if ok {
		patterns = append(patterns, pnpmPackages(data)...)
	}
	var include []string
	exclude := map[string]bool{}
	for _, p := range patterns {
		if neg, ok := strings.CutPrefix(p, "!"); ok {
			for _, d := range expand(root, neg) {
				exclude[d] = true
			}
			continue
		}
		include = append(include, expand(root, p)...)
	}
	for _, d := range include {
		if exclude[d] || d == "" {
			continue
		}
		data, ok, err := readSmall(root, d+"/package.json")
		if err != nil || !ok {
			continue
		}
		var pj struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(data, &pj); err != nil {
			return out, fmt.Errorf("%s: %v", filepath.Join(root, filepath.FromSlash(d), "package.json"), err)
		}
		if pj.Name != "" {
			out = append(out, Package{Kind: KindNPM, Name: pj.Name, Dir: d})
		}
	}
	return out, nil
}

// pnpmPackages returns the entries of pnpm-workspace.yaml's top-level
// packages list ("packages:" then "  - 'glob'" lines).
func pnpmPackages(data []byte) []string {
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if i := strings.Index(t, " #"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			in = t == "packages:"
		case in && strings.HasPrefix(t, "-"):
			v := strings.TrimSpace(strings.TrimPrefix(t, "-"))
			out = append(out, strings.Trim(v, `"'`))
		}
	}
	return out
}

// expand returns the directories under root (slash paths relative to it)
// that the workspace glob pattern matches: literal elements are looked
// up, "*"-style elements match one directory level and "**" zero to two
// levels; node_modules and hidden directories never match a wildcard.
// At most dirsMax directories come back.
func expand(root, pattern string) []string {
	pattern, ok := inside(strings.TrimSuffix(pattern, "/"))
	if !ok || pattern == "" {
		return nil
	}
	dirs := []string{""}
	for _, elem := range strings.Split(pattern, "/") {
		var next []string
		for _, d := range dirs {
			next = append(next, step(root, d, elem)...)
			if len(next) >= dirsMax {
				next = next[:dirsMax]
				break
			}
		}
		dirs = next
	}
	return dirs
}

// step returns the directories one pattern element leads to from d.
func step(root, d, elem string) []string {
	if elem == "**" {
		out := []string{d}
		one := children(root, d, "*")
		out = append(out, one...)
		for _, c := range one {
			out = append(out, children(root, c, "*")...)
		}
		return out
	}
	if !strings.ContainsAny(elem, "*?[") {
		p := path.Join(d, elem)
		if isDir(filepath.Join(root, filepath.FromSlash(p))) {
			return []string{p}
		}
		return nil
	}
	return children(root, d, elem)
}

// children returns d's subdirectories whose names match pattern.
func children(root, d, pattern string) []string {
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() || n == "node_modules" || strings.HasPrefix(n, ".") {
			continue
		}
		if ok, _ := path.Match(pattern, n); ok {
			out = append(out, path.Join(d, n))
		}
	}
	return out
}

var pyNameRuns = lazyre.New(`[-_.]+`)

// pyImportName turns a distribution name into the import name it
// conventionally installs: lower case, runs of "-", "_" and "." as "_".
func pyImportName(dist string) string {
	return pyNameRuns().ReplaceAllString(strings.ToLower(strings.TrimSpace(dist)), "_")
}

var pyIdent = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pythonPackages reads pyproject.toml and looks for __init__.py directly
// under root and root/src.
func pythonPackages(root string) ([]Package, error) {
	var out []Package
	var err error
	if data, ok, rerr := readSmall(root, "pyproject.toml"); rerr != nil {
		err = rerr
	} else if ok {
		var pp struct {
			Project struct {
				Name string `toml:"name"`
			} `toml:"project"`
			Tool struct {
				Poetry struct {
					Name string `toml:"name"`
				} `toml:"poetry"`
			} `toml:"tool"`
		}
		file := filepath.Join(root, "pyproject.toml")
		if _, derr := toml.Decode(string(data), &pp); derr != nil {
			var pe toml.ParseError
			if errors.As(derr, &pe) {
				err = fmt.Errorf("%s:%d: %s", file, pe.Position.Line, pe.Message)
			} else {
				err = fmt.Errorf("%s: %s", file, strings.TrimPrefix(derr.Error(), "toml: "))
			}
		} else {
			dist := pp.Project.Name
			if dist == "" {
				dist = pp.Tool.Poetry.Name
			}
			if name := pyImportName(dist); name != "" {
				dir := ""
				for _, cand := range []string{"src/" + name, name} {
					if isDir(filepath.Join(root, filepath.FromSlash(cand))) {
						dir = cand
						break
					}
				}
				out = append(out, Package{Kind: KindPython, Name: name, Dir: dir})
			}
		}
	}
	if fileExists(filepath.Join(root, "__init__.py")) {
		if base := filepath.Base(root); pyIdent().MatchString(base) {
			out = append(out, Package{Kind: KindPython, Name: base})
		}
	}
	for _, parent := range []string{"", "src"} {
		ents, rerr := os.ReadDir(filepath.Join(root, parent))
		if rerr != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() || !pyIdent().MatchString(n) {
				continue
			}
			dir := path.Join(parent, n)
			if fileExists(filepath.Join(root, filepath.FromSlash(dir), "__init__.py")) {
				out = append(out, Package{Kind: KindPython, Name: n, Dir: dir})
			}
		}
	}
	return out, err
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
