package static

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// The binary model format is how ctx ships its built-in model (embedded
// in the executable with go:embed): every part is a flat little-endian
// array that [LoadBinary] uses in place, so loading costs a header parse
// and a few slice headers instead of decoding JSON and hashing megabytes
// (about 100 ms for the same model as a model2vec directory). Layout:
//
//	magic "CTXSTM1\n"                              8 bytes
//	header length H                                uint32
//	header                                         H bytes of JSON (binaryHeader)
//	zero padding to a multiple of 8
//	slots  uint32 × header.slots                   term table (termTable)
//	offs   uint32 × (header.vocab+1)
//	blob   header.blob_bytes bytes, then zero padding to a multiple of 8
//	scales float32 × header.rows                   int8 row scales
//	weights float32 × header.rows                  when header.weights
//	matrix int8 × header.rows·header.dims          row-major
//
// Only models over a [CodeTokenizer] with an int8 matrix are written in
// it. The header carries the model checksum computed at write time;
// LoadBinary trusts it and [Model.Verify] recomputes it.
const binaryMagic = "CTXSTM1\n"

// binaryHeader is the JSON header of a binary model.
type binaryHeader struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Tokenizer string `json:"tokenizer"` // CodeTokenizerVersion
	Vocab     int    `json:"vocab"`
	Buckets   int    `json:"buckets"`
	Rows      int    `json:"rows"`
	Dims      int    `json:"dims"`
	Slots     int    `json:"slots"`
	BlobBytes int    `json:"blob_bytes"`
	Weights   bool   `json:"weights"`
	Normalize bool   `json:"normalize"`
	TF        string `json:"tf,omitempty"` // TF.String(); absent for raw
	Checksum  string `json:"checksum"`
}

// WriteBinary writes m in the binary model format. m must use a
// [CodeTokenizer] and an int8 matrix ([Matrix.Int8] quantises a float32
// one); other models are an error.
func WriteBinary(w io.Writer, m *Model) error {
	tok, ok := m.tok.(*CodeTokenizer)
	if !ok {
		return fmt.Errorf("writing binary model: only code-tokenizer models have a binary form")
	}
	if m.mat.I8 == nil {
		return fmt.Errorf("writing binary model: the matrix is float32; quantise it with Matrix.Int8 first")
	}
	h := binaryHeader{
		Name: m.id.Name, Version: m.id.Version, Tokenizer: CodeTokenizerVersion,
		Vocab: tok.vocab.len(), Buckets: tok.buckets, Rows: m.mat.Rows, Dims: m.mat.Dims,
		Slots: len(tok.vocab.slots), BlobBytes: len(tok.vocab.blob),
		Weights: m.weights != nil, Normalize: m.normalize, Checksum: m.id.Checksum,
	}
	if m.tf != TFRaw {
		h.TF = m.tf.String()
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("writing binary model: %v", err)
	}
	var buf bytes.Buffer
	buf.WriteString(binaryMagic)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
	buf.Write(hj)
	pad8 := func() {
		for buf.Len()%8 != 0 {
			buf.WriteByte(0)
		}
	}
	pad8()
	u32s := func(vs []uint32) {
		b := make([]byte, 0, 4*len(vs))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		buf.Write(b)
	}
	f32s := func(vs []float32) {
		b := make([]byte, 0, 4*len(vs))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		buf.Write(b)
	}
	u32s(tok.vocab.slots)
	u32s(tok.vocab.offs)
	buf.WriteString(tok.vocab.blob)
	pad8()
	f32s(m.mat.Scale)
	if m.weights != nil {
		f32s(m.weights)
	}
	buf.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m.mat.I8))), len(m.mat.I8)))
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing binary model: %w", err)
	}
	return nil
}

// errBinary marks a malformed binary model.
var errBinary = errors.New("malformed binary model")

// LoadBinary returns the model that [WriteBinary] wrote into b, using b
// in place: b must not change while the model is in use (an embedded
// file or a read-only mapping is ideal). The returned model's format is
// "builtin". Errors: a wrapped malformed-model error for a truncated or
// inconsistent file, [ErrUnsupported] (wrapped) for another tokenizer
// version.
func LoadBinary(b []byte) (*Model, error) { return loadBinary(b, true) }

// LoadBinaryTrusted is [LoadBinary] without the consistency scan of the
// term table, which reads every slot and offset (1.4 MB, about 350 pages,
// for the built-in model: 0.3-0.5 ms of page faults in a one-query
// process, measured with perf on `ctx find`). It is for bytes compiled
// into the executable, whose full check a test runs with [LoadBinary];
// the header, sizes and matrix are still checked. A file read from disk
// goes through [LoadBinary].
func LoadBinaryTrusted(b []byte) (*Model, error) { return loadBinary(b, false) }

func loadBinary(b []byte, scanTable bool) (*Model, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errBinary, fmt.Sprintf(format, args...))
	}
	if len(b) < len(binaryMagic)+4 || string(b[:len(binaryMagic)]) != binaryMagic {
		return nil, bad("no %q magic", binaryMagic[:7])
	}
	off := len(binaryMagic)
	hl := int(binary.LittleEndian.Uint32(b[off:]))
	off += 4
	if hl > len(b)-off {
		return nil, bad("header of %d bytes in a %d-byte file", hl, len(b))
	}
	var h binaryHeader
	if err := json.Unmarshal(b[off:off+hl], &h); err != nil {
		return nil, bad("header: %v", err)
	}
	if h.Tokenizer != CodeTokenizerVersion {
		return nil, fmt.Errorf("binary model tokenizer %q: %w (this build reads %q)", h.Tokenizer, ErrUnsupported, CodeTokenizerVersion)
	}
	tf, err := ParseTF(h.TF)
	if err != nil {
		return nil, fmt.Errorf("binary model: %w: %v", ErrUnsupported, err)
	}
	const maxCount = 1 << 30
	for _, v := range []int{h.Vocab, h.Buckets, h.Rows, h.Dims, h.Slots, h.BlobBytes} {
		if v < 0 || v > maxCount {
			return nil, bad("header count %d out of range", v)
		}
	}
	if h.Rows != h.Vocab+h.Buckets || h.Dims == 0 || h.Buckets == 0 {
		return nil, bad("%d rows of %d dims for %d terms and %d buckets", h.Rows, h.Dims, h.Vocab, h.Buckets)
	}
	off = align8(off + hl)
	take := func(n int) ([]byte, error) {
		if n > len(b)-off {
			return nil, bad("truncated: %d bytes wanted at offset %d of %d", n, off, len(b))
		}
		s := b[off : off+n]
		off += n
		return s, nil
	}
	var sections [6][]byte
	sizes := []int{4 * h.Slots, 4 * (h.Vocab + 1), h.BlobBytes, 4 * h.Rows, 0, h.Rows * h.Dims}
	if h.Weights {
		sizes[4] = 4 * h.Rows
	}
	for i, n := range sizes {
		s, err := take(n)
		if err != nil {
			return nil, err
		}
		sections[i] = s
		if i == 2 {
			off = align8(off)
		}
	}
	if off != len(b) {
		return nil, bad("%d trailing bytes", len(b)-off)
	}
	table := termTable{slots: uint32s(sections[0]), offs: uint32s(sections[1]), blob: unsafe.String(unsafe.SliceData(sections[2]), len(sections[2]))}
	if h.BlobBytes == 0 {
		table.blob = ""
	}
	if scanTable {
		if err := table.check(); err != nil {
			return nil, bad("%v", err)
		}
	}
	mat := Matrix{Rows: h.Rows, Dims: h.Dims, Scale: float32sLE(sections[3])}
	if n := len(sections[5]); n > 0 {
		mat.I8 = unsafe.Slice((*int8)(unsafe.Pointer(&sections[5][0])), n)
	}
	var weights []float32
	if h.Weights {
		weights = float32sLE(sections[4])
	}
	if err := mat.check(); err != nil {
		return nil, bad("%v", err)
	}
	tok := &CodeTokenizer{vocab: table, buckets: h.Buckets}
	m := &Model{tok: tok, mat: mat, weights: weights, normalize: h.Normalize, tf: tf, format: "builtin"}
	m.id = Identity{Name: h.Name, Version: h.Version, Dims: h.Dims, Checksum: h.Checksum}
	return m, nil
}

// Renamed returns a copy of m whose identity has name and version (the
// checksum, which covers what a text embeds as, is unchanged): a trainer
// names the model it ships.
func (m *Model) Renamed(name, version string) *Model {
	c := *m
	c.id.Name, c.id.Version = name, version
	return &c
}

// Verify recomputes the model's checksum and reports a mismatch with the
// one it was loaded with (a binary model trusts its header).
func (m *Model) Verify() error {
	if got := m.checksum(); got != m.id.Checksum {
		return fmt.Errorf("model %s: checksum %s, header says %s", m.id.Name, got, m.id.Checksum)
	}
	return nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// uint32s returns b as little-endian uint32s (see viewLE).
func uint32s(b []byte) []uint32 { return viewLE(b, binary.LittleEndian.Uint32) }

// float32sLE returns b as little-endian float32s (see viewLE).
func float32sLE(b []byte) []float32 {
	return viewLE(b, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

// viewLE returns b as 4-byte little-endian values: a view of b when the
// machine is little-endian and b is 4-byte aligned, else a copy decoded
// with decode.
func viewLE[T uint32 | float32](b []byte, decode func([]byte) T) []T {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if nativeLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = decode(b[4*i:])
	}
	return out
}

// nativeLittleEndian reports whether this machine stores integers
// little-endian.
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
