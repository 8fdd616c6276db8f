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

// ownerQualified reports whether a member's owner (the innermost
// qualifier of its symbol: Fernet of "Fernet.decrypt", Server of
// "(*Server).Shutdown") is the last name of one of quals, ignoring case.
// Such a definition is the one a qualified name asks for; another that
// holds the qualifier only in its module or directories
// (MultiFernet.decrypt in the module fernet) is a different owner's.
func ownerQualified(symbol string, quals [][]string) bool {
	own := graph.ParseLookup(symbol).Quals
	if len(own) == 0 {
		return false
	}
	for _, qual := range quals {
		if len(qual) > 0 && strings.EqualFold(own[len(own)-1], qual[len(qual)-1]) {
			return true
		}
	}
	return false
}
