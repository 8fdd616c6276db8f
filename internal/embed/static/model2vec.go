package static

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadModel2Vec loads a model2vec-format model directory:
//
//   - model.safetensors: the embedding matrix, the tensor "embeddings" (or
//     the file's only 2-D tensor) of shape [rows, dims] in F32, F16, BF16
//     or I8; an optional 1-D "weights" tensor of per-token weights (rows
//     floats); and, for I8, an optional 1-D "scales" tensor of per-row
//     float scales (1 when absent: model2vec's int8 models are scaled
//     globally, which normalisation cancels).
//   - tokenizer.json: a HuggingFace WordPiece tokenizer (see
//     [NewWordPiece]) or ctx's own "CtxCode" [CodeTokenizer] (see
//     [WriteCodeModel]); Unigram, BPE and WordLevel fail with
//     [ErrUnsupported].
//   - config.json (optional): "normalize" (default true), and ctx's own
//     "tf" ("raw" by default, "sqrt" or "log": see [TF]), which
//     model2vec does not write.
//
// The model's name is the directory's base name and its version
// "model2vec". Every error names the file and what is wrong in it, but
// not the operation: the caller adds that, as in "loading model2vec
// model <dir>: …".
func LoadModel2Vec(dir string) (*Model, error) {
	st := filepath.Join(dir, "model.safetensors")
	tj := filepath.Join(dir, "tokenizer.json")
	cj := filepath.Join(dir, "config.json")

	b, err := os.ReadFile(tj)
	if err != nil {
		return nil, err
	}
	tok, err := parseAnyTokenizerJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tj, err)
	}

	normalize := true
	var tf TF
	if b, err := os.ReadFile(cj); err == nil {
		var cfg struct {
			Normalize *bool  `json:"normalize"`
			TF        string `json:"tf"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("%s: parsing JSON: %v", cj, err)
		}
		if cfg.Normalize != nil {
			normalize = *cfg.Normalize
		}
		if tf, err = ParseTF(cfg.TF); err != nil {
			return nil, fmt.Errorf("%s: %v", cj, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	b, err = os.ReadFile(st)
	if err != nil {
		return nil, err
	}
	mat, weights, err := readMatrix(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st, err)
	}
	m, err := newModel(filepath.Base(filepath.Clean(dir)), "model2vec", tok, mat,
		Options{Weights: weights, NoNormalize: !normalize, TF: tf, Version: "model2vec"})
	if err != nil {
		return nil, fmt.Errorf("%s against %s: %w", tj, st, err)
	}
	return m, nil
}

// readMatrix extracts the embedding matrix and optional weights from the
// bytes of a model2vec model.safetensors.
func readMatrix(b []byte) (Matrix, []float32, error) {
	ts, err := parseSafetensors(b)
	if err != nil {
		return Matrix{}, nil, err
	}
	emb, ok := ts["embeddings"]
	if !ok {
		var twoD []tensor
		for _, n := range names(ts) {
			if len(ts[n].shape) == 2 {
				twoD = append(twoD, ts[n])
			}
		}
		if len(twoD) != 1 {
			return Matrix{}, nil, fmt.Errorf("no tensor \"embeddings\" and %d 2-D tensors (have %q)", len(twoD), names(ts))
		}
		emb = twoD[0]
	}
	if len(emb.shape) != 2 {
		return Matrix{}, nil, fmt.Errorf("tensor %q has shape %v, want [rows, dims]", emb.name, emb.shape)
	}
	m := Matrix{Rows: emb.shape[0], Dims: emb.shape[1]}
	switch emb.dtype {
	case "I8":
		m.I8 = make([]int8, len(emb.data))
		for i, x := range emb.data {
			m.I8[i] = int8(x)
		}
		if s, ok := ts["scales"]; ok {
			if len(s.shape) != 1 || s.shape[0] != m.Rows {
				return Matrix{}, nil, fmt.Errorf("tensor \"scales\" has shape %v, want [%d]", s.shape, m.Rows)
			}
			if m.Scale, err = s.floats(); err != nil {
				return Matrix{}, nil, err
			}
		} else {
			m.Scale = make([]float32, m.Rows)
			for i := range m.Scale {
				m.Scale[i] = 1
			}
		}
	default:
		if m.F32, err = emb.floats(); err != nil {
			return Matrix{}, nil, err
		}
	}
	if err := m.check(); err != nil {
		return Matrix{}, nil, fmt.Errorf("tensor %q: %v", emb.name, err)
	}
	var weights []float32
	if w, ok := ts["weights"]; ok {
		if len(w.shape) != 1 || w.shape[0] != m.Rows {
			return Matrix{}, nil, fmt.Errorf("tensor \"weights\" has shape %v, want [%d]", w.shape, m.Rows)
		}
		if weights, err = w.floats(); err != nil {
			return Matrix{}, nil, err
		}
	}
	return m, weights, nil
}

// parseAnyTokenizerJSON reads a tokenizer.json of either kind, by its
// model type.
func parseAnyTokenizerJSON(data []byte) (TextTokenizer, error) {
	var head struct {
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("parsing JSON: %v", err)
	}
	if head.Model.Type == codeTokenizerType {
		return parseCodeTokenizerJSON(data)
	}
	return parseTokenizerJSON(data)
}
