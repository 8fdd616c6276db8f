// Package onnx is an optional [embed.Provider] that runs a transformer
// encoder exported to ONNX (BERT-family code and text embedders such as
// CodeRankEmbed or bge) with a user-supplied ONNX Runtime shared library.
// It sits in the embed stage of the pipeline: input is chunk or query
// text, output is one unit-length float32 vector per text.
//
// # Build
//
// The provider exists only in a ctx built with the onnx build tag:
//
//	go build -tags onnx ./cmd/ctx
//
// which needs cgo but not ONNX Runtime itself: github.com/yalue/onnxruntime_go
// (v1.27.0, ONNX Runtime C API version 24) opens the library at run time.
// Without the tag, [New] returns [ErrNotBuilt] and the package still
// compiles, so callers need no build tags of their own.
//
// # Runtime library
//
// [Options].LibraryPath names an ONNX Runtime shared library, version
// 1.24 or newer (older ones lack C API version 24 and fail to load):
// lib/libonnxruntime.so.1.x from an onnxruntime release archive, or
// bin/napi-v6/linux/x64/libonnxruntime.so.1 from the npm package
// onnxruntime-node (install it with --ignore-scripts: its install script
// fetches optional CUDA libraries from NuGet). The provider never searches for a library.
// The first [New] of a process loads it until the process exits; later
// providers must name the same file.
//
// # Model directory
//
// [Options].ModelDir holds:
//
//   - model.onnx: the graph. Its inputs are input_ids and optionally
//     attention_mask and token_type_ids, all int64 [batch, sequence];
//     any other input is an error. Its token vectors are the float32
//     [batch, sequence, hidden] output named last_hidden_state, else its
//     first output of rank 3 (optimum names it token_embeddings in a
//     sentence-transformers export); other outputs are not computed.
//   - tokenizer.json: a Hugging Face WordPiece tokenizer, read by
//     [static.ParseTokenizerJSON]; its post_processor (BertProcessing or
//     TemplateProcessing) gives the special tokens around each text,
//     normally [CLS] text [SEP], and its padding.pad_id (else [PAD]) the
//     padding id. BPE and Unigram tokenizers (RoBERTa-, Qwen- or
//     XLM-based models) are not supported.
//   - optionally, the sentence-transformers files 1_Pooling/config.json
//     (the pooling mode), config_sentence_transformers.json (the "query"
//     and "document" or "passage" prompts) and config.json (whose
//     max_position_embeddings caps [Options].MaxTokens). [Options] fields
//     override them.
//
// # Inference
//
// Each text gets its kind's prefix ([Options].QueryPrefix or
// DocumentPrefix), is tokenised and framed by the special tokens, and is
// cut at the end to [Options].MaxTokens tokens (default 512, special
// tokens included). Texts are sorted by length and run in batches of at
// most [Options].BatchSize (default 16), each padded on the right to its
// longest sequence: attention_mask is 1 on a text's tokens and 0 on
// padding, token_type_ids is 0. With h_j the output vector of token j
// and mask m_j:
//
//	mean pooling:  v = Σ_j m_j·h_j / Σ_j m_j    (special tokens included)
//	cls pooling:   v = h_0                       (the [CLS] token)
//	result:        v / ‖v‖₂
//
// so the vector of a text does not depend on the batch it ran in. Entries
// are unitless; [Provider.Model] reports Dims = hidden, read from the
// graph's output shape (or, when symbolic, from one run at [New]).
//
// # Identity
//
// The model identity is {Provider: "onnx", Name: "<directory base
// name>@<checksum>", Dims: hidden}, the checksum being the first 12 hex
// digits of the SHA-256 of model.onnx followed by tokenizer.json: other
// weights or another vocabulary make an index stale. Pooling, prefixes
// and MaxTokens are not part of it, so changing them needs a rebuilt
// index, as with the other providers' prefixes. Weights kept in an
// external data file (model.onnx_data) are not covered either.
//
// # Errors
//
// [New] reports, prefixed "onnx: ", what is missing or unsupported: no
// ModelDir or LibraryPath; a missing directory, model.onnx,
// tokenizer.json or library (matchable with errors.Is(err,
// fs.ErrNotExist)); a tokenizer or post-processor it does not implement
// (matchable with errors.Is(err, static.ErrUnsupported)); a pooling mode
// other than mean or cls; a library too old or not the one the process
// loaded; a graph the runtime rejects or whose inputs and outputs are not
// as above. [Provider.Embed] reports the context's error when it ends
// (also during a run, which it stops), [embed.ErrDimension] if the output
// changes size, and the runtime's error otherwise.
//
// # Getting a model
//
// Export a Hugging Face model with optimum, then give ctx the directory:
//
//	pip install "optimum[exporters]"
//	optimum-cli export onnx --model BAAI/bge-small-en-v1.5 --task feature-extraction bge-small-onnx/
//	CTX_EMBED_PROVIDER=onnx CTX_EMBED_MODEL=$PWD/bge-small-onnx ctx index
//
// (models with custom code, such as nomic-ai/CodeRankEmbed, also need
// --trust-remote-code and an architecture optimum can export). Copy the
// model's 1_Pooling/config.json and config_sentence_transformers.json
// next to model.onnx so pooling and prompts follow the model card — bge
// pools with [CLS]; CodeRankEmbed wants queries prefixed with "Represent
// this query for searching relevant code: " — or set them in [Options].
package onnx
