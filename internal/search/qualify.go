package search

import (
	"path"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// qualified maps a defined name (the last segment of a qualified symbol the
// query writes: "Server" of "http.Server", "none" of "QuerySet.none()") to
// the qualifier lists written with it, each lower case and in order
// ([["http"]], [["queryset"]]; "Sinatra::Base" → [["sinatra"]]).
type qualified map[string][][]string

// queryQualifiers returns the qualifiers of the query's code-style symbols
// and, for a symbol query, of the query itself. Receivers that name no
// type (self, this, cls, super) are not qualifiers.
func queryQualifiers(q *analyze.Query) qualified {
	out := qualified{}
	add := func(sym string) {
		segs := splitQualified(sym)
		if len(segs) < 2 {
			return
		}
		name := segs[len(segs)-1]
		var qual []string
		for _, s := range segs[:len(segs)-1] {
			switch s = strings.ToLower(s); s {
			case "self", "this", "cls", "super", "":
			default:
				qual = append(qual, s)
			}
		}
		if len(qual) == 0 || name == "" {
			return
		}
		for _, have := range out[name] {
			if slices.Equal(have, qual) {
				return
			}
		}
		out[name] = append(out[name], qual)
	}
	for _, s := range q.Symbols {
		add(s)
	}
	if q.Kind == analyze.QuerySymbol {
		add(strings.TrimSpace(q.Raw))
	}
	return out
}

// splitQualified splits a qualified name at ".", "::", "->", "#" and "/"
// ("(*Server).Shutdown" → ["Server", "Shutdown"], "fmt::format_to()" →
// ["fmt", "format_to"]), dropping pointer and call punctuation.
func splitQualified(sym string) []string {
	var segs []string
	for _, s := range strings.FieldsFunc(sym, func(r rune) bool {
		return r == '.' || r == ':' || r == '#' || r == '/' || r == '>' || r == '-'
	}) {
		if s = strings.Trim(s, "()*&[]<> \t"); s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

// holdsQualifiers reports whether a definition's owners hold every word of
// one of quals: its directories and file stem ("net/http/server.go" holds
// "http" and "server"), its breadcrumb and the qualifiers of its symbol
// ("(*Server).Shutdown" holds "server"), all compared in lower case.
func holdsQualifiers(filePath, symbol, breadcrumb string, quals [][]string) bool {
	if len(quals) == 0 {
		return false
	}
	owners := map[string]bool{}
	dir, base := path.Split(filePath)
	for _, d := range strings.Split(strings.ToLower(dir), "/") {
		owners[d] = true
	}
	owners[fileStem(base)] = true
	for _, text := range []string{breadcrumb, symbol} {
		analyze.Words(text, func(w string, _ int) { owners[strings.ToLower(w)] = true })
	}
	for _, qual := range quals {
		all := true
		for _, w := range qual {
			if !owners[w] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
