package static

import (
	"encoding/json"
	"fmt"
)

// hfTokenizer is the part of a HuggingFace tokenizer.json this package reads.
type hfTokenizer struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer   *hfNormalizer   `json:"normalizer"`
	PreTokenizer *hfPreTokenizer `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		UnkToken                *string         `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
	} `json:"model"`
}

type hfNormalizer struct {
	Type               string         `json:"type"`
	CleanText          *bool          `json:"clean_text"`
	HandleChineseChars *bool          `json:"handle_chinese_chars"`
	StripAccents       *bool          `json:"strip_accents"`
	Lowercase          *bool          `json:"lowercase"`
	Normalizers        []hfNormalizer `json:"normalizers"`
}

type hfPreTokenizer struct {
	Type          string           `json:"type"`
	PreTokenizers []hfPreTokenizer `json:"pretokenizers"`
}

// defaultSpecial are the BERT special tokens, never embedded even when
// tokenizer.json does not list them among its added tokens.
var defaultSpecial = []string{"[CLS]", "[SEP]", "[PAD]", "[MASK]"}

// ParseTokenizerJSON builds a WordPiece [Tokenizer] from the bytes of a
// HuggingFace tokenizer.json, exactly as [LoadModel2Vec] reads one, for
// providers that run other models over the same tokenisation (embed/onnx).
// It reads the model, normalizer and pre_tokenizer sections and ignores
// post_processor, truncation and padding. Errors wrap [ErrUnsupported]
// for tokenizers this package does not implement and do not name the
// file; the caller adds it.
func ParseTokenizerJSON(data []byte) (*Tokenizer, error) { return parseTokenizerJSON(data) }

// parseTokenizerJSON builds a [Tokenizer] from the bytes of a HuggingFace
// tokenizer.json. Errors do not name the file; the caller adds it.
func parseTokenizerJSON(data []byte) (*Tokenizer, error) {
	var hf hfTokenizer
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("parsing JSON: %v", err)
	}
	switch hf.Model.Type {
	case "WordPiece":
	case "":
		// Older files omit the type; a WordPiece vocab is an object.
		if len(hf.Model.Vocab) == 0 || hf.Model.Vocab[0] != '{' {
			return nil, fmt.Errorf("model has no type and no WordPiece vocab")
		}
	default:
		return nil, fmt.Errorf("tokenizer model type %q: %w (only WordPiece)", hf.Model.Type, ErrUnsupported)
	}
	var vocab map[string]int
	if err := json.Unmarshal(hf.Model.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("model.vocab: %v", err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("model.vocab is empty")
	}
	var opts TokenizerOptions
	if hf.Model.UnkToken != nil {
		opts.Unk = *hf.Model.UnkToken
	}
	if p := hf.Model.ContinuingSubwordPrefix; p != nil {
		opts.Prefix = *p
	}
	opts.MaxInputCharsPerWord = hf.Model.MaxInputCharsPerWord
	if err := applyNormalizer(&opts, hf.Normalizer); err != nil {
		return nil, err
	}
	if err := applyPreTokenizer(&opts, hf.PreTokenizer); err != nil {
		return nil, err
	}
	opts.Special = append(opts.Special, defaultSpecial...)
	for _, a := range hf.AddedTokens {
		if !a.Special {
			continue
		}
		if id, ok := vocab[a.Content]; ok && id != a.ID {
			return nil, fmt.Errorf("added token %q has id %d but vocab id %d", a.Content, a.ID, id)
		}
		opts.Special = append(opts.Special, a.Content)
	}
	t, err := NewWordPiece(vocab, opts)
	if err != nil {
		return nil, fmt.Errorf("model.vocab: %v", err)
	}
	return t, nil
}

func applyNormalizer(o *TokenizerOptions, n *hfNormalizer) error {
	if n == nil {
		return nil
	}
	on := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	switch n.Type {
	case "BertNormalizer":
		o.CleanText = on(n.CleanText, true)
		o.ChineseChars = on(n.HandleChineseChars, true)
		o.Lowercase = on(n.Lowercase, true)
		// strip_accents null follows lowercase, as in BERT.
		o.StripAccents = on(n.StripAccents, o.Lowercase)
	case "Sequence":
		for i := range n.Normalizers {
			if err := applyNormalizer(o, &n.Normalizers[i]); err != nil {
				return err
			}
		}
	case "Lowercase":
		o.Lowercase = true
	case "StripAccents":
		o.StripAccents = true
	case "NFD", "NFKD", "NFC", "NFKC":
		// Composition forms matter only to accent stripping, which
		// handles precomposed letters itself.
	default:
		return fmt.Errorf("normalizer type %q: %w", n.Type, ErrUnsupported)
	}
	return nil
}

func applyPreTokenizer(o *TokenizerOptions, p *hfPreTokenizer) error {
	if p == nil {
		// HF would keep the whole text as one word; splitting on
		// whitespace is the useful reading for a static model.
		o.Pre = WhitespaceSplitPre
		return nil
	}
	switch p.Type {
	case "BertPreTokenizer":
		o.Pre = BertPre
	case "Whitespace":
		o.Pre = WhitespacePre
	case "WhitespaceSplit":
		o.Pre = WhitespaceSplitPre
	case "Sequence":
		if len(p.PreTokenizers) != 1 {
			return fmt.Errorf("pre_tokenizer Sequence of %d: %w (only one element)", len(p.PreTokenizers), ErrUnsupported)
		}
		return applyPreTokenizer(o, &p.PreTokenizers[0])
	default:
		return fmt.Errorf("pre_tokenizer type %q: %w", p.Type, ErrUnsupported)
	}
	return nil
}
