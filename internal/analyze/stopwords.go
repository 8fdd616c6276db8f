package analyze

// stopwords are English function words and question words that carry no
// retrieval signal in a code search query. Words that are also common API
// names ("get", "use", "before", "after", "all", "any", "once", "each") are
// not stopwords, and neither are programming keywords: "return", "error"
// and "class" are often what the user means.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "also", "am", "an", "and", "are", "as", "at",
		"be", "because", "been", "being", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "during", "either",
		"for", "from", "had", "has", "have", "having", "he", "her", "here", "hers",
		"him", "his", "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
		"me", "might", "much", "must", "my", "no", "nor", "not", "now", "of",
		"on", "only", "or", "our", "ours", "own", "shall",
		"she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
		"then", "there", "these", "they", "this", "those", "through", "to", "too",
		"us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
		"whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
		"whats", "implemented", "implementation", "located", "please",
		"e", "g", "ie", "eg", "etc", "lets", "want", "seems", "seem", "think", "know",
		"still", "even", "yet", "ok", "okay",
	} {
		m[w] = true
	}
	return m
}()

// IsStopword reports whether w (any case) is a query stopword.
func IsStopword(w string) bool { return stopwords[lower(w)] }
