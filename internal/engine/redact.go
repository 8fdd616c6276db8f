package engine

import (
	"bytes"
	"io"

	"github.com/ctx-dev/ctx/internal/secrets"
)

// Code shown to callers is read from the files on disk (chunk text is not
// stored), so it is masked here the way the index pipeline masked it
// before chunking (internal/index/secrets.go): the same detector on the
// same bytes finds the same spans, and masking keeps offsets and lines.

// Detection is local to a line or to one private-key block, so a window
// around a byte range that takes in the lines the range cuts (lineMargin
// is enough unless the lines are very long) or, when the range holds key
// material, the whole block (keyMargin; the largest keys in use take
// about 6.5 KB) finds every span that reaches into the range.
const (
	lineMargin = 1 << 10
	keyMargin  = 8 << 10
)

// maskFile masks the secrets in a whole file's content, in place, unless
// the configuration keeps them (CTX_INCLUDE_SECRETS).
func (e *Engine) maskFile(rel string, src []byte) {
	if !e.cfg.IncludeSecrets {
		secrets.Redact(rel, src)
	}
}

// maskSpan masks, in place, the secrets in buf, which holds the bytes of
// the file f (rel, relative to the root; an open file or its content)
// starting at offset start.
// It reads the file around the span so that a secret cut by its edges is
// still recognised.
func (e *Engine) maskSpan(f io.ReaderAt, rel string, start int, buf []byte) {
	if e.cfg.IncludeSecrets || len(buf) == 0 {
		return
	}
	margin := lineMargin
	if secrets.KeyMaterial(buf) {
		margin = keyMargin
	}
	win, before, ok := window(f, start, buf, margin)
	if ok && margin < keyMargin && !wholeLines(win, before, len(buf), start, margin) {
		win, before, ok = window(f, start, buf, keyMargin)
	}
	if !ok {
		// The file shrank: mask what was read on its own.
		secrets.Redact(rel, buf)
		return
	}
	if fs := secrets.Redact(rel, win); len(fs) > 0 {
		copy(buf, win[before:before+len(buf)])
	}
}

// wholeLines reports whether a window read with margin around n bytes at
// offset start (before of them ahead) takes in the whole lines those
// bytes cut: each edge reaches a line break or the file's start or end.
func wholeLines(win []byte, before, n, start, margin int) bool {
	after := win[before+n:]
	return (before == start || bytes.IndexByte(win[:before], '\n') >= 0) &&
		(len(after) < margin || bytes.IndexByte(after, '\n') >= 0)
}

// window returns buf with up to margin bytes of the file before and after
// it, read in one call, and how many bytes come before; ok is false when
// the file holds fewer bytes before buf than it should. buf itself is
// copied in (it is what the caller read and shows).
func window(f io.ReaderAt, start int, buf []byte, margin int) (win []byte, before int, ok bool) {
	lo := max(0, start-margin)
	before = start - lo
	win = make([]byte, before+len(buf)+margin)
	n, _ := f.ReadAt(win, int64(lo))
	if n < before {
		return nil, 0, false
	}
	win = win[:max(n, before+len(buf))]
	copy(win[before:], buf)
	return win, before, true
}
