package static

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	m, err := LoadModel2Vec(writeModel(t, modelSpec{}))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"lowercase", "Hello WORLD", []string{"hello", "world"}},
		{"whitespace kinds", "\thello\n\r world\u00a0hello ", []string{"hello", "world", "hello"}},
		{"accents", "Café", []string{"cafe"}},
		{"decomposed accent", "Cafe\u0301", []string{"cafe"}},
		{"punctuation split", "hello.world(", []string{"hello", ".", "world", "("}},
		{"continuation", "unable worlds hellos", []string{"un", "##able", "world", "##s", "hello", "##s"}},
		{"longest match first", "hello hello", []string{"hello", "hello"}},
		{"piece then continuation", "hello", []string{"hello"}},
		{"uncovered word is unk", "helx", []string{"[UNK]"}},
		{"unknown word", "xyz hello", []string{"[UNK]", "hello"}},
		{"unknown punctuation", "hello)", []string{"hello", "[UNK]"}},
		{"cjk isolated", "hello中world", []string{"hello", "[UNK]", "world"}},
		{"control chars dropped", "hel\x00lo\u200b", []string{"hello"}},
		{"too long word", strings.Repeat("hello", 21), []string{"[UNK]"}},
		{"special tokens are text", "[CLS]", []string{"[UNK]", "[UNK]", "[UNK]"}},
		{"empty", "", []string{}},
		{"only spaces", "  \n ", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := m.Tokenizer().Tokenize(tt.text)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestPreTokenizers(t *testing.T) {
	t.Parallel()
	vocab := map[string]int{"[UNK]": 0, "a": 1, "b": 2, "_": 3, "()": 4, "(": 5, ")": 6, "a_b": 7, "a.b": 8, ".": 9}
	tests := []struct {
		pre  PreTokenizer
		text string
		want []string
	}{
		{BertPre, "a_b a.b ()", []string{"a", "_", "b", "a", ".", "b", "(", ")"}},
		{WhitespacePre, "a_b a.b ()", []string{"a_b", "a", ".", "b", "()"}},
		{WhitespaceSplitPre, "a_b a.b ()", []string{"a_b", "a.b", "()"}},
	}
	for _, tt := range tests {
		tok, err := NewWordPiece(vocab, TokenizerOptions{Unk: "[UNK]", Pre: tt.pre})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, tok.Tokenize(tt.text)); diff != "" {
			t.Errorf("pre-tokenizer %d: Tokenize(%q) (-want +got):\n%s", tt.pre, tt.text, diff)
		}
	}
}

func TestNormalizerSequence(t *testing.T) {
	t.Parallel()
	spec := modelSpec{tokenizer: strings.Replace(testTokenizerJSON("WordPiece"),
		`"normalizer":{"clean_text":true,"handle_chinese_chars":true,"lowercase":true,"strip_accents":null,"type":"BertNormalizer"}`,
		`"normalizer":{"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"Lowercase"},{"type":"StripAccents"}]}`, 1)}
	if !strings.Contains(spec.tokenizer, "Sequence") {
		t.Fatal("test setup: normalizer not replaced")
	}
	m, err := LoadModel2Vec(writeModel(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Tokenizer().Tokenize("CAFÉ Hello")
	if diff := cmp.Diff([]string{"cafe", "hello"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// approx compares float32s to 1e-6.
var approx = cmpopts.EquateApprox(0, 1e-6)

func TestEmbed(t *testing.T) {
	t.Parallel()
	r2 := float32(1 / math.Sqrt2)
	r10 := float32(1 / math.Sqrt(10))
	weights := repeat(1, len(testRows))
	weights[4] = 3 // hello
	tests := []struct {
		name string
		spec modelSpec
		text string
		want []float32
	}{
		{"mean normalised", modelSpec{}, "hello world", []float32{r2, r2, 0, 0}},
		{"continuation pieces", modelSpec{}, "unable", []float32{0, 0, r2, r2}},
		{"unk dropped", modelSpec{}, "hello xyz", []float32{1, 0, 0, 0}},
		{"no known token", modelSpec{}, "xyz ) 中", []float32{0, 0, 0, 0}},
		{"empty", modelSpec{}, "", []float32{0, 0, 0, 0}},
		{"cancelling tokens", modelSpec{}, "hello .", []float32{0, 0, 0, 0}},
		{"mean unnormalised", modelSpec{normalize: ptr(false)}, "hello world", []float32{0.5, 0.5, 0, 0}},
		{"unnormalised three tokens", modelSpec{normalize: ptr(false)}, "worlds hello", []float32{0.5, 0.5, 0, 0}},
		{"unnormalised mean of two", modelSpec{normalize: ptr(false)}, "worlds", []float32{0.25, 0.75, 0, 0}},
		{"config normalize true", modelSpec{normalize: ptr(true)}, "worlds", []float32{1 / float32(math.Sqrt(10)), 3 / float32(math.Sqrt(10)), 0, 0}},
		{"weighted unnormalised", modelSpec{normalize: ptr(false), weights: weights}, "hello world", []float32{1.5, 0.5, 0, 0}},
		{"weighted normalised", modelSpec{weights: weights}, "hello world", []float32{3 * r10, r10, 0, 0}},
		{"f16", modelSpec{dtype: "F16"}, "cafe", []float32{0.5, -0.5, 0.5, -0.5}},
		{"i8 with scales", modelSpec{dtype: "I8", normalize: ptr(false)}, "cafe hello", []float32{0.625, -0.125, 0.125, -0.125}},
		{"other tensor name", modelSpec{tensorName: "emb"}, "hello", []float32{1, 0, 0, 0}},
		// Four hellos and a world: tf(4)·hello + world over 5 tokens.
		{"tf raw", modelSpec{normalize: ptr(false), tf: "raw"}, "hello hello world hello hello", []float32{0.8, 0.2, 0, 0}},
		{"tf sqrt", modelSpec{normalize: ptr(false), tf: "sqrt"}, "hello hello world hello hello", []float32{0.4, 0.2, 0, 0}},
		{"tf log", modelSpec{normalize: ptr(false), tf: "log"}, "hello hello world hello hello", []float32{(1 + float32(math.Log(4))) / 5, 0.2, 0, 0}},
		{"tf sqrt weighted", modelSpec{normalize: ptr(false), tf: "sqrt", weights: weights}, "hello hello world hello hello", []float32{1.2, 0.2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := LoadModel2Vec(writeModel(t, tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m.Embed(tt.text), approx); diff != "" {
				t.Errorf("Embed(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestDtypesAgree(t *testing.T) {
	t.Parallel()
	texts := []string{"hello world", "unable cafe.", "worlds (hel", "Café hellos", "xyz"}
	load := func(dtype string) *Provider {
		m, err := LoadModel2Vec(writeModel(t, modelSpec{dtype: dtype}))
		if err != nil {
			t.Fatal(err)
		}
		return New(m, "tiny")
	}
	f32, err := load("F32").Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []string{"F16", "I8"} {
		got, err := load(dt).Embed(t.Context(), texts, embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(f32, got, cmpopts.EquateApprox(0, 1e-3)); diff != "" {
			t.Errorf("%s vs F32 (-F32 +%s):\n%s", dt, dt, diff)
		}
	}
}

func TestProvider(t *testing.T) {
	t.Parallel()
	m, err := LoadModel2Vec(writeModel(t, modelSpec{normalize: ptr(false)}))
	if err != nil {
		t.Fatal(err)
	}
	p := New(m, "tiny")
	wantModel := embed.Model{Provider: "model2vec", Name: "tiny@" + m.Identity().Checksum, Dims: 4}
	if diff := cmp.Diff(wantModel, p.Model()); diff != "" {
		t.Errorf("Model() (-want +got):\n%s", diff)
	}
	texts := []string{"worlds", "", "hello world"}
	got, err := p.Embed(t.Context(), texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	s10 := float32(math.Sqrt(10))
	r2 := float32(1 / math.Sqrt2)
	// The provider normalises although config.json says not to.
	want := [][]float32{{1 / s10, 3 / s10, 0, 0}, {0, 0, 0, 0}, {r2, r2, 0, 0}}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("Embed (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Embed(ctx, texts, embed.Query); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with canceled ctx: err = %v, want context.Canceled", err)
	}
}

func TestProviderConcurrent(t *testing.T) {
	t.Parallel()
	m, err := LoadModel2Vec(writeModel(t, modelSpec{}))
	if err != nil {
		t.Fatal(err)
	}
	p := New(m, "")
	texts := []string{"hello world", "unable", "cafe worlds"}
	want, err := p.Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := p.Embed(t.Context(), texts, embed.Document)
				if err != nil {
					t.Error(err)
					return
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("concurrent Embed differs (-want +got):\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestMaxTokens(t *testing.T) {
	t.Parallel()
	m, err := LoadModel2Vec(writeModel(t, modelSpec{normalize: ptr(false)}))
	if err != nil {
		t.Fatal(err)
	}
	// 512 "hello" then "world": the cap drops "world".
	text := strings.Repeat("hello xyz ", MaxTokens) + "world"
	if diff := cmp.Diff([]float32{1, 0, 0, 0}, m.Embed(text), approx); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestIdentity(t *testing.T) {
	t.Parallel()
	w := repeat(1, len(testRows))
	w[5] = 2
	load := func(spec modelSpec) Identity {
		m, err := LoadModel2Vec(writeModel(t, spec))
		if err != nil {
			t.Fatal(err)
		}
		return m.Identity()
	}
	base := load(modelSpec{})
	if len(base.Checksum) != 12 {
		t.Errorf("checksum %q, want 12 hex digits", base.Checksum)
	}
	if diff := cmp.Diff(Identity{Name: "tiny", Version: "model2vec", Dims: 4, Checksum: base.Checksum}, base); diff != "" {
		t.Errorf("identity (-want +got):\n%s", diff)
	}
	if again := load(modelSpec{}); again != base {
		t.Errorf("identity not stable across loads: %v then %v", base, again)
	}
	if f16 := load(modelSpec{dtype: "F16"}); f16.Checksum != base.Checksum {
		t.Errorf("F16 with the same values: checksum %s, want %s", f16.Checksum, base.Checksum)
	}
	for name, spec := range map[string]modelSpec{
		"weights":       {weights: w},
		"other weights": {weights: repeat(1, len(testRows))},
		"int8":          {dtype: "I8"},
	} {
		if got := load(spec); got.Checksum == base.Checksum {
			t.Errorf("%s: checksum %s equals the base model's", name, got.Checksum)
		}
	}
	if a, b := load(modelSpec{weights: w}), load(modelSpec{weights: repeat(1, len(testRows))}); a.Checksum == b.Checksum {
		t.Errorf("different weights share checksum %s", a.Checksum)
	}
	// A scaling changes what texts embed as, so it changes the checksum;
	// raw is the default and keeps it.
	if a, b := load(modelSpec{}), load(modelSpec{tf: "sqrt"}); a.Checksum == b.Checksum {
		t.Errorf("raw and sqrt scalings share checksum %s", a.Checksum)
	}
	if a, b := load(modelSpec{}), load(modelSpec{tf: "raw"}); a.Checksum != b.Checksum {
		t.Errorf("explicit raw scaling changed the checksum: %s, want %s", b.Checksum, a.Checksum)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		spec        modelSpec
		edit        func(t *testing.T, dir string)
		file        string // the error must name it
		unsupported bool   // errors.Is(err, ErrUnsupported)
		notExist    bool   // errors.Is(err, fs.ErrNotExist)
	}{
		{name: "missing safetensors", edit: remove("model.safetensors"), file: "model.safetensors", notExist: true},
		{name: "missing tokenizer", edit: remove("tokenizer.json"), file: "tokenizer.json", notExist: true},
		{name: "empty safetensors", edit: overwrite("model.safetensors", "1234"), file: "model.safetensors"},
		{name: "truncated safetensors", edit: truncate("model.safetensors", 20), file: "model.safetensors"},
		{name: "header length beyond file", edit: overwrite("model.safetensors", "\xff\x00\x00\x00\x00\x00\x00\x00{}"), file: "model.safetensors"},
		{name: "bad header JSON", edit: overwrite("model.safetensors", "\x02\x00\x00\x00\x00\x00\x00\x00{["), file: "model.safetensors"},
		{name: "unsupported dtype", spec: modelSpec{dtype: "F64"}, file: "model.safetensors", unsupported: true},
		{name: "no 2-D tensor", edit: overwrite("model.safetensors", string(encodeSafetensors([]tensor{{"w", "F32", []int{1}, make([]byte, 4)}}))), file: "model.safetensors"},
		{name: "bad weights shape", spec: modelSpec{weights: []float32{1, 2}}, file: "model.safetensors"},
		{name: "bad tokenizer JSON", edit: overwrite("tokenizer.json", `{"model": `), file: "tokenizer.json"},
		{name: "unknown tf", spec: modelSpec{tf: "cubic"}, file: "config.json"},
		{name: "bad config JSON", spec: modelSpec{normalize: ptr(true)}, edit: overwrite("config.json", `{normalize}`), file: "config.json"},
		{name: "unigram", spec: modelSpec{tokenizer: testTokenizerJSON("Unigram")}, file: "tokenizer.json", unsupported: true},
		{name: "bpe", spec: modelSpec{tokenizer: testTokenizerJSON("BPE")}, file: "tokenizer.json", unsupported: true},
		{name: "unsupported normalizer", spec: modelSpec{tokenizer: strings.Replace(testTokenizerJSON("WordPiece"), "BertNormalizer", "Precompiled", 1)}, file: "tokenizer.json", unsupported: true},
		{name: "unsupported pre-tokenizer", spec: modelSpec{tokenizer: strings.Replace(testTokenizerJSON("WordPiece"), "BertPreTokenizer", "Metaspace", 1)}, file: "tokenizer.json", unsupported: true},
		{name: "vocab larger than matrix", spec: modelSpec{rows: 10}, file: "tokenizer.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeModel(t, tt.spec)
			if tt.edit != nil {
				tt.edit(t, dir)
			}
			_, err := LoadModel2Vec(dir)
			if err == nil {
				t.Fatal("LoadModel2Vec succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.file) {
				t.Errorf("error %q does not name %s", err, tt.file)
			}
			if got := errors.Is(err, ErrUnsupported); got != tt.unsupported {
				t.Errorf("errors.Is(%q, ErrUnsupported) = %v, want %v", err, got, tt.unsupported)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(%q, fs.ErrNotExist) = %v, want %v", err, got, tt.notExist)
			}
		})
	}
}

func remove(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func overwrite(name, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, name), content) }
}

func truncate(name string, cut int64) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, fi.Size()-cut); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHalfToFloat32(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x7bff, 65504},
		{0x0001, 5.9604645e-08}, {0x8001, -5.9604645e-08}, {0x0400, 6.1035156e-05},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	}
	for _, tt := range tests {
		if got := halfToFloat32(tt.h); got != tt.want {
			t.Errorf("halfToFloat32(%#04x) = %g, want %g", tt.h, got, tt.want)
		}
	}
	if got := halfToFloat32(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat32(0x7e00) = %g, want NaN", got)
	}
}

func TestNewModel(t *testing.T) {
	t.Parallel()
	tok, err := NewWordPiece(map[string]int{"[UNK]": 0, "a": 1, "##b": 2}, TokenizerOptions{Unk: "[UNK]", Lowercase: true})
	if err != nil {
		t.Fatal(err)
	}
	i8 := Matrix{Rows: 3, Dims: 2, I8: []int8{0, 0, 2, 0, 0, -4}, Scale: []float32{1, 0.5, 0.25}}
	m, err := NewModel("tiny", tok, i8, &Options{Version: "v1", NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	// "ab" → a (1, 0) and ##b (0, -1): mean (0.5, -0.5).
	if diff := cmp.Diff([]float32{0.5, -0.5}, m.Embed("AB"), approx); diff != "" {
		t.Errorf("Embed (-want +got):\n%s", diff)
	}
	p := New(m, "")
	want := embed.Model{Provider: "static", Name: "tiny@" + m.Identity().Checksum, Dims: 2}
	if diff := cmp.Diff(want, p.Model()); diff != "" {
		t.Errorf("Model() (-want +got):\n%s", diff)
	}
	if got := m.Identity().Version; got != "v1" {
		t.Errorf("Version = %q, want v1", got)
	}

	bad := []struct {
		name string
		m    Matrix
		opts *Options
	}{
		{"vocab beyond rows", Matrix{Rows: 2, Dims: 1, F32: []float32{1, 2}}, nil},
		{"short values", Matrix{Rows: 3, Dims: 2, F32: []float32{1}}, nil},
		{"no values", Matrix{Rows: 3, Dims: 2}, nil},
		{"missing scales", Matrix{Rows: 3, Dims: 1, I8: []int8{1, 2, 3}}, nil},
		{"weights length", Matrix{Rows: 3, Dims: 1, F32: []float32{1, 2, 3}}, &Options{Weights: []float32{1}}},
	}
	for _, tt := range bad {
		if _, err := NewModel("x", tok, tt.m, tt.opts); err == nil {
			t.Errorf("%s: NewModel succeeded, want an error", tt.name)
		}
	}
}
