package static

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// CodeTokenizerVersion identifies the [CodeTokenizer] rules; it is written
// into tokenizer.json and covered by the model checksum, so a model
// trained under other rules never passes for this one.
//
//	1: analyze.Terms of each identifier run, plus hashed "<word>" character
//	   trigrams (FNV-1a) of each whole identifier not in the vocabulary.
const CodeTokenizerVersion = "ctxcode-1+analyze-" + "2"

// codeTokenizerType is the tokenizer.json model type of a [CodeTokenizer].
const codeTokenizerType = "CtxCode"

// CodeTokenizer is ctx's own tokenizer for code and queries. It cuts text
// into identifier runs ([analyze.Words]) and, for each run, emits as
// tokens the terms BM25 indexes ([analyze.Terms] of the run: the whole
// run lower-cased, its camel/snake parts, and word-family stems); terms
// in the vocabulary map to their ids, others are dropped. When the whole
// lower-cased run is not in the vocabulary, it also emits the character
// trigrams of "<run>" ('<' and '>' mark the ends), each hashed with
// 32-bit FNV-1a of "#" + trigram into one of Buckets rows placed after
// the vocabulary, so an unseen identifier still lands on trained rows.
//
// Unlike analyze.Terms over the whole text, kebab-case chains are not
// joined into one term. Ids are vocab ids in [0, len(vocab)) and bucket
// ids in [len(vocab), len(vocab)+Buckets). It is deterministic, immutable
// and safe for concurrent use.
type CodeTokenizer struct {
	vocab   termTable
	buckets int
}

// NewCodeTokenizer returns a code tokenizer whose vocabulary is vocab
// (vocab[i] has id i) followed by buckets hash buckets. vocab must hold
// distinct non-empty terms; buckets must be positive.
func NewCodeTokenizer(vocab []string, buckets int) (*CodeTokenizer, error) {
	if buckets <= 0 || buckets > 1<<24 {
		return nil, fmt.Errorf("code tokenizer: %d hash buckets, want 1 to 2^24", buckets)
	}
	table, err := newTermTable(vocab)
	if err != nil {
		return nil, fmt.Errorf("code tokenizer: %v", err)
	}
	return &CodeTokenizer{vocab: table, buckets: buckets}, nil
}

// Size returns the number of ids: the vocabulary plus the buckets.
func (t *CodeTokenizer) Size() int { return t.vocab.len() + t.buckets }

// VocabSize returns the number of vocabulary terms; bucket ids start there.
func (t *CodeTokenizer) VocabSize() int { return t.vocab.len() }

// Buckets returns the number of trigram hash buckets.
func (t *CodeTokenizer) Buckets() int { return t.buckets }

// Token returns a readable name for id: its term, "#<bucket>" for a hash
// bucket, or "" when id is out of range.
func (t *CodeTokenizer) Token(id int) string {
	switch {
	case id >= 0 && id < t.vocab.len():
		return t.vocab.term(id)
	case id >= t.vocab.len() && id < t.Size():
		return "#" + strconv.Itoa(id-t.vocab.len())
	}
	return ""
}

// Tokenize returns the token names ([CodeTokenizer.Token]) of text in
// order, for tests and diagnostics.
func (t *CodeTokenizer) Tokenize(text string) []string {
	ids := t.AppendIDs(nil, text, -1)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.Token(int(id))
	}
	return out
}

// AppendIDs appends the ids of text to dst, stopping once dst has grown
// by limit ids (limit < 0: no limit). A trainer tokenises with it and
// limit [MaxTokens] to see exactly the ids [Model.Embed] uses.
func (t *CodeTokenizer) AppendIDs(dst []int32, text string, limit int) []int32 {
	return t.appendIDs(dst, nil, text, limit, true)
}

func (t *CodeTokenizer) appendIDs(dst []int32, s *scratch, text string, limit int, _ bool) []int32 {
	base := len(dst)
	if s != nil && s.wordsOf != t {
		s.words, s.wordsOf = make(map[string][]int32, 1024), t
	}
	analyze.Words(text, func(w string, _ int) {
		if limit >= 0 && len(dst)-base >= limit {
			return
		}
		if s == nil {
			dst = t.appendWordIDs(dst, w)
			return
		}
		ids, ok := s.words[w]
		if !ok {
			if len(s.words) >= maxCachedWords {
				clear(s.words)
			}
			ids = t.appendWordIDs(nil, w)
			s.words[strings.Clone(w)] = ids
		}
		dst = append(dst, ids...)
	})
	if limit >= 0 && len(dst)-base > limit {
		dst = dst[:base+limit]
	}
	return dst
}

// appendWordIDs appends the ids of one identifier run w: the vocabulary
// ids of its [analyze.Terms], then, when the whole run is not in the
// vocabulary, the buckets of its character trigrams.
func (t *CodeTokenizer) appendWordIDs(dst []int32, w string) []int32 {
	first := true
	analyze.Terms(w, func(term string) {
		isWhole := first
		first = false
		if id, ok := t.vocab.lookup(term); ok {
			dst = append(dst, id)
			return
		}
		if !isWhole {
			return
		}
		trigrams(term, func(h uint32) {
			dst = append(dst, int32(t.vocab.len())+int32(h%uint32(t.buckets)))
		})
	})
	return dst
}

// CodeTerms calls emit for every term a [CodeTokenizer] looks up in its
// vocabulary, in order: for each identifier run, [analyze.Terms] of the
// run, the first (the whole run lower-cased, when it is at most
// [analyze.MaxTermBytes] long) with isWhole set. A trainer counts these
// to choose the vocabulary.
func CodeTerms(text string, emit func(term string, isWhole bool)) {
	analyze.Words(text, func(w string, _ int) {
		first := true
		analyze.Terms(w, func(term string) {
			emit(term, first)
			first = false
		})
	})
}

// trigrams calls emit with the FNV-1a hash of "#" + each character
// trigram of "<" + word + ">" (trigrams of runes, not bytes).
func trigrams(word string, emit func(uint32)) {
	rs := make([]rune, 0, len(word)+2)
	rs = append(rs, '<')
	rs = append(rs, []rune(word)...)
	rs = append(rs, '>')
	var buf [1 + 3*4]byte
	for i := 0; i+3 <= len(rs); i++ {
		key := append(buf[:0], '#')
		for _, r := range rs[i : i+3] {
			key = append(key, string(r)...)
		}
		emit(fnv1a(key))
	}
}

// fnv1a is 32-bit FNV-1a.
func fnv1a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// writeIdentity writes the version, bucket count and vocabulary.
func (t *CodeTokenizer) writeIdentity(w io.Writer) {
	var b [8]byte
	putInt := func(v int) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		w.Write(b[:])
	}
	fmt.Fprintf(w, "codetokenizer %s buckets %d\n", CodeTokenizerVersion, t.buckets)
	putInt(t.vocab.len())
	for i := range t.vocab.len() {
		s := t.vocab.term(i)
		putInt(len(s))
		io.WriteString(w, s)
	}
}

// codeTokenizerJSON is the tokenizer.json of a [CodeTokenizer]. Only ctx
// reads it; HuggingFace tooling does not know the model type.
type codeTokenizerJSON struct {
	Version string `json:"version"`
	Model   struct {
		Type    string           `json:"type"`
		Version string           `json:"version"`
		Vocab   map[string]int32 `json:"vocab"`
		Buckets int              `json:"buckets"`
	} `json:"model"`
}

// MarshalJSON returns the tokenizer.json of t:
// {"version": "1.0", "model": {"type": "CtxCode", "version":
// [CodeTokenizerVersion], "vocab": {term: id, ...}, "buckets": N}}.
func (t *CodeTokenizer) MarshalJSON() ([]byte, error) {
	var tj codeTokenizerJSON
	tj.Version = "1.0"
	tj.Model.Type = codeTokenizerType
	tj.Model.Version = CodeTokenizerVersion
	tj.Model.Vocab = make(map[string]int32, t.vocab.len())
	for i := range t.vocab.len() {
		tj.Model.Vocab[t.vocab.term(i)] = int32(i)
	}
	tj.Model.Buckets = t.buckets
	return json.Marshal(tj)
}

// parseCodeTokenizerJSON reads what [CodeTokenizer.MarshalJSON] writes.
// A different version fails with [ErrUnsupported]: its ids would not
// match the matrix.
func parseCodeTokenizerJSON(data []byte) (*CodeTokenizer, error) {
	var tj codeTokenizerJSON
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, fmt.Errorf("parsing JSON: %v", err)
	}
	if tj.Model.Version != CodeTokenizerVersion {
		return nil, fmt.Errorf("code tokenizer version %q: %w (this build reads %q)", tj.Model.Version, ErrUnsupported, CodeTokenizerVersion)
	}
	vocab := make([]string, len(tj.Model.Vocab))
	for s, id := range tj.Model.Vocab {
		if id < 0 || int(id) >= len(vocab) || vocab[id] != "" {
			return nil, fmt.Errorf("model.vocab: term %q has id %d, want distinct ids 0 to %d", s, id, len(vocab)-1)
		}
		vocab[id] = s
	}
	t, err := NewCodeTokenizer(vocab, tj.Model.Buckets)
	if err != nil {
		return nil, fmt.Errorf("model: %v", err)
	}
	return t, nil
}
