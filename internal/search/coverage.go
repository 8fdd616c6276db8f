package search

import (
	"path"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// queryWords holds the distinct content words of a query (stopwords and
// single letters left out), each as the set of index terms that stand for
// it: the word lower-cased, its identifier parts, their stems, and its
// concatenations with the content words before and after it. A file name
// "logger.go" covers the query word "logging" through the shared stem
// "log", and "realip.go" both words of "real IP" (semble DEV 0.837 →
// 0.843: realip.go, threadpool.c, JsonArray.java; SWE-bench DEV 50
// unchanged).
type queryWords []queryWord

// queryWord is one content word of a query: every term that stands for it
// (terms) and those that come from the word alone (own), which file-name
// abbreviations are matched against.
type queryWord struct {
	terms map[string]bool
	own   []string
}

func newQueryWords(raw string) queryWords {
	var qw queryWords
	var words []string
	seen := map[string]bool{}
	analyze.Words(raw, func(w string, _ int) {
		lw := strings.ToLower(w)
		if len(w) < 2 || analyze.IsStopword(w) || seen[lw] {
			return
		}
		seen[lw] = true
		qword := queryWord{terms: map[string]bool{}}
		analyze.Terms(w, func(t string) {
			if !qword.terms[t] {
				qword.terms[t] = true
				qword.own = append(qword.own, t)
			}
		})
		qw = append(qw, qword)
		words = append(words, lw)
	})
	// Names join words without a separator (realip.go, threadpool.c):
	// two neighbouring query words, joined, stand for both.
	for i := 1; i < len(words); i++ {
		joined := words[i-1] + words[i]
		qw[i-1].terms[joined] = true
		qw[i].terms[joined] = true
	}
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
	for _, w := range qw {
		if slices.ContainsFunc(abbrevs, func(a string) bool {
			return slices.ContainsFunc(w.own, func(t string) bool { return abbreviates(a, t) })
		}) {
			n++
			continue
		}
		for t := range w.terms {
			if terms[t] {
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
