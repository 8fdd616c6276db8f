package mine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Root kinds.
const (
	KindGoStd    = "go-std"    // a top-level package directory of $GOROOT/src
	KindGoModule = "go-module" // one module@version in the Go module cache
	KindDebian   = "debian"    // code installed by a Debian package
	KindNPM      = "npm"       // one package in a node_modules directory
	KindDir      = "dir"       // any other directory
)

// Root is one source of code: a directory mined as a unit. Its ID names it
// in every record ("source") and its Group decides its split.
type Root struct {
	// Dir is the directory to walk.
	Dir string `json:"dir"`
	// ID names the source: "go/std/net", "github.com/google/uuid@v1.6.0",
	// "debian/python3-yaml/yaml", "npm/semver".
	ID string `json:"id"`
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// Group is what the held-out split hashes; empty means ID. Versions of
	// one Go module share the module path as group, so no version of a
	// held-out module is trained on.
	Group string `json:"group,omitempty"`
	// Version is the module, package or toolchain version, when known.
	Version string `json:"version,omitempty"`
	// Package is the registry package name (Debian or npm), when known.
	Package string `json:"package,omitempty"`
	// Repo is the repository URL the package declares, when known.
	Repo string `json:"repo,omitempty"`
	// LicenceFiles are extra files to read the licence from, tried before
	// the LICENSE/COPYING files in Dir.
	LicenceFiles []string `json:"-"`
	// Files, when non-nil, are exactly the files mined (slash-separated,
	// relative to Dir) in place of a walk of Dir: the code a Debian
	// package owns in a directory it shares, or one piece of a split tree.
	Files []string `json:"-"`
	// Aliases are other registry names of the same code, such as the
	// binary packages built from a Debian source package; the exclusion
	// check reads them like Package.
	Aliases []string `json:"-"`
	// Upstream are further repository URLs the package declares (Debian
	// copyright Source, Cargo.toml, gemspec); the exclusion check reads
	// them like Repo.
	Upstream []string `json:"-"`
}

func (r Root) group() string {
	if r.Group != "" {
		return r.Group
	}
	return r.ID
}

// GoStdRoots returns one [KindGoStd] root per top-level directory of
// goroot/src ("go/std/net", "go/std/cmd"), versioned from goroot/VERSION.
func GoStdRoots(goroot string) ([]Root, error) {
	src := filepath.Join(goroot, "src")
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("listing GOROOT: %w", err)
	}
	version := ""
	if b, err := os.ReadFile(filepath.Join(goroot, "VERSION")); err == nil {
		version, _, _ = strings.Cut(string(b), "\n")
		version = strings.TrimSpace(version)
	}
	var roots []Root
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "vendor" || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		roots = append(roots, Root{
			Dir: filepath.Join(src, e.Name()), ID: "go/std/" + e.Name(), Kind: KindGoStd, Version: version,
			LicenceFiles: []string{filepath.Join(goroot, "LICENSE")},
		})
	}
	return roots, nil
}

// GoModuleRoots returns one [KindGoModule] root per module in the module
// cache modcache, newest version only (older versions of the same module
// repeat its code), with the module path unescaped ("!burnt!sushi" →
// "BurntSushi") and grouped by module path without its major version
// (every major version of a module is one repository).
func GoModuleRoots(modcache string) ([]Root, error) {
	newest := map[string]Root{}
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("listing module cache: %w", err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			name := e.Name()
			r := path.Join(rel, name)
			if rel == "" && name == "cache" {
				continue
			}
			if p, v, ok := strings.Cut(r, "@"); ok {
				mod := unescapeModule(p)
				root := Root{Dir: filepath.Join(dir, name), ID: mod + "@" + v, Kind: KindGoModule, Group: stripMajor(mod), Version: v}
				if old, ok := newest[mod]; !ok || semverLess(old.Version, v) {
					newest[mod] = root
				}
				continue
			}
			if err := walk(filepath.Join(dir, name), r); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(modcache, ""); err != nil {
		return nil, err
	}
	roots := make([]Root, 0, len(newest))
	for _, r := range newest {
		roots = append(roots, r)
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].ID < roots[j].ID })
	return roots, nil
}

// unescapeModule undoes the module cache's case encoding: "!x" is "X".
func unescapeModule(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '!' && i+1 < len(p) {
			i++
			b.WriteString(strings.ToUpper(p[i : i+1]))
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// semverLess orders Go module versions: numeric vMAJOR.MINOR.PATCH, a
// prerelease (pseudo-versions included) before its release, then by text.
func semverLess(a, b string) bool {
	pa, ra := splitSemver(a)
	pb, rb := splitSemver(b)
	for i := range 3 {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	if (ra == "") != (rb == "") {
		return ra != ""
	}
	return ra < rb
}

func splitSemver(v string) ([3]int, string) {
	var n [3]int
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	core, pre, _ := strings.Cut(v, "-")
	for i, f := range strings.SplitN(core, ".", 3) {
		n[i], _ = strconv.Atoi(f)
	}
	return n, pre
}

// PythonRoots returns one [KindDebian] root per package directory in a
// Debian dist-packages directory (dist-packages/<pkg> holding .py files),
// with the owning Debian package guessed as python3-<pkg> and its version
// read from the dpkg status file dpkgStatus (skipped when empty or
// unreadable).
func PythonRoots(distPackages, dpkgStatus string) ([]Root, error) {
	ents, err := os.ReadDir(distPackages)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", distPackages, err)
	}
	versions := readDpkgStatus(dpkgStatus)
	var roots []Root
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.Contains(name, ".") || name == "__pycache__" {
			continue
		}
		dir := filepath.Join(distPackages, name)
		if !hasPy(dir) {
			continue
		}
		pkg := "python3-" + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
		if _, ok := versions[pkg]; !ok {
			pkg = ""
		}
		roots = append(roots, Root{
			Dir: dir, ID: "debian/python3/" + name, Kind: KindDebian, Package: pkg, Version: versions[pkg],
			LicenceFiles: debianCopyright(pkg),
		})
	}
	return roots, nil
}

func hasPy(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".py") {
			return true
		}
	}
	return false
}

func debianCopyright(pkg string) []string {
	if pkg == "" {
		return nil
	}
	return []string{filepath.Join("/usr/share/doc", pkg, "copyright")}
}

// IncludeRoots returns one [KindDebian] root per subdirectory of a header
// directory such as /usr/include ("debian/include/curl"). Loose headers
// at the top are not mined.
func IncludeRoots(dir string) ([]Root, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var roots []Root
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		roots = append(roots, Root{Dir: filepath.Join(dir, e.Name()), ID: "debian/include/" + e.Name(), Kind: KindDebian})
	}
	return roots, nil
}

// NodeModulesRoots returns one [KindNPM] root per package in a
// node_modules directory, scoped packages (@scope/name) included, with the
// version and repository read from its package.json.
func NodeModulesRoots(dir string) ([]Root, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var roots []Root
	add := func(name, d string) {
		r := Root{Dir: d, ID: "npm/" + name, Kind: KindNPM, Package: name}
		r.Version, r.Repo = readPackageJSON(filepath.Join(d, "package.json"))
		roots = append(roots, r)
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if strings.HasPrefix(name, "@") {
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			for _, s := range sub {
				if s.IsDir() {
					add(name+"/"+s.Name(), filepath.Join(dir, name, s.Name()))
				}
			}
			continue
		}
		add(name, filepath.Join(dir, name))
	}
	return roots, nil
}

func readPackageJSON(p string) (version, repo string) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", ""
	}
	var pj struct {
		Version    string          `json:"version"`
		Repository json.RawMessage `json:"repository"`
	}
	if json.Unmarshal(b, &pj) != nil {
		return "", ""
	}
	var s string
	if json.Unmarshal(pj.Repository, &s) == nil {
		return pj.Version, s
	}
	var o struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(pj.Repository, &o)
	return pj.Version, o.URL
}

// readDpkgStatus maps installed Debian package names to versions.
func readDpkgStatus(p string) map[string]string {
	m := map[string]string{}
	if p == "" {
		return m
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return m
	}
	var pkg string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			pkg = ""
		case strings.HasPrefix(line, "Package: "):
			pkg = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Version: ") && pkg != "":
			m[pkg] = strings.TrimPrefix(line, "Version: ")
		}
	}
	return m
}
