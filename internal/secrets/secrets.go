// Package secrets finds credentials inside file contents and masks them,
// so that what ctx stores and returns never holds them.
//
// It sits beside the index pipeline's read stage: the indexer masks a
// file's bytes after reading it and before chunking (so chunk summaries,
// BM25 terms and embeddings never see a secret), and the engine masks the
// same spans again whenever it reads code from disk to show it (chunk text
// is not stored; it is read back from the file).
//
// Input is a file's slash path (which decides how freely unquoted values
// are read, see [Find]) and its bytes; output is a list of [Finding]s, the
// byte spans of the secret values (not of the lines that hold them).
//
// Invariants: masking replaces each byte of a span with one byte and keeps
// every '\n' and '\r', so a masked file has the same length, the same byte
// offsets and the same line numbers as the original; detection is local to
// a line (or to one private-key block), so masking a window of a file
// masks the same spans inside it as masking the whole file; [Find] is
// deterministic and never fails.
//
// The rules are this package's own table (rules.go): provider token
// formats with fixed prefixes, private-key blocks, JWTs, passwords in URLs,
// and assignments to names such as password, secret, token or api_key in
// code and configuration, with an entropy floor and a list of placeholder
// patterns so "changeme", "${VAR}" or "<your-token>" stay readable. Each
// rule has keywords, and a line is tried by a rule only when it holds one
// of them, so a file without any costs one lower-casing pass and a few
// substring searches.
package secrets

import (
	"bytes"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
)

// Version identifies the rule set. It changes whenever a rule is added,
// removed or changed, so that an index built with other rules can be told
// apart.
const Version = 1

// Finding is one secret found in a text.
type Finding struct {
	// Rule is the id of the rule that found it, such as "github-token".
	Rule string `json:"rule"`
	// Start and End delimit the secret value in bytes (End exclusive).
	Start int `json:"start"`
	End   int `json:"end"`
	// Line is the 1-based line of Start.
	Line int `json:"line"`
}

// kind is how a file's assignments are read.
type kind uint8

const (
	// kindCode: only a quoted value counts (an unquoted one is an
	// expression), or one after ';', '&' or '?' inside a string
	// (connection strings, query strings).
	kindCode kind = iota
	// kindDoc: prose and examples (Markdown, text); an unquoted value
	// counts at the start of a line too, as in a shell or YAML example.
	kindDoc
	// kindConfig: configuration and scripts, where values are often
	// unquoted (YAML, .properties, INI, env files, shell, Dockerfile).
	kindConfig
)

// codeExts are extensions of programming languages, where an unquoted
// value is an expression.
var codeExts = map[string]bool{
	".go": true, ".py": true, ".pyi": true, ".pyw": true, ".js": true, ".mjs": true, ".cjs": true,
	".jsx": true, ".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".java": true, ".kt": true,
	".kts": true, ".scala": true, ".sc": true, ".rs": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".cxx": true, ".c++": true, ".hh": true, ".hpp": true, ".hxx": true, ".cs": true,
	".fs": true, ".vb": true, ".rb": true, ".php": true, ".swift": true, ".m": true, ".mm": true,
	".lua": true, ".ex": true, ".exs": true, ".erl": true, ".dart": true, ".r": true, ".jl": true,
	".pl": true, ".pm": true, ".hs": true, ".ml": true, ".clj": true, ".cljs": true, ".groovy": true,
	".gradle": true, ".vue": true, ".svelte": true, ".zig": true, ".nim": true, ".sql": true,
	".ipynb": true, ".s": true, ".asm": true, ".proto": true, ".f90": true, ".pas": true,
}

// docExts are extensions of prose.
var docExts = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".rst": true, ".txt": true, ".adoc": true,
	".org": true, ".text": true, ".html": true, ".htm": true,
}

// kindOf tells code and prose by extension; everything else (YAML, JSON,
// XML, .properties, INI, env files, shell, Dockerfile, Terraform, names
// without an extension) is read as configuration.
func kindOf(p string) kind {
	ext := strings.ToLower(path.Ext(path.Base(p)))
	switch {
	case codeExts[ext]:
		return kindCode
	case docExts[ext]:
		return kindDoc
	}
	return kindConfig
}

// testDirs are directory names that hold tests and their data.
var testDirs = []string{"testdata", "test", "tests", "__tests__", "fixtures", "testing", "spec"}

// testPath reports whether a path is a test file or test data, where
// cryptographic test vectors (hex keys and secrets) are common.
func testPath(p string) bool {
	l := strings.ToLower(p)
	base := path.Base(l)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasPrefix(stem, "test_"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	}
	for _, d := range testDirs {
		if strings.HasPrefix(l, d+"/") || strings.Contains(l, "/"+d+"/") {
			return true
		}
	}
	return false
}

// Find returns the secrets in src, sorted by position, with overlapping
// spans merged (the first rule in table order names a merged span). path
// is the file's slash path: its extension decides how assignments are
// read, and test files and directories allow hex test vectors.
func Find(path string, src []byte) []Finding {
	if len(src) == 0 {
		return nil
	}
	s := getScan(path, src)
	defer putScan(s)
	s.runAll()
	return s.finish()
}

// Mask overwrites each finding's span in src (see the package invariants):
// the first stretch without a line break long enough takes the marker
// "[REDACTED:<rule>]" (or "[REDACTED]"), every other byte becomes '*'.
func Mask(src []byte, fs []Finding) {
	for _, f := range fs {
		maskSpan(src[f.Start:f.End], f.Rule)
	}
}

// Redact finds the secrets in src and masks them in place; it returns the
// findings.
func Redact(path string, src []byte) []Finding {
	fs := Find(path, src)
	Mask(src, fs)
	return fs
}

// Rules returns the ids of every rule, in table order.
func Rules() []string {
	ids := make([]string, 0, len(rules)+len(derivedIDs))
	for _, r := range rules {
		ids = append(ids, r.id)
	}
	return append(ids, derivedIDs...)
}

func maskSpan(b []byte, rule string) {
	labels := [...]string{"[REDACTED:" + rule + "]", "[REDACTED]"}
	placed := false
	for i := 0; i < len(b); {
		if b[i] == '\n' || b[i] == '\r' {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		run := b[i:j]
		for k := range run {
			run[k] = '*'
		}
		if !placed {
			for _, l := range labels {
				if len(l) <= len(run) {
					copy(run, l)
					placed = true
					break
				}
			}
		}
		i = j
	}
}

// scan is the state of one [Find] call.
type scan struct {
	src   []byte
	lower []byte // src with ASCII letters lower-cased
	kind  kind
	test  bool    // a test file (see testPath)
	cands []int32 // positions whose trigram may start a keyword
	hits  []hit
	out   []candidate
}

// hit is a keyword occurrence: its rule's table index, position and length.
type hit struct{ rule, at, n int32 }

// candidate is a finding before merging; order is the rule's table index.
type candidate struct {
	start, end, order int
	rule              string
}

// keyword is one rule keyword, found through its first three bytes
// (lower-cased) and then compared whole: as written when cs is set, else
// with the lower-cased content.
type keyword struct {
	text []byte
	cs   bool
	rule int32
}

var (
	keywords []keyword
	// anchors maps a keyword's first three lower-cased bytes to the
	// keywords that start with them.
	anchors map[uint32][]int32
	// anchorSet is a set over a hash of those three bytes: one probe per
	// byte of content rules out nearly every position.
	anchorSet [1 << 16]bool
	// lowerTab lower-cases ASCII letters.
	lowerTab [256]byte
)

// anchorHash hashes the three bytes in the top 24 bits of x to 16 bits.
func anchorHash(x uint32) uint16 { return uint16((x * 0x9E3779B1) >> 16) }

// buildTables fills the keyword tables above, on the first scan rather
// than at every process start.
var buildTables = sync.OnceFunc(func() {
	for i := range lowerTab {
		c := byte(i)
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lowerTab[i] = c
	}
	anchors = map[uint32][]int32{}
	for ri := range rules {
		for _, kw := range rules[ri].keywords {
			if len(kw) < 3 {
				panic("secrets: keyword " + kw + " is shorter than three bytes")
			}
			l := strings.ToLower(kw)
			tri := uint32(l[0])<<16 | uint32(l[1])<<8 | uint32(l[2])
			anchors[tri] = append(anchors[tri], int32(len(keywords)))
			anchorSet[anchorHash(tri<<8)] = true
			keywords = append(keywords, keyword{text: []byte(kw), cs: kw != l, rule: int32(ri)})
		}
	}
})

var scanPool = sync.Pool{New: func() any { return new(scan) }}

// getScan prepares a scan of src: it lower-cases the content and notes the
// positions that may start a keyword in the same pass, then keeps the
// keyword occurrences, sorted by rule and position.
func getScan(p string, src []byte) *scan {
	buildTables()
	s := scanPool.Get().(*scan)
	s.src, s.kind, s.test = src, kindOf(p), testPath(p)
	s.lower = slices.Grow(s.lower[:0], len(src))[:len(src)]
	s.cands, s.hits, s.out = s.cands[:0], s.hits[:0], s.out[:0]
	lower := s.lower
	var tri uint32
	for i, c := range src {
		c = lowerTab[c]
		lower[i] = c
		tri = tri<<8 | uint32(c)
		if anchorSet[anchorHash(tri<<8)] {
			s.cands = append(s.cands, int32(i-2))
		}
	}
	for len(s.cands) > 0 && s.cands[0] < 0 {
		s.cands = s.cands[1:]
	}
	for _, at := range s.cands {
		tri := uint32(lower[at])<<16 | uint32(lower[at+1])<<8 | uint32(lower[at+2])
		for _, k := range anchors[tri] {
			kw := &keywords[k]
			hay := lower
			if kw.cs {
				hay = src
			}
			if bytes.HasPrefix(hay[at:], kw.text) {
				s.hits = append(s.hits, hit{rule: kw.rule, at: at, n: int32(len(kw.text))})
			}
		}
	}
	slices.SortStableFunc(s.hits, func(a, b hit) int { return int(a.rule - b.rule) })
	return s
}

func putScan(s *scan) {
	s.src = nil
	if cap(s.lower) > 4<<20 {
		s.lower = nil // do not keep a huge buffer
	}
	scanPool.Put(s)
}

// add records a candidate span named by rule; order is the table index
// of the rule that found it.
func (s *scan) add(rule string, order, start, end int) {
	s.out = append(s.out, candidate{start: start, end: end, order: order, rule: rule})
}

// runAll applies each rule that has keyword occurrences: a match func at
// each occurrence, a regular expression once on each line holding one.
func (s *scan) runAll() {
	for i := 0; i < len(s.hits); {
		ri := s.hits[i].rule
		j := i
		for j < len(s.hits) && s.hits[j].rule == ri {
			j++
		}
		s.run(&rules[ri], int(ri), s.hits[i:j])
		i = j
	}
}

func (s *scan) run(r *rule, order int, hits []hit) {
	if r.match != nil {
		for _, h := range hits {
			r.match(s, r, order, int(h.at), int(h.n))
		}
		return
	}
	last := -1 // the last line start tried
	for _, h := range hits {
		at := int(h.at)
		ls := bytes.LastIndexByte(s.src[:at], '\n') + 1
		if ls == last {
			continue
		}
		last = ls
		le := lineEnd(s.src, at)
		line := s.src[ls:le]
		if r.need != 0 && bytes.IndexByte(line, r.need) < 0 {
			continue
		}
		for _, m := range r.re().FindAllSubmatchIndex(line, -1) {
			a, b := m[0], m[1]
			if len(m) > 2 && m[2] >= 0 {
				a, b = m[2], m[3]
			}
			v := line[a:b]
			if r.entropy > 0 && entropy(v) < r.entropy {
				continue
			}
			if placeholder(v) || (r.check != nil && !r.check(v)) {
				continue
			}
			s.add(r.id, order, ls+a, ls+b)
		}
	}
}

// lineEnd returns the index of the first '\n' in b at or after i, or
// len(b).
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(b)
}

// finish sorts and merges the candidates and numbers their lines.
func (s *scan) finish() []Finding {
	if len(s.out) == 0 {
		return nil
	}
	slices.SortFunc(s.out, func(a, b candidate) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.order - b.order
	})
	var fs []Finding
	for _, c := range s.out {
		if n := len(fs); n > 0 && c.start < fs[n-1].End {
			fs[n-1].End = max(fs[n-1].End, c.end)
			continue
		}
		fs = append(fs, Finding{Rule: c.rule, Start: c.start, End: c.end})
	}
	line, at := 1, 0
	for i := range fs {
		line += bytes.Count(s.src[at:fs[i].Start], []byte{'\n'})
		at = fs[i].Start
		fs[i].Line = line
	}
	return fs
}

// entropy is the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	n := float64(len(b))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderWords mark a value as an example rather than a secret.
var placeholderWords = []string{
	"xxxx", "****", "....", "example", "placeholder", "changeme", "change_me", "change-me",
	"your_", "your-", "yourtoken", "yourkey", "yourpass", "yoursecret", "redacted", "dummy",
	"sample", "<", ">", "${", "{{", "}}", "$(", "%(", "#{",
	"notasecret", "not-a-secret", "not_a_secret", "insert", "replace", "todo", "fixme",
	"0000000000", "1234567890", "abcdefgh", "qwerty",
}

// placeholder reports whether a value is an example, a template or a
// reference rather than a secret.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	var buf [96]byte
	l := buf[:0]
	if len(v) > len(buf) {
		l = make([]byte, 0, len(v))
	}
	for _, c := range v {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		l = append(l, c)
	}
	for _, w := range placeholderWords {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	// One repeated character ("aaaaaaaa").
	return bytes.Count(l, l[:1]) == len(l)
}
