package setup

import (
	"bytes"
	"strings"
)

// splice returns doc with doc[start:end] replaced by text, in a new slice.
func splice(doc []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(doc)-(end-start)+len(text))
	out = append(out, doc[:start]...)
	out = append(out, text...)
	return append(out, doc[end:]...)
}

// eol is the document's line ending: "\r\n" if its first line ends so,
// else "\n".
func eol(doc []byte) string {
	if i := bytes.IndexByte(doc, '\n'); i > 0 && doc[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withEOL rewrites text's "\n" line endings as nl.
func withEOL(text, nl string) string {
	if nl == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", nl)
}

// lineStart returns the offset of the first byte of the line holding
// doc[off].
func lineStart(doc []byte, off int) int {
	return bytes.LastIndexByte(doc[:off], '\n') + 1
}

// lineIndent returns the spaces and tabs that begin the line holding
// doc[off].
func lineIndent(doc []byte, off int) string {
	s := lineStart(doc, off)
	e := s
	for e < len(doc) && (doc[e] == ' ' || doc[e] == '\t') {
		e++
	}
	return string(doc[s:e])
}

// ownLine reports whether only spaces and tabs precede doc[off] on its line.
func ownLine(doc []byte, off int) bool {
	return len(bytes.Trim(doc[lineStart(doc, off):off], " \t")) == 0
}

// appendBlock returns doc followed by block, separated by one blank line
// when doc has text, and with doc's line endings.
func appendBlock(doc []byte, block string) []byte {
	nl := eol(doc)
	out := bytes.Clone(doc)
	if len(bytes.TrimSpace(out)) == 0 {
		out = out[:0]
	} else {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		if !bytes.HasSuffix(out, []byte(nl+nl)) {
			out = append(out, nl...)
		}
	}
	return append(out, withEOL(block, nl)...)
}
