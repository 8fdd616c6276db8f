package graph

import (
	"bytes"
	"unicode/utf8"
)

// syntax says how a language writes comments and string literals: all
// that the line-pattern import readers need to know to see only code.
type syntax struct {
	lineComments []string // "//", "#"
	blocks       bool     // /* ... */ comments
	nested       bool     // block comments nest (Rust, Kotlin, Scala)
	quote        quoteMode
	// spanning: a "..." string may run past the end of its line (Rust,
	// PHP, Ruby). Elsewhere an unclosed one ends with its line.
	spanning   bool
	textBlocks bool // """...""" (Java, Kotlin, Scala, C# raw strings)
	rustRaw    bool // r"...", r#"..."#, br#"..."#
	cppRaw     bool // R"delim(...)delim"
	verbatim   bool // C# @"..." ("" is a quote inside)
}

// Caps on what one import statement may take, so that junk input costs
// no more than it is long.
const (
	// maxStatement is the bytes a statement spread over several lines
	// may take before it is dropped as not one.
	maxStatement = 4096
	// maxUseLeaves is the names one grouped statement (Rust use, PHP
	// group use) expands to at most.
	maxUseLeaves = 64
)

// The syntaxes of the languages whose imports are read by line patterns.
var (
	javaSyntax   = &syntax{lineComments: []string{"//"}, blocks: true, quote: quoteChar, textBlocks: true}
	kotlinSyntax = &syntax{lineComments: []string{"//"}, blocks: true, nested: true, quote: quoteChar, textBlocks: true} // Scala's too
	rustSyntax   = &syntax{lineComments: []string{"//"}, blocks: true, nested: true, quote: quoteRust, spanning: true, rustRaw: true}
	cSyntax      = &syntax{lineComments: []string{"//"}, blocks: true, quote: quoteChar, cppRaw: true} // C++'s too
	csSyntax     = &syntax{lineComments: []string{"//"}, blocks: true, quote: quoteChar, verbatim: true, textBlocks: true}
	rubySyntax   = &syntax{lineComments: []string{"#"}, quote: quoteString}
	phpSyntax    = &syntax{lineComments: []string{"//", "#"}, blocks: true, quote: quoteString}
)

// quoteMode is what a single quote starts.
type quoteMode uint8

const (
	quoteChar   quoteMode = iota // a character literal, closed on its line (C, Java, C#)
	quoteRust                    // a character literal or, when it is not one, a lifetime
	quoteString                  // a string like "..." (PHP, Ruby)
)

// lexer carries a [syntax]'s comment and string state from one line to
// the next.
type lexer struct {
	syn   *syntax
	depth int // open block comments
	// A string that runs past the end of its line: its closing
	// delimiter, whether backslash escapes in it, and whether "" is a
	// quote in it (C# verbatim).
	closer  []byte
	escapes bool
	doubled bool
	// special marks the bytes that may start a comment, string or brace
	// in this syntax; runs of other bytes are copied whole.
	special [256]bool
}

func newLexer(syn *syntax) *lexer {
	lx := &lexer{syn: syn}
	for _, c := range []byte("{}\"'") {
		lx.special[c] = true
	}
	for _, p := range syn.lineComments {
		lx.special[p[0]] = true
	}
	if syn.blocks {
		lx.special['/'] = true
	}
	var raw string
	switch {
	case syn.rustRaw:
		raw = "rb"
	case syn.cppRaw:
		raw = "RuUL"
	case syn.verbatim:
		raw = "@$"
	}
	for _, c := range []byte(raw) {
		lx.special[c] = true
	}
	return lx
}

// scanLines calls fn with each line of src (1-based) as code: comments
// become one space, and the part of a string that began on an earlier
// line is left out; strings opened on the line are kept whole, so
// patterns can read literal paths. braces is the line's count of code
// '{' minus '}'. The slice is reused after fn returns. scanLines stops
// when fn returns false.
func scanLines(src []byte, syn *syntax, fn func(n int, code []byte, braces int) bool) {
	lx := newLexer(syn)
	src = bytes.TrimPrefix(src, utf8BOM)
	var buf []byte
	for n := 1; len(src) > 0; n++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		var braces int
		buf, braces = lx.line(line, buf[:0])
		if !fn(n, buf, braces) {
			return
		}
	}
}

// line appends the code of one line to out.
func (lx *lexer) line(s, out []byte) ([]byte, int) {
	syn := lx.syn
	braces := 0
	i := 0
	if lx.closer != nil { // inside a string from an earlier line
		j := lx.endString(s, 0)
		if j < 0 {
			return out, 0
		}
		i = j
	}
	for i < len(s) {
		if lx.depth == 0 && !lx.special[s[i]] {
			j := i + 1
			for j < len(s) && !lx.special[s[j]] {
				j++
			}
			out = append(out, s[i:j]...)
			i = j
			continue
		}
		if lx.depth > 0 {
			k := -1
			if syn.nested {
				k = bytes.IndexAny(s[i:], "*/")
			} else {
				k = bytes.IndexByte(s[i:], '*')
			}
			if k < 0 {
				break
			}
			i += k
		}
		c := s[i]
		if lx.depth > 0 {
			switch {
			case c == '*' && i+1 < len(s) && s[i+1] == '/':
				lx.depth--
				i += 2
				if lx.depth == 0 {
					out = append(out, ' ')
				}
			case syn.nested && c == '/' && i+1 < len(s) && s[i+1] == '*':
				lx.depth++
				i += 2
			default:
				i++
			}
			continue
		}
		if syn.blocks && c == '/' && i+1 < len(s) && s[i+1] == '*' {
			lx.depth = 1
			i += 2
			continue
		}
		if lx.lineComment(s, i) {
			return append(out, ' '), braces
		}
		switch c {
		case '{':
			braces++
		case '}':
			braces--
		case '"':
			start := i
			j := lx.endString(s, i+lx.openString(s, i))
			if j < 0 {
				if !syn.spanning && !lx.rawOpen() {
					lx.closer = nil // an unclosed "..." ends with its line
				}
				return append(out, s[start:]...), braces
			}
			out = append(out, s[start:j]...)
			i = j
			continue
		case '\'':
			if j := lx.quote(s, i); j > i {
				out = append(out, s[i:j]...)
				i = j
				continue
			}
		case 'r', 'b', 'R', 'u', 'U', 'L', '@', '$':
			if j, ok := lx.rawString(s, i); ok {
				if j < 0 {
					return append(out, s[i:]...), braces
				}
				out = append(out, s[i:j]...)
				i = j
				continue
			}
		}
		out = append(out, c)
		i++
	}
	return out, braces
}

func (lx *lexer) lineComment(s []byte, i int) bool {
	for _, p := range lx.syn.lineComments {
		if len(s)-i >= len(p) && string(s[i:i+len(p)]) == p {
			return true
		}
	}
	return false
}

var (
	utf8BOM          = []byte("\ufeff")
	dquote           = []byte(`"`)
	squote           = []byte(`'`)
	textBlock        = []byte(`"""`)
	cppRawPrefixes   = [][]byte{[]byte(`u8R"`), []byte(`uR"`), []byte(`UR"`), []byte(`LR"`), []byte(`R"`)}
	verbatimPrefixes = [][]byte{[]byte(`@"`), []byte(`$@"`), []byte(`@$"`)}
)

// openString opens the plain or text-block string at s[i] and returns
// the length of its opening delimiter.
func (lx *lexer) openString(s []byte, i int) int {
	lx.escapes, lx.doubled = true, false
	if lx.syn.textBlocks && bytes.HasPrefix(s[i:], textBlock) {
		lx.closer = textBlock
		return 3
	}
	lx.closer = dquote
	return 1
}

// rawOpen reports whether the open string may span lines whatever the
// language's plain strings do: text blocks and raw strings.
func (lx *lexer) rawOpen() bool {
	return len(lx.closer) > 1 || !lx.escapes
}

// endString returns the index just past the closer of the open string,
// searching from i, or -1 when the line ends first.
func (lx *lexer) endString(s []byte, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '\\' && lx.escapes {
			i += 2
			continue
		}
		if c == lx.closer[0] && bytes.HasPrefix(s[i:], lx.closer) {
			if lx.doubled && i+1 < len(s) && s[i+1] == '"' {
				i += 2
				continue
			}
			n := len(lx.closer)
			lx.closer = nil
			return i + n
		}
		i++
	}
	return -1
}

// quote handles a single quote at s[i] and returns the index just past
// the literal it starts, or i when it starts none (a Rust lifetime).
func (lx *lexer) quote(s []byte, i int) int {
	switch lx.syn.quote {
	case quoteString:
		lx.closer, lx.escapes, lx.doubled = squote, true, false
		j := lx.endString(s, i+1)
		if j < 0 {
			if !lx.syn.spanning {
				lx.closer = nil
			}
			return len(s)
		}
		return j
	case quoteRust:
		// 'x', '\n', '\u{..}': a literal; 'a (a lifetime or label): not.
		if i+2 < len(s) && s[i+1] == '\\' { // the escaped character may be a quote
			if k := bytes.IndexByte(s[i+3:], '\''); k >= 0 && k < 12 {
				return i + 3 + k + 1
			}
			return i
		}
		_, size := utf8.DecodeRune(s[i+1:])
		if size > 0 && i+1+size < len(s) && s[i+1+size] == '\'' {
			return i + 1 + size + 1
		}
		return i
	}
	// A character literal, closed on its line.
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\'':
			return j + 1
		}
	}
	return len(s)
}

// rawString handles a raw or verbatim string starting at s[i]: it
// returns the index just past it (-1 when it runs past the line) and
// true, or false when s[i] starts none.
func (lx *lexer) rawString(s []byte, i int) (int, bool) {
	syn := lx.syn
	if i > 0 && isIdent(s[i-1]) {
		return 0, false
	}
	j := i
	var closer []byte
	switch {
	case syn.rustRaw:
		if s[j] == 'b' {
			j++
		}
		if j >= len(s) || s[j] != 'r' {
			return 0, false
		}
		j++
		h := j
		for j < len(s) && s[j] == '#' {
			j++
		}
		if j >= len(s) || s[j] != '"' {
			return 0, false
		}
		closer = append([]byte{'"'}, s[h:j]...)
		j++
	case syn.cppRaw:
		for _, p := range cppRawPrefixes {
			if bytes.HasPrefix(s[j:], p) {
				j += len(p)
				k := bytes.IndexByte(s[j:], '(')
				if k < 0 || k > 16 {
					return 0, false
				}
				closer = append(append([]byte{')'}, s[j:j+k]...), '"')
				j += k + 1
				break
			}
		}
		if closer == nil {
			return 0, false
		}
	case syn.verbatim:
		for _, p := range verbatimPrefixes {
			if bytes.HasPrefix(s[j:], p) {
				j += len(p)
				closer = dquote
				break
			}
		}
		if closer == nil {
			return 0, false
		}
		lx.closer, lx.escapes, lx.doubled = closer, false, true
		return lx.endString(s, j), true
	default:
		return 0, false
	}
	lx.closer, lx.escapes, lx.doubled = closer, false, false
	return lx.endString(s, j), true
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
