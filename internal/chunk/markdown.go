package chunk

import (
	"bytes"
)

// mdHeading is one Markdown heading: lines first..last (a setext heading
// spans its text and its underline).
type mdHeading struct {
	first, last int
	level       int
	text        string
}

// markdown chunks a Markdown file into one section per heading (ATX "## x"
// and setext "x\n---"), from the heading to the next heading of any level.
// Text before the first heading is a section without a symbol. Fenced code
// blocks and YAML front matter are not searched for headings. Sections
// longer than the definition limits are cut into windows that keep the
// heading as Symbol and get Part numbers.
func (w *walker) markdown() {
	heads := w.mdHeadings()
	type open struct {
		level int
		text  string
	}
	var stack []open
	first := w.li.count()
	if len(heads) > 0 {
		first = heads[0].first
	}
	w.windows(0, first-1, nil, KindSection)
	for i, h := range heads {
		last := w.li.count() - 1
		if i+1 < len(heads) {
			last = heads[i+1].first - 1
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		crumb := ""
		for _, o := range stack {
			crumb = joinCrumb(crumb, o.text)
		}
		stack = append(stack, open{h.level, h.text})
		m := &meta{
			kind:   KindSection,
			symbol: h.text,
			name:   h.text,
			crumb:  crumb,
			sig:    oneLine(w.src[w.li.start(h.first):w.li.end(h.last)], maxSig),
		}
		from := len(w.out)
		if w.tooBig(h.first, last) {
			w.windows(h.first, last, m, KindSection)
		} else {
			w.emit(h.first, last, m)
		}
		w.finishDef(from, m)
	}
}

// mdHeadings finds the headings of a Markdown file.
func (w *walker) mdHeadings() []mdHeading {
	var heads []mdHeading
	n := w.li.count()
	l := 0
	if t := w.li.text(0); bytes.Equal(t, []byte("---")) || bytes.Equal(t, []byte("+++")) {
		// Front matter runs to the next line of the same fence.
		for k := 1; k < n; k++ {
			if tk := w.li.text(k); bytes.Equal(tk, t) || bytes.Equal(t, []byte("---")) && bytes.Equal(tk, []byte("...")) {
				l = k + 1
				break
			}
		}
	}
	var fence byte
	fenceLen := 0
	para := -1 // first line of the paragraph being read, or -1
	for ; l < n; l++ {
		raw := w.src[w.li.start(l):w.li.end(l)]
		indent := 0
		for indent < len(raw) && raw[indent] == ' ' {
			indent++
		}
		t := w.li.text(l)
		if fence != 0 {
			if k := runOf(t, fence); k >= fenceLen && len(trimSpace(t[k:])) == 0 {
				fence = 0
			}
			continue
		}
		if len(t) == 0 {
			para = -1
			continue
		}
		if indent >= 4 || len(raw) > 0 && raw[0] == '\t' {
			continue // indented code or continuation
		}
		if k := runOf(t, '`'); k >= 3 && bytes.IndexByte(t[k:], '`') < 0 {
			fence, fenceLen, para = '`', k, -1
			continue
		}
		if k := runOf(t, '~'); k >= 3 {
			fence, fenceLen, para = '~', k, -1
			continue
		}
		if k := runOf(t, '#'); k >= 1 && k <= 6 && (k == len(t) || t[k] == ' ' || t[k] == '\t') {
			text := trimSpace(t[k:])
			// An optional closing sequence of #s after a space.
			if j := len(text) - runOfRight(text, '#'); j < len(text) && (j == 0 || text[j-1] == ' ' || text[j-1] == '\t') {
				text = trimSpace(text[:j])
			}
			heads = append(heads, mdHeading{first: l, last: l, level: k, text: capString(text, maxSig)})
			para = -1
			continue
		}
		if para >= 0 && (isUnderline(t, '=') || isUnderline(t, '-')) {
			level := 1
			if t[0] == '-' {
				level = 2
			}
			var text []byte
			for k := para; k < l; k++ {
				if len(text) > 0 {
					text = append(text, ' ')
				}
				text = append(text, w.li.text(k)...)
			}
			heads = append(heads, mdHeading{first: para, last: l, level: level, text: oneLine(text, maxSig)})
			para = -1
			continue
		}
		if isBlockStart(t) {
			para = -1 // a list item or quote interrupts the paragraph
			continue
		}
		if para < 0 {
			para = l
		}
	}
	return heads
}

// runOf counts the leading bytes of t equal to c.
func runOf(t []byte, c byte) int {
	k := 0
	for k < len(t) && t[k] == c {
		k++
	}
	return k
}

func runOfRight(t []byte, c byte) int {
	k := 0
	for k < len(t) && t[len(t)-1-k] == c {
		k++
	}
	return k
}

// isUnderline reports a setext underline: a run of c and nothing else.
func isUnderline(t []byte, c byte) bool {
	return len(t) > 0 && runOf(t, c) == len(t)
}

// isBlockStart reports lines that start a list item, quote or table row,
// whose text cannot be a setext heading.
func isBlockStart(t []byte) bool {
	switch t[0] {
	case '>', '|', '<':
		return true
	case '-', '*', '+':
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	}
	k := 0
	for k < len(t) && '0' <= t[k] && t[k] <= '9' {
		k++
	}
	return k > 0 && k < len(t) && (t[k] == '.' || t[k] == ')')
}
