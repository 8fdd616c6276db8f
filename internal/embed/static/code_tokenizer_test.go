package static

import (
	"errors"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/analyze"
)

var codeVocab = []string{"get", "http", "response", "foo", "parse", "header", "read"}

func newTestCodeTokenizer(t *testing.T, buckets int) *CodeTokenizer {
	t.Helper()
	tok, err := NewCodeTokenizer(codeVocab, buckets)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestCodeTokenizerVersion(t *testing.T) {
	t.Parallel()
	if want := "+analyze-" + strconv.Itoa(analyze.Version); !strings.HasSuffix(CodeTokenizerVersion, want) {
		t.Errorf("CodeTokenizerVersion = %q, want the suffix %q: bump it with analyze.Version", CodeTokenizerVersion, want)
	}
}

// bucketsOf returns the bucket names of the trigrams of "<word>".
func bucketsOf(word string, buckets int) []string {
	rs := []rune("<" + word + ">")
	var out []string
	for i := 0; i+3 <= len(rs); i++ {
		h := fnv.New32a()
		h.Write([]byte("#" + string(rs[i:i+3])))
		out = append(out, "#"+strconv.Itoa(int(h.Sum32()%uint32(buckets))))
	}
	return out
}

func TestCodeTokenizerTokenize(t *testing.T) {
	t.Parallel()
	tok := newTestCodeTokenizer(t, 1<<10)
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  ++ ", nil},
		// A whole identifier in the vocabulary: no trigrams.
		{"Foo(parse)", []string{"foo", "parse"}},
		// An unseen identifier: its trigrams, right after the whole
		// term, then its known parts.
		{"getHTTPResponse", append(bucketsOf("gethttpresponse", 1<<10), "get", "http", "response")},
		{"read_header x", append(append(bucketsOf("read_header", 1<<10), "read", "header"), bucketsOf("x", 1<<10)...)},
		{"héé", bucketsOf("héé", 1<<10)},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tok.Tokenize(tt.text), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	if got := tok.AppendIDs(nil, "getHTTPResponse foo", 3); len(got) != 3 {
		t.Errorf("AppendIDs with limit 3 gave %d ids", len(got))
	}
	ids := tok.AppendIDs([]int32{99}, "foo foo", 1)
	if diff := cmp.Diff([]int32{99, 3}, ids); diff != "" {
		t.Errorf("AppendIDs onto a prefix with limit 1 (-want +got):\n%s", diff)
	}
	for _, id := range tok.AppendIDs(nil, "someUnseen_identifier ÄÖÜ 42", -1) {
		if id < 0 || int(id) >= tok.Size() {
			t.Errorf("id %d out of [0, %d)", id, tok.Size())
		}
	}
}

func TestNewCodeTokenizerErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		vocab   []string
		buckets int
	}{
		{"no buckets", []string{"a"}, 0},
		{"empty term", []string{"a", ""}, 4},
		{"duplicate", []string{"a", "b", "a"}, 4},
	} {
		if _, err := NewCodeTokenizer(tt.vocab, tt.buckets); err == nil {
			t.Errorf("%s: NewCodeTokenizer succeeded, want an error", tt.name)
		}
	}
}

func TestCodeTokenizerJSON(t *testing.T) {
	t.Parallel()
	tok := newTestCodeTokenizer(t, 64)
	b, err := tok.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseAnyTokenizerJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := got.(*CodeTokenizer)
	if !ok {
		t.Fatalf("parsed a %T, want *CodeTokenizer", got)
	}
	text := "getHTTPResponse(parseHeader, xyz)"
	if diff := cmp.Diff(tok.Tokenize(text), ct.Tokenize(text)); diff != "" {
		t.Errorf("round trip Tokenize (-want +got):\n%s", diff)
	}
	old := strings.Replace(string(b), CodeTokenizerVersion, "ctxcode-0", 1)
	if _, err := parseAnyTokenizerJSON([]byte(old)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("other version: err = %v, want ErrUnsupported", err)
	}
}

func TestCodeModelWriteLoad(t *testing.T) {
	t.Parallel()
	tok := newTestCodeTokenizer(t, 32)
	f32 := randomMatrix(tok.Size(), 16, 3)
	weights := make([]float32, tok.Size())
	for i := range weights {
		weights[i] = 0.25 + float32(i%7)/7
	}
	texts := []string{"", "getHTTPResponse", "func readHeader(r io.Reader)", "zzqqx unseenThing", "foo foo foo"}
	for _, tt := range []struct {
		name string
		m    Matrix
	}{{"F32", f32}, {"I8", f32.Int8()}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := NewModel("mem", tok, tt.m, &Options{Weights: weights})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "model")
			if err := WriteCodeModel(dir, tok, tt.m, &Options{Weights: weights}); err != nil {
				t.Fatal(err)
			}
			got, err := LoadModel2Vec(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.Identity().Checksum != want.Identity().Checksum {
				t.Errorf("checksum %s after loading, want %s", got.Identity().Checksum, want.Identity().Checksum)
			}
			if got.Tokenizer() != nil {
				t.Errorf("Tokenizer() = %v, want nil for a code model", got.Tokenizer())
			}
			for _, text := range texts {
				if diff := cmp.Diff(want.Embed(text), got.Embed(text)); diff != "" {
					t.Errorf("Embed(%q) (-want +got):\n%s", text, diff)
				}
			}
			// An identifier seen nowhere still embeds through its trigrams.
			if v := got.Embed("zzqqx"); sqNorm(v) < 0.99 {
				t.Errorf("Embed(unseen identifier) has squared norm %g, want 1", sqNorm(v))
			}
		})
	}
	if err := WriteCodeModel(t.TempDir(), tok, randomMatrix(tok.Size()-1, 4, 1), nil); err == nil {
		t.Error("WriteCodeModel with too few rows succeeded")
	}
	// The code tokenizer and the WordPiece tokenizer never share checksums
	// even over the same matrix.
	wp, err := NewBertWordPiece(append([]string{"[UNK]"}, codeVocab...))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewModel("a", tok, f32, nil)
	b, _ := NewModel("b", wp, f32, nil)
	if a.Identity().Checksum == b.Identity().Checksum {
		t.Error("code and WordPiece models share a checksum")
	}
}

// sqNorm returns the squared L2 norm of v.
func sqNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

// TestCodeTokenizerWordCache: the per-scratch cache of identifier ids
// changes nothing: cold, warm, after the cache is emptied, under a token
// limit, and after a scratch served another tokenizer.
func TestCodeTokenizerWordCache(t *testing.T) {
	t.Parallel()
	tok := newTestCodeTokenizer(t, 32)
	other, err := NewCodeTokenizer([]string{"foo", "get"}, 8)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"getHTTPResponse(foo) readHeader parseHeader getHTTPResponse",
		"zzqqx unseenThing zzqqx foo_bar",
		strings.Repeat("parse header read ", 40),
		"",
	}
	s := newScratch()
	for round := range 3 {
		for _, text := range texts {
			for _, limit := range []int{-1, 0, 1, 5, 17} {
				want := tok.appendIDs(nil, nil, text, limit, true)
				got := tok.appendIDs(nil, s, text, limit, true)
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("round %d, %q limit %d: cached ids differ (-uncached +cached):\n%s", round, text, limit, diff)
				}
			}
		}
		other.appendIDs(nil, s, "getFoo", -1, true) // the scratch moves to another tokenizer
		if round == 1 {
			clear(s.words)
		}
	}
}
