// Package static is pure-Go inference for static embedding models, the
// semantic layer's default provider: no network, no cgo, no model server.
// It sits in the embed stage of the pipeline: input is chunk or query
// text, output is one float32 vector per text ([Provider] implements
// [embed.Provider]).
//
// A static model maps each token to one fixed vector. For a text whose
// embeddable tokens are t₁…tₙ (n ≤ [MaxTokens] = 512; unknown and special
// tokens such as [UNK], [CLS], [SEP], [PAD] are dropped, as model2vec
// does), with embedding matrix E (rows × dims) and optional per-token
// weights w (1 when absent):
//
//	m = (1/n) Σᵢ w(tᵢ) · E[tᵢ]        mean of weighted token vectors
//	v = m / ‖m‖₂                       unit L2 length; v = 0 when n = 0 or m = 0
//
// Because v is normalised, the 1/n factor and any global scale of E or w
// cancel; ranking uses v·v' = cos(v, v'). An int8 matrix row r holds
// E[r][j] = scale[r] · q[r][j] with q ∈ [-128, 127]. Vector entries are
// unitless; dims is the vector length.
//
// The tokenizer follows HuggingFace tokenizers' BERT pipeline: the
// BertNormalizer (clean text, isolate CJK ideographs, lowercase, strip
// accents), a pre-tokeniser (BertPreTokenizer, Whitespace or
// WhitespaceSplit), then WordPiece: each word is cut greedily into the
// longest vocabulary piece from the left, later pieces carrying the
// continuing-subword prefix "##"; a word longer than
// max_input_chars_per_word (100) or with a position no piece covers
// becomes [UNK] as a whole. Accent stripping uses a generated table for
// precomposed Latin and Greek letters plus removal of non-spacing marks,
// instead of full NFD, which the standard library lacks.
//
// ctx's own models use a [CodeTokenizer] instead of WordPiece: the terms
// BM25 indexes (internal/analyze: whole identifiers, camel/snake parts,
// stems) looked up in a vocabulary, plus hashed character trigrams of
// each identifier the vocabulary lacks, so unseen identifiers still land
// on trained rows. [Model] embeds with either ([TextTokenizer]);
// [WriteCodeModel] saves such a model in the model2vec layout with a
// "CtxCode" tokenizer.json, which [LoadModel2Vec] reads back.
//
// [LoadModel2Vec] reads model2vec model directories (model.safetensors,
// tokenizer.json, config.json) so a user can drop in an off-the-shelf
// model such as minishlab/potion-base-8M; [NewModel] builds a model from
// memory (the trainer's output), and [WriteModel2Vec] exports one as a
// model2vec directory that reads back with the same embeddings and
// identity ([NewBertWordPiece] is its tokenizer, [Matrix.Int8] its
// optional quantisation). A model's [Identity] carries a checksum
// of its tokenizer and weights, which [Provider] puts in the model name so
// an index built with other weights is detected as stale.
//
// Sources: the model2vec format and inference (github.com/MinishLab/model2vec,
// StaticModel.tokenize/encode); the safetensors format
// (github.com/huggingface/safetensors, "Format"); the HuggingFace
// tokenizers WordPiece model, BertNormalizer and BertPreTokenizer
// (github.com/huggingface/tokenizers, tokenizers/src/models/wordpiece,
// normalizers/bert.rs, pre_tokenizers/bert.rs).
package static
