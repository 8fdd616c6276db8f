package search

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/ctx-dev/ctx/internal/mmap"
	"github.com/ctx-dev/ctx/internal/store"
)

// The vector file is a derived cache of an index's embeddings (DESIGN:
// storage invariant 1), so a query process maps one flat file instead of
// decoding every vector from SQLite, and touches only the parts a search
// reads: all sign bits, and the int8 rows it rescores. Layout, version 6,
// little-endian, every section starting at a multiple of 8 bytes:
//
//	magic "CTXVEC6\n"                        8 bytes
//	generation, dims, count, model length,   6 × int64
//	file id, runs
//	rows                                     count × ⌈7·dims/8⌉ bytes, zero-padded to 8
//	ids                                      runs ≥ 0: runs × int64 first ids, then
//	                                         runs × int64 first rows (idruns.go);
//	                                         runs = -1: count × int64
//	scales                                   count × float32, zero-padded to 8
//	sign bits                                count × ⌈dims/64⌉ × uint64
//	weights                                  dims × float32, zero-padded to 8
//	model identity (UTF-8)                   zero-padded to a multiple of 8
//
// (see [Vectors] for what each holds; a row's int8 elements are stored as
// 7-bit magnitudes whose signs are its sign bits, pack7.go). Every section's offset follows from
// the fixed-size header, and the rows come first, so a writer streams the
// rows straight to the file as it reads them and keeps the small
// per-row sections in side files: writing never holds the vectors in
// memory (version 2 put the rows last, after sections only known at the
// end). 256 dimensions take 260 bytes a chunk: 27.7 MB for the 106,596
// chunks of GOROOT/src (version 4 stored whole int8 rows: 300 bytes, 32.0
// MB; version 5 listed every id: 268 bytes, 28.6 MB). Ascending ids are
// stored as runs of consecutive ids when that takes at most half the
// bytes of listing them. A file of another version, generation, dimension count or model
// identity is ignored and rewritten.
//
// The file id is a random nonzero number drawn for each file written: the
// store records the id of the file whose rows it folded (deleted from
// SQLite, see [store.DB.FoldVectors]), so that file can be told from
// another one later written at the same path. Version 3 had no file id.
//
// The vector file is not only a cache: once an index run has folded its
// vectors, the rows of the chunks it held live only here, and a file
// written later takes them from the file it replaces ([WriteVectorFileFrom]).
// Chunk ids are never reused within an index and a chunk's vector never
// changes, so a file of the same index (model identity) holds the right
// row for every chunk id it lists, whatever its generation.
const (
	vecMagic   = "CTXVEC6\n"
	vecHeader  = 8 + 6*8
	vecMagicV1 = "CTXVEC1\n" // float32 rows; read as stale
	vecMagicV2 = "CTXVEC2\n" // rows last; read as stale
	vecMagicV3 = "CTXVEC3\n" // no file id; read as stale
	vecMagicV4 = "CTXVEC4\n" // whole int8 rows; read as stale
	vecMagicV5 = "CTXVEC5\n" // every id listed; read as stale
	// maxIDRuns bounds the id runs a writer tracks (16 bytes each); a
	// file with more lists its ids.
	maxIDRuns = 1 << 16
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
func WriteVectorFile(path, model string, v *Vectors) error {
	defer runtime.KeepAlive(v)
	ids := v.allIDs()
	w, err := newVecFileWriter(path, v.dims, len(ids))
	if err != nil {
		return err
	}
	for i, id := range ids {
		w.addInt8(id, v.rows[i*v.dims:(i+1)*v.dims], v.scales[i])
	}
	return w.finish(v.Generation, model)
}

// WriteVectorFileFrom writes db's committed vectors to path as
// [WriteVectorFile] does, streaming them from one read transaction: its
// memory does not grow with the index. The rows of vectors the store has
// folded ([store.DB.FoldVectors]) come from base (nil: none may be
// folded), opened only if one is. The file is stamped with the content
// version read and model(version) (the identity may name the
// database, which is read in the same transaction); that version is
// returned. Errors: the store's, [embed.ErrDimension] (wrapped) for a
// vector that is not dims long, [ErrVectorsMissing] (wrapped) for a
// folded vector base does not hold, and the file system's; no file is
// written then.
func WriteVectorFileFrom(ctx context.Context, db *store.DB, path string, dims int, model func(store.Version) string, base Base) (store.Version, error) {
	var w *vecFileWriter
	defer func() {
		if w != nil {
			w.abort()
		}
	}()
	folded := &foldedRows{open: base, dims: dims}
	ver, err := db.Vectors(ctx, func(ver store.Version, n int) error {
		var err error
		folded.ver = ver
		w, err = newVecFileWriter(path, dims, n)
		return err
	}, func(id int64, blob []byte) error {
		if blob == nil {
			q, scale, err := folded.row(id)
			if err != nil {
				return err
			}
			w.addInt8(id, q, scale)
			return w.err
		}
		return w.addBlob(id, blob)
	})
	if err != nil {
		return store.Version{}, err
	}
	if w == nil {
		// Vectors calls start before any row, unless it failed first.
		return store.Version{}, errors.New("writing vector file: no rows were read")
	}
	err = w.finish(ver.Content, model(ver))
	w = nil
	return ver, err
}

// ErrVectorsMissing is returned when the store has folded a chunk's
// vector ([store.DB.FoldVectors]) and the vector file that should hold
// its row is missing, damaged, of another index, or lacks it: the dense
// channel cannot answer until `ctx index` embeds those chunks again.
var ErrVectorsMissing = errors.New("vectors of the index are missing: the vector file is missing or damaged")

// Base returns the vector file whose rows stand in for the vectors the
// store folded, for the committed state ver: one of the same index (its
// model identity names the index), whatever its generation. Errors name
// why there is none; callers wrap them in [ErrVectorsMissing].
type Base func(ver store.Version) (*Vectors, error)

// FileBase is the [Base] of the vector file at path, stamped with
// model(ver) and of dims dimensions. The file is mapped again on each
// call: an index run may have renamed a newer file over it.
func FileBase(path string, dims int, model func(store.Version) string) Base {
	return func(ver store.Version) (*Vectors, error) {
		return readVectorFile(path, model(ver), dims, -1)
	}
}

// foldedRows looks up folded vectors in a base file opened on first use.
type foldedRows struct {
	open   Base
	ver    store.Version
	dims   int
	opened bool
	base   *Vectors
	err    error
	buf    []int8 // the row row returns, reused by the next call
}

// row returns chunk id's int8 row (valid until the next call) and scale
// from the base file. Errors wrap [ErrVectorsMissing].
func (f *foldedRows) row(id int64) ([]int8, float32, error) {
	if !f.opened {
		f.opened = true
		switch {
		case f.open == nil:
			f.err = errors.New("no vector file was given")
		default:
			f.base, f.err = f.open(f.ver)
		}
	}
	if f.err != nil {
		return nil, 0, fmt.Errorf("%w (chunk %d: %v)", ErrVectorsMissing, id, f.err)
	}
	if f.buf == nil {
		f.buf = make([]int8, f.base.dims)
	}
	q, scale, ok := f.base.rowInto(id, f.buf)
	if !ok {
		return nil, 0, fmt.Errorf("%w (chunk %d is not in the vector file)", ErrVectorsMissing, id)
	}
	return q, scale, nil
}

// vecFileWriter writes a vector file in one pass over its rows: the rows
// go to the file as they come, ids, scales and sign bits to side files
// copied in at the end, and the per-dimension weights are gathered on the
// way from the rows [Vectors.computeWeights] would sample (it needs the
// row count up front for that: expect).
type vecFileWriter struct {
	path       string
	dims, rows int
	step       int // every step-th row feeds the weights
	main       *fileWriter
	sideFiles  [3]*os.File // ids, scales, sign bits
	sideW      [3]*fileWriter
	q          []int8   // scratch row
	packed     []byte   // scratch packed row
	signs      []uint64 // scratch sign bits
	weights    *weightSums
	runs       idRuns // the ids as runs, while runsOK
	runsOK     bool   // the ids so far ascend in at most maxIDRuns runs
	lastID     int64
	err        error
}

func newVecFileWriter(path string, dims, expect int) (*vecFileWriter, error) {
	w := &vecFileWriter{path: path, dims: dims, step: weightStep(expect), q: make([]int8, dims), packed: make([]byte, packedRowBytes(dims)),
		signs: make([]uint64, (dims+63)/64), weights: newWeightSums(dims), runsOK: true}
	dir, base := filepath.Dir(path), filepath.Base(path)
	f, err := os.CreateTemp(dir, base+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("writing vector file: %w", err)
	}
	w.main = &fileWriter{f: f, buf: make([]byte, 0, 1<<16)}
	w.main.bytes(make([]byte, vecHeader)) // filled in by finish
	for i := range w.sideFiles {
		sf, err := os.CreateTemp(dir, base+".side*")
		if err != nil {
			w.abort()
			return nil, fmt.Errorf("writing vector file: %w", err)
		}
		w.sideFiles[i] = sf
		w.sideW[i] = &fileWriter{f: sf, buf: make([]byte, 0, 1<<16)}
	}
	return w, nil
}

// addBlob appends the row of id from a stored vector (see [int8Row]).
func (w *vecFileWriter) addBlob(id int64, blob []byte) error {
	q, scale, err := int8Row(id, blob, w.dims, w.q)
	if err != nil {
		return err
	}
	w.addInt8(id, q, scale)
	return w.err
}

// addInt8 appends the row of id: its int8 elements q (dims of them) and
// scale.
func (w *vecFileWriter) addInt8(id int64, q []int8, scale float32) {
	packRow(w.packed, q)
	w.main.bytes(w.packed)
	w.sideW[0].u64(uint64(id))
	w.addRun(id)
	w.sideW[1].u32(math.Float32bits(scale))
	setSigns(w.signs, q)
	for _, x := range w.signs {
		w.sideW[2].u64(x)
	}
	if w.rows%w.step == 0 {
		w.weights.add(q, scale)
	}
	w.rows++
	w.err = cmp.Or(w.err, w.main.err, w.sideW[0].err, w.sideW[1].err, w.sideW[2].err)
}

// addRun extends the id runs with the id of the next row.
func (w *vecFileWriter) addRun(id int64) {
	switch {
	case !w.runsOK:
	case w.rows > 0 && id <= w.lastID:
		w.runsOK = false
	case w.rows > 0 && id == w.lastID+1:
	case len(w.runs.first) == maxIDRuns:
		w.runsOK = false
	default:
		w.runs.first = append(w.runs.first, id)
		w.runs.row = append(w.runs.row, int64(w.rows))
	}
	w.lastID = id
}

// finish writes the sections after the rows and the header (with a new
// random file id), syncs the file, renames it over path and syncs the
// directory, so a file the store folds vectors into is durable before
// the fold commits. The writer is spent either way.
func (w *vecFileWriter) finish(generation int64, model string) (err error) {
	defer func() {
		if err != nil {
			w.abort()
			err = fmt.Errorf("writing vector file: %w", err)
		}
	}()
	if w.err != nil {
		return w.err
	}
	m := w.main
	m.pad()
	nRuns := int64(-1)
	if w.runsOK && 2*len(w.runs.first) <= w.rows {
		nRuns = int64(len(w.runs.first))
	}
	for i, sw := range w.sideW {
		if i == 0 && nRuns >= 0 {
			for _, x := range w.runs.first {
				m.u64(uint64(x))
			}
			for _, x := range w.runs.row {
				m.u64(uint64(x))
			}
			continue
		}
		if err := sw.flush(); err != nil {
			return err
		}
		if err := m.flush(); err != nil {
			return err
		}
		if _, err := w.sideFiles[i].Seek(0, io.SeekStart); err != nil {
			return err
		}
		n, err := io.Copy(m.f, w.sideFiles[i])
		if err != nil {
			return err
		}
		m.n += n
		m.pad()
	}
	for _, x := range w.weights.weights() {
		m.u32(math.Float32bits(x))
	}
	m.pad()
	m.bytes([]byte(model))
	m.pad()
	if err := m.flush(); err != nil {
		return err
	}
	head := []byte(vecMagic)
	for _, x := range []int64{generation, int64(w.dims), int64(w.rows), int64(len(model)), newFileID(), nRuns} {
		head = binary.LittleEndian.AppendUint64(head, uint64(x))
	}
	if _, err := m.f.WriteAt(head, 0); err != nil {
		return err
	}
	if err := m.f.Sync(); err != nil {
		return err
	}
	if err := m.f.Close(); err != nil {
		return err
	}
	w.closeSides()
	// Never replace a later state of the same index with an earlier one:
	// a query process that began reading before an index run committed
	// may finish after the run wrote its file and folded the vectors
	// the older file would lack. (A narrow race remains between this
	// check and the rename.)
	if cur, err := readVectorFile(w.path, model, w.dims, -1); err == nil && cur.Generation > generation {
		os.Remove(m.f.Name())
		return fmt.Errorf("%w: %s holds a later state (%d) than this one (%d)", ErrStaleVectorFile, w.path, cur.Generation, generation)
	}
	if err := os.Rename(m.f.Name(), w.path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(w.path))
}

// newFileID returns a random positive file id.
func newFileID() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])>>1) | 1
}

// syncDir makes a rename in dir durable. A directory that cannot be
// synced (EINVAL on some file systems, unsupported on windows) is not an
// error: the rename is then as durable as the system makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// abort removes the writer's files.
func (w *vecFileWriter) abort() {
	if w.main != nil {
		w.main.f.Close()
		os.Remove(w.main.f.Name())
	}
	w.closeSides()
}

func (w *vecFileWriter) closeSides() {
	for i, f := range w.sideFiles {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
			w.sideFiles[i] = nil
		}
	}
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
	return readVectorFile(path, model, dims, generation)
}

// readVectorFile is [ReadVectorFile]; generation < 0 accepts any.
func readVectorFile(path, model string, dims int, generation int64) (*Vectors, error) {
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
		v.mapped = b
		runtime.AddCleanup(v, func(unmap func()) { unmap() }, unmap)
	}
	return v, nil
}

// parseVectorFile returns the Vectors that b holds, viewing b where it can.
func parseVectorFile(b []byte, path, model string, dims int, generation int64) (*Vectors, error) {
	bad := func(what string) error { return fmt.Errorf("reading vector file %s: %s", path, what) }
	for _, old := range []string{vecMagicV1, vecMagicV2, vecMagicV3, vecMagicV4, vecMagicV5} {
		if len(b) >= len(old) && string(b[:len(old)]) == old {
			return nil, ErrStaleVectorFile
		}
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
	gen, d, n, ml, fid, runs := word(), word(), word(), word(), word(), word()
	if generation >= 0 && gen != generation || d != int64(dims) {
		return nil, ErrStaleVectorFile
	}
	if ml < 0 || ml > int64(len(b)) || n < 0 || n > maxVecCount || d <= 0 || d > maxVecDims || runs < -1 || runs > n {
		return nil, bad("corrupt header")
	}
	idBytes := 8 * n
	if runs >= 0 {
		idBytes = 16 * runs
	}
	words := (d + 63) / 64
	pb := int64(packedRowBytes(int(d)))
	size := int64(off) + align8(n*pb) + idBytes + align8(4*n) + 8*n*words + align8(4*d) + align8(ml)
	if int64(len(b)) != size {
		return nil, bad(fmt.Sprintf("%d bytes, want %d from its header", len(b), size))
	}
	take := func(bytes int64) []byte {
		s := b[off : off+int(bytes)]
		off += int(align8(bytes))
		return s
	}
	v := &Vectors{Generation: gen, FileID: fid, dims: dims, words: int(words), packedAt: off}
	v.packed = take(n * pb)
	if runs < 0 {
		v.ids = view(take(8*n), int(n), int64LE)
	} else {
		v.runs.first = view(take(8*runs), int(runs), int64LE)
		v.runs.row = view(take(8*runs), int(runs), int64LE)
		if !v.runs.valid(int(n)) {
			return nil, bad("corrupt id runs")
		}
	}
	v.scales = view(take(4*n), int(n), float32LE)
	v.signs = view(take(8*n*words), int(n*words), binary.LittleEndian.Uint64)
	v.weights = view(take(4*d), int(d), float32LE)
	if string(take(ml)) != model {
		return nil, ErrStaleVectorFile
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
