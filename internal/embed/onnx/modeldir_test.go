package onnx

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/static"
)

func TestEncoderFraming(t *testing.T) {
	t.Parallel()
	bert := map[string]any{"type": "BertProcessing", "cls": []any{"[CLS]", 2}, "sep": []any{"[SEP]", 3}}
	tests := []struct {
		name     string
		post     any
		wantHead []int32
		wantTail []int32
	}{
		{"template", bertTemplate(testVocab), []int32{2}, []int32{3}},
		{"bert", bert, []int32{2}, []int32{3}},
		{"sequence", map[string]any{"type": "Sequence", "processors": []any{
			map[string]any{"type": "ByteLevel"}, bertTemplate(testVocab),
		}}, []int32{2}, []int32{3}},
		{"none", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := newEncoder(tokenizerJSON(t, testVocab, tt.post))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantHead, e.head); diff != "" {
				t.Errorf("head (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTail, e.tail); diff != "" {
				t.Errorf("tail (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncoderErrors(t *testing.T) {
	t.Parallel()
	if _, err := newEncoder(tokenizerJSON(t, testVocab, map[string]any{"type": "Split"})); !errors.Is(err, static.ErrUnsupported) {
		t.Errorf("post_processor Split: got %v, want static.ErrUnsupported", err)
	}
	noSeq := map[string]any{"type": "TemplateProcessing", "single": []any{
		map[string]any{"SpecialToken": map[string]any{"id": "[CLS]"}},
	}, "special_tokens": map[string]any{"[CLS]": map[string]any{"ids": []int{2}}}}
	if _, err := newEncoder(tokenizerJSON(t, testVocab, noSeq)); err == nil {
		t.Error("template without a sequence: no error")
	}
	bpe := []byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`)
	if _, err := newEncoder(bpe); !errors.Is(err, static.ErrUnsupported) {
		t.Errorf("BPE tokenizer: got %v, want static.ErrUnsupported", err)
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	e, err := newEncoder(tokenizerJSON(t, testVocab, bertTemplate(testVocab)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		max  int
		want []int32
	}{
		{"Parser config", 512, []int32{2, 13, 14, 16, 3}},
		{"parse config load file", 4, []int32{2, 13, 16, 3}},
		{"parser", 3, []int32{2, 13, 3}}, // cut inside a word
		{"zebra", 512, []int32{2, 1, 3}}, // unknown word
		{"", 512, []int32{2, 3}},
	}
	for _, tt := range tests {
		got := e.encode(nil, tt.text, tt.max)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("encode(%q, %d) (-want +got):\n%s", tt.text, tt.max, diff)
		}
	}
}

func TestEncoderPad(t *testing.T) {
	t.Parallel()
	vocab := append([]string{"x"}, testVocab...) // [PAD] has id 1
	e, err := newEncoder(tokenizerJSON(t, vocab, nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.pad != 1 {
		t.Errorf("pad = %d, want the id of [PAD], 1", e.pad)
	}
	data := []byte(`{"padding": {"pad_id": 4}, "model": {"type": "WordPiece", "vocab": {"[PAD]": 0, "a": 1}}}`)
	if e, err = newEncoder(data); err != nil {
		t.Fatal(err)
	}
	if e.pad != 4 {
		t.Errorf("pad = %d, want padding.pad_id 4", e.pad)
	}
}

// writeModelDir writes a model directory with a stand-in model.onnx and
// the test tokenizer, plus extra files; it returns the directory.
func writeModelDir(t *testing.T, graph []byte, extra map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "toy-bert")
	files := map[string][]byte{
		"model.onnx":     graph,
		"tokenizer.json": tokenizerJSON(t, testVocab, bertTemplate(testVocab)),
	}
	for k, v := range extra {
		files[k] = v
	}
	writeFiles(t, dir, files)
	return dir
}

func TestReadModelDir(t *testing.T) {
	t.Parallel()
	graph := []byte("not really a graph")
	dir := writeModelDir(t, graph, nil)
	m, err := readModelDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(append([]byte(nil), graph...), tok...))
	if want := "toy-bert@" + hex.EncodeToString(sum[:])[:12]; m.name != want {
		t.Errorf("name = %q, want %q", m.name, want)
	}
	if m.graph != filepath.Join(dir, "model.onnx") {
		t.Errorf("graph = %q", m.graph)
	}
	if m.pooling != "" || m.prompts != (embed.Prefixes{}) || m.maxPositions != 0 {
		t.Errorf("without config files: pooling %q, prompts %+v, max positions %d; want none", m.pooling, m.prompts, m.maxPositions)
	}

	// Another vocabulary is another identity.
	dir2 := writeModelDir(t, graph, map[string][]byte{"tokenizer.json": tokenizerJSON(t, testVocab[:20], nil)})
	if m2, err := readModelDir(dir2); err != nil {
		t.Fatal(err)
	} else if m2.name == m.name {
		t.Errorf("two tokenizers share the identity %q", m.name)
	}
}

func TestReadModelDirConfigs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		files       map[string]string
		wantPooling string
		wantPrompts embed.Prefixes
		wantMaxPos  int
	}{
		{"cls", map[string]string{"1_Pooling/config.json": `{"word_embedding_dimension": 8, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}`}, "cls", embed.Prefixes{}, 0},
		{"mean", map[string]string{"1_Pooling/config.json": `{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}`}, "mean", embed.Prefixes{}, 0},
		{"max", map[string]string{"1_Pooling/config.json": `{"pooling_mode_max_tokens": true}`}, "max", embed.Prefixes{}, 0},
		{"combined", map[string]string{"1_Pooling/config.json": `{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}`}, "combined", embed.Prefixes{}, 0},
		{"prompts", map[string]string{"config_sentence_transformers.json": `{"prompts": {"query": "q: ", "passage": "p: "}, "default_prompt_name": null}`}, "", embed.Prefixes{Query: "q: ", Document: "p: "}, 0},
		{"document prompt", map[string]string{"config_sentence_transformers.json": `{"prompts": {"query": "q: ", "document": "d: ", "passage": "p: "}}`}, "", embed.Prefixes{Query: "q: ", Document: "d: "}, 0},
		{"positions", map[string]string{"config.json": `{"hidden_size": 8, "max_position_embeddings": 128}`}, "", embed.Prefixes{}, 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			extra := map[string][]byte{}
			for k, v := range tt.files {
				extra[k] = []byte(v)
			}
			m, err := readModelDir(writeModelDir(t, []byte("g"), extra))
			if err != nil {
				t.Fatal(err)
			}
			if m.pooling != tt.wantPooling {
				t.Errorf("pooling = %q, want %q", m.pooling, tt.wantPooling)
			}
			if m.prompts != tt.wantPrompts {
				t.Errorf("prompts = %+v, want %+v", m.prompts, tt.wantPrompts)
			}
			if m.maxPositions != tt.wantMaxPos {
				t.Errorf("max positions = %d, want %d", m.maxPositions, tt.wantMaxPos)
			}
		})
	}
}

func TestReadModelDirErrors(t *testing.T) {
	t.Parallel()
	tok := tokenizerJSON(t, testVocab, nil)
	notDir := filepath.Join(t.TempDir(), "file")
	writeFiles(t, filepath.Dir(notDir), map[string][]byte{"file": nil})
	tests := []struct {
		name     string
		dir      string
		notExist bool
	}{
		{"no directory", filepath.Join(t.TempDir(), "missing"), true},
		{"not a directory", notDir, false},
		{"no model.onnx", writeDir(t, map[string][]byte{"tokenizer.json": tok}), true},
		{"no tokenizer.json", writeDir(t, map[string][]byte{"model.onnx": []byte("g")}), true},
		{"bad tokenizer.json", writeDir(t, map[string][]byte{"model.onnx": []byte("g"), "tokenizer.json": []byte("{")}), false},
		{"bad pooling config", writeDir(t, map[string][]byte{"model.onnx": []byte("g"), "tokenizer.json": tok, "1_Pooling/config.json": []byte("[")}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readModelDir(tt.dir)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, got, tt.notExist)
			}
		})
	}
}

func writeDir(t *testing.T, files map[string][]byte) string {
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}
