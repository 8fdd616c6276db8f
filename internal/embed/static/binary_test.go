package static

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// binaryTestModel returns an int8 code model with weights and its binary
// form.
func binaryTestModel(t *testing.T, tf TF) (*Model, []byte) {
	t.Helper()
	tok := newTestCodeTokenizer(t, 32)
	weights := make([]float32, tok.Size())
	for i := range weights {
		weights[i] = 0.25 + float32(i%7)/7
	}
	m, err := NewModel("bin", tok, randomMatrix(tok.Size(), 16, 5).Int8(), &Options{Weights: weights, Version: "v9", TF: tf})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBinary(&buf, m); err != nil {
		t.Fatal(err)
	}
	return m, buf.Bytes()
}

func TestBinaryRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tf := range []TF{TFRaw, TFSqrt} {
		t.Run(tf.String(), func(t *testing.T) {
			t.Parallel()
			testBinaryRoundTrip(t, tf)
		})
	}
}

func testBinaryRoundTrip(t *testing.T, tf TF) {
	want, b := binaryTestModel(t, tf)
	// Loading must not depend on the buffer's alignment: an embedded file
	// may start anywhere.
	shifted := append(make([]byte, 1, len(b)+1), b...)[1:]
	for name, buf := range map[string][]byte{"aligned": b, "unaligned": shifted} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := LoadBinary(buf)
			if err != nil {
				t.Fatal(err)
			}
			if got.TF() != tf {
				t.Errorf("TF = %v, want %v", got.TF(), tf)
			}
			if got.Identity() != want.Identity() {
				t.Errorf("identity %+v, want %+v", got.Identity(), want.Identity())
			}
			if err := got.Verify(); err != nil {
				t.Error(err)
			}
			for _, text := range []string{"", "getHTTPResponse", "func readHeader(r io.Reader)", "zzqqx unseenThing", "foo foo foo"} {
				if diff := cmp.Diff(want.Embed(text), got.Embed(text)); diff != "" {
					t.Errorf("Embed(%q) (-want +got):\n%s", text, diff)
				}
			}
			tok := got.TextTokenizer().(*CodeTokenizer)
			for i, term := range codeVocab {
				if id, ok := tok.vocab.lookup(term); !ok || int(id) != i {
					t.Errorf("lookup(%q) = %d, %v; want %d", term, id, ok, i)
				}
			}
			if _, ok := tok.vocab.lookup("absent"); ok {
				t.Error(`lookup("absent") found a term`)
			}
			// The trusted load skips only the term table's scan: the same
			// bytes give the same model.
			trusted, err := LoadBinaryTrusted(buf)
			if err != nil {
				t.Fatal(err)
			}
			if trusted.Identity() != got.Identity() {
				t.Errorf("trusted identity %+v, want %+v", trusted.Identity(), got.Identity())
			}
			for _, text := range []string{"getHTTPResponse", "zzqqx unseenThing"} {
				if diff := cmp.Diff(got.Embed(text), trusted.Embed(text)); diff != "" {
					t.Errorf("trusted Embed(%q) (-checked +trusted):\n%s", text, diff)
				}
			}
		})
	}
}

func TestBinaryVerifyCatchesChangedWeights(t *testing.T) {
	t.Parallel()
	_, b := binaryTestModel(t, TFRaw)
	b[len(b)-1] ^= 0x55 // a matrix value
	m, err := LoadBinary(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err == nil {
		t.Error("Verify passed a model whose matrix changed after writing")
	}
}

func TestLoadBinaryErrors(t *testing.T) {
	t.Parallel()
	_, b := binaryTestModel(t, TFRaw)
	// Every truncation fails cleanly, never panics.
	for n := 0; n < len(b); n++ {
		if _, err := LoadBinary(b[:n]); err == nil {
			t.Fatalf("LoadBinary of the first %d of %d bytes succeeded", n, len(b))
		}
	}
	if _, err := LoadBinary(append(append([]byte(nil), b...), 0)); err == nil {
		t.Error("LoadBinary with a trailing byte succeeded")
	}
	other := bytes.Replace(b, []byte(CodeTokenizerVersion), []byte(strings.Repeat("x", len(CodeTokenizerVersion))), 1)
	if _, err := LoadBinary(other); !errors.Is(err, ErrUnsupported) {
		t.Errorf("LoadBinary of another tokenizer version: %v, want ErrUnsupported", err)
	}
	// A scaling this build does not know is unsupported, not ignored.
	_, sq := binaryTestModel(t, TFSqrt)
	cubic := bytes.Replace(sq, []byte(`"tf":"sqrt"`), []byte(`"tf":"cube"`), 1)
	if bytes.Equal(cubic, sq) {
		t.Fatal(`no "tf":"sqrt" in the binary header`)
	}
	if _, err := LoadBinary(cubic); !errors.Is(err, ErrUnsupported) {
		t.Errorf("LoadBinary of an unknown tf: %v, want ErrUnsupported", err)
	}
	// A corrupt term table (an id beyond the vocabulary) is refused.
	m, _ := binaryTestModel(t, TFRaw)
	var buf bytes.Buffer
	tok := m.tok.(*CodeTokenizer)
	tok.vocab.slots[0] = uint32(len(codeVocab) + 5)
	if err := WriteBinary(&buf, m); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBinary(buf.Bytes()); err == nil {
		t.Error("LoadBinary accepted a slot holding an id beyond the vocabulary")
	}
}

func TestWriteBinaryRefuses(t *testing.T) {
	t.Parallel()
	tok := newTestCodeTokenizer(t, 8)
	f32, err := NewModel("f", tok, randomMatrix(tok.Size(), 4, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteBinary(&bytes.Buffer{}, f32); err == nil {
		t.Error("WriteBinary of a float32 model succeeded")
	}
	wp, err := NewBertWordPiece([]string{"[UNK]", "a"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewModel("w", wp, randomMatrix(2, 4, 1).Int8(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteBinary(&bytes.Buffer{}, w); err == nil {
		t.Error("WriteBinary of a WordPiece model succeeded")
	}
}

func FuzzLoadBinary(f *testing.F) {
	tok, _ := NewCodeTokenizer(codeVocab, 4)
	m, _ := NewModel("fz", tok, randomMatrix(tok.Size(), 4, 2).Int8(), nil)
	var buf bytes.Buffer
	if err := WriteBinary(&buf, m); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := LoadBinary(b)
		if err != nil {
			return
		}
		m.Embed("getHTTPResponse foo zzq")
	})
}
