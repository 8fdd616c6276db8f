package graph

import (
	"bytes"
	"path"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// csUsing: using A.B; using static A.B.C; using X = A.B.C; global
	// using ...; the alias target may be generic. A using statement
	// (using var x = ...; using (...)) does not match.
	csUsing = lazyre.New(`^(?:global\s+)?using\s+(?:static\s+)?(?:@?\w+\s*=\s*)?(?:global\s*::\s*)?(@?[A-Za-z_]\w*(?:\s*\.\s*@?[A-Za-z_]\w*)*)\s*(?:<[^;]*>)?\s*;`)
)

// csharpUsings reads using directives (namespaces, static types and
// aliases) at any depth, so those inside namespace blocks count. Spec
// is the dotted name: the namespace, or the type of a static or alias
// using.
func csharpUsings(src []byte) []Import {
	var out []Import
	scanLines(src, csSyntax, func(n int, code []byte, _ int) bool {
		t := bytes.TrimSpace(code)
		if !bytes.HasPrefix(t, []byte("using")) && !bytes.HasPrefix(t, []byte("global")) {
			return true
		}
		if m := csUsing().FindSubmatch(t); m != nil {
			out = append(out, Import{Spec: strings.ReplaceAll(stripSpace(string(m[1])), "@", ""), Line: n})
		}
		return true
	})
	return out
}

// resolveCSharp maps a using to a directory by convention, since C#
// namespaces need not follow directories and only paths are known: the
// namespace A.B.C is a directory whose path ends in elements that spell
// its last segments, with or without dots (A/B/C, A.B/C, src/A.B.C, or
// B/C in a project whose root namespace is A), at least two segments
// (one for a one-segment namespace) matched; the longest match wins,
// then the directory nearest the importing file. A static or alias
// using of a type A.B.T resolves to A.B's T.cs when it exists, else to
// A.B's directory. Else a namespace that starts with a project's name
// is looked up below that project's directory (B/C beside A.csproj for
// A.B.C, B/ for A.B). Unresolved, a using is internal when its leading
// segments match a .csproj name's (two, or fewer when either name is
// shorter).
func (r *Resolver) resolveCSharp(from, spec string) Resolution {
	r.cs()
	segs := strings.Split(spec, ".")
	if d := r.csDir(from, segs); d != "" {
		return Resolution{Target: d, Internal: true}
	}
	if len(segs) >= 2 {
		if d := r.csDir(from, segs[:len(segs)-1]); d != "" {
			if f := join(d, segs[len(segs)-1]+".cs"); r.files[f] {
				return Resolution{Target: f, Internal: true}
			}
			return Resolution{Target: d, Internal: true}
		}
	}
	if t := r.csProjectPath(segs); t != "" {
		return Resolution{Target: t, Internal: true}
	}
	for _, p := range r.more.csProjects {
		need := min(2, len(p), len(segs))
		n := 0
		for n < need && strings.EqualFold(p[n], segs[n]) {
			n++
		}
		if n == need {
			return Resolution{Internal: true}
		}
	}
	return Resolution{}
}

// csProjectPath resolves a namespace whose leading segments are a
// project's name (its default root namespace) below that project's
// directory: Shop.Inventory is Inventory/ beside Shop.csproj, which the
// trailing-segment rule misses when one directory spells it. A type
// (Shop.Inventory.Item) resolves to its file when it has one, else to
// its namespace's directory. It returns "" when no project matches.
func (r *Resolver) csProjectPath(segs []string) string {
	for i, p := range r.more.csProjects {
		if len(segs) <= len(p) {
			continue
		}
		n := 0
		for n < len(p) && strings.EqualFold(p[n], segs[n]) {
			n++
		}
		if n < len(p) {
			continue
		}
		rest := segs[len(p):]
		if d := join(r.more.csProjectDirs[i], strings.Join(rest, "/")); r.dirs[d] {
			return d
		}
		if len(rest) < 2 {
			continue
		}
		d := join(r.more.csProjectDirs[i], strings.Join(rest[:len(rest)-1], "/"))
		if f := join(d, rest[len(rest)-1]+".cs"); r.files[f] {
			return f
		}
		if r.dirs[d] {
			return d
		}
	}
	return ""
}

// csDir returns the directory that spells the most trailing segments
// of a namespace.
func (r *Resolver) csDir(from string, segs []string) string {
	return mostSpelled(from, r.more.csDirs[strings.ToLower(segs[len(segs)-1])], min(2, len(segs)), func(d string) int { return spelled(d, segs) })
}

// spelled counts the trailing namespace segments that dir's trailing
// path elements spell, each element one or more dotted segments.
func spelled(dir string, segs []string) int {
	n := 0
	for dir != "" && n < len(segs) {
		elem := path.Base(dir)
		parts := strings.Split(elem, ".")
		if len(parts) > len(segs)-n {
			return n
		}
		for i, p := range parts {
			if !strings.EqualFold(p, segs[len(segs)-n-len(parts)+i]) {
				return n
			}
		}
		n += len(parts)
		dir = parentDir(dir)
	}
	return n
}

func (r *Resolver) cs() {
	r.more.csOnce.Do(func() {
		m := &r.more
		m.csDirs = map[string][]string{}
		seen := map[string]bool{}
		for f := range r.files {
			switch {
			case strings.HasSuffix(f, ".csproj"):
				m.csProjects = append(m.csProjects, strings.Split(strings.TrimSuffix(path.Base(f), ".csproj"), "."))
				m.csProjectDirs = append(m.csProjectDirs, parentDir(f))
			case strings.HasSuffix(f, ".cs"):
				for d := parentDir(f); d != "" && !seen[d]; d = parentDir(d) {
					seen[d] = true
					b := path.Base(d)
					last := strings.ToLower(b[strings.LastIndexByte(b, '.')+1:])
					m.csDirs[last] = append(m.csDirs[last], d)
				}
			}
		}
		for _, v := range m.csDirs {
			sort.Strings(v)
		}
	})
}
