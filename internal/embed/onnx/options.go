package onnx

import "errors"

// Pooling modes for [Options].Pooling.
const (
	// MeanPooling averages the token vectors the attention mask keeps,
	// special tokens included, as sentence-transformers' mean pooling does.
	MeanPooling = "mean"
	// CLSPooling takes the vector of the first token ([CLS]).
	CLSPooling = "cls"
)

const (
	// DefaultMaxTokens is the longest token sequence fed to the model,
	// special tokens included, when [Options].MaxTokens is 0.
	DefaultMaxTokens = 512
	// DefaultBatchSize is the most texts in one run of the model when
	// [Options].BatchSize is 0.
	DefaultBatchSize = 16
)

// Options configures [New]. ModelDir and LibraryPath are required.
type Options struct {
	// ModelDir is the model directory: model.onnx and tokenizer.json, and
	// optionally the sentence-transformers files 1_Pooling/config.json
	// (pooling), config_sentence_transformers.json (prompts) and the
	// Hugging Face config.json (max_position_embeddings). Required.
	ModelDir string
	// LibraryPath is the path of the ONNX Runtime shared library
	// (libonnxruntime.so.1 on Linux, libonnxruntime.dylib on macOS),
	// version 1.24 or newer. Required: the provider never searches for
	// one. The first [New] of a process loads it for the life of the
	// process, so every Provider of a process must name the same file.
	LibraryPath string
	// MaxTokens is the longest token sequence fed to the model, special
	// tokens included; longer texts are cut at the end. 0 means
	// [DefaultMaxTokens]. Either way it is lowered to the model's
	// max_position_embeddings when config.json gives it.
	MaxTokens int
	// BatchSize is the most texts in one run of the model; 0 means
	// [DefaultBatchSize]. Memory per run grows with BatchSize × MaxTokens
	// × hidden size.
	BatchSize int
	// Pooling is [MeanPooling] or [CLSPooling]; empty means what
	// 1_Pooling/config.json says, else MeanPooling.
	Pooling string
	// QueryPrefix and DocumentPrefix are prepended to each text of an
	// [embed.Query] or [embed.Document] batch, for models trained with
	// instructions (CodeRankEmbed: "Represent this query for searching
	// relevant code: " for queries, none for code). Empty means the
	// "query" and "document" (or "passage") prompts of
	// config_sentence_transformers.json, else none. Changing them changes
	// the vectors but not the model identity, so an index must be
	// rebuilt when they change.
	QueryPrefix    string
	DocumentPrefix string
}

// ErrNotBuilt is what [New] returns in a ctx built without the onnx build
// tag.
var ErrNotBuilt = errors.New(`onnx: this ctx was built without ONNX support; rebuild with "go build -tags onnx ./cmd/ctx"`)
