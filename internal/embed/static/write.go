package static

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// bertSpecial are the BERT special tokens that [WriteModel2Vec] lists as
// added tokens when the vocabulary has them, in HF's order.
var bertSpecial = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}

// WriteModel2Vec writes a model2vec model directory that [LoadModel2Vec]
// reads back, creating dir (and its parents) when missing and replacing
// the three files when present:
//
//   - tokenizer.json: a HuggingFace WordPiece tokenizer over vocab, where
//     vocab[i] is the token of matrix row i, with the BERT uncased
//     pipeline: BertNormalizer (clean text, isolate CJK ideographs,
//     lowercase, strip accents), BertPreTokenizer, unknown token "[UNK]",
//     continuation prefix "##" and max_input_chars_per_word 100. The
//     vocabulary's BERT special tokens ([PAD], [UNK], [CLS], [SEP],
//     [MASK]) are listed as special added tokens, so they are never
//     embedded. [NewBertWordPiece] returns the same tokenizer in memory.
//   - model.safetensors: m as the tensor "embeddings" of shape [rows,
//     dims], F32 for a float32 matrix, or I8 plus the F32 tensor "scales"
//     of per-row scales for an int8 one ([Matrix.Int8] quantises); and
//     opts.Weights, when set, as the F32 tensor "weights" of shape [rows].
//   - config.json: {"model_type": "model2vec", "normalize": ..., ...},
//     normalize being false when opts.NoNormalize is set.
//
// vocab must hold m.Rows distinct non-empty tokens including "[UNK]",
// and opts.Weights, when set, m.Rows weights; a nil opts means defaults.
// opts.Version is not stored: [LoadModel2Vec] gives every model the
// version "model2vec".
//
// The model read back embeds every text as NewModel(name,
// NewBertWordPiece(vocab), m, opts) does and has the same [Identity]
// checksum, so an index built with it is current for either. Files are
// written in place, not atomically: do not write into a directory a
// running ctx is loading.
func WriteModel2Vec(dir string, vocab []string, m Matrix, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	if err := checkWrite(vocab, m, *opts); err != nil {
		return fmt.Errorf("writing model2vec model %s: %v", dir, err)
	}
	tj, err := bertTokenizerJSON(vocab)
	if err != nil {
		return fmt.Errorf("writing model2vec model %s: %v", dir, err)
	}
	if err := writeModelDir(dir, tj, m, *opts); err != nil {
		return fmt.Errorf("writing model2vec model %s: %w", dir, err)
	}
	return nil
}

// WriteCodeModel writes a model over a [CodeTokenizer] as a model2vec
// directory that [LoadModel2Vec] reads back with the same embeddings and
// [Identity] checksum: tokenizer.json is [CodeTokenizer.MarshalJSON]
// (model type "CtxCode", which only ctx reads), model.safetensors and
// config.json are as [WriteModel2Vec] writes them. m must have
// tok.Size() rows. A nil opts means defaults.
func WriteCodeModel(dir string, tok *CodeTokenizer, m Matrix, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	if err := m.check(); err != nil {
		return fmt.Errorf("writing code model %s: %v", dir, err)
	}
	if tok.Size() != m.Rows {
		return fmt.Errorf("writing code model %s: tokenizer has %d ids for %d matrix rows", dir, tok.Size(), m.Rows)
	}
	if opts.Weights != nil && len(opts.Weights) != m.Rows {
		return fmt.Errorf("writing code model %s: %d token weights for %d matrix rows", dir, len(opts.Weights), m.Rows)
	}
	tj, err := tok.MarshalJSON()
	if err != nil {
		return fmt.Errorf("writing code model %s: %v", dir, err)
	}
	if err := writeModelDir(dir, tj, m, *opts); err != nil {
		return fmt.Errorf("writing code model %s: %w", dir, err)
	}
	return nil
}

// writeModelDir writes tokenizer.json (tj), model.safetensors and
// config.json into dir, creating it when missing.
func writeModelDir(dir string, tj []byte, m Matrix, opts Options) error {
	ts := []tensor{{name: "embeddings", shape: []int{m.Rows, m.Dims}}}
	if m.F32 != nil {
		ts[0].dtype, ts[0].data = "F32", f32Bytes(m.F32)
	} else {
		q := make([]byte, len(m.I8))
		for i, v := range m.I8 {
			q[i] = byte(v)
		}
		ts[0].dtype, ts[0].data = "I8", q
		ts = append(ts, tensor{name: "scales", dtype: "F32", shape: []int{m.Rows}, data: f32Bytes(m.Scale)})
	}
	if opts.Weights != nil {
		ts = append(ts, tensor{name: "weights", dtype: "F32", shape: []int{m.Rows}, data: f32Bytes(opts.Weights)})
	}
	// The fields model2vec's own save_pretrained writes that apply here;
	// LoadModel2Vec reads only normalize, and ctx's "tf" when it is not
	// raw.
	conf := map[string]any{
		"model_type":    "model2vec",
		"architectures": []string{"StaticModel"},
		"hidden_dim":    m.Dims,
		"normalize":     !opts.NoNormalize,
	}
	if opts.TF != TFRaw {
		conf["tf"] = opts.TF.String()
	}
	cfg, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"tokenizer.json", tj},
		{"model.safetensors", encodeSafetensors(ts)},
		{"config.json", append(cfg, '\n')},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkWrite reports why m, opts and the length of vocab do not make a
// model [WriteModel2Vec] can write, or nil; [bertTokenizerJSON] checks the
// tokens.
func checkWrite(vocab []string, m Matrix, opts Options) error {
	if err := m.check(); err != nil {
		return err
	}
	if len(vocab) != m.Rows {
		return fmt.Errorf("%d vocabulary tokens for %d matrix rows", len(vocab), m.Rows)
	}
	if opts.Weights != nil && len(opts.Weights) != m.Rows {
		return fmt.Errorf("%d token weights for %d matrix rows", len(opts.Weights), m.Rows)
	}
	return nil
}

// NewBertWordPiece returns the WordPiece tokenizer that [WriteModel2Vec]
// writes for vocab (vocab[i] has id i), exactly as [LoadModel2Vec] reads
// it back: BERT uncased normalisation and pre-tokenisation, "[UNK]" as
// the unknown token, and the BERT special tokens never embedded. vocab
// must hold distinct non-empty tokens including "[UNK]". A trainer uses
// it to build in memory (with [NewModel]) the model it then exports.
func NewBertWordPiece(vocab []string) (*Tokenizer, error) {
	tj, err := bertTokenizerJSON(vocab)
	if err != nil {
		return nil, err
	}
	return parseTokenizerJSON(tj)
}

// bertTokenizerJSON returns the tokenizer.json of a BERT uncased
// WordPiece tokenizer over vocab. It has every top-level field HF
// tokenizers expects, so Python tooling loads it too.
func bertTokenizerJSON(vocab []string) ([]byte, error) {
	ids := make(map[string]int, len(vocab))
	for i, s := range vocab {
		if s == "" {
			return nil, fmt.Errorf("vocabulary token %d is empty", i)
		}
		if j, ok := ids[s]; ok {
			return nil, fmt.Errorf("vocabulary tokens %d and %d are both %q", j, i, s)
		}
		ids[s] = i
	}
	if _, ok := ids["[UNK]"]; !ok {
		return nil, fmt.Errorf("vocabulary has no unknown token [UNK]")
	}
	type addedToken struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	added := []addedToken{}
	for _, s := range bertSpecial {
		if id, ok := ids[s]; ok {
			added = append(added, addedToken{ID: id, Content: s, Special: true})
		}
	}
	// parseTokenizerJSON lists special tokens in added_tokens order, and
	// the identity checksum covers that list: keep it in id order.
	slices.SortFunc(added, func(a, b addedToken) int { return a.ID - b.ID })
	tj := struct {
		Version       string         `json:"version"`
		Truncation    any            `json:"truncation"`
		Padding       any            `json:"padding"`
		AddedTokens   []addedToken   `json:"added_tokens"`
		Normalizer    map[string]any `json:"normalizer"`
		PreTokenizer  map[string]any `json:"pre_tokenizer"`
		PostProcessor any            `json:"post_processor"`
		Decoder       map[string]any `json:"decoder"`
		Model         map[string]any `json:"model"`
	}{
		Version:     "1.0",
		AddedTokens: added,
		Normalizer: map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true,
		},
		PreTokenizer: map[string]any{"type": "BertPreTokenizer"},
		Decoder:      map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		Model: map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids,
		},
	}
	return json.Marshal(tj)
}
