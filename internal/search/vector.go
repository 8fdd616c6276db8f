package search

import (
	"context"
	"errors"
	"fmt"
	"github.com/ctx-dev/ctx/internal/mmap"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

// Vectors is an index's chunk embeddings, quantised for nearest-neighbour
// search: a derived cache of the store (DESIGN: storage invariant 1),
// rebuilt when the index generation changes. Each row is held three ways:
//
//   - int8 elements with one float32 scale (element j of row i is about
//     rows[i*dims+j]·scales[i]; see [embed.Quantize]), dims+4 bytes a row
//     (in a vector file, 7-bit magnitudes whose signs are the sign bits:
//     ⌈7·dims/8⌉+4 bytes);
//   - one sign bit per dimension (set when the int8 element is > 0),
//     8·⌈dims/64⌉ bytes a row;
//   - its chunk id, 8 bytes.
//
// 256 dimensions take 300 bytes a row in memory and 268 in a vector file,
// against 1032 as float32 with ids.
// A Vectors read by [ReadVectorFile] may be a view of a memory-mapped file;
// it is safe for concurrent use by multiple goroutines.
type Vectors struct {
	// Generation is the index content version the copy was loaded at
	// (store.Version.Content; the vector file's stamp).
	Generation int64
	// IndexID is the database the rows were read from
	// (store.Version.IndexID), when known: [Vectors.Advance] needs it.
	IndexID string
	// FileID is the random id of the vector file the rows were read from
	// (see [WriteVectorFileFrom]); 0 for rows read into memory.
	FileID int64
	dims   int
	words  int       // uint64 words of sign bits a row: ⌈dims/64⌉
	ids    []int64   // row → chunk id; nil when runs hold them
	runs   idRuns    // a vector file's row → chunk id (idruns.go), when ids is nil
	scales []float32 // row → scale of its int8 elements
	signs  []uint64  // row i's sign bits at [i*words, (i+1)*words)
	rows   []int8    // len(ids)*dims int8 elements, row-major; nil when packed
	// packed holds a vector file's rows instead, as 7-bit magnitudes
	// whose signs are the sign bits (pack7.go), packedRowBytes(dims)
	// bytes a row; nil for rows in memory. Read rows through [Vectors.row].
	packed []byte
	// weights holds, per dimension, the mean of the row elements > 0
	// minus the mean of those ≤ 0 (each 0 when there are none): the gap
	// between what a set and a clear sign bit stand for, which the sign
	// estimate of a dot product weighs each query element by.
	weights []float32
	// mapped is the whole memory-mapped vector file the views above are
	// of; nil for rows in memory or a file read whole. packed starts at
	// its byte packedAt.
	mapped   []byte
	packedAt int
	rowIndex
}

// MappedBytes is the size of the vector file v maps (0 for rows in
// memory), in bytes.
func (v *Vectors) MappedBytes() int { return len(v.mapped) }

// ReleasePages lets go of the pages of v's vector file that this process
// has read (see [mmap.Release]): its resident set shrinks by them, and the
// next search maps again the pages it reads. Searches may run meanwhile;
// a page read after the release is simply mapped again. A no-op for rows
// in memory.
func (v *Vectors) ReleasePages() { mmap.Release(v.mapped) }

// NearestReleasing is [Vectors.Nearest] for a caller that must keep its
// resident set small, such as an index run measuring the off-topic level
// at its end. The rows a search scores exactly are scattered over the
// file, and the kernel maps the 64 KiB around each page a row is read
// from (fault-around), so one search that scores tens of thousands of
// rows maps nearly all of a large file: on ten copies of the Go standard
// library, a 277 MB file, the resident set of `ctx index` rose by about
// 150 MB within one search. Each pass of exact scores reads its rows in
// ascending order, so this one releases the pages behind it every
// releaseBatch rows, which keeps at most about releaseBatch·64 KiB of
// packed rows mapped (besides the sign bits, which every search reads
// whole), and releases the file's pages when it is done. The results are
// Nearest's.
func (v *Vectors) NearestReleasing(q []float32, k int) ([]int64, []float64) {
	ids, scores, _ := v.search(q, k, true)
	v.ReleasePages()
	return ids, scores
}

// releaseBatch is how many rows a releasing search scores between two
// releases: at most 32 MiB of a file mapped by their fault-arounds. A
// variable so that a test can map less.
var releaseBatch = 512

// releaseBelow lets go of the mapped pages that hold only packed rows
// from byte from of the file up to row (see [mmap.Release]), and returns
// where the next release starts. A no-op for rows in memory.
func (v *Vectors) releaseBelow(from, row int) int {
	if v.mapped == nil {
		return from
	}
	page := os.Getpagesize()
	lo := max(from, (v.packedAt+page-1)/page*page)
	hi := (v.packedAt + row*packedRowBytes(v.dims)) / page * page
	if hi <= lo {
		return from
	}
	mmap.Release(v.mapped[lo:hi])
	return hi
}

// LoadVectors reads every chunk embedding of db into memory and quantises
// it (cost: one [embed.DecodeVector] per chunk; a query process maps the
// vector file [WriteVectorFileFrom] writes instead), and returns the content version
// they were read at (in the same transaction; also in v.Generation).
// Vectors whose length is not dims are an error (the index mixes models
// and needs a rebuild). Folded vectors come from base, as for
// [WriteVectorFileFrom] ([ErrVectorsMissing] when it lacks one).
func LoadVectors(ctx context.Context, db *store.DB, dims int, base Base) (*Vectors, store.Version, error) {
	var v *Vectors
	folded := &foldedRows{open: base, dims: dims}
	ver, err := db.Vectors(ctx, func(ver store.Version, n int) error {
		folded.ver = ver
		v = newVectors(0, dims, n)
		return nil
	}, func(id int64, blob []byte) error {
		if blob == nil {
			q, scale, err := folded.row(id)
			if err != nil {
				return err
			}
			v.addInt8(id, q, scale) // copies q
			return nil
		}
		return v.addBlob(id, blob)
	})
	if err != nil {
		return nil, store.Version{}, fmt.Errorf("loading vectors: %w", err)
	}
	v.Generation, v.IndexID = ver.Content, ver.IndexID
	v.computeWeights()
	return v, ver, nil
}

// ErrOtherIndex is [Vectors.Advance]'s error for vectors read from another
// database than the one given.
var ErrOtherIndex = errors.New("the vectors were read from another index")

// Advance returns v brought to db's committed state: the rows of chunks
// deleted since dropped, the chunks added since (ids above v's largest)
// appended, and the content version read, all in one read transaction
// ([store.DB.VectorsAfter]). v is not changed (queries may still use
// it), and is itself the result when nothing it holds changed.
// Chunk ids are only unique within one database, so v must have been
// read from this one: [ErrOtherIndex] when its IndexID is not the
// database's (a rebuild was swapped in; load them all again). On the Go standard library (106k rows) it costs a
// scan of the chunk ids and a copy of the rows, against a full
// [LoadVectors] read. The vectors of added chunks that the store has
// folded since come from base, as for LoadVectors. Errors as for
// LoadVectors.
func (v *Vectors) Advance(ctx context.Context, db *store.DB, base Base) (*Vectors, store.Version, error) {
	ids := v.allIDs()
	var top int64
	for _, id := range ids {
		top = max(top, id)
	}
	type row struct {
		id   int64
		blob []byte
	}
	var added []row
	folded := &foldedRows{open: base, dims: v.dims}
	ver, live, err := db.VectorsAfter(ctx, top, func(ver store.Version, id int64, blob []byte) error {
		if blob == nil {
			// Folded: kept as the int8 form's blob, like a stored one.
			folded.ver = ver
			q, scale, err := folded.row(id)
			if err != nil {
				return err
			}
			blob = embed.EncodeInt8(q, scale)
		}
		added = append(added, row{id, blob})
		return nil
	})
	if err != nil {
		return nil, store.Version{}, fmt.Errorf("updating vectors: %w", err)
	}
	if v.IndexID == "" || ver.IndexID != v.IndexID {
		return nil, ver, ErrOtherIndex
	}
	if len(added) == 0 {
		kept := 0
		for _, id := range ids {
			if _, ok := slices.BinarySearch(live, id); ok {
				kept++
			}
		}
		if kept == len(ids) {
			// Nothing this copy holds changed (a run that changed no
			// file, or only chunks without vectors): keep it rather than
			// copy 30 MB of rows on the Go tree.
			return v, ver, nil
		}
	}
	out := newVectors(ver.Content, v.dims, len(live))
	out.IndexID = v.IndexID
	buf := make([]int8, v.dims)
	for i, id := range ids {
		if _, ok := slices.BinarySearch(live, id); !ok {
			continue
		}
		out.ids = append(out.ids, id)
		out.scales = append(out.scales, v.scales[i])
		out.signs = append(out.signs, v.signs[i*v.words:(i+1)*v.words]...)
		out.rows = append(out.rows, v.row(i, buf)...)
	}
	for _, a := range added {
		if err := out.addBlob(a.id, a.blob); err != nil {
			return nil, store.Version{}, fmt.Errorf("updating vectors: %w", err)
		}
	}
	out.computeWeights()
	return out, ver, nil
}

// Row returns chunk id's int8 elements (a view of rows in memory, a
// fresh copy of a vector file's packed row) and scale, and ok false when
// v holds no row for it. It relies on v's ids being
// ascending, as every writer and reader of vectors keeps them.
func (v *Vectors) Row(id int64) (q []int8, scale float32, ok bool) {
	return v.rowInto(id, make([]int8, v.dims))
}

// rowInto is [Vectors.Row] unpacking a packed row into buf (v.dims
// long) instead of a fresh slice: valid until buf is reused.
func (v *Vectors) rowInto(id int64, buf []int8) (q []int8, scale float32, ok bool) {
	i, ok := v.findRow(id)
	if !ok {
		return nil, 0, false
	}
	return v.row(i, buf), v.scales[i], true
}

// Has reports whether v holds a row for chunk id (as [Vectors.Row] does,
// without unpacking it).
func (v *Vectors) Has(id int64) bool {
	_, ok := v.findRow(id)
	return ok
}

// row returns row i's int8 elements: a view of v.rows, or for a vector
// file's packed rows their unpacking into buf (v.dims long).
func (v *Vectors) row(i int, buf []int8) []int8 {
	if v.packed == nil {
		return v.rows[i*v.dims : (i+1)*v.dims]
	}
	pb := packedRowBytes(v.dims)
	buf = buf[:v.dims]
	unpackRow(buf, v.packed[i*pb:(i+1)*pb], v.signs[i*v.words:(i+1)*v.words])
	return buf
}

// newVectors returns an empty Vectors with room for n rows.
func newVectors(generation int64, dims, n int) *Vectors {
	words := (dims + 63) / 64
	return &Vectors{
		Generation: generation, dims: dims, words: words,
		ids: make([]int64, 0, n), scales: make([]float32, 0, n),
		signs: make([]uint64, 0, n*words), rows: make([]int8, 0, n*dims),
	}
}

// addBlob appends the row of id from a stored vector (see [int8Row]).
func (v *Vectors) addBlob(id int64, blob []byte) error {
	q, scale, err := int8Row(id, blob, v.dims, make([]int8, v.dims))
	if err != nil {
		return err
	}
	v.addInt8(id, q, scale)
	return nil
}

// int8Row returns the int8 elements and scale of chunk id's stored vector
// blob. Stored int8 rows are already what quantising their decoding would
// make: returned as a view of blob, not decoded and quantised again; other
// encodings are quantised into scratch (dims long, see [quantize]). A
// vector of another
// length is an error wrapping [embed.ErrDimension] (the index mixes models
// and needs a rebuild).
func int8Row(id int64, blob []byte, dims int, scratch []int8) ([]int8, float32, error) {
	if q, scale, ok := embed.Int8View(blob); ok && len(q) == dims {
		return q, scale, nil
	}
	vec, err := embed.DecodeVector(blob)
	if err != nil {
		return nil, 0, fmt.Errorf("chunk %d: %w", id, err)
	}
	if len(vec) != dims {
		return nil, 0, fmt.Errorf("chunk %d: %w: %d dimensions, want %d; run `ctx index --rebuild`", id, embed.ErrDimension, len(vec), dims)
	}
	return scratch, quantize(vec, scratch), nil
}

// add quantises x (of v.dims elements) and appends it as the row of id.
func (v *Vectors) add(id int64, x []float32) {
	q := make([]int8, v.dims)
	v.addInt8(id, q, quantize(x, q))
}

// quantize is [embed.Quantize] of x into q, a vector int8 cannot hold
// (NaN, ±Inf) becoming zeros, which match nothing; it returns the scale.
func quantize(x []float32, q []int8) float32 {
	scale := embed.Quantize(x, q)
	if scale < 0 {
		clear(q)
		scale = 0
	}
	return scale
}

// addInt8 appends the row of id from its int8 elements q (v.dims of them)
// and scale, as [embed.Quantize] makes them, with its sign bits.
func (v *Vectors) addInt8(id int64, q []int8, scale float32) {
	i := len(v.ids)
	v.ids = append(v.ids, id)
	v.rows = append(v.rows, q...)
	v.scales = append(v.scales, scale)
	v.signs = slices.Grow(v.signs, v.words)[:(i+1)*v.words]
	setSigns(v.signs[i*v.words:(i+1)*v.words], q)
}

// setSigns sets sg (⌈len(q)/64⌉ words) to q's sign bits: bit j is set
// when q[j] > 0.
func setSigns(sg []uint64, q []int8) {
	clear(sg)
	for j, e := range q {
		if e > 0 {
			sg[j/64] |= 1 << (j % 64)
		}
	}
}

// weightSampleRows caps the rows computeWeights reads: the per-dimension
// means it estimates are steady long before (on the Go standard library
// index, 106k rows, all rows took 0.1 s of a 0.6 s load).
const weightSampleRows = 16384

// weightStep is the row stride of the weights' sample over n rows.
func weightStep(n int) int { return max(1, n/weightSampleRows) }

// weightSums gathers, per dimension, the sum and count of the positive
// and of the other row elements (scaled), from which [weightSums.weights]
// makes [Vectors] weights.
type weightSums struct {
	pos, neg   []float64
	npos, nneg []int
}

func newWeightSums(dims int) *weightSums {
	return &weightSums{pos: make([]float64, dims), neg: make([]float64, dims), npos: make([]int, dims), nneg: make([]int, dims)}
}

// add counts one row: its int8 elements q and their scale.
func (w *weightSums) add(q []int8, scale float32) {
	for j, e := range q {
		if x := float64(e) * float64(scale); e > 0 {
			w.pos[j] += x
			w.npos[j]++
		} else {
			w.neg[j] += x
			w.nneg[j]++
		}
	}
}

// weights returns each dimension's mean positive element minus its mean
// other element (each 0 when there are none).
func (w *weightSums) weights() []float32 {
	out := make([]float32, len(w.pos))
	for j := range out {
		var x float64
		if w.npos[j] > 0 {
			x += w.pos[j] / float64(w.npos[j])
		}
		if w.nneg[j] > 0 {
			x -= w.neg[j] / float64(w.nneg[j])
		}
		out[j] = float32(x)
	}
	return out
}

// computeWeights sets v.weights from the rows (evenly spaced rows when
// there are more than weightSampleRows).
func (v *Vectors) computeWeights() {
	w, step := newWeightSums(v.dims), weightStep(len(v.scales))
	buf := make([]int8, v.dims)
	for i := 0; i < len(v.scales); i += step {
		w.add(v.row(i, buf), v.scales[i])
	}
	v.weights = w.weights()
}

// Len returns the number of vectors.
func (v *Vectors) Len() int {
	if v == nil {
		return 0
	}
	return len(v.scales)
}

// Tuning of [Vectors.Nearest], measured against exact float32 search at
// N ≈ 100k, 256 dimensions, on three sets (vector_bench_test.go has the
// commands): the real GOROOT/src index (106,587 chunks embedded by the
// 256-dimensional static model trained for ctx), clustered synthetic
// vectors with the same similarity profile, and uniformly random unit
// vectors, on which int8 rows alone cap recall@10 at 0.980 and recall@100
// at 0.989 (an exhaustive int8 scan; real: 1.000 and 0.997).
const (
	// pilotMin and pilotPerK size the pilot: the max(pilotMin,
	// pilotPerK·k) rows of least Hamming distance, scored exactly to
	// calibrate both estimates. 1000, 3000 and 10000 rows gave the same
	// recall at N = 100k and 1M (clustered); larger pilots cost more than
	// the tighter cuts they buy.
	pilotMin, pilotPerK = 1000, 10
	// exhaustiveBelow: with fewer rows than this many pilots, score every
	// row exactly; the estimates would save little.
	exhaustiveBelow = 4
	// hammingSigmas is how many residual standard deviations the Hamming
	// fit may fall short of a row's exact score and still have the row
	// estimated. Estimates are cheap (10-25 ns a row), so it is
	// generous: at 4σ random data lost recall@10 (0.970 at N = 100k,
	// 0.985 at 20k); at 5σ it reaches the int8 cap, with 2k of 107k real
	// rows estimated for k = 10 and 13k for k = 100.
	hammingSigmas = 5
	// estimateSigmas is the same margin for the sign estimate, which
	// decides the exact scores (100-200 ns a row in Go, bound by memory
	// latency: the rows are scattered over the file; about 80 ns by the
	// assembly kernel, [dotPackedRowsAVX2]). With hammingSigmas = 5, recall@100 at 3.5σ / 4σ / 5σ was
	// 0.996 / 0.997 / 0.997 on the real index (2.2k / 2.9k / 5.3k rows
	// scored), 0.993 / 0.994 / 0.994 clustered and 0.988 / 0.989 / 0.989
	// random (21k / 34k / 62k rows scored), and recall@10 on random data
	// 0.975 / 0.978 / 0.980. On 300 natural-language queries (doc-comment
	// sentences embedded as queries), farther from the rows than the rows
	// are from each other, (hammingSigmas, estimateSigmas) = (4, 3.5) /
	// (5, 3.5) / (5, 4) / (6, 4) gave recall@100 0.990 / 0.994 / 0.994 /
	// 0.995 (exhaustive int8: 0.995) for 1.2 / 1.6 / 1.9 / 2.2 ms of CPU a
	// query, against 7.4 ms for float32 brute force.
	estimateSigmas = 4
)

// Nearest returns the ids and cosine similarities of the k vectors closest
// to q (which must be L2-normalised and of the index's dimensions), best
// first. Similarities are int8 dot products (within about 1e-3 of the
// float32 cosine).
//
// Below exhaustiveBelow·pilot rows every row is scored exactly. Above, a
// query costs one Hamming distance per row (sign bits, 4 popcounts for
// 256 dimensions) and exact int8 dot products only where needed:
//
//  1. The pilot rows, those of least Hamming distance to q's signs, are
//     scored exactly and by a sign estimate (Σ q[j]·weights[j] over the
//     row's set bits, through byte lookup tables). Least squares on the
//     pilot fits the exact score as an affine function of cos(π·h/dims)
//     (h the Hamming distance) and of the sign estimate, with the standard
//     deviation σ of each residual.
//  2. Every other row whose Hamming fit plus hammingSigmas·σ reaches the
//     pilot's k-th best score gets a sign estimate; those whose sign
//     estimate fit plus estimateSigmas·σ reaches it are scored exactly.
//
// The margins adapt to the data: on clustered embeddings a few percent of
// the rows are estimated and fewer are rescored; on structureless random
// vectors most rows are rescored, so recall holds at any distribution.
func (v *Vectors) Nearest(q []float32, k int) ([]int64, []float64) {
	ids, scores, _ := v.nearest(q, k)
	return ids, scores
}

// nearestStats counts the work of one search.
type nearestStats struct {
	estimated int // rows given a sign estimate
	scored    int // rows given an exact int8 score
}

// nearest is [Vectors.Nearest], also counting its work.
func (v *Vectors) nearest(q []float32, k int) ([]int64, []float64, nearestStats) {
	return v.search(q, k, false)
}

// search is [Vectors.nearest], releasing the pages behind its exact
// scores when releasing is set (see [Vectors.NearestReleasing]).
func (v *Vectors) search(q []float32, k int, releasing bool) ([]int64, []float64, nearestStats) {
	var st nearestStats
	n := v.Len()
	if len(q) != v.dims || k <= 0 || n == 0 {
		return nil, nil, st
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.releasing = releasing
	qscale := s.prepare(q, v)
	top := topK{k: min(k, n), h: s.heap[:0]}
	pilot := max(pilotMin, pilotPerK*k)
	if n < exhaustiveBelow*pilot || 64*v.words > math.MaxUint16 {
		rows := grow(s.cand, n)
		for i := range rows {
			rows[i] = int32(i)
		}
		s.cand = rows
		for i, d := range s.score(v, rows) {
			top.push(i, d, v.scales[i])
		}
		st.scored = n
	} else {
		st = v.nearestPrefiltered(s, &top, pilot)
	}
	s.heap = top.h
	ids := make([]int64, len(top.h))
	scores := make([]float64, len(top.h))
	for i := len(top.h) - 1; i >= 0; i-- {
		e := top.pop()
		ids[i] = v.idAt(e.row)
		scores[i] = float64(e.dot) * qscale * float64(v.scales[e.row])
	}
	// The slices above may view a mapped file that a cleanup of v
	// unmaps; v must outlive every read of them.
	runtime.KeepAlive(v)
	return ids, scores, st
}

// nearestPrefiltered fills top with the k rows of best exact score among
// those the calibrated estimates cannot rule out (see [Vectors.Nearest]).
// Exact scores are compared as int32 dot products times the row's scale,
// the query's scale being common to all.
func (v *Vectors) nearestPrefiltered(s *scratch, top *topK, pilot int) nearestStats {
	n, dims, words := v.Len(), v.dims, v.words
	nbits := 64 * words // a corrupt file may set bits past dims
	// Hamming distances, and how many rows have each.
	ham := grow(s.ham, n)
	count := grow(s.count, nbits+1)
	clear(count)
	s.ham, s.count = ham, count
	qs := s.qsigns
	if words == 4 {
		q0, q1, q2, q3 := qs[0], qs[1], qs[2], qs[3]
		// Two rows a step, counted in two histograms: consecutive rows
		// often share a distance, and one histogram would make each
		// increment wait for the last.
		var c2 [257]int32
		i := 0
		if hasHamming4 && n >= 2 {
			i = n &^ 1
			// A few thousand rows a call: the goroutine cannot be
			// preempted inside assembly, and a collection waiting to
			// stop it spun and signalled through a whole scan (ten
			// copies of the Go standard library: 1M rows, 1.3 ms).
			for p := 0; p < n/2; p += hammingPairs {
				hammingAVX512(&v.signs[8*p], &qs[0], &ham[2*p], &count[0], &c2[0], min(hammingPairs, n/2-p))
			}
		}
		for ; i+2 <= n; i += 2 {
			r := v.signs[4*i : 4*i+8 : 4*i+8]
			h := bits.OnesCount64(r[0]^q0) + bits.OnesCount64(r[1]^q1) + bits.OnesCount64(r[2]^q2) + bits.OnesCount64(r[3]^q3)
			g := bits.OnesCount64(r[4]^q0) + bits.OnesCount64(r[5]^q1) + bits.OnesCount64(r[6]^q2) + bits.OnesCount64(r[7]^q3)
			ham[i], ham[i+1] = uint16(h), uint16(g)
			count[h]++
			c2[g]++
		}
		for ; i < n; i++ {
			r := v.signs[4*i : 4*i+4 : 4*i+4]
			h := bits.OnesCount64(r[0]^q0) + bits.OnesCount64(r[1]^q1) + bits.OnesCount64(r[2]^q2) + bits.OnesCount64(r[3]^q3)
			ham[i] = uint16(h)
			count[h]++
		}
		for h, c := range c2 {
			count[h] += c
		}
	} else {
		for i := range n {
			r := v.signs[i*words : (i+1)*words]
			h := 0
			for w, x := range r {
				h += bits.OnesCount64(x ^ qs[w])
			}
			ham[i] = uint16(h)
			count[h]++
		}
	}
	// The pilot: every row with h ≤ hp, at least pilot rows.
	hp, acc := 0, 0
	for ; hp < nbits; hp++ {
		if acc += int(count[hp]); acc >= pilot {
			break
		}
	}
	s.buildLUT(v.weights, words)
	cand := rowsWithin(s.cand, ham, 0, hp, histSum(count, 0, hp))
	dots := s.score(v, cand)
	x1, x2, y := s.x1[:0], s.x2[:0], s.y[:0]
	for j, i := range cand {
		top.push(int(i), dots[j], v.scales[i])
		x1 = append(x1, cosHamming(int(ham[i]), dims))
		x2 = append(x2, s.estimate(v.signs[int(i)*words:int(i+1)*words]))
		y = append(y, float64(dots[j])*float64(v.scales[i]))
	}
	s.x1, s.x2, s.y = x1, x2, y
	st := nearestStats{estimated: len(y), scored: len(y)}
	kth := top.kth()
	// Stage 1: the largest Hamming distance whose fitted score plus the
	// margin reaches the k-th best pilot score.
	a1, b1, sd1 := fitLine(x1, y)
	hmax := nbits
	if a1 > 0 {
		for hmax > hp && a1*cosHamming(hmax, dims)+b1+hammingSigmas*sd1 < kth {
			hmax--
		}
	}
	if hmax <= hp {
		s.cand = cand
		return st
	}
	// Stage 2: the least sign estimate worth an exact score.
	a2, b2, sd2 := fitLine(x2, y)
	emin := math.Inf(-1)
	if a2 > 0 {
		emin = (kth - b2 - estimateSigmas*sd2) / a2
	}
	ring := rowsWithin(s.ring, ham, hp+1, hmax, histSum(count, hp+1, hmax))
	s.ring = ring
	st.estimated += len(ring)
	cand = cand[:0]
	for _, i := range ring {
		if s.estimate(v.signs[int(i)*words:int(i+1)*words]) >= emin {
			cand = append(cand, i)
		}
	}
	s.cand = cand
	st.scored += len(cand)
	for j, d := range s.score(v, cand) {
		top.push(int(cand[j]), d, v.scales[cand[j]])
	}
	return st
}

// hammingPairs is how many pairs of rows one call of the Hamming kernel
// measures: 16k rows, about 20 µs.
const hammingPairs = 8192

// histSum is the number of rows at a distance in [lo, hi] by the
// histogram count (distance → rows).
func histSum(count []int32, lo, hi int) int {
	n := 0
	for _, c := range count[lo : hi+1] {
		n += int(c)
	}
	return n
}

// rowsWithin returns buf's storage holding the n rows i, ascending, with
// lo ≤ ham[i] ≤ hi (lo ≤ hi + 1; n from the distances' histogram). It
// writes every row and advances past those in range, without a branch:
// on the Go standard library's index about a tenth of the rows are in
// range at random, and a branch mispredicted on each of them cost more
// than the loop. Writing one past the last row in range, it needs room
// for n+1, not for every row.
func rowsWithin(buf []int32, ham []uint16, lo, hi, n int) []int32 {
	out := grow(buf, n+1)
	span := uint64(hi - lo + 1)
	m := 0
	for i, h := range ham {
		out[m] = int32(i)
		// d = h - lo as a uint32 (below lo it wraps to at least 2³²-2¹⁷),
		// in range exactly when d < span, when d - span wraps 64 bits.
		d := uint64(uint32(h) - uint32(lo))
		m += int((d - span) >> 63)
	}
	return out[:m]
}

// cosHamming maps a Hamming distance h between two sign vectors of dims
// bits to cos(π·h/dims), the cosine it estimates for isotropic vectors
// (h is clamped to dims: only a corrupt file has set bits past dims).
func cosHamming(h, dims int) float64 {
	return math.Cos(math.Pi * float64(min(h, dims)) / float64(dims))
}

// fitLine returns the least-squares line y ≈ a·x + b and the standard
// deviation of its residuals. a is 0 when x does not vary.
func fitLine(x, y []float64) (a, b, sd float64) {
	n := float64(len(x))
	if len(x) < 3 {
		return 0, 0, 0
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, my, 0
	}
	a = sxy / sxx
	b = my - a*mx
	var ss float64
	for i := range x {
		r := y[i] - (a*x[i] + b)
		ss += r * r
	}
	return a, b, math.Sqrt(ss / (n - 2))
}

// dotInt8 returns the dot product of a widened int8 query and an int8 row
// (len(r) ≤ len(q)). The query's magnitude is bounded so that the sum
// cannot overflow (see [scratch.prepare]).
func dotInt8(q []int32, r []int8) int32 {
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(r); i += 8 {
		// Re-slicing to 8 lets the compiler drop the bounds checks.
		x, y := r[i:i+8:i+8], q[i:i+8:i+8]
		s0 += int32(x[0])*y[0] + int32(x[4])*y[4]
		s1 += int32(x[1])*y[1] + int32(x[5])*y[5]
		s2 += int32(x[2])*y[2] + int32(x[6])*y[6]
		s3 += int32(x[3])*y[3] + int32(x[7])*y[7]
	}
	for ; i < len(r); i++ {
		s0 += int32(r[i]) * q[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot4Int8 returns the dot products of a widened int8 query with four
// int8 rows of len(q) elements. Interleaving four rows lets the memory
// system fetch them in parallel: rescored rows are scattered over the
// file, and one row at a time waits on each in turn (measured: 90 against
// 120-280 ns a row of 256 dimensions).
func dot4Int8(q []int32, a, b, c, d []int8) (int32, int32, int32, int32) {
	var sa, sb, sc, sd int32
	n := len(q)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		y := q[i : i+4 : i+4]
		xa, xb, xc, xd := a[i:i+4:i+4], b[i:i+4:i+4], c[i:i+4:i+4], d[i:i+4:i+4]
		sa += int32(xa[0])*y[0] + int32(xa[1])*y[1] + int32(xa[2])*y[2] + int32(xa[3])*y[3]
		sb += int32(xb[0])*y[0] + int32(xb[1])*y[1] + int32(xb[2])*y[2] + int32(xb[3])*y[3]
		sc += int32(xc[0])*y[0] + int32(xc[1])*y[1] + int32(xc[2])*y[2] + int32(xc[3])*y[3]
		sd += int32(xd[0])*y[0] + int32(xd[1])*y[1] + int32(xd[2])*y[2] + int32(xd[3])*y[3]
	}
	for ; i < n; i++ {
		sa += int32(a[i]) * q[i]
		sb += int32(b[i]) * q[i]
		sc += int32(c[i]) * q[i]
		sd += int32(d[i]) * q[i]
	}
	return sa, sb, sc, sd
}

// scratch is one query's working memory, pooled so that a search
// allocates only its results.
type scratch struct {
	// releasing: exact scores release the file's pages behind them
	// (rows are scored in ascending order; see [Vectors.NearestReleasing]).
	releasing bool
	q32       []int32        // the query quantised to ±qmax, widened
	q16       []int16        // the same, in the kernel's 16-bit lanes
	ring      []int32        // rows past the pilot within the Hamming cut
	qsigns    []uint64       // the query's sign bits
	lut       [][256]float32 // per byte of sign bits, 256 partial sign estimates
	ham       []uint16       // row → Hamming distance
	count     []int32        // Hamming distance → rows
	x1, x2    []float64      // pilot: Hamming cosine, sign estimate
	y         []float64      // pilot: exact score over the query's scale
	cand      []int32        // rows to score exactly
	dots      []int32        // their dot products
	rows      [4][]int8      // unpacked packed rows being scored
	heap      []scoredRow
}

// score returns the int8 dot products of the query with rows, in order,
// in s.dots. Rows ascend when s.releasing, so the pages behind each batch
// can go.
func (s *scratch) score(v *Vectors, rows []int32) []int32 {
	dots := grow(s.dots, len(rows))
	s.dots = dots
	if !s.releasing {
		s.scoreRows(v, rows, dots)
		return dots
	}
	from := 0
	for lo := 0; lo < len(rows); lo += releaseBatch {
		hi := min(lo+releaseBatch, len(rows))
		s.scoreRows(v, rows[lo:hi], dots[lo:hi])
		from = v.releaseBelow(from, int(rows[hi-1]))
	}
	return dots
}

// scoreRows writes the int8 dot products of the query with rows into
// dots (as long as rows).
func (s *scratch) scoreRows(v *Vectors, rows []int32, dots []int32) {
	if packedKernel(v) {
		if len(rows) > 0 {
			dotPackedRowsAVX2(&s.q16[0], &v.packed[0], (*byte)(unsafe.Pointer(&v.signs[0])), &rows[0], &dots[0], len(rows),
				packedRowBytes(v.dims), 8*v.words, v.dims/16)
		}
		return
	}
	b := s.rowBufs(v.dims)
	j := 0
	for ; j+4 <= len(rows); j += 4 {
		dots[j], dots[j+1], dots[j+2], dots[j+3] = dot4Int8(s.q32, v.row(int(rows[j]), b[0]), v.row(int(rows[j+1]), b[1]), v.row(int(rows[j+2]), b[2]), v.row(int(rows[j+3]), b[3]))
	}
	for ; j < len(rows); j++ {
		dots[j] = dotInt8(s.q32, v.row(int(rows[j]), b[0]))
	}
}

// packedKernel reports whether rows of v are scored by the assembly
// kernel straight from their packed form ([dotPackedRowsAVX2]: about 6 times
// faster than unpacking a row and scoring it in Go, measured on the Go
// standard library's vectors), with the query's 16-bit lanes that
// [scratch.prepare] fills: it needs whole blocks of 16 dimensions.
func packedKernel(v *Vectors) bool {
	return hasDotPacked && v.packed != nil && v.dims%16 == 0
}

// rowBufs returns four row buffers of dims elements.
func (s *scratch) rowBufs(dims int) *[4][]int8 {
	for i := range s.rows {
		s.rows[i] = grow(s.rows[i], dims)
	}
	return &s.rows
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// prepare quantises q for v and returns the query's scale. The query is
// quantised to integers of magnitude at most qmax = min(32767,
// ⌊(2³¹-1)/(127·dims)⌋), so an int32 dot product with an int8 row cannot
// overflow, and its own rounding error is ≤ 1/(2·qmax) of its largest
// element: the error of a score is dominated by the rows' int8 steps.
func (s *scratch) prepare(q []float32, v *Vectors) float64 {
	qmax := min(32767, math.Floor(float64(math.MaxInt32)/(127*float64(v.dims))))
	var m float64
	for _, x := range q {
		m = max(m, math.Abs(float64(x)))
	}
	s.q32 = grow(s.q32, v.dims)
	s.q16 = grow(s.q16, v.dims)
	s.qsigns = grow(s.qsigns, v.words)
	clear(s.qsigns)
	if m == 0 || math.IsInf(m, 0) || m != m {
		clear(s.q32)
		clear(s.q16)
		return 0
	}
	inv := qmax / m
	for j, x := range q {
		s.q32[j] = int32(math.RoundToEven(float64(x) * inv))
		s.q16[j] = int16(s.q32[j]) // |q32| ≤ qmax ≤ 32767
		if x > 0 {
			s.qsigns[j/64] |= 1 << (j % 64)
		}
	}
	return m / qmax
}

// buildLUT fills s.lut: entry [g][b] is Σ q[j]·weights[j] over the set
// bits of b, where j = 8·g + bit. For 256 dimensions the 32 tables take
// 32 KB.
func (s *scratch) buildLUT(weights []float32, words int) {
	s.lut = grow(s.lut, words*8)
	for g := range s.lut {
		t := &s.lut[g]
		t[0] = 0
		for b := 1; b < 256; b++ {
			low := bits.TrailingZeros(uint(b))
			var w float32
			if j := 8*g + low; j < len(weights) {
				w = float32(s.q32[j]) * weights[j]
			}
			t[b] = t[b&(b-1)] + w
		}
	}
}

// estimate returns the sign estimate of a row's score from its sign bits.
func (s *scratch) estimate(signs []uint64) float64 {
	var s0, s1 float32
	for w, x := range signs {
		t := s.lut[8*w : 8*w+8 : 8*w+8]
		s0 += t[0][byte(x)] + t[1][byte(x>>8)] + t[2][byte(x>>16)] + t[3][byte(x>>24)]
		s1 += t[4][byte(x>>32)] + t[5][byte(x>>40)] + t[6][byte(x>>48)] + t[7][byte(x>>56)]
	}
	return float64(s0 + s1)
}

// grow returns b resliced to n elements, reallocated when too small.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// scoredRow is a row and its exact int8 dot product with the query.
type scoredRow struct {
	row int
	dot int32
	key float64 // dot times the row's scale: the ranking key
}

// topK keeps the k rows of greatest key in a min-heap.
type topK struct {
	k int
	h []scoredRow
}

// push offers row i with dot product d and row scale scale.
func (t *topK) push(i int, d int32, scale float32) {
	e := scoredRow{row: i, dot: d, key: float64(d) * float64(scale)}
	if len(t.h) < t.k {
		t.h = append(t.h, e)
		t.up(len(t.h) - 1)
		return
	}
	if !t.less(t.h[0], e) {
		return
	}
	t.h[0] = e
	t.down(0)
}

// less orders by key, then by row so that ties resolve deterministically.
func (t *topK) less(a, b scoredRow) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.row > b.row
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.less(t.h[i], t.h[p]) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(t.h) {
			return
		}
		m := l
		if r := l + 1; r < len(t.h) && t.less(t.h[r], t.h[l]) {
			m = r
		}
		if !t.less(t.h[m], t.h[i]) {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// pop removes and returns the least element.
func (t *topK) pop() scoredRow {
	x := t.h[0]
	last := len(t.h) - 1
	t.h[0] = t.h[last]
	t.h = t.h[:last]
	t.down(0)
	return x
}

// kth returns the k-th best key, or -Inf while fewer than k rows are held.
func (t *topK) kth() float64 {
	if len(t.h) < t.k {
		return math.Inf(-1)
	}
	return t.h[0].key
}
