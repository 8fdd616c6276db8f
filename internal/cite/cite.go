// Package cite finds the citations in a language model's answer and checks
// each against the code the model was shown (the pack): a citation that
// names a file or lines outside the pack is dropped from the answer and
// counted, so an answer never points a reader at code nobody retrieved.
//
// Recognised forms, each optionally wrapped in backticks or a Markdown
// link target:
//
//	path:L3-L6   path:3-6   path#L3-L6   path#L3   path:3   path
//
// A bare path counts as a citation only when it looks like a file name:
// it has an extension made of letters and digits and either a directory
// ("net/http/server.go") or a known source extension ("server.go");
// "fmt.Println" and "e.g." are not citations.
package cite

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Span is a range of a file the model was shown: Path relative to the
// indexed root with forward slashes, lines 1-based and inclusive.
type Span struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// Citation is one reference found in an answer. StartLine and EndLine are
// 1-based and inclusive; for a bare path they are the lines of that
// file's span in the pack (the first and last, when it has several).
type Citation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Text is the citation as the model wrote it.
	Text string `json:"-"`
}

// Result is what [Check] found.
type Result struct {
	// Answer is the text with every unverifiable citation replaced by
	// [Removed].
	Answer string
	// Citations holds the verified citations in order of first
	// appearance, each once.
	Citations []Citation
	// Dropped holds the citations that named a file or lines outside the
	// pack, as written, in order.
	Dropped []string
}

// Removed replaces an unverifiable citation in the answer text.
const Removed = "[citation removed: not in the retrieved code]"

// pathRe matches a path-like token: directories, a base name with an
// extension, and an optional line reference. The line part accepts
// ":L3-L6", ":3-6", ":3", "#L3-L6", "#L3" and en dashes.
var pathRe = lazyre.New(`(?:\./)?((?:[A-Za-z0-9_@+\-][A-Za-z0-9_.@+\-]*/)*[A-Za-z0-9_@+\-][A-Za-z0-9_.@+\-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?:(?::L?|#L)(\d+)(?:\s?[-–]\s?L?(\d+))?)?`)

// sourceExt lists extensions that make a bare file name without a
// directory a citation.
var sourceExt = map[string]bool{
	"go": true, "py": true, "js": true, "mjs": true, "cjs": true, "ts": true, "tsx": true, "jsx": true,
	"rs": true, "java": true, "kt": true, "kts": true, "scala": true, "c": true, "h": true, "cc": true,
	"cpp": true, "cxx": true, "hpp": true, "hh": true, "cs": true, "rb": true, "ex": true, "exs": true,
	"php": true, "swift": true, "m": true, "mm": true, "sh": true, "bash": true, "lua": true, "sql": true,
	"md": true, "json": true, "yaml": true, "yml": true, "toml": true, "proto": true, "vue": true,
	"svelte": true, "html": true, "css": true, "scss": true, "zig": true, "dart": true, "ml": true,
	"hs": true, "clj": true, "erl": true, "tf": true, "gradle": true, "mod": true, "txt": true,
}

// Check finds the citations in answer and verifies them against pack. A
// citation with lines is verified when its lines lie inside the union of
// the pack's spans of that file (touching spans join); one without lines
// when the file is in the pack. Paths are compared after dropping a
// leading "./" and with backslashes read as slashes.
func Check(answer string, pack []Span) Result {
	files := map[string][]Span{}
	for _, s := range pack {
		p := cleanPath(s.Path)
		files[p] = append(files[p], Span{Path: p, StartLine: s.StartLine, EndLine: s.EndLine})
	}
	for p, ss := range files {
		files[p] = merge(ss)
	}
	var res Result
	seen := map[Citation]bool{}
	var b strings.Builder
	last := 0
	for _, m := range pathRe().FindAllStringSubmatchIndex(answer, -1) {
		if m[0] > 0 && isWordByte(answer[m[0]-1]) {
			continue // the middle of a longer token
		}
		path := cleanPath(answer[m[2]:m[3]])
		text := answer[m[0]:m[1]]
		hasLines := m[4] >= 0
		if !hasLines && !looksLikeFile(path) {
			continue
		}
		// A sentence's full stop is not part of the path.
		spans, ok := files[path]
		var c Citation
		switch {
		case !ok:
		case hasLines:
			start, _ := strconv.Atoi(answer[m[4]:m[5]])
			end := start
			if m[6] >= 0 {
				end, _ = strconv.Atoi(answer[m[6]:m[7]])
			}
			if end < start {
				start, end = end, start
			}
			c = Citation{Path: path, StartLine: start, EndLine: end}
			ok = start >= 1 && slices.ContainsFunc(spans, func(s Span) bool { return s.StartLine <= start && end <= s.EndLine })
		default:
			c = Citation{Path: path, StartLine: spans[0].StartLine, EndLine: spans[len(spans)-1].EndLine}
		}
		if !ok {
			res.Dropped = append(res.Dropped, text)
			b.WriteString(answer[last:m[0]])
			b.WriteString(Removed)
			last = m[1]
			continue
		}
		c.Text = text
		key := c
		key.Text = ""
		if !seen[key] {
			seen[key] = true
			res.Citations = append(res.Citations, c)
		}
	}
	b.WriteString(answer[last:])
	res.Answer = b.String()
	return res
}

// looksLikeFile reports whether a bare path (no line reference) is a file
// name rather than a dotted identifier.
func looksLikeFile(p string) bool {
	ext := p[strings.LastIndexByte(p, '.')+1:]
	if strings.Contains(p, "/") {
		// "a/b.c" with a lower-case extension: a path. A dotted member
		// after a slash ("pkg/Type.Method") is not.
		return ext == strings.ToLower(ext)
	}
	return sourceExt[ext]
}

func isWordByte(c byte) bool {
	return c == '_' || c == '/' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func cleanPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// merge sorts spans by start line and joins overlapping or touching ones.
func merge(ss []Span) []Span {
	slices.SortFunc(ss, func(a, b Span) int { return a.StartLine - b.StartLine })
	out := ss[:0]
	for _, s := range ss {
		if n := len(out); n > 0 && s.StartLine <= out[n-1].EndLine+1 {
			out[n-1].EndLine = max(out[n-1].EndLine, s.EndLine)
			continue
		}
		out = append(out, s)
	}
	return out
}
