package index

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/chunk"
)

// maxSummaryBytes caps a chunk summary.
const maxSummaryBytes = 160

// Summary returns the one-line description of a chunk shown in results: its
// signature, else the first line of its doc, else its first non-blank code
// line; whitespace collapsed and cut at 160 bytes on a rune boundary.
func Summary(c chunk.Chunk, text string) string {
	s := c.Signature
	if s == "" && c.Kind == chunk.KindSection {
		s = c.Symbol
	}
	if s == "" && c.Doc != "" {
		s, _, _ = strings.Cut(strings.TrimSpace(c.Doc), "\n")
	}
	if s == "" {
		for line := range strings.Lines(text) {
			if t := strings.TrimSpace(line); t != "" {
				s = t
				break
			}
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxSummaryBytes {
		cut := maxSummaryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}
