package analyze_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
)

func TestTermList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"punctuation only", "+-*/ {}();", nil},
		{"lower word", "server", []string{"server", "serv"}},
		{"capitalised word", "Server", []string{"server", "serv"}},
		{"camelCase", "closeIdleConns", []string{"closeidleconns", "close", "clos", "idle", "idl", "conns", "conn"}},
		{"PascalCase", "ReadMIMEHeader", []string{"readmimeheader", "read", "mime", "mim", "header", "head"}},
		{"acronym inside", "getHTTPResponse", []string{"gethttpresponse", "get", "http", "response", "respons"}},
		{"acronym first", "HTTPServer", []string{"httpserver", "http", "server", "serv"}},
		{"two-letter acronym", "IOError", []string{"ioerror", "io", "error"}},
		{"acronym then mixed", "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}},
		{"all caps", "HTTP", []string{"http"}},
		{"snake_case", "parse_args", []string{"parse_args", "parse", "pars", "args", "arg"}},
		{"SCREAMING_SNAKE", "MAX_RETRY_COUNT", []string{"max_retry_count", "max", "retry", "count"}},
		{"dunder", "__init__", []string{"__init__"}},
		{"kebab-case", "max-width", []string{"max", "width", "max_width"}},
		{"kebab-case three runs", "foo-bar-baz", []string{"foo", "bar", "baz", "foo_bar_baz"}},
		{"kebab-case then word", "foo-bar baz", []string{"foo", "bar", "foo_bar", "baz"}},
		{"kebab-case of identifiers", "my-HTTPServer", []string{"my", "httpserver", "http", "server", "serv", "my_httpserver"}},
		{"kebab-case after unicode run", "héllo-world", []string{"héllo", "world", "héllo_world"}},
		{"minus before digit is not kebab", "x-1", []string{"x", "1"}},
		{"spaced minus is not kebab", "a - b", []string{"a", "b"}},
		{"double hyphen is not kebab", "a--b", []string{"a", "b"}},
		{"digits inside", "utf8Decode", []string{"utf8decode", "utf", "8", "decode", "decod"}},
		{"digits at end", "base64", []string{"base64", "base", "bas", "64"}},
		{"version", "v2", []string{"v2", "v", "2"}},
		{"number", "404", []string{"404"}},
		{"unicode camelCase", "naïveCafé", []string{"naïvecafé", "naïve", "naïv", "café"}},
		{"unicode PascalCase", "ÜberSchön", []string{"überschön", "über", "schön"}},
		{"unicode word", "Straße", []string{"straße", "straß"}},
		{"CJK run", "日本語のテキスト", []string{"日本語のテキスト"}},
		{"stem beside original", "handlers", []string{"handlers", "handl"}},
		{"stem of a four-byte word", "logs", []string{"logs", "log"}},
		{"stems of parts", "parseHandlers", []string{"parsehandlers", "parse", "pars", "handlers", "handl"}},
		{"code line", "func (s *Server) Close() error {", []string{"func", "s", "server", "serv", "close", "clos", "error"}},
		{"dotted name", "http.Server", []string{"http", "server", "serv"}},
		{"path", "net/http/server.go", []string{"net", "http", "server", "serv", "go"}},
		{"invalid UTF-8", "\xffabc\xfe def\xc3", []string{"abc", "def"}},
		{"invalid UTF-8 inside a run", "ab\xffcd", []string{"ab", "cd"}},
		{"longest run kept", strings.Repeat("a", analyze.MaxTermBytes), []string{strings.Repeat("a", analyze.MaxTermBytes)}},
		{"over-long run dropped", strings.Repeat("a", analyze.MaxTermBytes+1), nil},
		{"over-long run among words", "ok " + strings.Repeat("QmFzZTY0", 12) + " fine", []string{"ok", "fine", "fin"}},
		{"over-long kebab dropped, runs kept", strings.Repeat("a", 40) + "-" + strings.Repeat("b", 40),
			[]string{strings.Repeat("a", 40), strings.Repeat("b", 40)}},
		// "Ⱥ" (2 bytes) lower-cases to "ⱥ" (3 bytes): the limit applies to
		// the emitted term, not to the run as written.
		{"over-long after lower-casing dropped", strings.Repeat("Ⱥ", analyze.MaxTermBytes/2), nil},
		{"growing under the limit kept", strings.Repeat("Ⱥ", 21), []string{strings.Repeat("ⱥ", 21)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := analyze.TermList(tc.text)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("TermList(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestTermsMatchesTermList(t *testing.T) {
	t.Parallel()
	const text = "func (c *Conn) readMIMEHeader(max-width int) error"
	var got []string
	analyze.Terms(text, func(term string) { got = append(got, term) })
	if diff := cmp.Diff(analyze.TermList(text), got); diff != "" {
		t.Errorf("Terms and TermList disagree (-TermList +Terms):\n%s", diff)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	type word struct {
		Word  string
		Start int
	}
	tests := []struct {
		name string
		text string
		want []word
	}{
		{"empty", "", nil},
		{"code", "s.Close() // ok", []word{{"s", 0}, {"Close", 2}, {"ok", 13}}},
		{"case kept, underscores inside", "  parse_args(_x)", []word{{"parse_args", 2}, {"_x", 13}}},
		{"unicode offsets in bytes", "é ü-ß", []word{{"é", 0}, {"ü", 3}, {"ß", 6}}},
		{"invalid bytes split runs", "a\xffb", []word{{"a", 0}, {"b", 2}}},
		{"combining mark splits", "e\u0301t", []word{{"e", 0}, {"t", 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []word
			analyze.Words(tc.text, func(w string, start int) { got = append(got, word{w, start}) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Words(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word string
		want []string
	}{
		{"", nil},
		{"_", nil},
		{"x", []string{"x"}},
		{"server", []string{"server"}},
		{"ID", []string{"ID"}},
		{"getHTTPResponse", []string{"get", "HTTP", "Response"}},
		{"ReadMIMEHeader", []string{"Read", "MIME", "Header"}},
		{"XMLHttpRequest", []string{"XML", "Http", "Request"}},
		{"snake_case2x", []string{"snake", "case", "2", "x"}},
		{"MAX_SIZE", []string{"MAX", "SIZE"}},
		{"__init__", []string{"init"}},
		{"a_", []string{"a"}},
		{"utf8Decode", []string{"utf", "8", "Decode"}},
		{"int64", []string{"int", "64"}},
		{"ÜberSchön", []string{"Über", "Schön"}},
		{"aÉb", []string{"a", "Éb"}},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			t.Parallel()
			var got []string
			analyze.Parts(tc.word, func(p string) { got = append(got, p) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parts(%q) mismatch (-want +got):\n%s", tc.word, diff)
			}
		})
	}
}

// stemCases are representative words and their stems, grouped by the rule
// of [analyze.Stem] that produces them.
var stemCases = []struct {
	word, want string
}{
	// Three bytes or fewer are never stemmed.
	{"go", "go"},
	{"str", "str"},
	{"run", "run"},
	// Four bytes lose only a plural "s" or a final "e".
	{"logs", "log"},
	{"uses", "use"},
	{"ties", "tie"},
	{"args", "arg"},
	{"file", "fil"},
	{"mime", "mim"},
	{"used", "used"},
	{"call", "call"},
	{"http", "http"},
	{"this", "this"},
	// Plurals.
	{"files", "fil"},
	{"bytes", "byt"},
	{"queries", "query"},
	{"entries", "entry"},
	{"indexes", "index"},
	{"matches", "match"},
	{"boxes", "box"},
	{"classes", "class"},
	{"parses", "pars"},
	{"connections", "connect"},
	// Words that only look plural.
	{"class", "class"},
	{"process", "process"},
	{"address", "address"},
	{"status", "status"},
	{"analysis", "analysis"},
	// -ing, -ed and -er, undoubling the consonant they leave.
	{"parsing", "pars"},
	{"closed", "clos"},
	{"handled", "handl"},
	{"running", "run"},
	{"stripped", "strip"},
	{"logging", "log"},
	{"logger", "log"},
	{"server", "serv"},
	{"header", "head"},
	// A stem keeps a vowel and at least three bytes.
	{"string", "string"},
	{"thing", "thing"},
	{"user", "user"},
	// Derivational endings.
	{"validation", "valid"},
	{"validator", "valid"},
	{"validity", "valid"},
	{"serialization", "serializ"},
	{"compression", "compress"},
	{"configuration", "configur"},
	{"environment", "environ"},
	{"utilities", "util"},
	{"variables", "vari"},
	// An inflection, then one derivational ending more.
	{"buffered", "buf"},
	{"validators", "valid"},
	{"handlers", "handl"},
	// A final "e" goes.
	{"parse", "pars"},
	{"handle", "handl"},
	{"straße", "straß"},
	{"naïve", "naïv"},
	// No known ending.
	{"error", "error"},
	{"config", "config"},
	{"token", "token"},
	{"commit", "commit"},
	{"index", "index"},
	{"café", "café"},
}

// stemFamilies are groups of words that must share one stem, so that a
// query for one member matches code that uses another.
var stemFamilies = [][]string{
	{"validate", "validated", "validates", "validating", "validation", "validator", "validators"},
	{"serialize", "serializer", "serialization", "serialized", "serializing"},
	{"log", "logs", "logger", "logging"},
	{"strip", "stripping", "stripped"},
	{"handle", "handler", "handled", "handling", "handles"},
	{"parse", "parser", "parsing", "parses"},
	{"compress", "compression", "compressed"},
	{"configure", "configured", "configuration"},
	{"route", "routes", "router", "routing"},
	{"buffer", "buffered"},
	{"run", "running"},
	{"call", "calls", "called", "caller"},
	{"index", "indexes", "indexed", "indexing", "indexer"},
	{"test", "tests", "testing", "tested", "tester"},
	{"token", "tokens"},
	{"tokenize", "tokenizer", "tokenization"},
}

// stemDistinct are pairs of different words that must keep different stems.
var stemDistinct = [][2]string{
	{"string", "str"},       // "str" would have no vowel
	{"status", "stat"},      // -us is not a plural
	{"address", "add"},      // -ss is not a plural
	{"process", "proc"},     // -ss is not a plural
	{"user", "use"},         // "us" would be under three bytes
	{"log", "login"},        // no known ending
	{"log", "logic"},        // no known ending
	{"general", "generate"}, // -al is not an ending
	{"token", "tokenize"},
}

func TestStem(t *testing.T) {
	t.Parallel()
	for _, tc := range stemCases {
		t.Run(tc.word, func(t *testing.T) {
			t.Parallel()
			if got := analyze.Stem(tc.word); got != tc.want {
				t.Errorf("Stem(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}

func TestStemFamilies(t *testing.T) {
	t.Parallel()
	for _, family := range stemFamilies {
		t.Run(family[0], func(t *testing.T) {
			t.Parallel()
			want := analyze.Stem(family[0])
			for _, w := range family[1:] {
				if got := analyze.Stem(w); got != want {
					t.Errorf("Stem(%q) = %q, want %q, the stem of %q", w, got, want, family[0])
				}
			}
		})
	}
}

func TestStemDistinct(t *testing.T) {
	t.Parallel()
	for _, pair := range stemDistinct {
		t.Run(pair[0]+"/"+pair[1], func(t *testing.T) {
			t.Parallel()
			if a, b := analyze.Stem(pair[0]), analyze.Stem(pair[1]); a == b {
				t.Errorf("Stem(%q) = Stem(%q) = %q, want different stems", pair[0], pair[1], a)
			}
		})
	}
}

// TestStemInvariants checks, for every word of the tests above, that the
// stem is valid UTF-8, never empty, never longer than the word, and keeps at
// least three bytes (shorter words come back unchanged).
func TestStemInvariants(t *testing.T) {
	t.Parallel()
	var words []string
	for _, tc := range stemCases {
		words = append(words, tc.word)
	}
	for _, family := range stemFamilies {
		words = append(words, family...)
	}
	for _, pair := range stemDistinct {
		words = append(words, pair[0], pair[1])
	}
	words = append(words, "", "a", "is", "es", "ss", "ies", "ing", "ation", "izations", "eses", "ééés")
	for _, w := range words {
		s := analyze.Stem(w)
		switch {
		case len(w) < 3 && s != w:
			t.Errorf("Stem(%q) = %q, want the word unchanged", w, s)
		case len(w) >= 3 && len(s) < 3:
			t.Errorf("Stem(%q) = %q, shorter than three bytes", w, s)
		case len(s) > len(w):
			t.Errorf("Stem(%q) = %q, longer than the word", w, s)
		case !utf8.ValidString(s):
			t.Errorf("Stem(%q) = %q, not valid UTF-8", w, s)
		}
	}
}

func TestIsStopword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word string
		want bool
	}{
		{"the", true},
		{"The", true},
		{"HOW", true},
		{"where", true},
		{"implemented", true},
		// Common API names and keywords are not stopwords.
		{"get", false},
		{"use", false},
		{"before", false},
		{"after", false},
		{"all", false},
		{"each", false},
		{"return", false},
		{"error", false},
		{"class", false},
		{"server", false},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			t.Parallel()
			if got := analyze.IsStopword(tc.word); got != tc.want {
				t.Errorf("IsStopword(%q) = %v, want %v", tc.word, got, tc.want)
			}
		})
	}
}
