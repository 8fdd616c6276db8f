package index

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/chunk"
)

// maxSummaryBytes caps a chunk summary.
const maxSummaryBytes = 160

// Summary returns the one-line description of a chunk shown in results: its
// signature, else the first line of its doc, else its first line that says
// something once comment markers are taken off (a block opening with
// "/**" is summarised by the comment's first words, not by "/**");
// whitespace collapsed and cut at 160 bytes on a rune boundary.
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
			if t := stripCommentMarkers(strings.TrimSpace(line)); t != "" {
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

// stripCommentMarkers returns a line without the markers that open,
// continue or close a comment ("/**", "/*!", "*", "//", "# ", "*/",
// "<!--", "-->", a docstring's quotes), so a line of markers alone is
// empty. A preprocessor line ("#include") keeps its "#".
func stripCommentMarkers(t string) string {
	for _, p := range []string{"/**", "/*!", "/*", "<!--", `"""`, "'''", "//!", "///", "//"} {
		if strings.HasPrefix(t, p) {
			t = t[len(p):]
			break
		}
	}
	if strings.HasPrefix(t, "*") && (len(t) == 1 || t[1] == ' ' || t[1] == '\t' || t[1] == '/') {
		t = t[1:]
	}
	if t == "#" || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "#\t") {
		t = t[1:]
	}
	for _, sfx := range []string{"*/", "-->", `"""`, "'''"} {
		t = strings.TrimSuffix(strings.TrimSpace(t), sfx)
	}
	return strings.TrimSpace(t)
}
