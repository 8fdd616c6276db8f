package analyze

// The analyzer as it was before its fast paths (ASCII parts as offsets
// into the lower-cased word, stem suffixes bucketed by last byte): the
// oracle TestTermsMatchReference compares the current one with, byte for
// byte, on real code and on fuzz input.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

func refParts(word string, emit func(part string)) {
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

func refTerms(text string, emit func(term string)) {
	// Lower-casing can lengthen a word ("Ⱥ" → "ⱥ"), so the limit is
	// checked on what is emitted.
	out := func(t string) {
		if len(t) <= MaxTermBytes {
			emit(t)
		}
	}
	var parts []string
	kebabStart, prevStart, prevEnd := -1, -1, -1
	kebab := "" // the kebab-case term so far, emitted when its chain ends
	flushKebab := func() {
		if kebab != "" {
			out(kebab)
			kebab = ""
		}
	}
	refWords(text, func(w string, start int) {
		end := start + len(w)
		if prevEnd >= 0 && start == prevEnd+1 && text[prevEnd] == '-' && refIsLetter(text[start]) {
			if kebabStart < 0 {
				kebabStart = prevStart
			}
			kebab = ""
			if k := text[kebabStart:end]; len(k) <= MaxTermBytes {
				kebab = strings.ReplaceAll(refLower(k), "-", "_")
			}
		} else {
			flushKebab()
			kebabStart = -1
		}
		prevStart, prevEnd = start, end
		if len(w) > MaxTermBytes {
			return
		}
		whole := refLower(w)
		out(whole)
		parts = parts[:0]
		refParts(w, func(p string) { parts = append(parts, p) })
		if len(parts) > 1 {
			for _, p := range parts {
				lp := refLower(p)
				out(lp)
				if s := refStem(lp); s != lp {
					out(s)
				}
			}
		} else if s := refStem(whole); s != whole {
			out(s)
		}
	})
	flushKebab()
}

func refLower(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	return w
}

func refStem(w string) string {
	st, inflection := refStemOnce(w, false)
	if inflection {
		st, _ = refStemOnce(st, true)
	}
	return st
}

func refStemOnce(w string, derivationalOnly bool) (string, bool) {
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
	for _, suf := range refStemSuffixes {
		if !strings.HasSuffix(w, suf) || n-len(suf) < 3 || !refHasVowel(w[:n-len(suf)]) {
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
			if k := len(st); k >= 4 && st[k-1] == st[k-2] && refIsUndoubled(st[k-1]) {
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

var refStemSuffixes = []string{
	"izations", "ization", "isations", "isation",
	"ations", "ation", "ators", "ator", "ating", "ated", "ates", "ate",
	"itions", "ition", "ions", "ion",
	"ements", "ement", "ments", "ment",
	"ities", "ity", "ables", "able", "ibles", "ible", "ively", "ive",
	"ings", "ing", "ers", "er", "ed", "ies", "es", "ly", "s",
}

func refHasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

func refWords(text string, emit func(word string, start int)) {
	i := 0
	n := len(text)
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			if !refIsWordByte(c) {
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
				if refIsWordByte(c) {
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

func refIsWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func refIsLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func refIsUndoubled(c byte) bool {
	switch c {
	case 'b', 'd', 'g', 'm', 'n', 'p', 'r', 't', 'f':
		return true
	}
	return false
}
