package embed

// Prefixes are the instructions a provider prepends to every text of an
// [InputKind], for models trained with task instructions (nomic-embed-text:
// "search_query: " and "search_document: "; e5: "query: " and "passage: ").
// An empty prefix means none. Prefixes change the vectors without changing
// the [Model] identity, so an index must be rebuilt when they change.
type Prefixes struct {
	Query    string
	Document string
}

// Apply returns texts with the prefix of kind prepended to each, in a new
// slice; it returns texts itself when that prefix is empty or kind is
// neither [Query] nor [Document]. It never modifies texts.
func (p Prefixes) Apply(texts []string, kind InputKind) []string {
	var prefix string
	switch kind {
	case Query:
		prefix = p.Query
	case Document:
		prefix = p.Document
	}
	if prefix == "" {
		return texts
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = prefix + t
	}
	return out
}
