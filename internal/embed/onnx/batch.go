package onnx

import "github.com/ctx-dev/ctx/internal/embed"

// batch is the input of one model run: n token sequences padded to seq
// tokens, as row-major [n, seq] int64 tensors.
type batch struct {
	n, seq int
	// ids holds the token ids, pad past each sequence's end.
	ids []int64
	// mask is 1 for a sequence's tokens and 0 for padding.
	mask []int64
	// types is token_type_ids: 0 everywhere, one text per sequence.
	types []int64
}

// newBatch pads seqs to the longest of them (at least one token, so no
// tensor has a zero dimension).
func newBatch(seqs [][]int32, pad int64) batch {
	b := batch{n: len(seqs), seq: 1}
	for _, s := range seqs {
		b.seq = max(b.seq, len(s))
	}
	size := b.n * b.seq
	b.ids = make([]int64, size)
	b.mask = make([]int64, size)
	b.types = make([]int64, size)
	for i, s := range seqs {
		row := b.ids[i*b.seq : (i+1)*b.seq]
		for j := range row {
			if j < len(s) {
				row[j] = int64(s[j])
				b.mask[i*b.seq+j] = 1
			} else {
				row[j] = pad
			}
		}
	}
	return b
}

// pool writes the unit-length embedding of sequence i of b into dst, from
// hidden, the model's [n, seq, dims] token vectors in row-major order.
// Mean pooling averages the vectors whose mask is 1 (it sums them: the
// 1/count factor cancels in the normalisation); CLS pooling takes the
// first token's. A sequence with no token gets the zero vector.
func (b *batch) pool(dst []float32, hidden []float32, i int, cls bool) {
	dims := len(dst)
	clear(dst)
	for j := range b.seq {
		if b.mask[i*b.seq+j] == 0 {
			continue
		}
		off := (i*b.seq + j) * dims
		for k, x := range hidden[off : off+dims] {
			dst[k] += x
		}
		if cls {
			break
		}
	}
	embed.Normalize(dst)
}
