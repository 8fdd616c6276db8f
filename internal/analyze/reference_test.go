package analyze

// refTerms is [Terms] without its ASCII fast path: every run split by
// [Parts] and lower-cased part by part.
func refTerms(text string, emit func(term string)) { terms(text, emit, false) }

// refStem is [Stem] trying every suffix in turn, as it did before the
// suffixes were bucketed by their last byte.
func refStem(w string) string {
	st, inflection := stemAmong(w, false, stemSuffixes)
	if inflection {
		st, _ = stemAmong(st, true, stemSuffixes)
	}
	return st
}
