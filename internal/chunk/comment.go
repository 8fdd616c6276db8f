package chunk

import (
	"bytes"
	"slices"
	"strings"
)

// Caps on the strings taken from the source: names, signatures (and how
// much source a signature is built from) and doc text.
const (
	maxName    = 200
	maxSig     = 200
	maxSigScan = 2048
	maxDoc     = 4096
)

// isLineComment reports whether the trimmed line t is a line comment that
// may document the definition below it.
func (w *walker) isLineComment(t []byte) bool {
	s := w.spec
	for _, p := range s.notDoc {
		if bytes.HasPrefix(t, []byte(p)) {
			return false
		}
	}
	for _, p := range s.lineComments {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

// blockOpensAt reports whether the trimmed line t starts a block comment.
func (w *walker) blockOpensAt(t []byte) bool {
	s := w.spec
	if s.blockStart == "" || !bytes.HasPrefix(t, []byte(s.blockStart)) {
		return false
	}
	for _, p := range s.notDoc {
		if bytes.HasPrefix(t, []byte(p)) {
			return false
		}
	}
	return true
}

// scanDocUp returns the first line of the comment block that ends on line
// l, directly above a definition, without climbing above floor. It returns
// l+1 when line l is not a comment.
func (w *walker) scanDocUp(l, floor int) int {
	top := l + 1
	s := w.spec
	if s.docGap {
		// A JSDoc block one or two blank lines above still documents it.
		k := l
		for k >= floor && l-k < maxDocGap && len(w.li.text(k)) == 0 {
			k--
		}
		if k < l && k >= floor && w.jsDocEndsAt(k, floor) {
			l = k
		}
	}
	for l >= floor {
		t := w.li.text(l)
		if len(t) == 0 {
			break
		}
		if s.blockEnd != "" && bytes.HasSuffix(t, []byte(s.blockEnd)) {
			k, ok := l, false
			for k >= floor {
				tk := w.li.text(k)
				if i := bytes.Index(tk, []byte(s.blockStart)); i >= 0 {
					ok = i == 0 && w.blockOpensAt(tk)
					break
				}
				k--
			}
			if ok {
				top, l = k, k-1
				continue
			}
		}
		if w.isLineComment(t) {
			top, l = l, l-1
			continue
		}
		break
	}
	return top
}

// maxDocGap is the most blank lines between a JSDoc block and the
// definition it documents.
const maxDocGap = 2

// jsDocEndsAt reports whether line l ends a "/**" block that starts at
// or after floor and reads as a definition's documentation, not a file
// header (no licence, copyright or @file/@module tag).
func (w *walker) jsDocEndsAt(l, floor int) bool {
	if !bytes.HasSuffix(w.li.text(l), []byte("*/")) {
		return false
	}
	for k := l; k >= floor; k-- {
		t := w.li.text(k)
		low := bytes.ToLower(t)
		for _, h := range []string{"copyright", "@license", "@file", "@fileoverview", "@module", "@packagedocumentation"} {
			if bytes.Contains(low, []byte(h)) {
				return false
			}
		}
		if bytes.HasPrefix(t, []byte("/*")) {
			return bytes.HasPrefix(t, []byte("/**")) && !bytes.HasPrefix(t, []byte("/**/"))
		}
		if len(t) == 0 {
			return false
		}
	}
	return false
}

// scanDocDown returns the first line at or after l (and at most limit+1)
// that is not part of a comment.
func (w *walker) scanDocDown(l, limit int) int {
	s := w.spec
	for l <= limit {
		t := w.li.text(l)
		if w.blockOpensAt(t) {
			rest := t[len(s.blockStart):]
			k := l
			for {
				if i := bytes.Index(rest, []byte(s.blockEnd)); i >= 0 {
					if len(trimSpace(rest[i+len(s.blockEnd):])) != 0 {
						return l // code follows the comment on its last line
					}
					break
				}
				k++
				if k > limit {
					return l
				}
				rest = w.li.text(k)
			}
			l = k + 1
			continue
		}
		if len(t) > 0 && w.isLineComment(t) {
			l++
			continue
		}
		break
	}
	return l
}

// lastHard returns the last line of first..last that is not part of a
// trailing comment block.
func (w *walker) lastHard(first, last int) int {
	if last <= first {
		return last
	}
	top := w.scanDocUp(last, first+1)
	if top <= last {
		return top - 1
	}
	return last
}

// docText strips the comment markers from lines first..last.
func (w *walker) docText(first, last int) string {
	b := w.buf[:0]
	goDirectives := w.spec.id == "go"
	for l := first; l <= last; l++ {
		t := w.li.text(l)
		if goDirectives && isGoDirective(t) {
			continue
		}
		t = stripMarkers(t)
		if len(b) == 0 && len(t) == 0 {
			continue
		}
		b = append(b, t...)
		b = append(b, '\n')
		if len(b) > maxDoc {
			break
		}
	}
	w.buf = b
	return capString(bytes.TrimRight(b, " \t\n"), maxDoc)
}

// stripMarkers removes comment syntax from one trimmed comment line.
func stripMarkers(t []byte) []byte {
	t = bytes.TrimSuffix(t, []byte("*/"))
	switch {
	case bytes.HasPrefix(t, []byte("/*")):
		t = bytes.TrimLeft(t[2:], "*!")
	case bytes.HasPrefix(t, []byte("//")):
		t = bytes.TrimLeft(t, "/")
		t = bytes.TrimPrefix(t, []byte("!"))
	case bytes.HasPrefix(t, []byte("--")):
		t = bytes.TrimLeft(t, "-")
		t = bytes.TrimPrefix(t, []byte("[["))
		t = bytes.TrimSuffix(t, []byte("]]"))
	case bytes.HasPrefix(t, []byte("#")):
		t = bytes.TrimLeft(t, "#")
	case bytes.HasPrefix(t, []byte("*")):
		t = t[1:]
	}
	t = bytes.TrimPrefix(t, []byte(" "))
	return bytes.TrimRight(t, " \t")
}

// isGoDirective reports a //go:generate-style line, which go/doc also
// leaves out of doc text.
func isGoDirective(t []byte) bool {
	if !bytes.HasPrefix(t, []byte("//")) {
		return false
	}
	t = t[2:]
	if bytes.HasPrefix(t, []byte("line ")) || bytes.HasPrefix(t, []byte("export ")) || bytes.HasPrefix(t, []byte("extern ")) {
		return true
	}
	i := 0
	for i < len(t) && ('a' <= t[i] && t[i] <= 'z' || '0' <= t[i] && t[i] <= '9') {
		i++
	}
	return i > 0 && i+1 < len(t) && t[i] == ':' && 'a' <= t[i+1] && t[i+1] <= 'z'
}

// signature returns the definition's header on one line: from the start of
// its node (past any doc comment inside the node) to the start of its body,
// or its first line when it has no body. Comment lines inside the header
// are left out.
func (w *walker) signature(d def) string {
	first, _ := w.nodeSpan(d.node)
	if first < 0 {
		return ""
	}
	end := len(w.src)
	if e := int(d.node.EndByte()); e < end {
		end = e
	}
	s := max(int(d.node.StartByte()), w.li.start(first))
	for s < end && isSpace(w.src[s]) {
		s++
	}
	if hl := w.scanDocDown(first, min(first+64, w.li.count()-1)); hl > first && hl < w.li.count() {
		s = max(s, w.li.start(hl))
	}
	line := w.li.lineOf(s)
	e := w.li.end(line)
	if d.body != nil {
		if b := int(d.body.StartByte()); b > s {
			e = b
		}
	}
	e = min(e, end, s+maxSigScan)
	b := w.buf[:0]
	for s < e {
		l := w.li.lineOf(s)
		le := min(w.li.end(l), e)
		if seg := w.src[s:le]; !w.isLineComment(trimSpace(seg)) {
			b = append(b, seg...)
			b = append(b, ' ')
		}
		s = le
	}
	w.buf = b
	sig := oneLine(b, maxSig+8)
	// Drop what opens the body: "{", ":", "=", "=>", " do", and a
	// one-liner's "; end".
	for changed := true; changed; {
		changed = false
		for _, suf := range sigSuffixes {
			if suf == "end" && (!slices.Contains(w.spec.closers, "end") ||
				len(sig) < 4 || sig[len(sig)-4] != ' ' && sig[len(sig)-4] != ';') {
				continue // only a whole word "end" closes a one-liner
			}
			if t := strings.TrimSuffix(sig, suf); len(t) < len(sig) && len(t) > 0 {
				sig, changed = strings.TrimSpace(t), true
			}
		}
	}
	if d.sigPrefix != "" {
		sig = d.sigPrefix + sig
	}
	return capString([]byte(sig), maxSig)
}

var sigSuffixes = []string{";", "{", ":", "=", "=>", "(", " do", "end"}

// unquote strips string delimiters (Python prefixes and triple quotes,
// Elixir heredocs and sigils) and the common indentation from a docstring.
func unquote(s string) string {
	s = strings.TrimLeft(s, "rRuUbBfF~sS")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	lines := strings.Split(s, "\n")
	indent := -1
	for i, l := range lines {
		if i == 0 || strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if i == 0 {
			l = strings.TrimSpace(l)
		} else if indent > 0 && len(l) >= indent {
			l = l[indent:]
		}
		lines[i] = l
	}
	return capString([]byte(strings.Trim(strings.Join(lines, "\n"), "\n")), maxDoc)
}

func indexBytes(t []byte, p string) int { return bytes.Index(t, []byte(p)) }

func trimSpace(t []byte) []byte { return bytes.TrimFunc(t, isSpaceRune) }

func trimPunct(t []byte) []byte { return bytes.Trim(t, "}); \t,") }
