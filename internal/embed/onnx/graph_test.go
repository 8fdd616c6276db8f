//go:build onnx

package onnx

// This file writes the test model: a small, randomly initialised,
// BERT-shaped ONNX graph, encoded by hand in the protobuf wire format.
// Field numbers are those of onnx/onnx.proto (ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto, ValueInfoProto, TypeProto,
// TensorShapeProto); only the fields the graph needs are written.

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
)

// pb is a protobuf message being encoded.
type pb []byte

func (b *pb) key(field, wire int) { *b = binary.AppendUvarint(*b, uint64(field<<3|wire)) }

// varint writes an int32, int64 or enum field (wire type 0).
func (b *pb) varint(field int, v int64) {
	b.key(field, 0)
	*b = binary.AppendUvarint(*b, uint64(v))
}

// bytes writes a bytes, string or message field (wire type 2).
func (b *pb) bytes(field int, v []byte) {
	b.key(field, 2)
	*b = binary.AppendUvarint(*b, uint64(len(v)))
	*b = append(*b, v...)
}

func (b *pb) str(field int, s string) { b.bytes(field, []byte(s)) }

// ONNX enum values used below.
const (
	onnxFloat = 1 // TensorProto.DataType FLOAT
	onnxInt64 = 7 // TensorProto.DataType INT64

	attrInt = 2 // AttributeProto.AttributeType INT
)

// dim is one dimension of a value's shape: a size, or a symbolic name
// when size is 0.
type dim struct {
	size  int64
	param string
}

// valueInfo encodes a ValueInfoProto for a tensor.
func valueInfo(name string, elem int64, dims ...dim) []byte {
	var shape pb
	for _, d := range dims {
		var dp pb
		if d.param != "" {
			dp.str(2, d.param) // dim_param
		} else {
			dp.varint(1, d.size) // dim_value
		}
		shape.bytes(1, dp) // TensorShapeProto.dim
	}
	var tensor pb
	tensor.varint(1, elem) // TypeProto.Tensor.elem_type
	tensor.bytes(2, shape) // TypeProto.Tensor.shape
	var typ pb
	typ.bytes(1, tensor) // TypeProto.tensor_type
	var v pb
	v.str(1, name)  // ValueInfoProto.name
	v.bytes(2, typ) // ValueInfoProto.type
	return v
}

// floatTensor encodes a float32 TensorProto initializer with raw data.
func floatTensor(name string, dims []int64, data []float32) []byte {
	raw := make([]byte, 0, 4*len(data))
	for _, x := range data {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return tensorProto(name, onnxFloat, dims, raw)
}

// int64Tensor encodes an int64 TensorProto initializer with raw data.
func int64Tensor(name string, dims []int64, data []int64) []byte {
	raw := make([]byte, 0, 8*len(data))
	for _, x := range data {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	return tensorProto(name, onnxInt64, dims, raw)
}

func tensorProto(name string, elem int64, dims []int64, raw []byte) []byte {
	var t pb
	for _, d := range dims {
		t.varint(1, d) // dims
	}
	t.varint(2, elem) // data_type
	t.str(8, name)    // name
	t.bytes(9, raw)   // raw_data
	return t
}

// node encodes a NodeProto; attrs are int attributes.
func node(op string, inputs, outputs []string, attrs map[string]int64) []byte {
	var n pb
	for _, s := range inputs {
		n.str(1, s) // input
	}
	for _, s := range outputs {
		n.str(2, s) // output
	}
	n.str(3, op+"_"+outputs[0]) // name
	n.str(4, op)                // op_type
	for name, v := range attrs {
		var a pb
		a.str(1, name)        // AttributeProto.name
		a.varint(3, v)        // i
		a.varint(20, attrInt) // type
		n.bytes(5, a)         // attribute
	}
	return n
}

// testModel is a BERT-shaped toy encoder: token vectors are
//
//	h = tanh((word[input_id] + types[token_type_id]) · dense + attention_mask × bias)
//
// with no attention between tokens, so each token's vector can be
// recomputed in Go. Padding gets vectors that are not zero, as in a real
// encoder, so pooling must leave them out.
type testModel struct {
	vocab  []string
	hidden int
	word   [][]float32 // len(vocab) × hidden
	types  [][]float32 // 2 × hidden
	dense  [][]float32 // hidden × hidden
	bias   []float32   // hidden

	// output names the token vectors output.
	output string
	// symbolic leaves the hidden size of the output unnamed in the graph.
	symbolic bool
	// noTypeIDs drops the token_type_ids input (and the type embeddings).
	noTypeIDs bool
	// extraInput adds an int64 [batch, sequence] input the provider does
	// not know, feeding nothing.
	extraInput string
}

// newTestModel returns a model over testVocab with random weights from
// seed.
func newTestModel(seed uint64, hidden int) *testModel {
	r := rand.New(rand.NewPCG(seed, 7))
	matrix := func(rows, cols int, scale float64) [][]float32 {
		m := make([][]float32, rows)
		for i := range m {
			m[i] = make([]float32, cols)
			for j := range m[i] {
				m[i][j] = float32(r.NormFloat64() * scale)
			}
		}
		return m
	}
	return &testModel{
		vocab:  testVocab,
		hidden: hidden,
		word:   matrix(len(testVocab), hidden, 1),
		types:  matrix(2, hidden, 0.5),
		dense:  matrix(hidden, hidden, 1/math.Sqrt(float64(hidden))),
		bias:   matrix(1, hidden, 0.5)[0],
		output: hiddenOutput,
	}
}

func flatten(m [][]float32) []float32 {
	var out []float32
	for _, row := range m {
		out = append(out, row...)
	}
	return out
}

// onnx encodes the model as an ONNX ModelProto (IR version 8, opset 17).
func (m *testModel) onnx() []byte {
	h := int64(m.hidden)
	batchDim, seqDim := dim{param: "batch"}, dim{param: "sequence"}
	hiddenDim := dim{size: h}
	if m.symbolic {
		hiddenDim = dim{param: "hidden"}
	}
	var g pb
	g.str(2, "toy_bert") // name

	g.bytes(1, node("Gather", []string{"word_embeddings", inputIDs}, []string{"words"}, nil))
	embedded := "words"
	if !m.noTypeIDs {
		g.bytes(1, node("Gather", []string{"type_embeddings", tokenTypeIDs}, []string{"types"}, nil))
		g.bytes(1, node("Add", []string{"words", "types"}, []string{"embedded"}, nil))
		embedded = "embedded"
	}
	g.bytes(1, node("MatMul", []string{embedded, "dense"}, []string{"projected"}, nil))
	g.bytes(1, node("Cast", []string{attentionMask}, []string{"mask_float"}, map[string]int64{"to": onnxFloat}))
	g.bytes(1, node("Unsqueeze", []string{"mask_float", "last_axis"}, []string{"mask_3d"}, nil))
	g.bytes(1, node("Mul", []string{"mask_3d", "bias"}, []string{"masked_bias"}, nil))
	g.bytes(1, node("Add", []string{"projected", "masked_bias"}, []string{"biased"}, nil))
	g.bytes(1, node("Tanh", []string{"biased"}, []string{m.output}, nil))

	g.bytes(5, floatTensor("word_embeddings", []int64{int64(len(m.vocab)), h}, flatten(m.word)))
	if !m.noTypeIDs {
		g.bytes(5, floatTensor("type_embeddings", []int64{2, h}, flatten(m.types)))
	}
	g.bytes(5, floatTensor("dense", []int64{h, h}, flatten(m.dense)))
	g.bytes(5, floatTensor("bias", []int64{h}, m.bias))
	g.bytes(5, int64Tensor("last_axis", []int64{1}, []int64{2}))

	g.bytes(11, valueInfo(inputIDs, onnxInt64, batchDim, seqDim))
	g.bytes(11, valueInfo(attentionMask, onnxInt64, batchDim, seqDim))
	if !m.noTypeIDs {
		g.bytes(11, valueInfo(tokenTypeIDs, onnxInt64, batchDim, seqDim))
	}
	if m.extraInput != "" {
		g.bytes(11, valueInfo(m.extraInput, onnxInt64, batchDim, seqDim))
	}
	g.bytes(12, valueInfo(m.output, onnxFloat, batchDim, seqDim, hiddenDim))

	var opset pb
	opset.str(1, "")    // OperatorSetIdProto.domain: the default ONNX domain
	opset.varint(2, 17) // version
	var model pb
	model.varint(1, 8)       // ir_version
	model.str(2, "ctx-test") // producer_name
	model.bytes(7, g)        // graph
	model.bytes(8, opset)    // opset_import
	return model
}

// tokenVector recomputes the model's output for one unmasked token.
func (m *testModel) tokenVector(id int32) []float32 {
	x := slices.Clone(m.word[id])
	if !m.noTypeIDs {
		for j := range x {
			x[j] += m.types[0][j]
		}
	}
	out := make([]float32, m.hidden)
	for j := range out {
		s := float64(m.bias[j])
		for k := range x {
			s += float64(x[k]) * float64(m.dense[k][j])
		}
		out[j] = float32(math.Tanh(s))
	}
	return out
}
