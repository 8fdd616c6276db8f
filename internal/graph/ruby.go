package graph

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// rubyRequire: require "x", require_relative 'x', with or without
	// parentheses; an interpolated name is not read.
	rubyRequire = lazyre.New(`^(require_relative|require)\b\s*\(?\s*(?:"([^"#]+)"|'([^']+)')`)
)

// rubyRequires reads require and require_relative calls that start a
// line, skipping =begin/=end blocks. A require_relative name is made
// explicitly relative ("./x" for "x"), so Spec tells the two apart.
func rubyRequires(src []byte) []Import {
	var out []Import
	inDoc := false
	scanLines(src, rubySyntax, func(n int, code []byte, _ int) bool {
		if bytes.HasPrefix(code, []byte("=begin")) {
			inDoc = true
		}
		if inDoc {
			inDoc = !bytes.HasPrefix(code, []byte("=end"))
			return true
		}
		t := bytes.TrimSpace(code)
		if !bytes.HasPrefix(t, []byte("require")) {
			return true
		}
		m := rubyRequire().FindSubmatch(t)
		if m == nil {
			return true
		}
		spec := string(m[2]) + string(m[3])
		if string(m[1]) == "require_relative" && !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && !strings.HasPrefix(spec, "/") {
			spec = "./" + spec
		}
		out = append(out, Import{Spec: spec, Line: n})
		return true
	})
	return out
}

// resolveRuby maps a relative name (require_relative) to the file
// beside the requiring one, with or without .rb; relative names are
// internal. A load-path name (require "a/b") resolves to a/b.rb below
// any lib/ directory (the gem layout) or test/ or spec/ directory (which
// test runners put on the load path), the one nearest the requiring
// file winning; anything else is a gem or the standard library.
func (r *Resolver) resolveRuby(from, spec string) Resolution {
	rb := spec
	if !strings.HasSuffix(rb, ".rb") {
		rb += ".rb"
	}
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		return r.besideFile(from, rb)
	}
	if strings.HasPrefix(spec, "/") {
		return Resolution{}
	}
	rb = path.Clean(rb)
	var cands []string
	for _, dir := range []string{"lib/", "test/", "spec/"} {
		cands = append(cands, r.suffixFiles(dir+rb)...)
	}
	if f := closest(from, cands); f != "" {
		return Resolution{Target: f, Internal: true}
	}
	return Resolution{}
}
