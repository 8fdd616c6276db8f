package onnx

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/static"
)

// modelDir is what New reads from a model directory besides the graph.
type modelDir struct {
	// graph is the path of model.onnx.
	graph string
	// name is the identity name "<dir base name>@<checksum>".
	name string
	enc  encoder
	// pooling is the mode 1_Pooling/config.json asks for (see
	// poolingMode); "" when the file is absent.
	pooling string
	// prompts are config_sentence_transformers.json's query and document
	// prompts.
	prompts embed.Prefixes
	// maxPositions is config.json's max_position_embeddings; 0 when
	// absent.
	maxPositions int
}

// readModelDir reads dir. Errors name the file at fault and wrap
// fs.ErrNotExist when a required file is missing.
func readModelDir(dir string) (*modelDir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("model directory %s: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("model directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("model directory %s is not a directory", abs)
	}
	m := &modelDir{graph: filepath.Join(abs, "model.onnx")}
	tokPath := filepath.Join(abs, "tokenizer.json")
	tokData, err := os.ReadFile(tokPath)
	if err != nil {
		return nil, fmt.Errorf("model directory %s: %w", abs, err)
	}
	sum, err := checksum(m.graph, tokData)
	if err != nil {
		return nil, fmt.Errorf("model directory %s: %w", abs, err)
	}
	m.name = filepath.Base(abs) + "@" + sum
	if m.enc, err = newEncoder(tokData); err != nil {
		return nil, fmt.Errorf("%s: %w", tokPath, err)
	}
	if err := m.readConfigs(abs); err != nil {
		return nil, err
	}
	return m, nil
}

// checksum returns the first 12 hex digits of the SHA-256 of the graph
// file followed by the tokenizer bytes.
func checksum(graph string, tokenizer []byte) (string, error) {
	f, err := os.Open(graph)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %v", graph, err)
	}
	h.Write(tokenizer)
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// readConfigs reads the optional configuration files of dir.
func (m *modelDir) readConfigs(dir string) error {
	var pool map[string]any
	ok, err := readJSON(filepath.Join(dir, "1_Pooling", "config.json"), &pool)
	if err != nil {
		return err
	}
	if ok {
		m.pooling = poolingMode(pool)
	}
	var st struct {
		Prompts map[string]string `json:"prompts"`
	}
	if _, err := readJSON(filepath.Join(dir, "config_sentence_transformers.json"), &st); err != nil {
		return err
	}
	m.prompts.Query = st.Prompts["query"]
	m.prompts.Document = st.Prompts["document"]
	if m.prompts.Document == "" {
		m.prompts.Document = st.Prompts["passage"]
	}
	var hf struct {
		MaxPositions int `json:"max_position_embeddings"`
	}
	if _, err := readJSON(filepath.Join(dir, "config.json"), &hf); err != nil {
		return err
	}
	m.maxPositions = max(hf.MaxPositions, 0)
	return nil
}

// poolingMode names the mode a sentence-transformers pooling config turns
// on: "cls", "mean", "max" and so on for its pooling_mode_<name> key (with
// "_token" and "_tokens" dropped), or "none" or "combined" when it turns
// on no mode or several.
func poolingMode(cfg map[string]any) string {
	var on []string
	for k, v := range cfg {
		name, ok := strings.CutPrefix(k, "pooling_mode_")
		if b, isBool := v.(bool); ok && isBool && b {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "_tokens"), "_token")
			on = append(on, name)
		}
	}
	switch len(on) {
	case 0:
		return "none"
	case 1:
		return on[0]
	default:
		return "combined"
	}
}

// readJSON decodes the file at path into v; ok is false when there is no
// such file.
func readJSON(path string, v any) (ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	return true, nil
}

// encoder turns texts into the token ids a BERT-style model reads:
// WordPiece ids framed by the post-processor's special tokens.
type encoder struct {
	tok *static.Tokenizer
	// head and tail are the special tokens before and after a text's
	// tokens ([CLS] and [SEP] for BERT).
	head, tail []int32
	// pad fills input_ids past a text's end.
	pad int64
}

// hfTokenizerExtras is the part of tokenizer.json that static does not
// read: how a single text is framed and what pads a batch.
type hfTokenizerExtras struct {
	PostProcessor *hfPostProcessor `json:"post_processor"`
	Padding       *struct {
		PadID *int64 `json:"pad_id"`
	} `json:"padding"`
}

type hfPostProcessor struct {
	Type string `json:"type"`
	// BertProcessing and RobertaProcessing: [token, id] pairs.
	CLS []any `json:"cls"`
	SEP []any `json:"sep"`
	// TemplateProcessing.
	Single []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int32 `json:"ids"`
	} `json:"special_tokens"`
	// Sequence.
	Processors []hfPostProcessor `json:"processors"`
}

// newEncoder reads the tokenizer, its framing and its padding from the
// bytes of a tokenizer.json.
func newEncoder(data []byte) (encoder, error) {
	tok, err := static.ParseTokenizerJSON(data)
	if err != nil {
		return encoder{}, err
	}
	var x hfTokenizerExtras
	if err := json.Unmarshal(data, &x); err != nil {
		return encoder{}, fmt.Errorf("parsing JSON: %v", err)
	}
	e := encoder{tok: tok}
	if x.PostProcessor != nil {
		if err := e.frame(x.PostProcessor); err != nil {
			return encoder{}, fmt.Errorf("post_processor: %w", err)
		}
	}
	switch id, ok := tok.ID("[PAD]"); {
	case x.Padding != nil && x.Padding.PadID != nil:
		e.pad = *x.Padding.PadID
	case ok:
		e.pad = int64(id)
	}
	return e, nil
}

// frame sets head and tail from a post-processor.
func (e *encoder) frame(p *hfPostProcessor) error {
	switch p.Type {
	case "BertProcessing", "RobertaProcessing":
		cls, err := e.pairID(p.CLS)
		if err != nil {
			return fmt.Errorf("cls: %w", err)
		}
		sep, err := e.pairID(p.SEP)
		if err != nil {
			return fmt.Errorf("sep: %w", err)
		}
		e.head, e.tail = []int32{cls}, []int32{sep}
	case "TemplateProcessing":
		seen := false
		for _, item := range p.Single {
			switch {
			case item.Sequence != nil:
				if seen {
					return fmt.Errorf("single template has two sequences: %w", static.ErrUnsupported)
				}
				seen = true
			case item.SpecialToken != nil:
				sp, ok := p.SpecialTokens[item.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("special token %q is not in special_tokens", item.SpecialToken.ID)
				}
				if seen {
					e.tail = append(e.tail, sp.IDs...)
				} else {
					e.head = append(e.head, sp.IDs...)
				}
			}
		}
		if !seen {
			return fmt.Errorf("single template has no sequence")
		}
	case "Sequence":
		for i := range p.Processors {
			if err := e.frame(&p.Processors[i]); err != nil {
				return err
			}
		}
	case "ByteLevel":
		// Offsets only; the ids are unchanged.
	default:
		return fmt.Errorf("type %q: %w", p.Type, static.ErrUnsupported)
	}
	return nil
}

// pairID reads the id of a ["[CLS]", 101] pair.
func (e *encoder) pairID(pair []any) (int32, error) {
	if len(pair) != 2 {
		return 0, fmt.Errorf("want [token, id], got %v", pair)
	}
	id, ok := pair[1].(float64)
	if !ok || id < 0 || id != float64(int32(id)) {
		return 0, fmt.Errorf("want [token, id], got %v", pair)
	}
	return int32(id), nil
}

// specials is the number of special tokens framing each text.
func (e *encoder) specials() int { return len(e.head) + len(e.tail) }

// encode appends to dst the ids of text framed by head and tail, at most
// maxTokens in all: the text's tokens are cut at the end to fit.
// maxTokens must exceed e.specials().
func (e *encoder) encode(dst []int32, text string, maxTokens int) []int32 {
	dst = append(dst, e.head...)
	dst = e.tok.AppendIDs(dst, text, len(dst)+maxTokens-e.specials())
	return append(dst, e.tail...)
}
