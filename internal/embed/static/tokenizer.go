package static

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// ErrUnsupported is returned (wrapped) when a model directory uses a
// tokenizer, normaliser, pre-tokeniser or tensor dtype this package does
// not implement.
var ErrUnsupported = errors.New("unsupported")

// PreTokenizer selects how normalised text is cut into words before
// WordPiece runs on each word.
type PreTokenizer int

const (
	// BertPre splits on whitespace and makes every punctuation character
	// (and every CJK ideograph) a word of its own; HF "BertPreTokenizer".
	BertPre PreTokenizer = iota
	// WhitespacePre keeps runs of word characters (letters, marks, digits,
	// '_') and runs of other non-space characters as words, like the regex
	// \w+|[^\w\s]+; HF "Whitespace".
	WhitespacePre
	// WhitespaceSplitPre splits on whitespace only; HF "WhitespaceSplit".
	WhitespaceSplitPre
)

// TokenizerOptions configures a WordPiece [Tokenizer]. The zero value is
// HF's BertNormalizer with every switch off, BertPreTokenizer, no unknown
// token, prefix "" and no word length limit; [NewWordPiece] fills in the
// documented defaults for Prefix and MaxInputCharsPerWord.
type TokenizerOptions struct {
	// Lowercase maps every letter to lower case (unicode.ToLower).
	Lowercase bool
	// StripAccents drops accents: precomposed Latin and Greek letters map
	// to their base letter and non-spacing marks (Mn) are removed.
	StripAccents bool
	// CleanText drops NUL, U+FFFD and control characters and turns every
	// whitespace character into a space.
	CleanText bool
	// ChineseChars makes every CJK ideograph a word of its own.
	ChineseChars bool
	// Pre is the pre-tokeniser.
	Pre PreTokenizer
	// Unk is the unknown token; it must be in the vocabulary when set.
	// A word WordPiece cannot cover becomes Unk, or nothing when Unk is "".
	Unk string
	// Prefix marks a piece that continues a word; default "##".
	Prefix string
	// MaxInputCharsPerWord turns longer words into Unk; default 100.
	MaxInputCharsPerWord int
	// Special lists tokens that are never embedded ([CLS], [SEP], [PAD],
	// [MASK] and the like); Unk is never embedded either.
	Special []string
}

// Tokenizer is a HuggingFace-compatible WordPiece tokenizer: normalise,
// pre-tokenise into words, then cut each word greedily into the longest
// vocabulary pieces from the left, continuation pieces carrying the
// prefix. It is immutable and safe for concurrent use.
type Tokenizer struct {
	vocab    map[string]int32
	tokens   []string // id → token; "" for ids not in the vocabulary
	skip     []bool   // id → never embedded (Unk and special tokens)
	unk      int32    // -1 when there is no unknown token
	opts     TokenizerOptions
	maxChars int
	maxLen   int // longest token in bytes; bounds the longest-match search
	// ascii caches normalize and classify for runes below 0x80, the bulk
	// of code: the normalised byte, or -1 when the rune is dropped.
	ascii      [128]int16
	asciiClass [128]charClass
}

// NewWordPiece returns a WordPiece tokenizer over vocab (token → id).
// Ids must be non-negative and distinct.
func NewWordPiece(vocab map[string]int, opts TokenizerOptions) (*Tokenizer, error) {
	if opts.Prefix == "" {
		opts.Prefix = "##"
	}
	if opts.MaxInputCharsPerWord <= 0 {
		opts.MaxInputCharsPerWord = 100
	}
	n := 0
	for tok, id := range vocab {
		if id < 0 || id > 1<<30 {
			return nil, fmt.Errorf("token %q has id %d out of range", tok, id)
		}
		n = max(n, id+1)
	}
	t := &Tokenizer{
		vocab:    make(map[string]int32, len(vocab)),
		tokens:   make([]string, n),
		skip:     make([]bool, n),
		unk:      -1,
		opts:     opts,
		maxChars: opts.MaxInputCharsPerWord,
	}
	for tok, id := range vocab {
		if t.tokens[id] != "" {
			return nil, fmt.Errorf("tokens %q and %q share id %d", t.tokens[id], tok, id)
		}
		t.tokens[id] = tok
		t.vocab[tok] = int32(id)
		t.maxLen = max(t.maxLen, len(tok))
	}
	for r := range rune(128) {
		t.ascii[r] = -1
		if n, keep := t.normalizeRune(r); keep {
			t.ascii[r] = int16(n)
			t.asciiClass[r] = t.classify(n)
		}
	}
	if opts.Unk != "" {
		id, ok := t.vocab[opts.Unk]
		if !ok {
			return nil, fmt.Errorf("unknown token %q is not in the vocabulary", opts.Unk)
		}
		t.unk = id
		t.skip[id] = true
	}
	for _, s := range opts.Special {
		if id, ok := t.vocab[s]; ok {
			t.skip[id] = true
		}
	}
	return t, nil
}

// Size returns one more than the largest token id.
func (t *Tokenizer) Size() int { return len(t.tokens) }

// writeIdentity writes the options and the vocabulary in id order; the
// bytes are those model checksums have always covered.
func (t *Tokenizer) writeIdentity(w io.Writer) {
	var b [8]byte
	putInt := func(v int) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		w.Write(b[:])
	}
	fmt.Fprintf(w, "tokenizer %+v\n", t.opts)
	putInt(len(t.tokens))
	for _, s := range t.tokens {
		putInt(len(s))
		io.WriteString(w, s)
	}
}

// ID returns the id of token and whether it is in the vocabulary.
func (t *Tokenizer) ID(token string) (int, bool) {
	id, ok := t.vocab[token]
	return int(id), ok
}

// Tokenize returns the tokens of text in order, including the unknown
// token for words WordPiece cannot cover. It is meant for tests and
// diagnostics; embedding uses an allocation-free path.
func (t *Tokenizer) Tokenize(text string) []string {
	var s scratch
	ids := t.appendIDs(nil, &s, text, -1, false)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.tokens[id]
	}
	return out
}

// AppendIDs appends to dst the ids of the tokens [Tokenizer.Tokenize]
// returns for text, in order and with the unknown token, and stops once
// len(dst) reaches limit (limit < 0 means no limit; a limit of len(dst)
// or less appends nothing). It feeds models that see every token, such
// as the transformers embed/onnx runs.
func (t *Tokenizer) AppendIDs(dst []int32, text string, limit int) []int32 {
	if limit >= 0 && len(dst) >= limit {
		return dst
	}
	var s scratch
	return t.appendIDs(dst, &s, text, limit, false)
}

// scratch holds the buffers of one tokenising goroutine.
type scratch struct {
	word  []byte  // the current normalised word
	piece []byte  // prefix + candidate piece
	ids   []int32 // token ids of the current text
	// bag sums the weights of repeated ids (see Model.embedInto): an
	// open-addressing table of bagSize slots, empty when id < 0, and the
	// slots in use.
	bag  []bagSlot
	used []int32
	// words caches a CodeTokenizer's ids per identifier run (code repeats
	// its identifiers: on the Go standard library this halves the cost
	// of tokenising), for the tokenizer wordsOf only; wordIDs backs the
	// cached slices.
	words   map[string][]int32
	wordsOf *CodeTokenizer
}

// maxCachedWords bounds scratch.words; the cache is emptied when full.
const maxCachedWords = 8192

// bagSize is the slot count of scratch.bag: a power of two at least twice
// MaxTokens, so the table is at most half full.
const bagSize = 2 * MaxTokens

type bagSlot struct {
	id int32
	w  float32 // the id's count, then its coefficient
}

func newScratch() *scratch {
	s := &scratch{ids: make([]int32, 0, MaxTokens), bag: make([]bagSlot, bagSize), used: make([]int32, 0, MaxTokens)}
	for i := range s.bag {
		s.bag[i].id = -1
	}
	return s
}

// charClass is the role of a normalised rune for the pre-tokeniser.
type charClass uint8

const (
	classSpace    charClass = iota // ends a word and is dropped
	classWord                      // letters, marks, digits ('_' for Whitespace)
	classOther                     // other non-space (punctuation, symbols)
	classIsolated                  // a word of its own (Bert punctuation, CJK)
)

// appendIDs appends the token ids of text to dst. With embeddable set it
// drops Unk and special tokens and stops once dst holds limit ids; limit
// < 0 means no limit.
func (t *Tokenizer) appendIDs(dst []int32, s *scratch, text string, limit int, embeddable bool) []int32 {
	s.word = s.word[:0]
	prev := classSpace
	full := func() bool { return limit >= 0 && len(dst) >= limit }
	for _, r := range text {
		var c charClass
		if r < 0x80 {
			n := t.ascii[r]
			if n < 0 {
				continue
			}
			r, c = rune(n), t.asciiClass[r]
		} else {
			var keep bool
			if r, keep = t.normalizeRune(r); !keep {
				continue
			}
			c = t.classify(r)
		}
		// Close the current word on a boundary: a space, an isolated
		// character, or (for Whitespace) a change between word and other.
		if len(s.word) > 0 && (c == classSpace || c == classIsolated || prev == classIsolated ||
			(t.opts.Pre == WhitespacePre && c != prev)) {
			dst = t.wordPiece(dst, s, embeddable, limit)
			s.word = s.word[:0]
			if full() {
				return dst
			}
		}
		prev = c
		if c != classSpace {
			s.word = utf8.AppendRune(s.word, r)
		}
	}
	if len(s.word) > 0 {
		dst = t.wordPiece(dst, s, embeddable, limit)
	}
	return dst
}

// normalizeRune applies the normaliser to one rune; keep is false when
// the rune is dropped.
func (t *Tokenizer) normalizeRune(r rune) (out rune, keep bool) {
	o := &t.opts
	if o.CleanText {
		if r == 0 || r == utf8.RuneError || isControl(r) {
			return 0, false
		}
		if isSpace(r) {
			return ' ', true
		}
	}
	if o.Lowercase {
		r = unicode.ToLower(r)
	}
	if o.StripAccents {
		if b, ok := accentBase[r]; ok {
			r = b
		} else if unicode.Is(unicode.Mn, r) {
			return 0, false
		}
	}
	return r, true
}

func (t *Tokenizer) classify(r rune) charClass {
	if isSpace(r) {
		return classSpace
	}
	if t.opts.ChineseChars && isCJK(r) {
		return classIsolated
	}
	switch t.opts.Pre {
	case BertPre:
		if isBertPunct(r) {
			return classIsolated
		}
		return classWord
	case WhitespacePre:
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.No, r) {
			return classWord
		}
		return classOther
	default:
		return classWord
	}
}

// wordPiece appends the pieces of s.word: greedy longest match from the
// left, continuation pieces prefixed. A word longer than the limit, or one
// with a position no piece covers, becomes Unk as a whole.
func (t *Tokenizer) wordPiece(dst []int32, s *scratch, embeddable bool, limit int) []int32 {
	w := s.word
	mark := len(dst)
	if utf8.RuneCount(w) > t.maxChars {
		return t.appendUnk(dst[:mark], embeddable)
	}
	for start := 0; start < len(w); {
		end := len(w)
		// No token is longer than maxLen bytes, so start there, on a rune
		// boundary.
		limitLen := t.maxLen
		if start > 0 {
			limitLen -= len(t.opts.Prefix)
		}
		if end-start > limitLen {
			end = start + max(limitLen, 0)
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		found := int32(-1)
		for end > start {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = t.vocab[string(w[start:end])]
			} else {
				s.piece = append(append(s.piece[:0], t.opts.Prefix...), w[start:end]...)
				id, ok = t.vocab[string(s.piece)]
			}
			if ok {
				found = id
				break
			}
			// Step back one rune.
			_, size := utf8.DecodeLastRune(w[start:end])
			end -= size
		}
		if found < 0 {
			return t.appendUnk(dst[:mark], embeddable)
		}
		if !embeddable || !t.skip[found] {
			dst = append(dst, found)
			if limit >= 0 && len(dst) >= limit {
				return dst
			}
		}
		start = end
	}
	return dst
}

func (t *Tokenizer) appendUnk(dst []int32, embeddable bool) []int32 {
	if t.unk < 0 || embeddable {
		return dst
	}
	return append(dst, t.unk)
}

// isSpace reports whitespace as BERT sees it: \t, \n, \r and Unicode Zs
// (plus the other Unicode White_Space characters).
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r) || unicode.IsSpace(r)
}

// isControl reports control characters other than \t, \n and \r, which
// BERT treats as whitespace.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

// isBertPunct reports every non-alphanumeric ASCII printable character
// and every Unicode punctuation character (category P).
func isBertPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK reports the CJK Unified Ideograph blocks BERT isolates.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}
