// Package analyze turns code and queries into the code-aware token stream
// that ctx's BM25 index and query use, so both sides of a match go through
// exactly the same analysis.
//
// An identifier run (letters, digits, underscores) is emitted whole and
// lower-cased, followed by its parts when it has more than one: snake_case,
// kebab-case (a hyphen between letters), camelCase, PascalCase, acronym runs
// (getHTTPResponse → gethttpresponse, get, http, response) and digit runs
// (utf8Decode → utf8decode, utf, 8, decode). Each word or part also gets
// its word-family stem beside it when that differs ([Stem]: validation,
// validator → valid), never instead of it, the variant recommended for code
// search in ../shared/notes/ranking.md.
package analyze

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version identifies the analysis rules. It is part of the index identity:
// terms written by another version do not match this version's queries.
//
//	1: identifier splitting, light plural/-ing/-ed stems.
//	2: word-family stems (-ation, -er, -ity, …, undoubling).
const Version = 2

// MaxTermBytes is the longest term emitted; longer runs (base64 blobs,
// hashes) are dropped, since they never make a useful match.
const MaxTermBytes = 64

// isWordByte reports whether b can be part of an ASCII identifier run.
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// Words calls emit for every identifier run of text, in order, as it
// appears in the text (case kept), with the run's byte offset in text. A run
// is a maximal sequence of letters, digits and underscores.
func Words(text string, emit func(word string, start int)) {
	i := 0
	n := len(text)
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
		}
		start := i
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				if isWordByte(c) {
					i++
					continue
				}
				break
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			i += size
		}
		emit(text[start:i], start)
	}
}

// Parts calls emit for each part of one identifier run, in order, keeping
// case: "getHTTPResponse" → get, HTTP, Response; "snake_case2x" → snake,
// case, 2, x. A run with a single part emits it once.
func Parts(word string, emit func(part string)) {
	n := len(word)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			emit(word[start:end])
		}
		start = -1
	}
	for i := 0; i < n; {
		r, size := rune(word[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(word[i:])
		}
		switch {
		case r == '_':
			flush(i)
		case start < 0:
			start = i
		default:
			prev, _ := utf8.DecodeLastRuneInString(word[:i])
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush(i)
				start = i
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush(i)
				start = i
			case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > 1:
				// "HTTPResponse": the boundary is before the last capital.
				p := i - utf8.RuneLen(prev)
				flush(p)
				start = p
			}
		}
		i += size
	}
	flush(n)
}

// Terms calls emit for every index term of text, in order: each identifier
// run lower-cased, then its lower-cased parts if it has more than one, each
// followed by its [Stem] when that differs. Runs joined by
// single hyphens (kebab-case) are also emitted whole, joined by "_", after
// their last run. Terms longer than [MaxTermBytes] are dropped.
func Terms(text string, emit func(term string)) { terms(text, emit, true) }

// terms is [Terms]; asciiFast takes the ASCII fast path (parts sliced out
// of the lower-cased run), which must emit exactly what the general path
// does (TestTermsMatchReference runs both).
func terms(text string, emit func(term string), asciiFast bool) {
	// Lower-casing can lengthen a word ("Ⱥ" → "ⱥ"), so the limit is
	// checked on what is emitted.
	out := func(t string) {
		if len(t) <= MaxTermBytes {
			emit(t)
		}
	}
	var parts []string
	var spans [][2]int
	kebabStart, prevStart, prevEnd := -1, -1, -1
	kebab := "" // the kebab-case term so far, emitted when its chain ends
	flushKebab := func() {
		if kebab != "" {
			out(kebab)
			kebab = ""
		}
	}
	Words(text, func(w string, start int) {
		end := start + len(w)
		if prevEnd >= 0 && start == prevEnd+1 && text[prevEnd] == '-' && isLetter(text[start]) {
			if kebabStart < 0 {
				kebabStart = prevStart
			}
			kebab = ""
			if k := text[kebabStart:end]; len(k) <= MaxTermBytes {
				kebab = strings.ReplaceAll(lower(k), "-", "_")
			}
		} else {
			flushKebab()
			kebabStart = -1
		}
		prevStart, prevEnd = start, end
		if len(w) > MaxTermBytes {
			return
		}
		whole := lower(w)
		out(whole)
		if asciiFast && isASCII(w) {
			// Lower-casing ASCII keeps every byte where it is, so each
			// part's lower case is a slice of whole: no allocation.
			spans = asciiParts(w, spans[:0])
			if len(spans) > 1 {
				for _, sp := range spans {
					lp := whole[sp[0]:sp[1]]
					out(lp)
					if s := Stem(lp); s != lp {
						out(s)
					}
				}
			} else if s := Stem(whole); s != whole {
				out(s)
			}
			return
		}
		parts = parts[:0]
		Parts(w, func(p string) { parts = append(parts, p) })
		if len(parts) > 1 {
			for _, p := range parts {
				lp := lower(p)
				out(lp)
				if s := Stem(lp); s != lp {
					out(s)
				}
			}
		} else if s := Stem(whole); s != whole {
			out(s)
		}
	})
	flushKebab()
}

// TermList returns [Terms] of text as a slice.
func TermList(text string) []string {
	var out []string
	Terms(text, func(t string) { out = append(out, t) })
	return out
}

// isASCII reports whether w is all ASCII bytes.
func isASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiParts appends to spans the [start, end) byte offsets of the parts
// of an all-ASCII identifier run, as [Parts] splits it, and returns spans.
func asciiParts(word string, spans [][2]int) [][2]int {
	const (
		other = iota
		lowerCase
		upperCase
		digit
	)
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return lowerCase
		case c >= 'A' && c <= 'Z':
			return upperCase
		case c >= '0' && c <= '9':
			return digit
		}
		return other
	}
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			spans = append(spans, [2]int{start, end})
		}
		start = -1
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case c == '_':
			flush(i)
		case start < 0:
			start = i
		default:
			cur, prev := class(c), class(word[i-1])
			switch {
			case (cur == digit) != (prev == digit):
				flush(i)
				start = i
			case cur == upperCase && prev == lowerCase:
				flush(i)
				start = i
			case cur == lowerCase && prev == upperCase && i-start > 1:
				// "HTTPResponse": the boundary is before the last capital.
				flush(i - 1)
				start = i - 1
			}
		}
	}
	flush(len(word))
	return spans
}

// isLetter reports whether b is an ASCII letter.
func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// lower is strings.ToLower without the allocation when w is already lower case.
func lower(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	return w
}

// stemSuffixes are the derivational and inflectional endings [Stem]
// removes, longest first within each family, so that the members of a word
// family share one stem: validate, validated, validates, validating,
// validation, validator → valid; serializer, serialization, serialized →
// serializ; logger, logging → log.
var stemSuffixes = []string{
	"izations", "ization", "isations", "isation",
	"ations", "ation", "ators", "ator", "ating", "ated", "ates", "ate",
	"itions", "ition", "ions", "ion",
	"ements", "ement", "ments", "ment",
	"ities", "ity", "ables", "able", "ibles", "ible", "ively", "ive",
	"ings", "ing", "ers", "er", "ed", "ies", "es", "ly", "s",
}

// suffixesEnding holds, per final byte, the stemSuffixes ending in it, in
// stemSuffixes' order: [stemOnce] tries only those that can match, which
// gives the same first match as trying them all (a third of the
// analyzer's time went to the failing comparisons).
var suffixesEnding = func() (by [256][]string) {
	for _, suf := range stemSuffixes {
		last := suf[len(suf)-1]
		by[last] = append(by[last], suf)
	}
	return by
}()

// Stem reduces a lower-case word to the stem it shares with its word
// family: it removes one ending from stemSuffixes (after an inflection, one
// derivational ending more: buffered → buffer → buf), then a final "e", and
// undoubles a final consonant left by -ing, -ed or -er (logging → log,
// stripped → strip). A stem keeps at least three bytes and a vowel. Words
// with no known ending come back unchanged, less a final "e". It is
// deliberately light and rule-based: the stem is indexed beside the
// original, so precision comes from the original and recall from the stem.
func Stem(w string) string {
	st, inflection := stemOnce(w, false)
	if inflection {
		st, _ = stemOnce(st, true)
	}
	return st
}

// stemOnce removes one ending. derivationalOnly restricts it to endings
// that make new words (-er, -ation, …), for the second pass.
func stemOnce(w string, derivationalOnly bool) (string, bool) {
	var candidates []string
	if w != "" {
		candidates = suffixesEnding[w[len(w)-1]]
	}
	return stemAmong(w, derivationalOnly, candidates)
}

// stemAmong is [stemOnce] trying only the endings in candidates, in
// order (stemSuffixes itself gives the same result: the ones left out
// cannot match).
func stemAmong(w string, derivationalOnly bool, candidates []string) (string, bool) {
	n := len(w)
	if n < 4 {
		return w, false
	}
	if strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
		return w, false
	}
	if n == 4 {
		switch w[3] {
		case 's':
			if !derivationalOnly {
				return w[:3], true
			}
		case 'e':
			return w[:3], false
		}
		return w, false
	}
	for _, suf := range candidates {
		if !strings.HasSuffix(w, suf) || n-len(suf) < 3 || !hasVowel(w[:n-len(suf)]) {
			continue
		}
		inflection := false
		switch suf {
		case "ings", "ing", "ed", "ies", "es", "ly", "s":
			if derivationalOnly {
				continue
			}
			inflection = true
		}
		st := w[:n-len(suf)]
		switch suf {
		case "ies":
			return st + "y", false
		case "izations", "ization":
			st += "iz"
		case "isations", "isation":
			st += "is"
		case "ing", "ings", "ed", "er", "ers":
			if k := len(st); k >= 4 && st[k-1] == st[k-2] && isUndoubled(st[k-1]) {
				st = st[:k-1]
			}
		case "es":
			// "indexes", "matches", "passes": -es after s, x, z, ch, sh;
			// otherwise only the "s" is plural ("files" → "file" → "fil").
			if !(strings.HasSuffix(st, "x") || strings.HasSuffix(st, "z") || strings.HasSuffix(st, "ch") ||
				strings.HasSuffix(st, "sh") || strings.HasSuffix(st, "ss")) {
				st = w[:n-1]
			}
		}
		if len(st) > 3 && st[len(st)-1] == 'e' {
			st = st[:len(st)-1]
		}
		return st, inflection
	}
	if w[n-1] == 'e' {
		return w[:n-1], false
	}
	return w, false
}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// isUndoubled reports whether a doubled final consonant c is undoubled
// after removing -ing/-ed/-er (Porter's rule: not l, s or z).
func isUndoubled(c byte) bool {
	switch c {
	case 'b', 'd', 'g', 'm', 'n', 'p', 'r', 't', 'f':
		return true
	}
	return false
}
