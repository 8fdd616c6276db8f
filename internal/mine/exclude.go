package mine

import (
	_ "embed"
	"fmt"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// excludeText mirrors the benchmark's exclusion list,
// ../shared/bench/EXCLUDE.txt: the repositories ctx is measured on (GitHub
// owner/name lines), then the registry names of the same code ("go:",
// "debian:" and "npm:" lines). Keep the two files identical; the miner must
// never read a line of those repositories, whichever registry shipped them.
//
//go:embed exclude.txt
var excludeText string

// Exclusions is a parsed exclusion list. Its zero value excludes nothing;
// use [DefaultExclusions] for the benchmark's list.
type Exclusions struct {
	repos     map[string]bool // "owner/name", lower case
	goMods    map[string]bool // module paths without a major-version suffix, lower case
	debian    map[string]bool // Debian package names, lower case
	debDirs   map[string]string
	npm       map[string]bool // npm package names, lower case
	npmScopes map[string]bool // "@scope" of every listed scoped npm package
}

// DefaultExclusions returns the embedded benchmark exclusion list.
func DefaultExclusions() *Exclusions {
	e, err := ParseExclusions(excludeText)
	if err != nil {
		panic(fmt.Sprintf("embedded exclude.txt: %v", err)) // programmer error
	}
	return e
}

// ParseExclusions parses text in the format of exclude.txt: "#" comments,
// one GitHub "owner/name" a line, and lines "go: …", "debian: …" and
// "npm: …" holding space-separated registry names.
func ParseExclusions(text string) (*Exclusions, error) {
	e := &Exclusions{
		repos: map[string]bool{}, goMods: map[string]bool{}, debian: map[string]bool{},
		debDirs: map[string]string{}, npm: map[string]bool{}, npmScopes: map[string]bool{},
	}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if reg, names, ok := strings.Cut(line, ":"); ok && !strings.Contains(reg, "/") {
			for _, n := range strings.Fields(names) {
				n = strings.ToLower(n)
				switch reg {
				case "go":
					e.goMods[stripMajor(n)] = true
				case "debian":
					e.debian[n] = true
					for _, d := range DebianDirs(n) {
						e.debDirs[strings.ToLower(d)] = n
					}
				case "npm":
					e.npm[n] = true
					if scope, _, ok := strings.Cut(n, "/"); ok && strings.HasPrefix(scope, "@") {
						e.npmScopes[scope] = true
					}
				default:
					return nil, fmt.Errorf("line %d: unknown registry %q", i+1, reg)
				}
			}
			continue
		}
		owner, name, ok := strings.Cut(line, "/")
		if !ok || owner == "" || name == "" || strings.ContainsAny(line, " \t") || strings.Count(line, "/") != 1 {
			return nil, fmt.Errorf("line %d: want owner/name, got %q", i+1, line)
		}
		e.repos[strings.ToLower(line)] = true
	}
	return e, nil
}

// debianDirTable maps the Debian packages whose installed directory names
// do not follow the python3-X → X rule to the names they install (under
// /usr/lib/python3/dist-packages, /usr/include, /usr/share/php,
// /usr/lib/ruby/vendor_ruby, /usr/share/cargo/registry, …).
var debianDirTable = map[string][]string{
	"python3-sklearn":       {"sklearn"},
	"python3-pytest":        {"pytest", "_pytest"},
	"python3-matplotlib":    {"matplotlib", "mpl_toolkits", "pylab"},
	"python3-pydantic":      {"pydantic"},
	"pylint":                {"pylint"},
	"ruby-rack":             {"rack"},
	"ruby-sinatra":          {"sinatra"},
	"ruby-rails":            {"rails"},
	"rails":                 {"rails"},
	"php-guzzlehttp-guzzle": {"GuzzleHttp", "guzzle"},
	"php-monolog":           {"Monolog"},
	"php-laravel-framework": {"Illuminate", "laravel"},
	"librust-tokio-dev":     {"tokio"},
	"librust-serde-dev":     {"serde"},
	"librust-axum-dev":      {"axum"},
	"nlohmann-json3-dev":    {"nlohmann"},
	"libfmt-dev":            {"fmt"},
	"libabsl-dev":           {"absl"},
	"libcurl4-openssl-dev":  {"curl"},
	"libuv1-dev":            {"uv", "uv.h"},
	"redis":                 {"redis"},
	"bats":                  {"bats", "bats-core"},
	"pandoc":                {"pandoc"},
	"xmonad":                {"xmonad"},
	"zig":                   {"zig"},
	"elixir-plug":           {"plug"},
	"elixir-ecto":           {"ecto"},
}

// DebianDirs returns the directory (or file) names under which Debian
// package pkg installs its code: the explicit table first, else python3-X
// → X with "-" read as "_" (python3-requests → requests), ruby-X → X,
// librust-X-dev → X, elixir-X → X, php-X → X, and else pkg itself.
func DebianDirs(pkg string) []string {
	if d, ok := debianDirTable[pkg]; ok {
		return d
	}
	switch {
	case strings.HasPrefix(pkg, "python3-"):
		return []string{strings.ReplaceAll(strings.TrimPrefix(pkg, "python3-"), "-", "_")}
	case strings.HasPrefix(pkg, "librust-") && strings.HasSuffix(pkg, "-dev"):
		return []string{strings.TrimSuffix(strings.TrimPrefix(pkg, "librust-"), "-dev")}
	case strings.HasPrefix(pkg, "ruby-"), strings.HasPrefix(pkg, "elixir-"), strings.HasPrefix(pkg, "php-"):
		_, rest, _ := strings.Cut(pkg, "-")
		return []string{rest}
	}
	return []string{pkg}
}

// Check reports whether root r is excluded and why. It applies the rule of
// r's kind ([KindGoModule]: module path; [KindDebian]: package and
// directory name, and r.Aliases; [KindNPM]: package name and scope), and
// for every kind the GitHub owner/name found in r.Repo, r.Upstream or an
// ID of the form "github.com/owner/name…". [KindGoStd] is never excluded
// by name. Files of a [Root.Files] list are checked by [Exclusions.Path]
// when mined.
func (e *Exclusions) Check(r Root) (reason string, excluded bool) {
	switch r.Kind {
	case KindGoModule:
		if why, ok := e.GoModule(r.ID); ok {
			return why, true
		}
	case KindDebian, KindDebianSource:
		if why, ok := e.Debian(r.Package, path.Base(filepathToSlash(r.Dir))); ok {
			return why, true
		}
		// A package's files may sit below its own directory
		// (/usr/share/cargo/registry/serde-1.0.1/src): any directory of
		// the path counts.
		for _, d := range strings.Split(filepathToSlash(r.Dir), "/") {
			if why, ok := e.Debian("", d); ok && d != "" {
				return why, true
			}
		}
		for _, a := range r.Aliases {
			if why, ok := e.Debian(a, ""); ok {
				return why, true
			}
		}
	case KindNPM:
		name := r.Package
		if name == "" {
			name = r.ID
		}
		if why, ok := e.NPM(name); ok {
			return why, true
		}
	}
	for _, s := range append([]string{r.Repo, r.ID}, r.Upstream...) {
		if or, ok := githubRepo(s); ok && e.repos[or] {
			return "benchmark repository github.com/" + or, true
		}
	}
	return "", false
}

// Path reports whether a slash-separated path inside a source has a
// directory named like the installed directory of an excluded Debian
// package ("third_party/fmt/format.h", "vendor/serde-1.0.1/lib.rs"): a
// tree that bundles an excluded library must not leak it.
func (e *Exclusions) Path(p string) (reason string, excluded bool) {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if why, ok := e.Debian("", d); ok {
			return why, true
		}
	}
	return "", false
}

// GoModule reports whether the Go module mod ("path" or "path@version", as
// written or in the module cache's !-escaped form) is excluded: a module
// listed under "go:" or below one, with or without a /vN suffix, or any
// module under github.com/OWNER/NAME of a listed repository.
func (e *Exclusions) GoModule(mod string) (reason string, excluded bool) {
	p, _, _ := strings.Cut(mod, "@")
	p = strings.ToLower(strings.ReplaceAll(p, "!", ""))
	for q := stripMajor(p); q != "." && q != "" && q != "/"; q = path.Dir(q) {
		if e.goMods[q] {
			return "benchmark Go module " + q, true
		}
	}
	if or, ok := githubRepo(p); ok && e.repos[or] {
		return "benchmark repository github.com/" + or, true
	}
	return "", false
}

// Debian reports whether Debian package pkg, or the installed directory
// dir (base name; "-1.2.3" version suffixes and .py/.h extensions are
// ignored), belongs to an excluded package. Either may be empty.
func (e *Exclusions) Debian(pkg, dir string) (reason string, excluded bool) {
	pkg = strings.ToLower(pkg)
	if pkg != "" && e.debian[pkg] {
		return "benchmark Debian package " + pkg, true
	}
	if dir == "" {
		return "", false
	}
	d := strings.ToLower(dir)
	for _, cand := range []string{d, strings.TrimSuffix(strings.TrimSuffix(d, ".py"), ".h"), versionSuffix().ReplaceAllString(d, "")} {
		if p, ok := e.debDirs[cand]; ok {
			return "benchmark Debian package " + p + " (" + dir + ")", true
		}
	}
	return "", false
}

// NPM reports whether npm package name ("x" or "@scope/x") is excluded:
// listed, or in the scope of a listed scoped package (a scope is one
// monorepo, such as @trpc).
func (e *Exclusions) NPM(name string) (reason string, excluded bool) {
	n := strings.ToLower(strings.TrimSuffix(name, "/"))
	if i := strings.LastIndex(n, "node_modules/"); i >= 0 {
		n = n[i+len("node_modules/"):]
	}
	if e.npm[n] {
		return "benchmark npm package " + n, true
	}
	if scope, _, ok := strings.Cut(n, "/"); ok && e.npmScopes[scope] {
		return "benchmark npm scope " + scope, true
	}
	return "", false
}

// Repo reports whether s names a listed GitHub repository: "owner/name",
// "github.com/owner/name/…" or a git URL such as
// "git+https://github.com/owner/name.git".
func (e *Exclusions) Repo(s string) bool {
	or, ok := githubRepo(s)
	if !ok {
		if o, n, ok2 := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "/"); ok2 && !strings.Contains(n, "/") && o != "" && n != "" {
			or, ok = o+"/"+n, true
		}
	}
	return ok && e.repos[or]
}

var (
	majorSuffix   = lazyre.New(`/v[0-9]+$`)
	versionSuffix = lazyre.New(`[-_][0-9][0-9a-z.+~-]*$`)
)

// stripMajor drops a Go major-version suffix: "/v2", or gopkg.in's ".v3".
func stripMajor(p string) string {
	p = majorSuffix().ReplaceAllString(p, "")
	if strings.HasPrefix(p, "gopkg.in/") {
		if i := strings.LastIndex(p, ".v"); i > 0 {
			p = p[:i]
		}
	}
	return p
}

// githubRepo extracts "owner/name" (lower case) from a string holding
// "github.com/owner/name" anywhere: a module path, a URL, "git@github.com:o/n.git".
func githubRepo(s string) (string, bool) {
	s = strings.ToLower(strings.ReplaceAll(s, "!", ""))
	i := strings.Index(s, "github.com")
	if i < 0 {
		return "", false
	}
	s = strings.TrimLeft(s[i+len("github.com"):], ":/")
	parts := strings.SplitN(s, "/", 3)
	if len(parts) < 2 || parts[0] == "" {
		return "", false
	}
	name, _, _ := strings.Cut(parts[1], "@")
	name, _, _ = strings.Cut(name, "#")
	name = strings.TrimSuffix(name, ".git")
	if name == "" {
		return "", false
	}
	return parts[0] + "/" + name, true
}

func filepathToSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }
