package static

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"

	"github.com/ctx-dev/ctx/internal/embed"
)

// MaxTokens caps the tokens embedded per text, as model2vec's default
// max_length does: a static model's mean is already stable long before,
// and the cap bounds the cost of a huge chunk. Unknown and special tokens
// do not count towards it.
const MaxTokens = 512

// Matrix is an embedding table of Rows×Dims values in row-major order,
// stored either as float32 (F32) or as int8 with one float32 scale per
// row (I8, Scale), where element j of row r is Scale[r]·I8[r·Dims+j].
// Exactly one of F32 and I8 is set.
type Matrix struct {
	Rows, Dims int
	F32        []float32
	I8         []int8
	Scale      []float32
}

func (m Matrix) check() error {
	if m.Rows <= 0 || m.Dims <= 0 {
		return fmt.Errorf("matrix is %d×%d, want positive dimensions", m.Rows, m.Dims)
	}
	n := m.Rows * m.Dims
	switch {
	case m.F32 != nil && m.I8 != nil:
		return fmt.Errorf("matrix has both float32 and int8 values")
	case m.F32 != nil:
		if len(m.F32) != n {
			return fmt.Errorf("matrix has %d float32 values, want %d×%d", len(m.F32), m.Rows, m.Dims)
		}
	case m.I8 != nil:
		if len(m.I8) != n {
			return fmt.Errorf("matrix has %d int8 values, want %d×%d", len(m.I8), m.Rows, m.Dims)
		}
		if len(m.Scale) != m.Rows {
			return fmt.Errorf("int8 matrix has %d row scales, want %d", len(m.Scale), m.Rows)
		}
	default:
		return fmt.Errorf("matrix has no values")
	}
	return nil
}

// Identity names a model's exact weights. Checksum is the first 12 hex
// digits of a SHA-256 over the tokenizer's vocabulary and settings, the
// matrix (storage kind, shape, values as little-endian bytes, row scales)
// and the token weights: any change to what a text embeds as changes it.
type Identity struct {
	Name     string
	Version  string
	Dims     int
	Checksum string
}

// TextTokenizer cuts text into matrix row ids for a [Model]: a WordPiece
// [*Tokenizer] or a [*CodeTokenizer]. Its other methods are unexported,
// so the set is closed to this package.
type TextTokenizer interface {
	// Size returns one more than the largest token id.
	Size() int
	// appendIDs appends the row ids of text to dst, as
	// [Tokenizer.appendIDs] documents.
	appendIDs(dst []int32, s *scratch, text string, limit int, embeddable bool) []int32
	// writeIdentity writes the vocabulary and settings that decide the
	// ids, for the model checksum.
	writeIdentity(w io.Writer)
}

// Model is a static embedding model: a vocabulary (token → row, through
// the tokenizer), an embedding matrix, optional per-token weights, and an
// identity. It is immutable after construction and safe for concurrent
// use.
type Model struct {
	tok       TextTokenizer
	mat       Matrix
	weights   []float32 // per row, or nil
	normalize bool
	tf        TF
	format    string // "model2vec" or "static"
	id        Identity
}

// Options are the optional parts of a [Model] built by [NewModel].
type Options struct {
	// Weights holds one weight per matrix row (e.g. SIF a/(a+p(t)) or
	// Zipf log-rank weights); nil means every token weighs 1.
	Weights []float32
	// NoNormalize leaves [Model.Embed] vectors unnormalised (model2vec's
	// "normalize": false). [Provider] normalises regardless.
	NoNormalize bool
	// Version is recorded in the identity.
	Version string
	// TF scales each token by its count in the text; the zero value,
	// TFRaw, is the plain mean.
	TF TF
}

// NewModel returns a static model over tok and m, named name. Every token
// id of tok must be a row of m. A nil opts means defaults.
func NewModel(name string, tok TextTokenizer, m Matrix, opts *Options) (*Model, error) {
	if opts == nil {
		opts = &Options{}
	}
	return newModel(name, "static", tok, m, *opts)
}

func newModel(name, format string, tok TextTokenizer, m Matrix, opts Options) (*Model, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if tok.Size() > m.Rows {
		last := tok.Size() - 1
		if wp, ok := tok.(*Tokenizer); ok {
			return nil, fmt.Errorf("vocabulary id %d (token %q) is beyond the %d matrix rows", last, wp.tokens[last], m.Rows)
		}
		return nil, fmt.Errorf("vocabulary id %d is beyond the %d matrix rows", last, m.Rows)
	}
	if opts.Weights != nil && len(opts.Weights) != m.Rows {
		return nil, fmt.Errorf("%d token weights for %d matrix rows", len(opts.Weights), m.Rows)
	}
	if !opts.TF.valid() {
		return nil, fmt.Errorf("unknown term-frequency scaling %d", opts.TF)
	}
	md := &Model{tok: tok, mat: m, weights: opts.Weights, normalize: !opts.NoNormalize, tf: opts.TF, format: format}
	md.id = Identity{Name: name, Version: opts.Version, Dims: m.Dims, Checksum: md.checksum()}
	return md, nil
}

func (m *Model) checksum() string {
	h := sha256.New()
	var b [8]byte
	putInt := func(v int) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	putF32s := func(vs []float32) {
		buf := make([]byte, 0, 4096)
		for _, v := range vs {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
		h.Write(buf)
	}
	m.tok.writeIdentity(h)
	putInt(m.mat.Rows)
	putInt(m.mat.Dims)
	if m.mat.F32 != nil {
		h.Write([]byte("F32"))
		putF32s(m.mat.F32)
	} else {
		h.Write([]byte("I8"))
		buf := make([]byte, len(m.mat.I8))
		for i, v := range m.mat.I8 {
			buf[i] = byte(v)
		}
		h.Write(buf)
		putF32s(m.mat.Scale)
	}
	putInt(len(m.weights))
	putF32s(m.weights)
	if m.tf != TFRaw {
		// Raw models keep the checksums they had before scalings existed.
		h.Write([]byte("tf=" + m.tf.String()))
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:6])
}

// Identity returns the model's identity.
func (m *Model) Identity() Identity { return m.id }

// Matrix returns the model's embedding table; it is shared, not copied,
// so callers must not modify it.
func (m *Model) Matrix() Matrix { return m.mat }

// Weights returns the per-row token weights (shared; nil when every
// token weighs 1).
func (m *Model) Weights() []float32 { return m.weights }

// Dims returns the vector length.
func (m *Model) Dims() int { return m.mat.Dims }

// Tokenizer returns the model's WordPiece tokenizer, or nil when the
// model uses another kind ([Model.TextTokenizer] returns any kind).
func (m *Model) Tokenizer() *Tokenizer {
	t, _ := m.tok.(*Tokenizer)
	return t
}

// TextTokenizer returns the model's tokenizer.
func (m *Model) TextTokenizer() TextTokenizer { return m.tok }

// TF returns the model's term-frequency scaling.
func (m *Model) TF() TF { return m.tf }

// Embed returns the vector of text: over the distinct tokens t among its
// first [MaxTokens] embeddable tokens (n in all), Σ w(t)·tf(c(t))·E[t] / n,
// where c(t) is t's count, tf the model's [TF] (c itself by default, which
// makes this the mean of w(tᵢ)·E[tᵢ]) and w ≡ 1 without weights; scaled
// to unit L2 length unless the model was built with NoNormalize. A text
// with no known token embeds as the zero vector.
func (m *Model) Embed(text string) []float32 {
	v := make([]float32, m.mat.Dims)
	m.embedInto(v, newScratch(), text)
	return v
}

// embedInto writes the vector of text into dst (len Dims), using s.
//
// Repeated tokens are common in code, so equal ids are counted first (in
// s.bag) and each distinct row is read once.
func (m *Model) embedInto(dst []float32, s *scratch, text string) {
	clear(dst)
	s.ids = m.tok.appendIDs(s.ids[:0], s, text, MaxTokens, true)
	if len(s.ids) == 0 {
		return
	}
	s.used = s.used[:0]
	for _, id := range s.ids {
		h := (uint32(id) * 2654435761) & (bagSize - 1)
		for {
			sl := &s.bag[h]
			if sl.id == id {
				sl.w++
				break
			}
			if sl.id < 0 {
				sl.id, sl.w = id, 1
				s.used = append(s.used, int32(h))
				break
			}
			h = (h + 1) & (bagSize - 1)
		}
	}
	d := m.mat.Dims
	for _, h := range s.used {
		sl := &s.bag[h]
		sl.w = m.tf.Scale(sl.w)
		if m.weights != nil {
			sl.w *= m.weights[sl.id]
		}
		off := int(sl.id) * d
		if m.mat.F32 != nil {
			axpy(dst, sl.w, m.mat.F32[off:off+d])
		} else {
			axpyInt8(dst, sl.w*m.mat.Scale[sl.id], m.mat.I8[off:off+d])
		}
		sl.id = -1
	}
	if m.normalize {
		// The mean's 1/n cancels in the normalisation, so it is skipped.
		embed.Normalize(dst)
		return
	}
	inv := 1 / float32(len(s.ids))
	for j := range dst {
		dst[j] *= inv
	}
}

// axpy adds a·x to dst; len(x) must be at least len(dst).
func axpy(dst []float32, a float32, x []float32) {
	x = x[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		// Re-slicing to 8 lets the compiler drop the bounds checks.
		d, v := dst[i:i+8:i+8], x[i:i+8:i+8]
		d[0] += a * v[0]
		d[1] += a * v[1]
		d[2] += a * v[2]
		d[3] += a * v[3]
		d[4] += a * v[4]
		d[5] += a * v[5]
		d[6] += a * v[6]
		d[7] += a * v[7]
	}
	for ; i < len(dst); i++ {
		dst[i] += a * x[i]
	}
}

// axpyInt8 adds a·x to dst; len(x) must be at least len(dst).
func axpyInt8(dst []float32, a float32, x []int8) {
	x = x[:len(dst)]
	i := 0
	if hasAxpyInt8 && len(dst) >= 8 {
		i = len(dst) &^ 7
		axpyInt8AVX2(&dst[0], a, &x[0], i)
	}
	axpyInt8Go(dst[i:], a, x[i:])
}

// axpyInt8Go is [axpyInt8] in Go: the kernel's reference and the
// platforms without it.
func axpyInt8Go(dst []float32, a float32, x []int8) {
	x = x[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, v := dst[i:i+8:i+8], x[i:i+8:i+8]
		d[0] += a * float32(v[0])
		d[1] += a * float32(v[1])
		d[2] += a * float32(v[2])
		d[3] += a * float32(v[3])
		d[4] += a * float32(v[4])
		d[5] += a * float32(v[5])
		d[6] += a * float32(v[6])
		d[7] += a * float32(v[7])
	}
	for ; i < len(dst); i++ {
		dst[i] += a * float32(x[i])
	}
}

// Float32 returns m with float32 values: an int8 m dequantised
// (Scale[r]·I8[r·Dims+j]), a float32 or malformed m as is.
func (m Matrix) Float32() Matrix {
	if m.I8 == nil || m.check() != nil {
		return m
	}
	f := Matrix{Rows: m.Rows, Dims: m.Dims, F32: make([]float32, len(m.I8))}
	for r := range m.Rows {
		s := m.Scale[r]
		for j, v := range m.I8[r*m.Dims : (r+1)*m.Dims] {
			f.F32[r*m.Dims+j] = s * float32(v)
		}
	}
	return f
}

// Int8 returns m quantised to int8 with one scale per row, the storage
// [WriteModel2Vec] writes as I8 plus "scales" (a quarter of the F32
// size): row r gets Scale[r] = max|E[r][j]|/127 and I8[r·Dims+j] =
// round(E[r][j]/Scale[r]), so each value is off by at most Scale[r]/2.
// An int8 or malformed m is returned as is.
func (m Matrix) Int8() Matrix {
	if m.F32 == nil || m.check() != nil {
		return m
	}
	q := Matrix{Rows: m.Rows, Dims: m.Dims, I8: make([]int8, len(m.F32)), Scale: make([]float32, m.Rows)}
	for r := range m.Rows {
		row := m.F32[r*m.Dims : (r+1)*m.Dims]
		var peak float32
		for _, v := range row {
			peak = max(peak, float32(math.Abs(float64(v))))
		}
		if peak == 0 {
			continue // an all-zero row stays zero with scale 0
		}
		s := peak / 127
		q.Scale[r] = s
		for j, v := range row {
			q.I8[r*m.Dims+j] = int8(max(-127, min(127, math.Round(float64(v/s)))))
		}
	}
	return q
}
