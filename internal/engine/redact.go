package engine

import (
	"os"

	"github.com/ctx-dev/ctx/internal/secrets"
)

// Code shown to callers is read from the files on disk (chunk text is not
// stored), so it is masked here the way the index pipeline masked it
// before chunking (internal/index/secrets.go): the same detector on the
// same bytes finds the same spans, and masking keeps offsets and lines.

// maskMargin is how far around a byte range the file is read to mask it:
// detection is local to a line or to one private-key block (a few KB), so
// a window this wide finds every span that reaches into the range.
const maskMargin = 8 << 10

// maskFile masks the secrets in a whole file's content, in place, unless
// the configuration keeps them (CTX_INCLUDE_SECRETS).
func (e *Engine) maskFile(rel string, src []byte) {
	if !e.cfg.IncludeSecrets {
		secrets.Redact(rel, src)
	}
}

// maskSpan masks, in place, the secrets in buf, which holds the bytes of
// the file at p (rel, relative to the root) starting at offset start. It
// reads the file around the span so that a secret cut by its edges is
// still recognised.
func (e *Engine) maskSpan(p, rel string, start int, buf []byte) {
	if e.cfg.IncludeSecrets || len(buf) == 0 {
		return
	}
	f, err := os.Open(p)
	if err != nil {
		secrets.Redact(rel, buf)
		return
	}
	defer f.Close()
	lo := max(0, start-maskMargin)
	before := make([]byte, start-lo, start-lo+len(buf)+maskMargin)
	n, _ := f.ReadAt(before, int64(lo))
	before = before[:n]
	if n < start-lo {
		// The file shrank: mask what was read on its own.
		secrets.Redact(rel, buf)
		return
	}
	win := append(before, buf...)
	after := win[len(win):min(cap(win), len(win)+maskMargin)]
	m, _ := f.ReadAt(after, int64(start+len(buf)))
	win = win[:len(win)+m]
	fs := secrets.Find(rel, win)
	if len(fs) == 0 {
		return
	}
	secrets.Mask(win, fs)
	copy(buf, win[len(before):len(before)+len(buf)])
}
