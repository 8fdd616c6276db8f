package embed

import (
	"context"
	"fmt"
)

// Batch embeds texts with p in calls of at most size texts (all at once when
// size <= 0) and returns one vector per text, in the order of texts.
//
// Every vector's length is checked against p.Model().Dims, read after each
// call so that providers which learn their dimensions from the first
// response are checked too; a provider reporting 0 dimensions is held to
// the length of the first vector. Batch checks ctx between calls.
//
// Errors: the first provider error, wrapped with the range of texts it
// was embedding (so [ErrRateLimited] and context errors stay matchable with
// errors.Is); [ErrDimension] when a vector is empty or has the wrong
// length; an error when a call returns a different number of vectors than
// texts. No vectors are returned with an error.
func Batch(ctx context.Context, p Provider, texts []string, kind InputKind, size int) ([][]float32, error) {
	if size <= 0 {
		size = len(texts)
	}
	out := make([][]float32, len(texts))
	dims := 0
	for start := 0; start < len(texts); start += size {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embedding texts %d-%d of %d: %w", start, len(texts)-1, len(texts), err)
		}
		end := min(start+size, len(texts))
		vecs, err := p.Embed(ctx, texts[start:end], kind)
		if err != nil {
			return nil, fmt.Errorf("embedding texts %d-%d of %d: %w", start, end-1, len(texts), err)
		}
		if len(vecs) != end-start {
			return nil, fmt.Errorf("embedding texts %d-%d of %d: provider returned %d vectors for %d texts",
				start, end-1, len(texts), len(vecs), end-start)
		}
		if d := p.Model().Dims; d > 0 {
			dims = d
		}
		for i, v := range vecs {
			if dims == 0 {
				dims = len(v)
			}
			if len(v) == 0 || len(v) != dims {
				return nil, fmt.Errorf("embedding text %d: %w: got %d, want %d", start+i, ErrDimension, len(v), dims)
			}
			out[start+i] = v
		}
	}
	return out, nil
}

// InBatches calls call on consecutive runs of at most size texts (all at
// once when size <= 0), one run after another, and returns the vectors of
// all runs concatenated in order; empty texts makes no call. It is the
// request loop of providers whose service takes a bounded number of inputs
// per request. Checking the number and length of a run's vectors is left
// to call, which knows how its service answers.
//
// An error from call ends the loop and is returned, with no vectors,
// wrapped with the range of texts and the model name:
// "embedding texts 32-63 with nomic-embed-text: ...". Unlike [Batch], it
// does not check a context between calls; call sees the caller's.
func InBatches(texts []string, size int, model string, call func(batch []string) ([][]float32, error)) ([][]float32, error) {
	if size <= 0 {
		size = max(len(texts), 1)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += size {
		end := min(start+size, len(texts))
		vecs, err := call(texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embedding texts %d-%d with %s: %w", start, end-1, model, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}
