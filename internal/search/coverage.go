package search

import (
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// queryWords holds the distinct content words of a query (stopwords and
// single letters left out), each as the set of index terms that stand for
// it: the word lower-cased, its identifier parts and their stems. A file
// name "logger.go" covers the query word "logging" through the shared stem
// "log".
type queryWords []map[string]bool

func newQueryWords(raw string) queryWords {
	var qw queryWords
	seen := map[string]bool{}
	analyze.Words(raw, func(w string, _ int) {
		lw := strings.ToLower(w)
		if len(w) < 2 || analyze.IsStopword(w) || seen[lw] {
			return
		}
		seen[lw] = true
		set := map[string]bool{}
		analyze.Terms(w, func(t string) { set[t] = true })
		qw = append(qw, set)
	})
	return qw
}

// share returns the fraction of the query's words that have a term in
// terms, 0 for a query without content words.
func (qw queryWords) share(terms map[string]bool) float64 {
	if len(qw) == 0 {
		return 0
	}
	n := 0
	for _, set := range qw {
		for t := range set {
			if terms[t] {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(qw))
}

// nameTerms returns the index terms of a path's file stem and parent
// directory ("net/http/server.go" → server, serv, http).
func nameTerms(p string) map[string]bool {
	set := map[string]bool{}
	add := func(t string) { set[t] = true }
	analyze.Terms(fileStem(p), add)
	analyze.Terms(path.Base(path.Dir(p)), add)
	return set
}

// pathTerms returns the index terms of every directory of a path and of
// its file stem, without the extension.
func pathTerms(p string) map[string]bool {
	set := map[string]bool{}
	add := func(t string) { set[t] = true }
	analyze.Terms(path.Dir(p), add)
	analyze.Terms(fileStem(p), add)
	return set
}
