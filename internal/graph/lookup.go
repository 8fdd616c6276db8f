package graph

import (
	"path"
	"sort"
	"strings"
	"sync"
)

// lookups are the path indexes the convention-matching resolvers
// (Java, Kotlin, Scala, Rust, C, C++, C#, Ruby, PHP) share, each built on
// first use so that a repository pays only for its own languages.
type lookups struct {
	pathsOnce  sync.Once
	byBase     map[string][]string // file base name → files, sorted
	dirsByBase map[string][]string // directory base name → directories holding files at any depth, sorted

	jvmOnce sync.Once
	jvmDirs map[string]bool // directories holding .java, .kt or .scala files, and their ancestors

	rustOnce   sync.Once
	cargoDirs  map[string]bool   // directories holding a Cargo.toml
	crateNames map[string]string // Cargo.toml directory → declared crate name (SetCrateNames)
	rustCrates map[string]string // crate name → the crate's directory

	csOnce        sync.Once
	csDirs        map[string][]string // lower-cased last dotted element of a directory's base → directories holding .cs files at any depth, sorted
	csProjects    [][]string          // .csproj names, split at dots
	csProjectDirs []string            // the directory of each csProjects entry ("" for the root)
}

func (r *Resolver) paths() {
	r.more.pathsOnce.Do(func() {
		m := &r.more
		m.byBase = map[string][]string{}
		m.dirsByBase = map[string][]string{}
		for f := range r.files {
			m.byBase[path.Base(f)] = append(m.byBase[path.Base(f)], f)
		}
		for d := range r.dirs {
			if d != "" {
				m.dirsByBase[path.Base(d)] = append(m.dirsByBase[path.Base(d)], d)
			}
		}
		for _, v := range m.byBase {
			sort.Strings(v)
		}
		for _, v := range m.dirsByBase {
			sort.Strings(v)
		}
	})
}

// suffixFiles returns the files whose path is rel or ends in "/"+rel.
func (r *Resolver) suffixFiles(rel string) []string {
	r.paths()
	var out []string
	for _, f := range r.more.byBase[path.Base(rel)] {
		if hasPathSuffix(f, rel) {
			out = append(out, f)
		}
	}
	return out
}

// mostSpelled returns, among cands, the one nearest from (closest) of
// those with the highest score, which must be at least need; "" when
// none reaches it. score counts how much of a name a candidate spells.
func mostSpelled(from string, cands []string, need int, score func(string) int) string {
	var best []string
	bestN := 0
	for _, c := range cands {
		n := score(c)
		switch {
		case n < need || n < bestN:
		case n > bestN:
			best, bestN = []string{c}, n
		default:
			best = append(best, c)
		}
	}
	return closest(from, best)
}

// suffixDirs returns the directories whose path is rel or ends in
// "/"+rel and that keep(dir) accepts.
func (r *Resolver) suffixDirs(rel string, keep func(string) bool) []string {
	r.paths()
	var out []string
	for _, d := range r.more.dirsByBase[path.Base(rel)] {
		if hasPathSuffix(d, rel) && keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// hasPathSuffix reports whether p is rel or ends with "/"+rel.
func hasPathSuffix(p, rel string) bool {
	return p == rel || strings.HasSuffix(p, rel) && p[len(p)-len(rel)-1] == '/'
}

// closest picks, among candidate paths, the one nearest the importing
// file: the most leading directories in common with it, then the
// shortest, then the first in byte order. It returns "" for none.
func closest(from string, cands []string) string {
	best, bestCommon := "", -1
	dir := path.Dir(from)
	for _, c := range cands {
		n := commonDirs(dir, c)
		if n > bestCommon || n == bestCommon && (len(c) < len(best) || len(c) == len(best) && c < best) {
			best, bestCommon = c, n
		}
	}
	return best
}

// commonDirs counts the leading path elements dir and p share.
func commonDirs(dir, p string) int {
	if dir == "." {
		return 0
	}
	n := 0
	for {
		a, restA, okA := strings.Cut(dir, "/")
		b, restB, okB := strings.Cut(p, "/")
		if a != b || !okB {
			return n
		}
		n++
		if !okA {
			return n
		}
		dir, p = restA, restB
	}
}

// parentDir is path.Dir with "" for the root.
func parentDir(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}
