package graph

import (
	"path"
	"strings"
	"unicode"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Lookup is a symbol as a user or an agent writes it, split into the bare
// name and the qualifiers that must narrow the answer.
//
// Every spelling the languages ctx reads use is accepted: Go "(*T).M",
// "T.M", "pkg.Name", "pkg/path.Name", "(*pkg.T).M"; "Class.method",
// "Class::method", "Class#method" (Ruby, JSDoc), "module.function",
// C++ "ns::Type", Rust "crate::module::Item", PHP "Ns\Class". Generic
// arguments ("Vec<T>::new", "List[T].map") are dropped.
type Lookup struct {
	// Name is the bare defined name ("Serve").
	Name string
	// Quals are the qualifiers, outermost first: "net/http.Server.Shutdown"
	// gives ["net", "http", "Server"].
	Quals []string
	// Sep is the separator written before Name when there are
	// qualifiers: "#" (Ruby's instance method, "Base#call"), "::" or
	// "."; empty otherwise.
	Sep string
}

// generics matches a generic argument list: "<…>" or, after a name, "[…]".
var generics = lazyre.New(`<[^<>]*>|(\w)\[[^\[\]]*\]`)

// ParseLookup splits a symbol into its bare name and qualifiers; an
// operator ("Vec2::operator+") keeps its operator as the name. A symbol
// with no identifier in it gives an empty Name.
func ParseLookup(symbol string) Lookup {
	s := strings.TrimSpace(symbol)
	if m := operatorRe().FindStringSubmatchIndex(s); m != nil {
		name := "operator" + strings.TrimSpace(s[m[2]:m[3]])
		return Lookup{Name: name, Quals: ParseLookup(s[:m[0]] + " x").Quals}
	}
	for i := 0; i < 3 && generics().MatchString(s); i++ { // nested generics
		s = generics().ReplaceAllString(s, "$1")
	}
	parts := strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$')
	})
	if len(parts) == 0 {
		return Lookup{}
	}
	lk := Lookup{Name: parts[len(parts)-1], Quals: parts[:len(parts)-1]}
	if len(lk.Quals) > 0 {
		before := strings.TrimRight(s[:strings.LastIndex(s, lk.Name)], " ")
		for _, sep := range []string{"#", "::", "."} {
			if strings.HasSuffix(before, sep) {
				lk.Sep = sep
				break
			}
		}
	}
	return lk
}

// operatorRe finds an operator name: "operator" then its symbol.
var operatorRe = lazyre.New(`(?:^|[\s.:>])operator\s*([^\w\s(][^\s(]*|\w+\s*\(\))\s*$`)

// Match is how well a definition's scope fits a lookup's qualifiers.
type Match int

// Matches, best last.
const (
	// MatchNone: a qualifier names nothing in the definition's scope.
	MatchNone Match = iota
	// MatchLoose: every qualifier is in the scope, in order, ignoring case,
	// but not as the scope's innermost names (a re-exported name, a
	// skipped namespace, "fastapi.FastAPI" for fastapi/applications.py).
	MatchLoose
	// MatchExact: the qualifiers are the innermost names of the scope, in
	// order and case: "(*Server).Serve" for a method whose receiver is
	// Server, "http.Serve" for a function of package net/http,
	// "Sinatra::Base#route" for a method of class Base in module Sinatra.
	MatchExact
)

// String names a match as answers report it.
func (m Match) String() string {
	switch m {
	case MatchExact:
		return "exact"
	case MatchLoose:
		return "loose"
	}
	return "none"
}

// MatchScope reports how quals fit a scope (see [Scope]); no qualifiers
// fit every scope exactly.
func MatchScope(quals, scope []string) Match {
	if len(quals) == 0 {
		return MatchExact
	}
	if len(quals) <= len(scope) {
		tail := scope[len(scope)-len(quals):]
		exact := true
		for i, q := range quals {
			if tail[i] != q {
				exact = false
				break
			}
		}
		if exact {
			return MatchExact
		}
	}
	j := 0
	for _, s := range scope {
		if j < len(quals) && strings.EqualFold(s, quals[j]) {
			j++
		}
	}
	if j == len(quals) {
		return MatchLoose
	}
	return MatchNone
}

// layoutDirs are source-layout directories that no language's qualified
// names include ("serde/src/de/mod.rs" is serde::de).
var layoutDirs = map[string]bool{"src": true, "lib": true, "include": true, "source": true, "sources": true}

// moduleFiles are file stems that stand for their directory's module
// (Rust mod.rs and lib.rs, Python __init__.py, JS/TS index, Go doc).
var moduleFiles = map[string]bool{"mod": true, "lib": true, "main": true, "index": true, "__init__": true, "init": true}

// goMajor matches a Go module major-version directory ("v2").
var goMajor = lazyre.New(`^v[0-9]+$`)

// Scope returns the names that qualify a definition, outermost first: the
// directories of its path (less source-layout ones; for Go, less a
// major-version "v2"), its file's module name where the language makes
// one (not Go, whose package is the directory, nor C and C++, whose
// namespaces are declared; nor when the module is named for the
// definition: types/json.js's function json is types.json), then the enclosing definitions of its
// breadcrumb (" > "-joined) and the qualifiers of its symbol, with
// repeated neighbours folded: net/http/server.go's "(*Server).Serve"
// gives [net http Server]; gson/…/com/google/gson/Gson.java's method
// "Gson.toJson" gives [… com google gson Gson].
func Scope(relPath, lang, symbol, breadcrumb string) []string {
	var out []string
	add := func(s string) {
		if s != "" && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	if dir := path.Dir(relPath); dir != "." {
		for _, d := range strings.Split(dir, "/") {
			if layoutDirs[d] || lang == "go" && goMajor().MatchString(d) {
				continue
			}
			add(d)
		}
	}
	switch lang {
	case "go", "c", "cpp":
	default:
		base := path.Base(relPath)
		stem := base
		if i := strings.IndexByte(base, '.'); i > 0 {
			stem = base[:i]
		}
		// A module named for what it defines (types/json.js exporting
		// function json) is one scope, not two: types.json.
		if !moduleFiles[stem] && stem != ParseLookup(symbol).Name {
			add(stem)
		}
	}
	if breadcrumb != "" {
		for _, b := range strings.Split(breadcrumb, " > ") {
			for _, p := range ParseLookup(b + ".x").Quals {
				add(p)
			}
		}
	}
	// The symbol's qualifiers usually repeat the breadcrumb's innermost
	// names ("Router.handle" under "Router"): add them only when not.
	if own := ParseLookup(symbol).Quals; !suffixHolds(out, own) {
		for _, q := range own {
			add(q)
		}
	}
	return out
}

// suffixHolds reports whether s ends with the names of tail.
func suffixHolds(s, tail []string) bool {
	if len(tail) > len(s) {
		return false
	}
	for i, t := range tail {
		if s[len(s)-len(tail)+i] != t {
			return false
		}
	}
	return true
}
