package workspace

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// projectMarkers are the entries whose presence makes a directory a
// project's root: version control, or a build or package manifest of one
// of the languages ctx indexes.
var projectMarkers = map[string]bool{
	".git": true, ".hg": true, "go.mod": true, "package.json": true, "Cargo.toml": true, "pyproject.toml": true,
	"setup.py": true, "setup.cfg": true, "mix.exs": true, "build.gradle": true, "build.gradle.kts": true,
	"settings.gradle": true, "settings.gradle.kts": true, "pom.xml": true, "build.sbt": true, "Gemfile": true,
	"CMakeLists.txt": true, "meson.build": true, "composer.json": true, "Package.swift": true,
}

// projectExts are the extensions of manifests named after their project
// (sinatra.gemspec, App.csproj).
var projectExts = []string{".gemspec", ".csproj", ".sln", ".cabal", ".nimble"}

// genericNames are directory names that say where code sits, not which
// project it is: a question that writes "lib" or "core" does not name
// the member rooted at phoenix/lib or cats/core.
var genericNames = map[string]bool{
	"lib": true, "libs": true, "src": true, "source": true, "sources": true, "main": true, "common": true,
	"core": true, "pkg": true, "packages": true, "package": true, "app": true, "apps": true, "internal": true,
	"include": true, "java": true, "scala": true, "kotlin": true, "python": true, "go": true, "js": true,
	"ts": true, "test": true, "tests": true, "server": true, "client": true, "api": true, "web": true,
	"cmd": true, "code": true, "repo": true, "project": true, "workspace": true, "modules": true,
	"module": true, "services": true, "service": true, "backend": true, "frontend": true, "docs": true,
}

// maxIdentityDepth bounds how many directories [Identity] looks at, root
// and its parents.
const maxIdentityDepth = 8

var identities sync.Map // root → []string

// Identity returns the names a question may call the repository at root
// by, lower case and unique: root's base name, the short names of the npm
// packages and Go modules it publishes ([packageName]: "yargs" for a
// package unpacked into package/), and the base name of each directory
// from root up that holds a project marker (version control or a
// manifest: .git, go.mod, package.json, Cargo.toml, mix.exs, a .gemspec,
// …), up to the version-control root, never the user's home directory, a
// directory at the file system's top (/tmp, /home) or above, at most
// [maxIdentityDepth] directories. So a member rooted at …/phoenix/lib is
// "phoenix", and one at …/ktor/ktor-client/ktor-client-core/common/src is
// "ktor-client-core", "ktor-client" and "ktor". Names under three bytes
// and generic ones ("lib", "src", "core", "api": [genericNames]) are left
// out. A directory that cannot be read is skipped. The answer is kept for
// the process: markers rarely come and go.
func Identity(root string) []string {
	if v, ok := identities.Load(root); ok {
		return v.([]string)
	}
	home, _ := os.UserHomeDir()
	var out []string
	add := func(name string) {
		name = strings.ToLower(name)
		if len(name) < 3 || genericNames[name] {
			return
		}
		for _, n := range out {
			if n == name {
				return
			}
		}
		out = append(out, name)
	}
	add(filepath.Base(root))
	// The npm packages and Go modules it publishes, as their manifests
	// name them: "yargs" for a package unpacked into package/. (Python's
	// packages are every directory holding __init__.py, fastapi's
	// "security" and "middleware" among them: not names of the project.)
	pkgs, _ := Packages(root)
	for _, p := range pkgs {
		if p.Kind == KindNPM || p.Kind == KindGo {
			add(packageName(p))
		}
	}
	d := root
	for range maxIdentityDepth {
		parent := filepath.Dir(d)
		if home != "" && d == home || parent == d || filepath.Dir(parent) == parent {
			break // the home directory, the file system's root or a directory in it (/tmp)
		}
		marked, vcs := projectDir(d)
		if marked {
			add(filepath.Base(d))
		}
		if vcs {
			break
		}
		d = parent
	}
	identities.Store(root, out)
	return out
}

// packageName is the short name a question calls an npm package or a Go
// module by: the npm name without its scope ("@types/node" → "node"), the
// module path's last element that is not a major version
// ("github.com/go-chi/chi/v5" → "chi").
func packageName(p Package) string {
	if p.Kind == KindNPM {
		return path.Base(p.Name)
	}
	elems := strings.Split(p.Name, "/")
	for i := len(elems) - 1; i > 0; i-- {
		if !majorVersion(elems[i]) {
			return elems[i]
		}
	}
	return elems[0]
}

// majorVersion reports whether a module path element is a major version
// suffix ("v2", "v10").
func majorVersion(e string) bool {
	if len(e) < 2 || e[0] != 'v' {
		return false
	}
	for _, c := range e[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// projectDir reports whether directory d holds a project marker, and
// whether one is version control (the repository's top), from one read of
// the directory.
func projectDir(d string) (marked, vcs bool) {
	entries, _ := os.ReadDir(d)
	for _, e := range entries {
		n := e.Name()
		switch {
		case n == ".git" || n == ".hg":
			return true, true
		case projectMarkers[n] || slices.Contains(projectExts, filepath.Ext(n)):
			marked = true
		}
	}
	return marked, false
}
