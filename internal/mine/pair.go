package mine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Pair kinds.
const (
	PairDoc     = "doc"     // doc comment or docstring → the definition without it
	PairName    = "name"    // split symbol name and breadcrumb → the definition's body
	PairComment = "comment" // a comment inside a body → the statements after it
)

// Pair is one record of the mined data set, written as one JSON line.
type Pair struct {
	Query  string `json:"query"`
	Code   string `json:"code"`
	Kind   string `json:"kind"`
	Lang   string `json:"lang"`
	Source string `json:"source"`
	Path   string `json:"path"`
	Split  string `json:"split"`

	// Symbol is the name of the definition the pair was mined from, and
	// StartLine and EndLine (1-based, inclusive) the lines of the code it
	// pairs with: the definition for doc and name pairs, the block after
	// the comment for comment pairs. They are not written to [PairsFile];
	// ctx eval uses them as the answer a query should find.
	Symbol    string `json:"-"`
	StartLine int    `json:"-"`
	EndLine   int    `json:"-"`

	line int // start line of the chunk in the file, for ordering
}

// limits are the length caps applied to every pair.
type limits struct {
	query, code int
}

// Minimum sizes of a pair worth keeping.
const (
	minQueryWords  = 3 // doc and comment queries
	minNameWords   = 2 // name queries, breadcrumb included
	minCodeBytes   = 12
	maxCommentCode = 15 // lines after a comment taken as what it describes
)

// definitionKinds are the chunk kinds that make pairs.
var definitionKinds = map[chunk.Kind]bool{
	chunk.KindFunction: true, chunk.KindMethod: true, chunk.KindClass: true, chunk.KindStruct: true,
	chunk.KindInterface: true, chunk.KindTrait: true, chunk.KindEnum: true, chunk.KindType: true,
	chunk.KindImpl: true, chunk.KindModule: true, chunk.KindConst: true, chunk.KindVar: true,
	chunk.KindMacro: true,
}

// pairs returns the pairs of one chunk of a file of language lang, and
// counts the ones it drops in drops.
func pairs(c chunk.Chunk, lang string, src []byte, lim limits, drops map[string]int) []Pair {
	if !definitionKinds[c.Kind] || c.Part > 1 {
		return nil
	}
	lines := strings.SplitAfter(string(src[c.StartByte:c.EndByte]), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	syn := syntaxOf(lang)
	def := trimOuter(stripDoc(lines, syn, c.Doc != ""), syn)
	var out []Pair
	add := func(kind, q string, code []string, start, end int) {
		q = capQuery(q, lim.query)
		s, ok := capCode(dedent(code), lim.code)
		switch {
		case !ok || len(strings.TrimSpace(s)) < minCodeBytes:
			drops["short-or-long-code"]++
		default:
			out = append(out, Pair{Query: q, Code: s, Kind: kind, Lang: lang, Symbol: c.Name, StartLine: start, EndLine: end, line: c.StartLine})
		}
	}
	if c.Doc != "" {
		if q, why := docQuery(c.Doc); why != "" {
			drops[why]++
		} else {
			add(PairDoc, q, def, c.StartLine, c.EndLine)
		}
	}
	if c.Name != "" && c.Kind != chunk.KindConst && c.Kind != chunk.KindVar && c.Kind != chunk.KindMacro {
		q := nameQuery(c.Name, c.Breadcrumb)
		if len(strings.Fields(q)) < minNameWords {
			drops["short-name"]++
		} else if body := bodyOf(def, c.Name, syn); len(body) > 0 {
			add(PairName, q, body, c.StartLine, c.EndLine)
		}
	}
	if c.Kind == chunk.KindFunction || c.Kind == chunk.KindMethod {
		for _, cp := range commentPairs(bodyOf(def, c.Name, syn), syn, drops) {
			start, end := c.StartLine, c.EndLine
			if i := blockIndex(lines, cp); i >= 0 {
				start, end = c.StartLine+i, c.StartLine+i+len(cp.code)-1
			}
			add(PairComment, cp.query, cp.code, start, end)
		}
	}
	return out
}

// syntax is what the text-level rules need to know of a language.
type syntax struct {
	line      []string // line-comment markers
	block     bool     // C-style /* */ comments
	docstring bool     // Python docstrings
	colon     bool     // headers end with ':'
	end       string   // a line closing a body: "}" or "end"
	attrDoc   bool     // Elixir @moduledoc after a module's header
}

func syntaxOf(lang string) syntax {
	switch lang {
	case discover.LangPython:
		return syntax{line: []string{"#"}, docstring: true, colon: true}
	case discover.LangRuby:
		return syntax{line: []string{"#"}, end: "end"}
	case discover.LangElixir:
		return syntax{line: []string{"#"}, end: "end", attrDoc: true}
	case discover.LangBash:
		return syntax{line: []string{"#"}, end: "}"}
	case discover.LangLua:
		return syntax{line: []string{"--"}, end: "end"}
	case discover.LangPHP:
		return syntax{line: []string{"//", "#"}, block: true, end: "}"}
	}
	return syntax{line: []string{"//"}, block: true, end: "}"}
}

func (s syntax) isComment(t string) bool {
	for _, m := range s.line {
		if strings.HasPrefix(t, m) && !strings.HasPrefix(t, "#[") && !strings.HasPrefix(t, "#!") {
			return true
		}
	}
	return s.block && (strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*"))
}

// stripComment removes the marker of a comment line.
func (s syntax) stripComment(t string) string {
	for _, m := range append([]string{"/**", "/*", "*/", "*"}, s.line...) {
		if strings.HasPrefix(t, m) {
			t = t[len(m):]
			break
		}
	}
	t = strings.TrimSuffix(strings.TrimSpace(t), "*/")
	return strings.TrimSpace(strings.TrimLeft(t, "/#!-"))
}

// stripDoc returns the definition's lines without its doc: the comment
// lines above it (or an Elixir @doc), and a Python docstring after the
// header.
func stripDoc(lines []string, syn syntax, hasDoc bool) []string {
	if !hasDoc {
		return lines
	}
	i := 0
	for i < len(lines) {
		t := strings.TrimSpace(lines[i])
		switch {
		case syn.block && strings.HasPrefix(t, "/*"):
			// A block comment's inner lines need not start with '*'.
			if !strings.Contains(t[2:], "*/") {
				for i++; i < len(lines) && !strings.Contains(lines[i], "*/"); i++ {
				}
			}
			i = min(i+1, len(lines))
			continue
		case t == "" || syn.isComment(t):
			i++
			continue
		case strings.HasPrefix(t, "@doc") || strings.HasPrefix(t, "@moduledoc"):
			i = skipTriple(lines, i, `"""`)
			continue
		}
		break
	}
	lines = lines[i:]
	if syn.attrDoc {
		return stripAttrDoc(lines)
	}
	if !syn.docstring {
		return lines
	}
	h := headerEnd(lines, syn)
	if h < 0 {
		return lines
	}
	j := h + 1
	for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
		j++
	}
	if j >= len(lines) {
		return lines
	}
	t := strings.TrimLeft(strings.TrimSpace(lines[j]), "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(t, q) {
			k := skipTriple(lines, j, q)
			return append(append([]string(nil), lines[:j]...), lines[k:]...)
		}
	}
	return lines
}

// stripAttrDoc removes an Elixir @moduledoc (a heredoc, a string or
// false) that follows a definition's first line: the chunker reads it as
// the module's doc, so it must not stay in the code.
func stripAttrDoc(lines []string) []string {
	j := 1
	for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
		j++
	}
	if len(lines) == 0 || j >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[j]), "@moduledoc") {
		return lines
	}
	k := skipTriple(lines, j, `"""`)
	return append(append([]string(nil), lines[:1]...), lines[k:]...)
}

// trimOuter drops the lines at the end of a definition that are indented
// less than its header: the closing "}" or "end" of an enclosing class or
// module that the chunker gives to its last member.
func trimOuter(lines []string, syn syntax) []string {
	ind := -1
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !syn.isComment(t) {
			ind = indentOf(l)
			break
		}
	}
	if ind <= 0 {
		return lines
	}
	n := len(lines)
	for n > 0 && (strings.TrimSpace(lines[n-1]) == "" || indentOf(lines[n-1]) < ind) {
		n--
	}
	return lines[:n]
}

// skipTriple returns the index of the line after the string that opens
// with quote q on line i.
func skipTriple(lines []string, i int, q string) int {
	first := lines[i]
	k := strings.Index(first, q)
	if k >= 0 && strings.Contains(first[k+len(q):], q) {
		return i + 1
	}
	if k < 0 {
		return i + 1
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.Contains(lines[j], q) {
			return j + 1
		}
	}
	return len(lines)
}

// headerEnd returns the index of the line that ends a definition's
// header: the first line ending with '{' (or ':' in Python), else the
// first non-decorator line; -1 for no lines.
func headerEnd(lines []string, syn syntax) int {
	first := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || syn.isComment(t) || (first < 0 && (strings.HasPrefix(t, "@") || strings.HasPrefix(t, "#["))) {
			continue
		}
		if first < 0 {
			first = i
		}
		if i-first > 8 {
			break
		}
		if syn.colon {
			if c, _, _ := strings.Cut(t, " #"); strings.HasSuffix(strings.TrimSpace(c), ":") {
				return i
			}
			continue
		}
		if strings.HasSuffix(t, "{") || strings.HasSuffix(t, "{{") {
			return i
		}
		if syn.end == "end" && i == first {
			return i
		}
	}
	return first
}

// bodyOf returns the lines of a definition after its header, without a
// closing "}" or "end" line.
func bodyOf(def []string, name string, syn syntax) []string {
	h := headerEnd(def, syn)
	if h < 0 || h+1 >= len(def) {
		return nil
	}
	body := def[h+1:]
	if n := len(body); n > 0 {
		if t := strings.TrimSpace(body[n-1]); t == syn.end || t == "};" || t == "})" || t == "}" {
			body = body[:n-1]
		}
	}
	return body
}

type commentPair struct {
	query string
	code  []string
	last  string // the comment's last line, as in the chunk
}

// blockIndex returns the index in lines (a chunk's) of the first line of
// cp's code, found as the line after cp's last comment line; -1 when it
// is not there.
func blockIndex(lines []string, cp commentPair) int {
	for i := 1; i < len(lines); i++ {
		if lines[i] == cp.code[0] && lines[i-1] == cp.last {
			return i
		}
	}
	return -1
}

// commentPairs finds the comments inside a body and the statements each
// describes: the lines after it up to a blank line, a line indented less
// than the comment, or the next comment at its indent.
func commentPairs(body []string, syn syntax, drops map[string]int) []commentPair {
	var out []commentPair
	for i := 0; i < len(body); {
		t := strings.TrimSpace(body[i])
		if t == "" || !syn.isComment(t) || (syn.block && strings.HasPrefix(t, "*")) {
			i++
			continue
		}
		ind := indentOf(body[i])
		var words []string
		j := i
		for j < len(body) {
			u := strings.TrimSpace(body[j])
			if u == "" || !syn.isComment(u) || indentOf(body[j]) != ind {
				break
			}
			words = append(words, syn.stripComment(u))
			j++
		}
		i = j
		k := j
		for k < len(body) && k-j < maxCommentCode {
			u := strings.TrimSpace(body[k])
			if u == "" || indentOf(body[k]) < ind || (k > j && syn.isComment(u) && indentOf(body[k]) == ind) {
				break
			}
			if k == j && syn.isComment(u) {
				break
			}
			k++
		}
		if k == j {
			continue
		}
		q := strings.Join(strings.Fields(strings.Join(words, " ")), " ")
		if why := trivialText(q); why != "" {
			drops["comment-"+why]++
			continue
		}
		if codeLike(q) {
			drops["comment-code"]++
			continue
		}
		out = append(out, commentPair{query: q, code: body[j:k], last: body[j-1]})
	}
	return out
}

func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// docQuery turns a doc comment into a query: its first paragraph with
// tag lines (@param, :param, Args:) left out, whitespace collapsed. why
// is non-empty when the doc is not worth a pair.
//
// Markup is reduced to its text: Javadoc and JSDoc inline tags ({@link
// Foo#bar} → Foo.bar), HTML and C# XML doc tags, entities, Markdown and
// rustdoc/KDoc links ([`Vec`] → Vec) and backquotes. A gtk-doc symbol
// header ("g_list_append:" and its "@param:" lines) and a Ruby "call-seq:"
// block are skipped to reach the prose after them; a Doxygen "@brief" or
// "\brief" prefix is dropped.
func docQuery(doc string) (q, why string) {
	var para []string
	skip := false // inside a gtk-doc header or call-seq block
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if len(para) == 0 {
			for _, p := range []string{"@brief ", "\\brief ", "@short ", "@summary ", "@description "} {
				t = strings.TrimSpace(strings.TrimPrefix(t, p))
			}
			if gtkDocHeader().MatchString(t) || strings.HasPrefix(t, "call-seq:") {
				skip = true
				continue
			}
		}
		if skip {
			skip = t != ""
			continue
		}
		if docBreak(t) {
			if len(para) > 0 {
				break
			}
			continue
		}
		t = cleanDocText(t)
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	q = strings.Join(strings.Fields(strings.Join(para, " ")), " ")
	if why := trivialText(q); why != "" {
		return "", "doc-" + why
	}
	return q, ""
}

// gtkDocHeader matches the symbol line that opens a gtk-doc comment:
// "g_list_append:", "GtkWidget::show:", "SECTION:glist".
var gtkDocHeader = lazyre.New(`^(SECTION:)?[A-Za-z_][A-Za-z0-9_:.-]*:$`)

// docBreak reports whether the doc line t ends the summary paragraph: a
// tag line (@param, :param, \param, <param>, Since:), a section heading,
// an HTML block or a code example.
func docBreak(t string) bool {
	if strings.HasPrefix(t, "@") || strings.HasPrefix(t, "\\") || strings.HasPrefix(t, ":param") || strings.HasPrefix(t, ":return") ||
		strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "## ") || strings.HasPrefix(t, "iex>") || strings.HasPrefix(t, "```") ||
		strings.HasPrefix(t, ">>>") {
		return true
	}
	switch t {
	case "Args:", "Arguments:", "Returns:", "Return:", "Parameters", "Parameters:", "Example:", "Examples:", "Example", "Examples", "Raises:":
		return true
	}
	for _, p := range []string{"Since:", "Returns:", "Return value:", "Deprecated:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	lt := strings.ToLower(t)
	for _, p := range []string{"<p>", "<p ", "<pre", "<ul", "<ol", "<table", "<blockquote", "<h", "<param", "<returns", "<remarks",
		"<exception", "<example", "<typeparam", "<value", "<seealso", "<dl"} {
		if strings.HasPrefix(lt, p) {
			return true
		}
	}
	return false
}

var (
	inlineTag   = lazyre.New(`\{@(\w+)\s*([^}]*)\}`)
	xmlRef      = lazyre.New(`<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword)="(?:[A-Z]:)?([^"]*)"\s*/?>`)
	htmlTag     = lazyre.New(`</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>`)
	mdLink      = lazyre.New(`\[([^\[\]]+)\](?:\([^()\s]*\)|\[[^\[\]]*\])`)
	intraLink   = lazyre.New("\\[(`?[A-Za-z_][A-Za-z0-9_.:#<>!]*(?:\\(\\))?`?)\\]")
	htmlEntity  = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ", "`", "", "**", "")
	inheritDocs = map[string]bool{"inheritdoc": true, "inheritDoc": true}
)

// cleanDocText reduces the markup of one doc line to its text.
func cleanDocText(t string) string {
	t = inlineTag().ReplaceAllStringFunc(t, func(m string) string {
		sm := inlineTag().FindStringSubmatch(m)
		tag, body := sm[1], strings.TrimSpace(sm[2])
		if inheritDocs[tag] {
			return ""
		}
		if tag == "link" || tag == "linkplain" || tag == "see" {
			if _, label, ok := strings.Cut(body, " "); ok && strings.TrimSpace(label) != "" {
				return strings.TrimSpace(label)
			}
			body = strings.TrimPrefix(strings.ReplaceAll(body, "#", "."), ".")
		}
		return body
	})
	t = xmlRef().ReplaceAllString(t, "$1")
	t = htmlTag().ReplaceAllString(t, "")
	t = mdLink().ReplaceAllString(t, "$1")
	t = intraLink().ReplaceAllString(t, "$1")
	t = htmlEntity.Replace(t)
	return strings.TrimSpace(t)
}

// trivialText reports why a doc or comment makes no query: too few words,
// a TODO, a licence header, a generated-code marker, or mostly not words.
func trivialText(q string) string {
	l := strings.ToLower(q)
	switch {
	case len(strings.Fields(q)) < minQueryWords:
		return "short"
	case strings.HasPrefix(l, "todo") || strings.HasPrefix(l, "fixme") || strings.HasPrefix(l, "xxx") || strings.HasPrefix(l, "hack"):
		return "todo"
	case strings.Contains(l, "copyright") || strings.Contains(l, "license") || strings.Contains(l, "licence") ||
		strings.Contains(l, "spdx-") || strings.Contains(l, "all rights reserved"):
		return "licence"
	case strings.Contains(l, "code generated") || strings.Contains(l, "do not edit") || strings.Contains(l, "auto-generated") ||
		strings.Contains(l, "autogenerated") || strings.Contains(l, "generated by"):
		return "generated"
	case strings.HasPrefix(l, "nolint") || strings.HasPrefix(l, "noqa") || strings.HasPrefix(l, "eslint") ||
		strings.HasPrefix(l, "pylint:") || strings.HasPrefix(l, "type: ignore") || strings.HasPrefix(l, "go:") || strings.HasPrefix(l, "+build"):
		return "directive"
	}
	letters := 0
	for _, r := range q {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	if letters*2 < utf8.RuneCountInString(q) {
		return "symbols"
	}
	return ""
}

// codeLike reports whether a comment is most likely commented-out code.
func codeLike(q string) bool {
	if strings.ContainsAny(q[len(q)-1:], ";{}(=,") {
		return true
	}
	for _, s := range []string{":=", "==", "&&", "||", "->", "=>", "();", "!=", "+="} {
		if strings.Contains(q, s) {
			return true
		}
	}
	return false
}

// nameQuery is the split name, lower case, with the breadcrumb in
// parentheses: "read mime header (Reader)".
func nameQuery(name, breadcrumb string) string {
	q := strings.Join(SplitIdent(name), " ")
	if b := strings.TrimSpace(strings.Trim(breadcrumb, "*& ")); b != "" {
		q += " (" + b + ")"
	}
	return q
}

// SplitIdent splits an identifier into lower-case words at underscores,
// hyphens, dots, digits-to-letters and case changes, keeping acronyms
// whole: "ReadMIMEHeader" → [read mime header], "__init__" → [init],
// "parse_http2Frame" → [parse http2 frame].
func SplitIdent(s string) []string {
	var words []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		case unicode.IsLetter(r) && unicode.IsDigit(prev) && unicode.IsUpper(r):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// dedent removes the indentation common to all non-blank lines, and
// leading and trailing blank lines.
func dedent(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
	}
	return out
}

// capCode joins lines into at most max bytes, cut at a line boundary; ok
// is false when not even the first line fits.
func capCode(lines []string, max int) (string, bool) {
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r\n") + "\n"
		if b.Len()+len(l) > max {
			break
		}
		b.WriteString(l)
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
}

// capQuery cuts q to at most max bytes at a word boundary (or a rune
// boundary for a single long word).
func capQuery(q string, max int) string {
	if len(q) <= max {
		return q
	}
	cut := q[:max+1]
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		return strings.TrimSpace(q[:i])
	}
	cut = q[:max]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut
}
