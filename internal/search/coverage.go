package search

import (
	"path"
	"slices"
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
// terms, or a term that one of abbrevs abbreviates (see [abbreviates]);
// 0 for a query without content words.
func (qw queryWords) share(terms map[string]bool, abbrevs []string) float64 {
	if len(qw) == 0 {
		return 0
	}
	n := 0
	for _, set := range qw {
		for t := range set {
			if terms[t] || slices.ContainsFunc(abbrevs, func(a string) bool { return abbreviates(a, t) }) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(qw))
}

// minAbbrev is the shortest name word taken as an abbreviation: "impl",
// "conf", "auth", "util"; shorter ones ("io", "fmt", "net") are prefixes
// of too many words.
const minAbbrev = 4

// abbreviates reports whether the name word a (lower case, as written in
// a file name) is a shortening of the query term t: impls/impl →
// implementations, config → configuration, auth → authentication. It
// can misfire (form.ts for "formatting"); the name boost it feeds is
// one share among the query's words. semble DEV 0.836 → 0.837 (serde's
// attr.rs and impls.rs rise), SWE-bench DEV 50 unchanged.
func abbreviates(a, t string) bool {
	a = strings.TrimSuffix(a, "s")
	return len(a) >= minAbbrev && len(t) > len(a)+2 && strings.HasPrefix(t, a)
}

// nameWords returns the lower-case words of a path's file stem as
// written, split at identifier boundaries, without stems: the
// abbreviations [queryWords.share] may match.
func nameWords(p string) []string {
	var ws []string
	analyze.Words(fileStem(p), func(w string, _ int) {
		analyze.Parts(w, func(part string) { ws = append(ws, strings.ToLower(part)) })
	})
	return ws
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
