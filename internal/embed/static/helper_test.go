package static

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// testVocab is the synthetic WordPiece vocabulary, in id order.
var testVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "un", "##able",
	"##s", "cafe", ".", "(", "hel", "##lo",
}

// testRows are the synthetic matrix rows in quarters: row i of the model
// is testRows[i]/4, exact in F32, F16 and I8 with scale 0.25.
var testRows = [][4]int8{
	{0, 0, 0, 0},   // [PAD]
	{9, 9, 9, 9},   // [UNK], never embedded
	{8, 8, 8, 8},   // [CLS], never embedded
	{7, 7, 7, 7},   // [SEP], never embedded
	{4, 0, 0, 0},   // hello
	{0, 4, 0, 0},   // world
	{0, 0, 4, 0},   // un
	{0, 0, 0, 4},   // ##able
	{2, 2, 0, 0},   // ##s
	{1, -1, 1, -1}, // cafe
	{-4, 0, 0, 0},  // .
	{0, -4, 0, 0},  // (
	{0, 0, -4, 0},  // hel
	{0, 0, 0, -4},  // ##lo
}

// modelSpec describes a synthetic model2vec directory for writeModel.
type modelSpec struct {
	dtype      string    // "F32" (default), "F16" or "I8" (with a scales tensor)
	tensorName string    // default "embeddings"
	weights    []float32 // written as the "weights" tensor when set
	normalize  *bool     // config.json "normalize"; no config.json when nil (and no tf)
	tf         string    // config.json "tf" when set
	rows       int       // matrix rows written; default len(testRows)
	tokenizer  string    // tokenizer.json contents; default testTokenizerJSON()
}

// testTokenizerJSON returns a BERT-style tokenizer.json over testVocab
// with the given model type.
func testTokenizerJSON(modelType string) string {
	vocab := map[string]int{}
	for i, s := range testVocab {
		vocab[s] = i
	}
	tj := map[string]any{
		"version": "1.0",
		"added_tokens": []map[string]any{
			{"id": 0, "content": "[PAD]", "special": true},
			{"id": 1, "content": "[UNK]", "special": true},
			{"id": 2, "content": "[CLS]", "special": true},
			{"id": 3, "content": "[SEP]", "special": true},
		},
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true,
		},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model": map[string]any{
			"type": modelType, "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab,
		},
	}
	b, err := json.Marshal(tj)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// writeModel writes a model2vec directory described by spec into a new
// temporary directory and returns its path.
func writeModel(t testing.TB, spec modelSpec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if spec.dtype == "" {
		spec.dtype = "F32"
	}
	if spec.tensorName == "" {
		spec.tensorName = "embeddings"
	}
	if spec.rows == 0 {
		spec.rows = len(testRows)
	}
	if spec.tokenizer == "" {
		spec.tokenizer = testTokenizerJSON("WordPiece")
	}
	var emb []byte
	for _, r := range testRows[:spec.rows] {
		for _, q := range r {
			f := float32(q) / 4
			switch spec.dtype {
			case "F32":
				emb = binary.LittleEndian.AppendUint32(emb, math.Float32bits(f))
			case "F16":
				emb = binary.LittleEndian.AppendUint16(emb, float32ToHalf(f))
			case "I8":
				emb = append(emb, byte(q))
			default:
				// An unsupported dtype: write 8 bytes per value.
				emb = binary.LittleEndian.AppendUint64(emb, math.Float64bits(float64(f)))
			}
		}
	}
	ts := []tensor{{spec.tensorName, spec.dtype, []int{spec.rows, 4}, emb}}
	if spec.dtype == "I8" {
		ts = append(ts, tensor{"scales", "F32", []int{spec.rows}, f32Bytes(repeat(0.25, spec.rows))})
	}
	if spec.weights != nil {
		ts = append(ts, tensor{"weights", "F32", []int{len(spec.weights)}, f32Bytes(spec.weights)})
	}
	writeFile(t, filepath.Join(dir, "model.safetensors"), string(encodeSafetensors(ts)))
	writeFile(t, filepath.Join(dir, "tokenizer.json"), spec.tokenizer)
	if spec.normalize != nil || spec.tf != "" {
		cfg := map[string]any{"model_type": "model2vec"}
		if spec.normalize != nil {
			cfg["normalize"] = *spec.normalize
		}
		if spec.tf != "" {
			cfg["tf"] = spec.tf
		}
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "config.json"), string(b))
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func repeat(x float32, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = x
	}
	return v
}

// float32ToHalf converts f to binary16, exact for the small multiples of
// 1/4 the tests use (normal numbers, no rounding).
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	if f == 0 {
		return sign
	}
	exp := int(b>>23&0xff) - 127 + 15
	frac := uint16(b>>13) & 0x3ff
	return sign | uint16(exp)<<10 | frac
}

func ptr[T any](v T) *T { return &v }
