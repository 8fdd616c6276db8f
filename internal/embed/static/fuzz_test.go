package static

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzTokenize checks that tokenizing and embedding any input, valid
// UTF-8 or not, never panics, yields vocabulary tokens only (so valid
// UTF-8), and gives a finite vector of unit length or zero.
//
//	go test -run='^$' -fuzz=FuzzTokenize -fuzztime=30s ./internal/embed/static
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "Hello World", "Café.", "unable worlds", "func (s *Server) Handle(w http.ResponseWriter)",
		"中文 hello", "\x00\xff\xfe", "Cafe\u0301", "a_b.c()", string(make([]byte, 300)),
	} {
		f.Add(s)
	}
	vocab := map[string]int{}
	for i, s := range testVocab {
		vocab[s] = i
	}
	vocab["##é"] = len(vocab)
	vocab["##élo"] = len(vocab)
	vocab["worldwide"] = len(vocab)
	vocab["_"] = len(vocab)
	var models []*Model
	for _, pre := range []PreTokenizer{BertPre, WhitespacePre, WhitespaceSplitPre} {
		for _, norm := range []bool{false, true} {
			tok, err := NewWordPiece(vocab, TokenizerOptions{
				Lowercase: norm, StripAccents: norm, CleanText: norm, ChineseChars: norm,
				Pre: pre, Unk: "[UNK]", MaxInputCharsPerWord: 20, Special: defaultSpecial,
			})
			if err != nil {
				f.Fatal(err)
			}
			m := Matrix{Rows: len(vocab), Dims: 3, F32: make([]float32, 3*len(vocab))}
			for i := range m.F32 {
				m.F32[i] = float32(i%7) - 3
			}
			md, err := NewModel("fuzz", tok, m, nil)
			if err != nil {
				f.Fatal(err)
			}
			models = append(models, md)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range models {
			got := m.Tokenizer().Tokenize(text)
			// The longest-match search starts at the longest token; an
			// unbounded search must give the same tokens.
			unbounded := *m.Tokenizer()
			unbounded.maxLen = 1 << 30
			if diff := cmp.Diff(unbounded.Tokenize(text), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Tokenize(%q) with bounded search (-unbounded +bounded):\n%s", text, diff)
			}
			for _, tok := range got {
				if _, ok := m.Tokenizer().ID(tok); !ok || !utf8.ValidString(tok) {
					t.Fatalf("Tokenize(%q) gave %q, not a valid vocabulary token", text, tok)
				}
			}
			var sum float64
			for _, x := range m.Embed(text) {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("Embed(%q) has non-finite %g", text, x)
				}
				sum += float64(x) * float64(x)
			}
			if sum != 0 && math.Abs(sum-1) > 1e-5 {
				t.Fatalf("Embed(%q) has squared length %g, want 1 or 0", text, sum)
			}
		}
	})
}
