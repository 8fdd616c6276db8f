package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/ctx-dev/ctx/internal/mmap"
)

// The vector file is a derived cache of an index's embeddings (DESIGN:
// storage invariant 1), so a query process maps one flat file instead of
// decoding every vector from SQLite, and touches only the parts a search
// reads: all sign bits, and the int8 rows it rescores. Layout, version 2,
// little-endian, every section starting at a multiple of 8 bytes:
//
//	magic "CTXVEC2\n"                        8 bytes
//	generation, dims, count, model length    4 × int64
//	model identity (UTF-8)                   zero-padded to a multiple of 8
//	weights                                  dims × float32, zero-padded to 8
//	ids                                      count × int64
//	scales                                   count × float32, zero-padded to 8
//	sign bits                                count × ⌈dims/64⌉ × uint64
//	rows                                     count × dims × int8
//
// (see [Vectors] for what each holds). 256 dimensions take 300 bytes a
// chunk: 32 MB for the 106,587 chunks of GOROOT/src, against 110 MB in
// version 1 (float32 rows). A file of another version, generation,
// dimension count or model identity is ignored and rewritten.
const (
	vecMagic   = "CTXVEC2\n"
	vecMagicV1 = "CTXVEC1\n" // float32 rows; read as stale
	vecHeader  = 8 + 4*8
	// maxVecDims and maxVecCount bound a header's claims so that size
	// arithmetic cannot overflow.
	maxVecDims, maxVecCount = 1 << 20, 1 << 36
)

// ErrStaleVectorFile is returned by [ReadVectorFile] when the file does not
// belong to the asked generation and model, or is of an older version.
var ErrStaleVectorFile = errors.New("vector file is stale")

// WriteVectorFile writes v to path atomically (a temporary file renamed
// over it, so a reader that mapped the old file keeps reading it intact),
// stamped with v.Generation and the model identity.
func WriteVectorFile(path, model string, v *Vectors) (err error) {
	defer runtime.KeepAlive(v)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing vector file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing vector file: %w", err)
		}
	}()
	w := &fileWriter{f: tmp, buf: make([]byte, 0, 1<<16)}
	w.bytes([]byte(vecMagic))
	for _, x := range []int64{v.Generation, int64(v.dims), int64(len(v.ids)), int64(len(model))} {
		w.u64(uint64(x))
	}
	w.bytes([]byte(model))
	w.pad()
	for j := range v.dims {
		var x float32
		if j < len(v.weights) {
			x = v.weights[j]
		}
		w.u32(math.Float32bits(x))
	}
	w.pad()
	for _, id := range v.ids {
		w.u64(uint64(id))
	}
	for _, s := range v.scales {
		w.u32(math.Float32bits(s))
	}
	w.pad()
	for _, x := range v.signs {
		w.u64(x)
	}
	if len(v.rows) > 0 {
		w.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&v.rows[0])), len(v.rows)))
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// fileWriter writes little-endian values through a buffer, keeping the
// first error, and counts the bytes written for padding.
type fileWriter struct {
	f   *os.File
	buf []byte
	n   int64
	err error
}

func (w *fileWriter) u32(x uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, x); w.more() }
func (w *fileWriter) u64(x uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, x); w.more() }

// bytes writes b.
func (w *fileWriter) bytes(b []byte) {
	for len(b) > 0 {
		c := min(len(b), cap(w.buf)-len(w.buf))
		w.buf = append(w.buf, b[:c]...)
		b = b[c:]
		w.more()
	}
}

// pad writes zeros up to a multiple of 8 bytes.
func (w *fileWriter) pad() {
	for (w.n+int64(len(w.buf)))%8 != 0 {
		w.buf = append(w.buf, 0)
	}
	w.more()
}

// more flushes the buffer when it is nearly full.
func (w *fileWriter) more() {
	if len(w.buf) > cap(w.buf)-8 {
		w.flush()
	}
}

func (w *fileWriter) flush() error {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.f.Write(w.buf)
	}
	w.n += int64(len(w.buf))
	w.buf = w.buf[:0]
	return w.err
}

// ReadVectorFile opens a vector file written for generation and model. On
// unix the file is memory-mapped, read-only, and unmapped once the
// returned Vectors is garbage; elsewhere it is read whole.
//
// Errors: [ErrStaleVectorFile] when it belongs to another generation,
// model or dimension count, or is a version 1 file; os.ErrNotExist
// (wrapped) when there is none; a format error naming the path when it is
// truncated or corrupt.
func ReadVectorFile(path, model string, dims int, generation int64) (*Vectors, error) {
	b, unmap, err := mmap.Map(path)
	if err != nil {
		return nil, fmt.Errorf("reading vector file: %w", err)
	}
	v, err := parseVectorFile(b, path, model, dims, generation)
	if err != nil {
		unmap()
		return nil, err
	}
	if len(b) > 0 {
		runtime.AddCleanup(v, func(unmap func()) { unmap() }, unmap)
	}
	return v, nil
}

// parseVectorFile returns the Vectors that b holds, viewing b where it can.
func parseVectorFile(b []byte, path, model string, dims int, generation int64) (*Vectors, error) {
	bad := func(what string) error { return fmt.Errorf("reading vector file %s: %s", path, what) }
	if len(b) >= len(vecMagicV1) && string(b[:len(vecMagicV1)]) == vecMagicV1 {
		return nil, ErrStaleVectorFile
	}
	if len(b) < vecHeader || string(b[:len(vecMagic)]) != vecMagic {
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
	if ml < 0 || n < 0 || n > maxVecCount || d <= 0 || d > maxVecDims || int64(len(b)-off) < ml {
		return nil, bad("corrupt header")
	}
	if string(b[off:off+int(ml)]) != model {
		return nil, ErrStaleVectorFile
	}
	words := (d + 63) / 64
	size := int64(off) + align8(ml) + align8(4*d) + 8*n + align8(4*n) + 8*n*words + n*d
	if int64(len(b)) != size {
		return nil, bad(fmt.Sprintf("%d bytes, want %d from its header", len(b), size))
	}
	off += int(align8(ml))
	take := func(bytes int64) []byte {
		s := b[off : off+int(bytes)]
		off += int(align8(bytes))
		return s
	}
	v := &Vectors{Generation: gen, dims: dims, words: int(words)}
	v.weights = view(take(4*d), int(d), float32LE)
	v.ids = view(take(8*n), int(n), int64LE)
	v.scales = view(take(4*n), int(n), float32LE)
	v.signs = view(take(8*n*words), int(n*words), binary.LittleEndian.Uint64)
	if rows := take(n * d); len(rows) > 0 {
		v.rows = unsafe.Slice((*int8)(unsafe.Pointer(&rows[0])), len(rows))
	}
	return v, nil
}

func align8(n int64) int64 { return (n + 7) &^ 7 }

func float32LE(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
func int64LE(b []byte) int64     { return int64(binary.LittleEndian.Uint64(b)) }

// view returns the n little-endian values at the start of b. On a
// little-endian machine with a suitably aligned b it is a view of b (no
// copy: a query then touches only the pages it reads), otherwise a copy
// decoded by decode.
func view[T int64 | uint64 | float32](b []byte, n int, decode func([]byte) T) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%uintptr(size) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = decode(b[size*i:])
	}
	return out
}

// littleEndian reports whether this machine stores integers little-endian.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
