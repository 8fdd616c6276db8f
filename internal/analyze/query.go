package analyze

import (
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// QueryKind classifies a query for channel weighting and ranking.
type QueryKind string

// Query kinds, after ../shared/notes/ranking.md ("one token with capitals,
// underscores, :: or . → symbol query").
const (
	// QuerySymbol is a single identifier-like token: "ReadMIMEHeader",
	// "http.Server", "parse_args", "Foo::bar".
	QuerySymbol QueryKind = "symbol"
	// QueryNatural is a short natural-language question or phrase.
	QueryNatural QueryKind = "natural"
	// QueryLong is a long text (an issue, a traceback, a log): more than
	// [LongQueryWords] words or more than two lines.
	QueryLong QueryKind = "long"
)

// LongQueryWords is the word count above which a query is [QueryLong].
const LongQueryWords = 40

// joinedWeight is the query weight of a term made by joining two adjacent
// words; it is below a written word's 1 because the join is a guess.
const joinedWeight = 0.5

// singular returns an English plural noun's singular by its spelling
// ("options" → "option", "entries" → "entry", "matches" → "match"), or w
// itself when it does not read as a plural ("class", "status", "axis").
// Identifiers name one thing far more often than many (unknownOption,
// TypeAdapter), so a question's plural is joined both ways.
func singular(w string) string {
	n := len(w)
	switch {
	case n < 4 || w[n-1] != 's':
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:n-1]
}

// particles are the adverbs that join a verb into one word of code
// ("set up" → setup, "shut down" → shutdown, "time out" → timeout,
// "log in" → login, "roll back" → rollback, "fall back" → fallback).
var particles = map[string]bool{"up": true, "down": true, "out": true, "off": true, "in": true, "on": true, "back": true, "over": true}

// allLetters reports whether s is one or more ASCII letters.
func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// verbBases returns the spellings w may have had before an English verb
// ending was added, w itself when it has none: "looked" → look and
// looke, "logged" → log and logg, "timed" → tim and time, "shutting" →
// shut, "sets" → set. The guesses that are not words make terms no chunk
// holds.
func verbBases(w string) []string {
	n := len(w)
	out := []string{w}
	doubled := func(s string) bool {
		k := len(s)
		return k >= 3 && s[k-1] == s[k-2] && !strings.ContainsRune("aeiousl", rune(s[k-1]))
	}
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		b := w[:n-3]
		out = append(out, b, b+"e")
		if doubled(b) {
			out = append(out, b[:len(b)-1])
		}
	case n > 4 && strings.HasSuffix(w, "ed"):
		b := w[:n-2]
		out = append(out, b, w[:n-1])
		if doubled(b) {
			out = append(out, b[:len(b)-1])
		}
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		out = append(out, w[:n-1])
	}
	return out
}

// Term is one analyzed query term with its weight: how many times it was
// produced by the query (identifier parts and stems included), times 2 for
// terms that come from an identifier written in code style.
type Term struct {
	Text   string
	Weight float64
	// Variant marks a second spelling of a joined pair of words, with
	// the last word made singular ("unknown options" → "unknownoption",
	// the whole-identifier term of unknownOption): a guess that counts
	// toward the query's coverage only where the index holds it.
	Variant bool
}

// Frame is one stack-trace frame found in a query.
type Frame struct {
	// Path is the file path as written (slashes, possibly absolute).
	Path string
	// Line is the 1-based line, 0 when absent.
	Line int
	// Func is the function name when the frame gives one.
	Func string
}

// Patch is one file that a unified diff in a query changes: an issue
// that carries its fix names the file to change.
type Patch struct {
	// Path is the changed file's path as the diff writes it, without git's
	// "a/" or "b/" prefix ("django/db/backends/base/creation.py").
	Path string
	// Line is the 1-based first line of the file's first hunk in the new
	// version ("@@ -128,8 +128,9 @@" → 128), 0 when the diff has none.
	Line int
}

// Query is the analysis of one search query.
type Query struct {
	Raw string
	// Text is Raw with the install location of each dependency path
	// blanked out ([blankInstallPrefixes]), at the same byte offsets: the
	// text whose words are the query's terms, symbols and meaning.
	Text string
	Kind QueryKind
	// Terms are the unique analyzed terms, stopwords removed, in order of
	// first appearance.
	Terms []Term
	// Symbols are identifiers written in code style, case kept, unique: a
	// camelCase/PascalCase/snake_case word, a dotted or :: name, a call
	// "name(", or anything in backticks.
	Symbols []string
	// Paths are path-like tokens ("net/http/server.go", "server.go",
	// "django/db/models"), slash-separated, unique.
	Paths []string
	// Phrases are the double-quoted phrases of the query.
	Phrases []string
	// Frames are stack-trace frames (Python, Go, JavaScript, Java styles).
	Frames []Frame
	// pyFrames is how many of Frames, the first ones, come from Python
	// tracebacks, which list the most recent call last
	// ([Query.InnermostFirst]).
	pyFrames int
	// Patches are the files a unified diff in the query changes, in the
	// order the diff lists them, unique; deleted files are left out.
	Patches []Patch
	// FrameScoped maps a symbol the query writes only as a stack frame's
	// function ("in __init__", "at handle (/app/router.js:9:3)") to the
	// paths of those frames: it names the function in those files, not
	// every definition of the name ("__init__", "get", "run" are
	// everywhere). A symbol also written elsewhere in the query is not
	// in it. Nil when there is none.
	FrameScoped map[string][]string
	// Words is the number of identifier runs in the query.
	Words int
	// Title is the analysis of a long query's first line when it reads
	// as a summary of the rest, as an issue's title does ("Migrations
	// uses value of enum object instead of its name."): a line of
	// titleMinWords to titleMaxWords words that is not a stack frame or
	// a traceback header. Nil otherwise, and always for short queries.
	Title *Query
	// IsTitle marks a [Query].Title: ranked as a part of its long query,
	// where naming tests, examples or docs ("test_multidb fails") does
	// not ask for them.
	IsTitle bool
	// Names are the capitalised words of a [QueryNatural] query that are
	// not written in code style but may name a type or module, as a
	// question writes them ("Semigroup and Monoid type classes", "how
	// Monad composes effects"): a word of three or more letters, a
	// capital and then lower case, stopwords left out, unique. Weaker
	// evidence than Symbols (a sentence starts with a capital too): a
	// searcher matches them to defined names in their exact case only.
	// Nil for other kinds.
	Names []string
	// Name is the name a [QuerySymbol] query asks for: the query's one
	// token ("http.Server"), or the name after a declaration keyword
	// ("def parse_user_agent", "class Sinatra::Base", "func ServeHTTP").
	// Empty for other kinds.
	Name string
}

// Bounds of a title line, in words (identifier runs). An issue title is a
// sentence; a longer first line is a paragraph whose words the whole
// query already weighs.
const (
	titleMinWords = 2
	titleMaxWords = 30
)

// The query patterns compile on first use (see package lazyre), and
// [Analyze] tries each only on a query holding a literal every match of it
// holds: a plain sentence compiles and runs none of them.
var (
	rePyFrame   = lazyre.New(`File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?`)
	reGoFrame   = lazyre.New(`(?m)^\s*(/?[\w./\-]+\.go):(\d+)`)
	reJSFrame   = lazyre.New(`at (?:([\w.$<>]+) )?\(?(/?(?:[\w.\-]+/)*[\w.\-]+\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?`)
	reJavaFrame = lazyre.New(`at ([\w.$]+)\.([\w$<>]+)\(([\w]+\.(?:java|kt|scala)):(\d+)\)`)
	rePathTok   = lazyre.New(`(?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]+|[A-Za-z0-9_\-]+\.(?:go|py|pyi|js|jsx|mjs|cjs|ts|tsx|java|rs|c|h|cc|cpp|hpp|cs|rb|php|kt|swift|scala|lua|ex|exs|sh|md|json|ya?ml|toml)\b`)
	reBacktick  = lazyre.New("`([^`\n]{1,120})`")
	reQuoted    = lazyre.New(`"([^"\n]{2,120})"`)
	reDotted    = lazyre.New(`[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)+`)
	reCall      = lazyre.New(`([A-Za-z_$][\w$]*)\(`)
)

// Analyze analyzes one query. It never fails: an empty or punctuation-only
// query yields a Query with no terms.
func Analyze(raw string) *Query {
	q := &Query{Raw: raw}
	seenSym := map[string]bool{}
	// written holds the symbols the query writes outside a frame's
	// header (see headers below).
	written := map[string]bool{}
	putSym := func(s string, inText bool) string {
		s = trimSymbol(s)
		if s == "" || len(s) > 120 {
			return ""
		}
		written[s] = written[s] || inText
		if !seenSym[s] {
			seenSym[s] = true
			q.Symbols = append(q.Symbols, s)
		}
		return s
	}
	addSym := func(s string) { putSym(s, true) }
	// pathAt maps a path without its leading "/" to its index in q.Paths:
	// "/srv/app/x.py" from a frame and "srv/app/x.py" from the text are one
	// mention, kept in its absolute form.
	pathAt := map[string]int{}
	addPath := func(p string) {
		p = strings.TrimLeft(strings.TrimRight(p, ".,:;)"), "(")
		key := strings.TrimLeft(p, "/")
		if key == "" || !strings.ContainsAny(key, "/.") {
			return
		}
		if i, ok := pathAt[key]; ok {
			if strings.HasPrefix(p, "/") {
				q.Paths[i] = p
			}
			return
		}
		// "e.g", "i.e", version numbers and URLs are not paths.
		if strings.Contains(p, "://") || strings.HasPrefix(p, "www.") {
			return
		}
		pathAt[key] = len(q.Paths)
		q.Paths = append(q.Paths, p)
	}

	// headers holds the byte spans of the frames' own text (a Python
	// frame's `File "…", line N, in f`): a word there names the frame's
	// function, not a symbol of the query at large.
	var headers [][2]int
	if strings.Contains(raw, `File "`) {
		for _, m := range rePyFrame().FindAllStringSubmatchIndex(raw, -1) {
			f := Frame{Path: slashed(raw[m[2]:m[3]]), Line: atoi(raw[m[4]:m[5]])}
			if m[6] >= 0 {
				f.Func = raw[m[6]:m[7]]
			}
			q.Frames = append(q.Frames, f)
			headers = append(headers, [2]int{m[0], m[1]})
		}
	}
	q.pyFrames = len(q.Frames)
	if strings.Contains(raw, ".go:") {
		for _, m := range reGoFrame().FindAllStringSubmatch(raw, -1) {
			q.Frames = append(q.Frames, Frame{Path: m[1], Line: atoi(m[2])})
		}
	}
	if strings.Contains(raw, "at ") {
		for _, m := range reJSFrame().FindAllStringSubmatch(raw, -1) {
			q.Frames = append(q.Frames, Frame{Path: m[2], Line: atoi(m[3]), Func: m[1]})
		}
		for _, m := range reJavaFrame().FindAllStringSubmatch(raw, -1) {
			q.Frames = append(q.Frames, Frame{Path: m[3], Line: atoi(m[4]), Func: m[2]})
		}
	}
	if strings.Contains(raw, "+++ ") || strings.Contains(raw, "diff --git ") {
		q.Patches = patches(raw)
	}
	// text is raw with each path's install location blanked out: the
	// words of "/home/tom/venv/lib/python3.8/site-packages/django/db/x.py"
	// before "django" name the reporter's machine, not the code, and
	// would be the query's rarest terms (a user name, a project folder).
	// Paths and frames keep the whole path, which a searcher matches by
	// suffix.
	text := blankInstallPrefixes(raw)
	q.Text = text
	if strings.Contains(raw, `"`) {
		for _, m := range reQuoted().FindAllStringSubmatch(raw, -1) {
			q.Phrases = append(q.Phrases, m[1])
		}
	}
	if strings.Contains(text, "`") {
		for _, m := range reBacktick().FindAllStringSubmatch(text, -1) {
			inner := strings.TrimSpace(m[1])
			if !strings.ContainsAny(inner, " \t") {
				addSym(inner)
			}
		}
	}
	for _, p := range q.Patches {
		addPath(p.Path)
	}
	if strings.ContainsAny(raw, "/.") {
		for _, m := range rePathTok().FindAllString(raw, -1) {
			if !strings.Contains(m, "/") && reDotted().MatchString(m) && !hasSourceExt(m) {
				continue // "obj.method" is a symbol, not a path
			}
			if (strings.HasPrefix(m, "a/") || strings.HasPrefix(m, "b/")) && hasPath(pathAt, m[2:]) {
				continue // a diff's "a/x.py" and "b/x.py" are its patch's x.py
			}
			addPath(m)
		}
	}
	// inHeader reports whether byte offset i of the query lies in a
	// frame's header (headers are in text order and disjoint).
	inHeader := func(i int) bool {
		k := sort.Search(len(headers), func(k int) bool { return headers[k][1] > i })
		return k < len(headers) && headers[k][0] <= i
	}
	frameSym := map[string][]string{} // a frame's function → the frames' paths
	for _, f := range q.Frames {
		addPath(f.Path)
		if f.Func != "" && f.Func != "<module>" {
			if fn := putSym(f.Func, false); fn != "" && !slices.Contains(frameSym[fn], f.Path) {
				frameSym[fn] = append(frameSym[fn], f.Path)
			}
		}
	}
	if strings.ContainsAny(text, ".:->#") {
		for _, m := range reDotted().FindAllStringIndex(text, -1) {
			d := text[m[0]:m[1]]
			if hasSourceExt(d) || hasPath(pathAt, d) || inHeader(m[0]) {
				continue
			}
			addSym(d)
		}
	}
	if strings.Contains(text, "(") {
		for _, m := range reCall().FindAllStringSubmatchIndex(text, -1) {
			if c := text[m[2]:m[3]]; !stopwords[strings.ToLower(c)] && !inHeader(m[2]) {
				addSym(c)
			}
		}
	}

	weights := map[string]float64{}
	variant := map[string]bool{} // produced only as a joined variant
	var order []string
	add := func(t string, w float64) {
		if stopwords[t] || len(t) < 2 && !isDigitString(t) {
			return
		}
		if _, ok := weights[t]; !ok {
			order = append(order, t)
		}
		weights[t] += w
		delete(variant, t)
	}
	var words []string
	var joinable []bool // joinable[i]: only spaces or tabs between words i-1 and i
	prevEnd := -1
	Words(text, func(w string, start int) {
		q.Words++
		if n := len(words); n > 0 && prevEnd >= 0 && text[prevEnd:start] == "-" && allLetters(words[n-1]) && isDigitString(w) {
			// "UTF-8", "SHA-256": one word, as code writes it (Go's
			// utf8 package, a sha256 variable).
			add(lower(words[n-1])+w, 1)
		}
		words = append(words, w)
		joinable = append(joinable, prevEnd >= 0 && strings.Trim(text[prevEnd:start], " \t") == "")
		prevEnd = start + len(w)
		if IsIdentifier(w) && !inHeader(start) {
			addSym(w)
		}
	})
	for fn, paths := range frameSym {
		if !written[fn] {
			if q.FrameScoped == nil {
				q.FrameScoped = map[string][]string{}
			}
			q.FrameScoped[fn] = paths
		}
	}
	codeWords := map[string]bool{}
	for _, s := range q.Symbols {
		Words(s, func(w string, _ int) { codeWords[w] = true })
	}
	Words(text, func(w string, _ int) {
		wt := 1.0
		if codeWords[w] {
			wt = 2
		}
		if stopwords[lower(w)] {
			return // nor its parts or stems ("does" → "doe")
		}
		Terms(w, func(t string) { add(t, wt) })
	})
	// Adjacent words (separated by spaces only) joined: "real IP" → "realip", "type adapter" →
	// "typeadapter", matching the whole-identifier terms of RealIP and
	// TypeAdapter. Terms no chunk contains are dropped by the searcher.
	if len(words) < LongQueryWords {
		for i := 0; i+1 < len(words); i++ {
			if !joinable[i+1] {
				continue
			}
			a, b := lower(words[i]), lower(words[i+1])
			if particles[b] && !particles[a] && !stopwords[a] {
				// A verb and its particle name one thing in code:
				// "looked up" → lookup, "shuts down" → shutdown, "log
				// in" → login. The verb's inflection is undone by
				// spelling; a wrong guess ("timedout") is a term no
				// chunk holds, which the searcher drops.
				for _, base := range verbBases(a) {
					if base == a && !stopwords[b] {
						continue // the plain join below makes a+b
					}
					if j := base + b; len(j) <= MaxTermBytes {
						if _, ok := weights[j]; !ok {
							add(j, joinedWeight)
							variant[j] = true
						}
					}
				}
			}
			if stopwords[a] || stopwords[b] || len(a)+len(b) > MaxTermBytes {
				continue
			}
			add(a+b, joinedWeight)
			if one := singular(b); one != b {
				if _, ok := weights[a+one]; !ok {
					add(a+one, joinedWeight)
					variant[a+one] = true
				}
			}
		}
	}
	for _, t := range order {
		q.Terms = append(q.Terms, Term{Text: t, Weight: weights[t], Variant: variant[t]})
	}

	lines := strings.Count(strings.TrimSpace(raw), "\n") + 1
	switch {
	case q.Words > LongQueryWords || lines > 2:
		q.Kind = QueryLong
	case q.Words >= 1 && len(strings.Fields(raw)) == 1:
		// One token is a name far more often than a question: "Serialize",
		// "formatter", "http.Server".
		q.Kind, q.Name = QuerySymbol, strings.TrimSpace(raw)
		if len(q.Symbols) == 0 && len(q.Paths) == 0 {
			addSym(q.Name)
		}
	case declaredName(raw) != "":
		// "def parse_user_agent", "class Sinatra::Base": a name asked for
		// the way its declaration reads.
		q.Kind, q.Name = QuerySymbol, declaredName(raw)
		addSym(q.Name)
	default:
		q.Kind = QueryNatural
	}
	if q.Kind == QueryLong {
		q.Title = title(raw)
	}
	if q.Kind == QueryNatural {
		q.Names = capitalised(raw, seenSym)
	}
	return q
}

// capitalised returns the words of raw that are a capital letter followed
// by at least two lower-case letters ("Monad", not "URL" or "Monad2"),
// stopwords and the words of skip left out, unique, in order
// ([Query].Names).
func capitalised(raw string, skip map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	Words(raw, func(w string, _ int) {
		if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' || skip[w] || seen[w] || stopwords[lower(w)] {
			return
		}
		for i := 1; i < len(w); i++ {
			if c := w[i]; c < 'a' || c > 'z' {
				return // an acronym (URL, HTTP) is a concept more often than a type
			}
		}
		seen[w] = true
		out = append(out, w)
	})
	return out
}

// installDirs are the directory names under which a language's package
// manager installs packages: a path through one of them is a dependency's
// file, and what precedes the directory is where it was installed.
var installDirs = map[string]bool{"site-packages": true, "dist-packages": true, "node_modules": true}

// installEnd returns how many of a path's segments (split at either
// separator) name where code was installed rather than the code: through
// its last installDirs segment, through a Python standard library's
// directory ("lib/python3.9", "lib64/python3", Windows' "Python310/Lib"),
// whose files are the interpreter's, not a project's, or through a Go
// module cache's "pkg/mod/<module>@<version>" (the module's own files
// follow). 0 when none does.
func installEnd(segs []string) int {
	end := 0
	for i, s := range segs {
		switch {
		case installDirs[s]:
			end = i + 1
		case i > 0 && isPythonDir(s) && (strings.EqualFold(segs[i-1], "lib") || strings.EqualFold(segs[i-1], "lib64")):
			end = i + 1
		case i > 0 && strings.EqualFold(s, "lib") && isPythonDir(segs[i-1]):
			end = i + 1
		case i > 1 && segs[i-2] == "pkg" && segs[i-1] == "mod":
			// Go's module cache: pkg/mod/<module path>@<version>/,
			// the module's files after it.
			for j := i; j < len(segs)-1; j++ {
				if strings.Contains(segs[j], "@") {
					end = j + 1
					break
				}
			}
		}
	}
	return end
}

// isPythonDir reports whether s names a Python installation's directory:
// "python3.9", "python3", "Python310" (any case).
func isPythonDir(s string) bool {
	if len(s) < 7 || !strings.EqualFold(s[:6], "python") {
		return false
	}
	for i := 6; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c != '.' || i == 6) {
			return false
		}
	}
	return true
}

// blankInstallPrefixes returns raw with the install location of every
// path ([installEnd]) replaced by spaces, from the path's start up to and
// including the separator after it:
// "/l10n/venv/lib/python3.6/site-packages/django/core/handlers/base.py"
// keeps "django/core/handlers/base.py" and
// "/usr/local/Cellar/python@3.9/Frameworks/lib/python3.9/argparse.py"
// keeps "argparse.py", at the same byte offsets. A path is a run of bytes
// between [pathStop] bytes holding a separator ('/' or '\\', as a Windows
// traceback writes it). raw is returned as it is when no path has an
// install location.
func blankInstallPrefixes(raw string) string {
	var b []byte
	var segs []string
	var ends []int // ends[k]: the byte after segs[k] in the path
	for i := 0; i < len(raw); {
		if pathStop(raw[i]) {
			i++
			continue
		}
		start := i
		for i < len(raw) && !pathStop(raw[i]) {
			i++
		}
		tok := raw[start:i]
		if !strings.ContainsAny(tok, "/\\") {
			continue
		}
		segs, ends = segs[:0], ends[:0]
		for j := 0; j < len(tok); {
			k := j
			for k < len(tok) && tok[k] != '/' && tok[k] != '\\' {
				k++
			}
			if k > j {
				segs, ends = append(segs, tok[j:k]), append(ends, k)
			}
			j = k + 1
		}
		n := installEnd(segs)
		if n == 0 {
			continue
		}
		cut := min(ends[n-1]+1, len(tok)) // with the separator after it
		if b == nil {
			b = []byte(raw)
		}
		for k := start; k < start+cut; k++ {
			b[k] = ' '
		}
	}
	if b == nil {
		return raw
	}
	return string(b)
}

// pathStop reports whether c cannot be inside a path as a query writes
// one: it ends the path before it.
func pathStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '<', '>', '=', ',':
		return true
	}
	return false
}

// slashed returns a frame's path with a Windows path's backslashes as
// slashes (`C:\Python310\lib\site-packages\sympy\core\basic.py` →
// "C:/Python310/lib/site-packages/sympy/core/basic.py"), so it matches an
// indexed path by suffix; other paths are returned as they are.
func slashed(p string) string {
	if strings.Contains(p, "/") || !strings.Contains(p, `\`) {
		return p
	}
	return strings.ReplaceAll(p, `\`, "/")
}

// InnermostFirst returns the query's stack frames with each trace's most
// recent call first: a Python traceback's in reverse, Go, JavaScript and
// Java traces as written. The first frame in the searched code is where
// the error was raised.
func (q *Query) InnermostFirst() []Frame {
	out := make([]Frame, 0, len(q.Frames))
	for i := q.pyFrames - 1; i >= 0; i-- {
		out = append(out, q.Frames[i])
	}
	return append(out, q.Frames[q.pyFrames:]...)
}

// patches returns the files the unified diffs in raw change: the new path
// of each "diff --git a/X b/Y" header or "+++ " line (with git's "b/"
// prefix taken off when the diff uses git's a/ and b/ prefixes), with the
// new-file start of its first "@@" hunk. A line may be indented (issue
// trackers indent pasted code). A file whose "+++" side is /dev/null is
// deleted and left out.
func patches(raw string) []Patch {
	var out []Patch
	at := map[string]int{} // path → index in out
	cur := -1              // index in out of the file the next hunk belongs to
	prefixed := false      // the current file's header uses a/ and b/
	pending := ""          // a "diff --git" header's file, until its "+++" line
	set := func(p string) {
		p = strings.TrimSpace(p)
		cur = -1
		if p == "" || p == "/dev/null" || strings.ContainsAny(p, " \t") || !strings.ContainsAny(p, "./") {
			return
		}
		if i, ok := at[p]; ok {
			cur = i
			return
		}
		at[p] = len(out)
		cur = len(out)
		out = append(out, Patch{Path: p})
	}
	for line := range strings.Lines(raw) {
		l := strings.TrimLeft(strings.TrimRight(line, "\r\n"), " \t")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if pending != "" {
				set(pending) // a header with no "+++" line: a mode change, a rename, a binary file
			}
			a, b, ok := strings.Cut(strings.TrimPrefix(l, "diff --git "), " ")
			prefixed = ok && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/")
			pending = ""
			if ok {
				pending = strings.TrimPrefix(b, "b/")
			}
			cur = -1
		case strings.HasPrefix(l, "--- "):
			prefixed = prefixed || strings.HasPrefix(l, "--- a/")
		case strings.HasPrefix(l, "+++ "):
			p, _, _ := strings.Cut(strings.TrimPrefix(l, "+++ "), "\t")
			p = strings.TrimSpace(p)
			if prefixed {
				p = strings.TrimPrefix(p, "b/")
			}
			set(p)
			prefixed, pending = false, ""
		case strings.HasPrefix(l, "@@ ") && cur >= 0 && out[cur].Line == 0:
			if _, after, ok := strings.Cut(l, " +"); ok {
				n, _, _ := strings.Cut(after, ",")
				n, _, _ = strings.Cut(n, " ")
				if v, err := strconv.Atoi(n); err == nil && v > 0 {
					out[cur].Line = v
				}
			}
		}
	}
	if pending != "" {
		set(pending)
	}
	return out
}

// trimSymbol strips the punctuation around a symbol written in a query
// ("obj.method()", "::Base", "parse(") but keeps a Go method's receiver
// whole: "(*Server).Shutdown" and "(*Server).Shutdown()" are
// "(*Server).Shutdown", the way ctx's index writes that symbol, never
// "*Server).Shutdown".
func trimSymbol(s string) string {
	s = strings.TrimSuffix(strings.Trim(s, ".:#->"), "()")
	if strings.HasPrefix(s, "(") && !strings.HasSuffix(s, ")") && strings.Count(s, "(") == strings.Count(s, ")") {
		return s
	}
	return strings.Trim(s, ".:#->()")
}

// declKeywords are the words that open a declaration. The ones marked
// true introduce a name in every language that has them; the others
// ("type", "class", "interface") are also ordinary words ("type
// inference", "class loader"), so the name after them must look like one:
// written in code style or capitalised.
var declKeywords = map[string]bool{
	"def": true, "func": true, "fn": true, "defp": true, "defmodule": true,
	"function": false, "class": false, "struct": false, "interface": false, "type": false,
	"trait": false, "enum": false, "impl": false, "module": false, "object": false, "method": false,
	"protocol": false, "record": false, "union": false, "typedef": false, "macro": false,
}

// declaredName returns the name in a two-token query that reads as a
// declaration ("def parse_user_agent", "func (*Server).Shutdown" is not
// one: three tokens), or "" when raw is not one.
func declaredName(raw string) string {
	f := strings.Fields(raw)
	if len(f) != 2 {
		return ""
	}
	always, ok := declKeywords[strings.ToLower(f[0])]
	if !ok {
		return ""
	}
	name := strings.TrimRight(f[1], "(){}:;")
	if name == "" || !reName().MatchString(name) {
		return ""
	}
	if always || IsIdentifier(name) || strings.ContainsAny(name, ".:#") || name[0] >= 'A' && name[0] <= 'Z' {
		return name
	}
	return ""
}

// reName matches a bare or qualified name: identifier runs joined by ".",
// "::" or "#".
var reName = lazyre.New(`^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$`)

// templateHeadings are the headings issue templates open with ("### Describe
// the bug"), lower case: a first line that is one of them is no title.
var templateHeadings = map[string]bool{
	"describe the bug": true, "bug report": true, "bug description": true, "description": true,
	"summary": true, "problem": true, "problem description": true, "issue description": true,
	"what happened": true, "steps to reproduce": true, "expected behavior": true,
	"expected behaviour": true, "actual behavior": true, "actual behaviour": true,
	"feature request": true, "environment": true, "checklist": true, "context": true,
}

// title returns the analysis of raw's first non-blank line when it reads
// as a title (see [Query].Title), else nil. A Markdown heading's "#"s are
// not part of it.
func title(raw string) *Query {
	line := strings.TrimSpace(raw)
	i := strings.IndexByte(line, '\n')
	if i < 0 {
		return nil // one line: the query is its own title
	}
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line[:i]), "#"))
	if templateHeadings[strings.ToLower(strings.TrimRight(line, ":.!? "))] {
		return nil // an issue template's heading says nothing of this issue
	}
	if strings.HasPrefix(line, "Traceback") || frameLine(line) || strings.HasPrefix(line, "diff --git ") || strings.HasPrefix(line, "--- ") {
		return nil // a trace or a diff is not a summary of itself
	}
	n := 0
	Words(line, func(string, int) { n++ })
	if n < titleMinWords || n > titleMaxWords {
		return nil
	}
	t := Analyze(line)
	if t.Kind == QueryLong {
		return nil
	}
	t.IsTitle = true
	return t
}

// TopTerms returns up to n terms with the highest weights, ties broken by
// order of appearance.
func (q *Query) TopTerms(n int) []Term {
	ts := append([]Term(nil), q.Terms...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Weight > ts[j].Weight })
	if len(ts) > n {
		ts = ts[:n]
	}
	return ts
}

// IsIdentifier reports whether one identifier run is written in code style:
// it mixes lower and upper case after the first letter (camelCase,
// PascalCase with a second capital, ACRONYMWord), contains an underscore
// between letters, or mixes letters and digits.
func IsIdentifier(w string) bool {
	if len(w) < 3 || isHexLiteral(w) {
		return false
	}
	var lowerSeen, upperAfterFirst, underscore, letter, digit bool
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			lowerSeen, letter = true, true
		case c >= 'A' && c <= 'Z':
			letter = true
			if i > 0 {
				upperAfterFirst = true
			}
		case c == '_':
			if i > 0 && i < len(w)-1 {
				underscore = true
			}
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upperAfterFirst && lowerSeen || underscore && letter || digit && letter && lowerSeen && !isDigitString(strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz"))
}

// hasSourceExt reports whether p ends in a source-file extension.
func hasSourceExt(p string) bool {
	switch path.Ext(p) {
	case ".go", ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".java", ".rs", ".c", ".h",
		".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".kt", ".swift", ".scala", ".lua", ".ex", ".exs",
		".sh", ".md", ".json", ".yaml", ".yml", ".toml":
		return true
	}
	return false
}

func isDigitString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// isHexLiteral reports whether w is a hexadecimal literal such as the
// "0x1d" offsets of a Go stack trace.
func isHexLiteral(w string) bool {
	if len(w) < 3 || w[0] != '0' || w[1] != 'x' && w[1] != 'X' {
		return false
	}
	for i := 2; i < len(w); i++ {
		c := w[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// hasPath reports whether p (with or without a leading "/") was already
// taken as a path.
func hasPath(pathAt map[string]int, p string) bool {
	_, ok := pathAt[strings.TrimLeft(p, "/")]
	return ok
}

// frameLine reports whether line holds a stack frame of one of the
// languages [Analyze] reads frames of; each pattern is tried only when the
// line holds a literal all its matches hold.
func frameLine(line string) bool {
	return strings.Contains(line, `File "`) && rePyFrame().MatchString(line) ||
		strings.Contains(line, ".go:") && reGoFrame().MatchString(line) ||
		strings.Contains(line, "at ") && (reJSFrame().MatchString(line) || reJavaFrame().MatchString(line))
}
