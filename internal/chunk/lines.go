package chunk

import (
	"bytes"
	"unicode/utf8"
)

// lineIndex maps byte offsets of one file to 0-based line numbers and back.
// Line i holds the bytes [start(i), end(i)); end includes the line's '\n'.
type lineIndex struct {
	src    []byte
	starts []int // starts[i] is the offset of the first byte of line i
}

func (li *lineIndex) reset(src []byte) {
	li.src = src
	li.starts = append(li.starts[:0], 0)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(src) {
			break // a final '\n' does not start another line
		}
		li.starts = append(li.starts, off)
	}
}

// count is the number of lines; an empty file has one empty line.
func (li *lineIndex) count() int { return len(li.starts) }

func (li *lineIndex) start(l int) int { return li.starts[l] }

// end returns the offset just past line l, including its '\n'.
func (li *lineIndex) end(l int) int {
	if l+1 < len(li.starts) {
		return li.starts[l+1]
	}
	return len(li.src)
}

// lineOf returns the line that holds byte offset b (clamped to the file).
func (li *lineIndex) lineOf(b int) int {
	lo, hi := 0, len(li.starts) // invariant: starts[lo] <= b < starts[hi]
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if li.starts[m] <= b {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// bytes returns the size of lines first..last, newlines included.
func (li *lineIndex) size(first, last int) int { return li.end(last) - li.start(first) }

// text returns line l without its line terminator and surrounding blanks.
func (li *lineIndex) text(l int) []byte {
	return bytes.TrimFunc(li.src[li.start(l):li.end(l)], isSpaceRune)
}

// blank reports whether line l holds only whitespace.
func (li *lineIndex) blank(l int) bool {
	for _, c := range li.src[li.start(l):li.end(l)] {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// trim narrows first..last to its outermost non-blank lines; it returns
// first > last when every line is blank.
func (li *lineIndex) trim(first, last int) (int, int) {
	for first <= last && li.blank(first) {
		first++
	}
	for last >= first && li.blank(last) {
		last--
	}
	return first, last
}

// span returns the first and last line of the non-blank bytes of
// src[s:e], or -1, -1 when there are none.
func (li *lineIndex) span(s, e int) (int, int) {
	if s < 0 {
		s = 0
	}
	if e > len(li.src) {
		e = len(li.src)
	}
	for s < e && isSpace(li.src[s]) {
		s++
	}
	for e > s && isSpace(li.src[e-1]) {
		e--
	}
	if s >= e {
		return -1, -1
	}
	return li.lineOf(s), li.lineOf(e - 1)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isSpaceRune(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) }

// oneLine collapses runs of whitespace in b into single spaces and caps the
// result at max bytes, cutting at a rune boundary. Invalid UTF-8 becomes
// U+FFFD so that the result is safe to store and print.
func oneLine(b []byte, max int) string {
	out := make([]byte, 0, min(len(b), max+4))
	space := false
	for _, c := range b {
		if isSpace(c) {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, c)
		if len(out) >= max+4 {
			break
		}
	}
	return capString(out, max)
}

// capString returns b as valid UTF-8 of at most max bytes.
func capString(b []byte, max int) string {
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	if len(b) > max {
		n := max
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	return string(b)
}
