package search

import (
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/graph"
)

// qualified maps a defined name (the last segment of a qualified symbol the
// query writes: "Server" of "http.Server", "none" of "QuerySet.none()") to
// the qualifier lists written with it, each lower case and in order
// ([["http"]], [["queryset"]]; "Sinatra::Base" → [["sinatra"]]).
type qualified map[string][][]string

// queryQualifiers returns the qualifiers of the query's code-style symbols
// and, for a symbol query, of the query itself, as [graph.ParseLookup]
// splits them. Receivers that name no type (self, this, cls, super) are
// not qualifiers.
func queryQualifiers(q *analyze.Query) qualified {
	out := qualified{}
	add := func(sym string) {
		lk := graph.ParseLookup(sym)
		var qual []string
		for _, s := range lk.Quals {
			switch s = strings.ToLower(s); s {
			case "self", "this", "cls", "super":
			default:
				qual = append(qual, s)
			}
		}
		if len(qual) == 0 || lk.Name == "" {
			return
		}
		for _, have := range out[lk.Name] {
			if slices.Equal(have, qual) {
				return
			}
		}
		out[lk.Name] = append(out[lk.Name], qual)
	}
	for _, s := range q.Symbols {
		add(s)
	}
	if q.Kind == analyze.QuerySymbol {
		add(q.Name)
	}
	return out
}

// holdsQualifiers reports whether a definition's scope ([graph.Scope]:
// its directories, module, breadcrumb and symbol qualifiers; net/http's
// "(*Server).Shutdown" has [net http Server]) holds the words of one of
// quals in order, ignoring case ([graph.MatchScope]).
func holdsQualifiers(filePath, lang, symbol, breadcrumb string, quals [][]string) bool {
	if len(quals) == 0 {
		return false
	}
	scope := graph.Scope(filePath, lang, symbol, breadcrumb)
	for _, qual := range quals {
		if graph.MatchScope(qual, scope) != graph.MatchNone {
			return true
		}
	}
	return false
}
