package analyze_test

import (
	"strings"
	"testing"

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
		{"lower word", "server", []string{"server"}},
		{"capitalised word", "Server", []string{"server"}},
		{"camelCase", "closeIdleConns", []string{"closeidleconns", "close", "idle", "conns", "conn"}},
		{"PascalCase", "ReadMIMEHeader", []string{"readmimeheader", "read", "mime", "header"}},
		{"acronym inside", "getHTTPResponse", []string{"gethttpresponse", "get", "http", "response"}},
		{"acronym first", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"two-letter acronym", "IOError", []string{"ioerror", "io", "error"}},
		{"acronym then mixed", "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}},
		{"all caps", "HTTP", []string{"http"}},
		{"snake_case", "parse_args", []string{"parse_args", "parse", "args"}},
		{"SCREAMING_SNAKE", "MAX_RETRY_COUNT", []string{"max_retry_count", "max", "retry", "count"}},
		{"dunder", "__init__", []string{"__init__"}},
		{"kebab-case", "max-width", []string{"max", "width", "max_width"}},
		{"kebab-case three runs", "foo-bar-baz", []string{"foo", "bar", "baz", "foo_bar_baz"}},
		{"kebab-case then word", "foo-bar baz", []string{"foo", "bar", "foo_bar", "baz"}},
		{"kebab-case of identifiers", "my-HTTPServer", []string{"my", "httpserver", "http", "server", "my_httpserver"}},
		{"kebab-case after unicode run", "héllo-world", []string{"héllo", "world", "héllo_world"}},
		{"minus before digit is not kebab", "x-1", []string{"x", "1"}},
		{"spaced minus is not kebab", "a - b", []string{"a", "b"}},
		{"double hyphen is not kebab", "a--b", []string{"a", "b"}},
		{"digits inside", "utf8Decode", []string{"utf8decode", "utf", "8", "decode"}},
		{"digits at end", "base64", []string{"base64", "base", "64"}},
		{"version", "v2", []string{"v2", "v", "2"}},
		{"number", "404", []string{"404"}},
		{"unicode camelCase", "naïveCafé", []string{"naïvecafé", "naïve", "café"}},
		{"unicode PascalCase", "ÜberSchön", []string{"überschön", "über", "schön"}},
		{"unicode word", "Straße", []string{"straße"}},
		{"CJK run", "日本語のテキスト", []string{"日本語のテキスト"}},
		{"stem beside original", "handlers", []string{"handlers", "handler"}},
		{"stems of parts", "parseHandlers", []string{"parsehandlers", "parse", "handlers", "handler"}},
		{"code line", "func (s *Server) Close() error {", []string{"func", "s", "server", "close", "error"}},
		{"dotted name", "http.Server", []string{"http", "server"}},
		{"path", "net/http/server.go", []string{"net", "http", "server", "go"}},
		{"invalid UTF-8", "\xffabc\xfe def\xc3", []string{"abc", "def"}},
		{"invalid UTF-8 inside a run", "ab\xffcd", []string{"ab", "cd"}},
		{"longest run kept", strings.Repeat("a", analyze.MaxTermBytes), []string{strings.Repeat("a", analyze.MaxTermBytes)}},
		{"over-long run dropped", strings.Repeat("a", analyze.MaxTermBytes+1), nil},
		{"over-long run among words", "ok " + strings.Repeat("QmFzZTY0", 12) + " fine", []string{"ok", "fine"}},
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

func TestStem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word, want string
	}{
		// Four bytes or fewer are never stemmed.
		{"uses", "uses"},
		{"ties", "ties"},
		{"used", "used"},
		{"go", "go"},
		// Plurals.
		{"handlers", "handler"},
		{"files", "file"},
		{"bytes", "byte"},
		{"queries", "query"},
		{"indexes", "index"},
		{"classes", "class"},
		{"parses", "pars"},
		// Words that only look plural.
		{"class", "class"},
		{"process", "process"},
		{"status", "status"},
		{"analysis", "analysis"},
		// -ing and -ed.
		{"parsing", "pars"},
		{"running", "runn"},
		{"string", "string"},
		{"closed", "clos"},
		{"handled", "handl"},
		// No known suffix.
		{"server", "server"},
		{"header", "header"},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			t.Parallel()
			if got := analyze.Stem(tc.word); got != tc.want {
				t.Errorf("Stem(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
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
