package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"
)

// The vector file is a derived cache of an index's embeddings (DESIGN:
// storage invariant 1), so a query process reads one flat file instead of
// decoding every vector from SQLite. Layout, little-endian:
//
//	magic "CTXVEC1\n" (8 bytes)
//	generation int64, dims int64, count int64, model identity length int64
//	model identity (UTF-8)
//	count ids as int64
//	count*dims float32 values, row-major
//
// A file whose generation, dimensions or model identity differ from the
// index's is ignored and rewritten.
const vecMagic = "CTXVEC1\n"

// ErrStaleVectorFile is returned by [ReadVectorFile] when the file does not
// belong to the asked generation and model.
var ErrStaleVectorFile = errors.New("vector file is stale")

// WriteVectorFile writes v to path atomically (a temporary file renamed
// over it), stamped with v.Generation and the model identity.
func WriteVectorFile(path, model string, v *Vectors) error {
	n := len(v.ids)
	buf := make([]byte, 0, 8+32+len(model)+8*n+4*len(v.data))
	buf = append(buf, vecMagic...)
	for _, x := range []int64{v.Generation, int64(v.dims), int64(n), int64(len(model))} {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
	}
	buf = append(buf, model...)
	for _, id := range v.ids {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
	}
	for _, f := range v.data {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing vector file: %w", err)
	}
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing vector file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing vector file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing vector file: %w", err)
	}
	return nil
}

// ReadVectorFile reads a vector file written for generation and model.
// Errors: [ErrStaleVectorFile] when it belongs to another generation, model
// or dimension count; os.ErrNotExist (wrapped) when there is none; a format
// error when it is truncated or corrupt.
func ReadVectorFile(path, model string, dims int, generation int64) (*Vectors, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading vector file: %w", err)
	}
	bad := func(what string) error { return fmt.Errorf("reading vector file %s: %s", path, what) }
	if len(b) < len(vecMagic)+32 || string(b[:len(vecMagic)]) != vecMagic {
		return nil, bad("not a vector file")
	}
	off := len(vecMagic)
	word := func() int64 {
		x := int64(binary.LittleEndian.Uint64(b[off:]))
		off += 8
		return x
	}
	gen, d, n, ml := word(), word(), word(), word()
	if gen != generation || d != int64(dims) {
		return nil, ErrStaleVectorFile
	}
	if ml < 0 || n < 0 || d <= 0 || int64(len(b)-off) < ml {
		return nil, bad("corrupt header")
	}
	if string(b[off:off+int(ml)]) != model {
		return nil, ErrStaleVectorFile
	}
	off += int(ml)
	if int64(len(b)-off) != 8*n+4*n*d {
		return nil, bad("size does not match its header")
	}
	v := &Vectors{Generation: gen, dims: dims, ids: make([]int64, n)}
	for i := range v.ids {
		v.ids[i] = word()
	}
	v.data = float32s(b[off:], int(n*d))
	return v, nil
}

// float32s returns the n little-endian float32s at the start of b. On a
// little-endian machine with a suitably aligned b it is a view of b (no
// copy: this is most of the cost of a hybrid query on a large index),
// otherwise a decoded copy.
func float32s(b []byte, n int) []float32 {
	if littleEndian && n > 0 && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// littleEndian reports whether this machine stores integers little-endian.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
