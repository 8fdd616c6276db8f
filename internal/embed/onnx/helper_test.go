package onnx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testVocab is the WordPiece vocabulary of the test tokenizer; ids are
// positions.
var testVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"represent", "this", "query", "for", "searching", "code", ":",
	"func", "parse", "##r", "##s", "config", "load", "file", "return",
	"err", "error", "nil", "(", ")", ".", "the", "a", "open", "read",
	"write", "go", "json",
}

// tokenizerJSON returns a BERT uncased tokenizer.json over vocab (vocab[i]
// has id i) with postProcessor as its post_processor (nil for none).
func tokenizerJSON(t testing.TB, vocab []string, postProcessor any) []byte {
	t.Helper()
	ids := make(map[string]int, len(vocab))
	var added []map[string]any
	for i, s := range vocab {
		ids[s] = i
		if s[0] == '[' {
			added = append(added, map[string]any{
				"id": i, "content": s, "single_word": false, "lstrip": false,
				"rstrip": false, "normalized": false, "special": true,
			})
		}
	}
	data, err := json.Marshal(map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true,
		},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": postProcessor,
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// bertTemplate is the post_processor of HF BERT tokenizers: [CLS] $A [SEP].
func bertTemplate(vocab []string) map[string]any {
	id := func(tok string) int {
		for i, s := range vocab {
			if s == tok {
				return i
			}
		}
		panic("no " + tok)
	}
	special := func(tok string) map[string]any {
		return map[string]any{"id": tok, "ids": []int{id(tok)}, "tokens": []string{tok}}
	}
	return map[string]any{
		"type": "TemplateProcessing",
		"single": []any{
			map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}},
			map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
			map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}},
		},
		"pair": []any{},
		"special_tokens": map[string]any{
			"[CLS]": special("[CLS]"),
			"[SEP]": special("[SEP]"),
		},
	}
}

// writeFiles writes files (name → content) under dir, making directories.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
