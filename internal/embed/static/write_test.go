package static

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writeVocab is testVocab plus [MASK] and two more words.
var writeVocab = append(append([]string(nil), testVocab...), "[MASK]", "##e", "resume")

var writeTexts = []string{
	"", "Hello World", "hello, world.", "unable worlds (cafe)", "Café au lait",
	"HELLO hello hel ##lo", "[CLS] [MASK] [UNK]", "résumé resume", "zzz unknown",
}

// randomMatrix returns a rows×dims F32 matrix of normal values.
func randomMatrix(rows, dims int, seed uint64) Matrix {
	r := rand.New(rand.NewPCG(seed, 7))
	m := Matrix{Rows: rows, Dims: dims, F32: make([]float32, rows*dims)}
	for i := range m.F32 {
		m.F32[i] = float32(r.NormFloat64())
	}
	return m
}

func TestWriteModel2Vec(t *testing.T) {
	t.Parallel()
	rows := len(writeVocab)
	f32 := randomMatrix(rows, 8, 1)
	weights := make([]float32, rows)
	for i := range weights {
		weights[i] = 0.5 + float32(i%5)/4
	}
	tests := []struct {
		name string
		m    Matrix
		opts *Options
	}{
		{"F32", f32, nil},
		{"F32 weights", f32, &Options{Weights: weights}},
		{"F32 no normalize", f32, &Options{NoNormalize: true, Weights: weights}},
		{"I8", f32.Int8(), &Options{Weights: weights}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok, err := NewBertWordPiece(writeVocab)
			if err != nil {
				t.Fatal(err)
			}
			want, err := NewModel("mem", tok, tt.m, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "a", "model")
			if err := WriteModel2Vec(dir, writeVocab, tt.m, tt.opts); err != nil {
				t.Fatalf("WriteModel2Vec: %v", err)
			}
			got, err := LoadModel2Vec(dir)
			if err != nil {
				t.Fatalf("LoadModel2Vec: %v", err)
			}
			if g, w := got.Identity().Checksum, want.Identity().Checksum; g != w {
				t.Errorf("checksum read back = %s, want %s", g, w)
			}
			if g := got.Identity(); g.Name != "model" || g.Version != "model2vec" || g.Dims != 8 {
				t.Errorf("identity read back = %+v, want model, model2vec, 8 dims", g)
			}
			for _, text := range writeTexts {
				if diff := cmp.Diff(want.Embed(text), got.Embed(text)); diff != "" {
					t.Errorf("Embed(%q) read back (-want +got):\n%s", text, diff)
				}
				if diff := cmp.Diff(tok.Tokenize(text), got.Tokenizer().Tokenize(text)); diff != "" {
					t.Errorf("Tokenize(%q) read back (-want +got):\n%s", text, diff)
				}
			}
		})
	}

	// Special tokens are never embedded; an accent is stripped.
	tok, err := NewBertWordPiece(writeVocab)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel("mem", tok, f32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Embed("[CLS] [SEP] [PAD] [MASK] [UNK]"); cmp.Diff(make([]float32, 8), v) != "" {
		t.Errorf("special tokens embed as %v, want zero", v)
	}
	if diff := cmp.Diff([]string{"resume", "[UNK]", "hello", "##e"}, tok.Tokenize("Résumé zzz Helloe")); diff != "" {
		t.Errorf("Tokenize (-want +got):\n%s", diff)
	}
}

// TestInt8 checks that a quantised model embeds close to its F32 source.
func TestInt8(t *testing.T) {
	t.Parallel()
	f32 := randomMatrix(len(writeVocab), 16, 2)
	f32.F32[16*4] = 0 // a row with a zero
	zero := len(writeVocab) - 1
	clear(f32.F32[16*zero : 16*(zero+1)])
	q := f32.Int8()
	if q.F32 != nil || len(q.I8) != len(f32.F32) || len(q.Scale) != q.Rows {
		t.Fatalf("Int8 = %d×%d with %d int8s and %d scales", q.Rows, q.Dims, len(q.I8), len(q.Scale))
	}
	for r := range q.Rows {
		for j := range q.Dims {
			i := r*q.Dims + j
			if d := q.Scale[r]*float32(q.I8[i]) - f32.F32[i]; d > q.Scale[r]/2+1e-7 || d < -q.Scale[r]/2-1e-7 {
				t.Fatalf("row %d col %d: %g quantised to %g·%d", r, j, f32.F32[i], q.Scale[r], q.I8[i])
			}
		}
	}
	if q.Scale[zero] != 0 {
		t.Errorf("all-zero row has scale %g, want 0", q.Scale[zero])
	}
	if again := q.Int8(); &again.I8[0] != &q.I8[0] {
		t.Error("Int8 of an int8 matrix copied it")
	}

	dir := filepath.Join(t.TempDir(), "i8")
	if err := WriteModel2Vec(dir, writeVocab, q, nil); err != nil {
		t.Fatal(err)
	}
	got, err := LoadModel2Vec(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewBertWordPiece(writeVocab)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewModel("mem", tok, f32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity().Checksum == want.Identity().Checksum {
		t.Error("int8 and float32 models share a checksum")
	}
	near := cmpopts.EquateApprox(0, 0.02)
	for _, text := range writeTexts {
		if diff := cmp.Diff(want.Embed(text), got.Embed(text), near); diff != "" {
			t.Errorf("Embed(%q) int8 (-f32 +i8):\n%s", text, diff)
		}
	}
}

func TestWriteModel2VecErrors(t *testing.T) {
	t.Parallel()
	m := randomMatrix(len(writeVocab), 4, 3)
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, "not a directory")
	short := append([]string(nil), writeVocab[:len(writeVocab)-1]...)
	dup := append([]string(nil), writeVocab...)
	dup[5] = "hello"
	empty := append([]string(nil), writeVocab...)
	empty[5] = ""
	noUnk := append([]string(nil), writeVocab...)
	noUnk[1] = "[UNKNOWN]"
	badScales := m.Int8()
	badScales.Scale = badScales.Scale[1:]

	tests := []struct {
		name  string
		dir   string
		vocab []string
		m     Matrix
		opts  *Options
	}{
		{name: "dir is a file", dir: file},
		{name: "dir under a file", dir: filepath.Join(file, "model")},
		{name: "fewer tokens than rows", vocab: short},
		{name: "more rows than tokens", m: randomMatrix(len(writeVocab)+1, 4, 3)},
		{name: "weights length", opts: &Options{Weights: make([]float32, 3)}},
		{name: "scales length", m: badScales},
		{name: "values length", m: Matrix{Rows: m.Rows, Dims: 4, F32: m.F32[1:]}},
		{name: "no values", m: Matrix{Rows: m.Rows, Dims: 4}},
		{name: "duplicate token", vocab: dup},
		{name: "empty token", vocab: empty},
		{name: "no [UNK]", vocab: noUnk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.vocab == nil {
				tt.vocab = writeVocab
			}
			if tt.m.Rows == 0 {
				tt.m = m
			}
			dir := tt.dir
			if dir == "" {
				dir = filepath.Join(t.TempDir(), "model")
			}
			err := WriteModel2Vec(dir, tt.vocab, tt.m, tt.opts)
			if err == nil {
				t.Fatal("WriteModel2Vec succeeded, want an error")
			}
			if tt.dir == "" {
				// Bad input is caught before anything is written.
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("after the error, Stat(dir) = %v, want not exist", err)
				}
			}
		})
	}
	if _, err := NewBertWordPiece(noUnk); err == nil {
		t.Error("NewBertWordPiece without [UNK] succeeded")
	}
}
