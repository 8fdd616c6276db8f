package analyze_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// issueText is a 60-word bug report without code, a [analyze.QueryLong] query.
const issueText = `When the client sends a request with a very large header the server
returns a bad request status but keeps the connection open, so the next
request on the same connection hangs until the idle timeout fires. I expected
the server to close the connection right after writing the error response,
like it does for malformed request lines. This started after upgrading.`

func TestAnalyzeKind(t *testing.T) {
	t.Parallel()
	if n := len(strings.Fields(issueText)); n <= analyze.LongQueryWords {
		t.Fatalf("issueText has %d words, want more than %d", n, analyze.LongQueryWords)
	}
	tests := []struct {
		name  string
		query string
		want  analyze.QueryKind
	}{
		{"PascalCase with acronym", "ReadMIMEHeader", analyze.QuerySymbol},
		{"camelCase", "closeIdleConns", analyze.QuerySymbol},
		{"dotted", "http.Server", analyze.QuerySymbol},
		{"snake_case", "parse_args", analyze.QuerySymbol},
		{"C++ scope", "Foo::bar", analyze.QuerySymbol},
		{"call", "parse()", analyze.QuerySymbol},
		{"path", "net/http/server.go", analyze.QuerySymbol},
		{"file name", "server.go", analyze.QuerySymbol},
		{"surrounding space", "  ReadMIMEHeader\n", analyze.QuerySymbol},
		{"plain word is a name", "server", analyze.QuerySymbol},
		{"question", "how does the server close idle connections", analyze.QueryNatural},
		{"question with a symbol", "where is ReadMIMEHeader called", analyze.QueryNatural},
		{"two lines", "close idle connections\nin the server", analyze.QueryNatural},
		{"empty", "", analyze.QueryNatural},
		{"punctuation", "?!", analyze.QueryNatural},
		{"issue text", issueText, analyze.QueryLong},
		{"three lines", "a\nb\nc", analyze.QueryLong},
		{"def and a name", "def parse_user_agent", analyze.QuerySymbol},
		{"func and a name", "func closeIdleConns", analyze.QuerySymbol},
		{"class and a qualified name", "class Sinatra::Base", analyze.QuerySymbol},
		{"type and a capitalised name", "type Server", analyze.QuerySymbol},
		{"type and a plain word", "type inference", analyze.QueryNatural},
		{"class and a plain word", "class loader", analyze.QueryNatural},
		{"keyword and two words", "def parse user", analyze.QueryNatural},
		{"traceback", "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nNameError: name 'x' is not defined", analyze.QueryLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := analyze.Analyze(tc.query).Kind; got != tc.want {
				t.Errorf("Analyze(%q).Kind = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
}

// TestAnalyzeName: a symbol query's Name is the name it asks for, without
// the declaration keyword; other kinds have none.
func TestAnalyzeName(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		" http.Server ":          "http.Server",
		"def parse_user_agent":   "parse_user_agent",
		"func ServeHTTP()":       "ServeHTTP",
		"class Sinatra::Base":    "Sinatra::Base",
		"struct Mutex":           "Mutex",
		"where is Mutex defined": "",
		"type inference":         "",
	} {
		if got := analyze.Analyze(q).Name; got != want {
			t.Errorf("Analyze(%q).Name = %q, want %q", q, got, want)
		}
	}
}

func TestAnalyzeTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  []analyze.Term
	}{
		{"empty", "", nil},
		{"punctuation only", "(*&^%$#@!)", nil},
		{
			"stopwords removed, question words too",
			"how does the server close idle connections",
			[]analyze.Term{
				{Text: "server", Weight: 1}, {Text: "serv", Weight: 1},
				{Text: "close", Weight: 1}, {Text: "clos", Weight: 1},
				{Text: "idle", Weight: 1}, {Text: "idl", Weight: 1},
				{Text: "connections", Weight: 1}, {Text: "connect", Weight: 1},
				{Text: "serverclose", Weight: 0.5}, {Text: "closeidle", Weight: 0.5}, {Text: "idleconnections", Weight: 0.5},
				{Text: "idleconnection", Weight: 0.5, Variant: true},
			},
		},
		{
			"code words kept",
			"how do I get the user before save and what should I use after",
			[]analyze.Term{
				{Text: "get", Weight: 1},
				{Text: "user", Weight: 1},
				{Text: "before", Weight: 1}, {Text: "befor", Weight: 1},
				{Text: "save", Weight: 1}, {Text: "sav", Weight: 1},
				{Text: "use", Weight: 1},
				{Text: "after", Weight: 1}, {Text: "aft", Weight: 1},
				{Text: "userbefore", Weight: 0.5}, {Text: "beforesave", Weight: 0.5}, {Text: "useafter", Weight: 0.5},
			},
		},
		{
			"stopwords in any case",
			"The Server Is Here",
			[]analyze.Term{{Text: "server", Weight: 1}, {Text: "serv", Weight: 1}},
		},
		{
			// Single letters are not terms, but they are words, so they
			// still join their neighbours.
			"single letters dropped, numbers kept",
			"x y 7 status 404",
			[]analyze.Term{
				{Text: "7", Weight: 1}, {Text: "status", Weight: 1}, {Text: "404", Weight: 1},
				{Text: "xy", Weight: 0.5}, {Text: "y7", Weight: 0.5}, {Text: "7status", Weight: 0.5}, {Text: "status404", Weight: 0.5},
			},
		},
		{
			"identifier weighs double",
			"ReadMIMEHeader",
			[]analyze.Term{
				{Text: "readmimeheader", Weight: 2},
				{Text: "read", Weight: 2},
				{Text: "mime", Weight: 2}, {Text: "mim", Weight: 2},
				{Text: "header", Weight: 2}, {Text: "head", Weight: 2},
			},
		},
		{
			"weights add up",
			"conn.Close() before close",
			[]analyze.Term{
				{Text: "conn", Weight: 2},
				{Text: "close", Weight: 3}, {Text: "clos", Weight: 3},
				{Text: "before", Weight: 1}, {Text: "befor", Weight: 1},
				{Text: "beforeclose", Weight: 0.5}, // "conn.Close() before": only words separated by spaces join
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := analyze.Analyze(tc.query).Terms
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Analyze(%q).Terms mismatch (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

// alternating returns a query of n words alternating "real" and "IP".
func alternating(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = "real"
		if i%2 == 1 {
			words[i] = "IP"
		}
	}
	return strings.Join(words, " ")
}

func TestAnalyzeJoinedTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		// want are joined terms that must be present, with their weights;
		// absent must not be terms at all.
		want   map[string]float64
		absent []string
	}{
		{
			name:  "two words",
			query: "real IP",
			want:  map[string]float64{"realip": 0.5},
		},
		{
			name:  "each adjacent pair",
			query: "fix real IP parsing",
			want:  map[string]float64{"fixreal": 0.5, "realip": 0.5, "ipparsing": 0.5},
		},
		{
			name:   "stopword between",
			query:  "real the IP",
			absent: []string{"realip", "realthe", "theip"},
		},
		{
			name:   "stopword at either end",
			query:  "the real IP is",
			want:   map[string]float64{"realip": 0.5},
			absent: []string{"thereal", "ipis"},
		},
		{
			name:   "single word",
			query:  "RealIP",
			absent: []string{"realiprealip"},
		},
		{
			name:  "weight adds to a written term",
			query: "realip real IP",
			want:  map[string]float64{"realip": 1.5, "realipreal": 0.5},
		},
		{
			// n words make n/2 "real IP" pairs and (n-1)/2 "IP real" pairs.
			name:  "just under LongQueryWords",
			query: alternating(analyze.LongQueryWords - 1),
			want:  map[string]float64{"realip": 0.5 * ((analyze.LongQueryWords - 1) / 2), "ipreal": 0.5 * ((analyze.LongQueryWords - 2) / 2)},
		},
		{
			name:   "LongQueryWords words",
			query:  alternating(analyze.LongQueryWords),
			absent: []string{"realip", "ipreal"},
		},
		{
			name:  "an inflected verb and its particle",
			query: "where are blocks looked up",
			want:  map[string]float64{"lookup": 0.5, "lookedup": 0.5},
		},
		{
			name:  "a verb's doubled consonant undone",
			query: "when the user logged out",
			want:  map[string]float64{"logout": 0.5},
		},
		{
			name:  "a particle that is a stopword",
			query: "how does a user log in",
			want:  map[string]float64{"login": 0.5},
		},
		{
			name:  "an -ing verb",
			query: "shutting down the server",
			want:  map[string]float64{"shutdown": 0.5, "shuttingdown": 0.5},
		},
		{
			name:   "a particle joins only after a verb",
			query:  "set up in time",
			want:   map[string]float64{"setup": 0.5},
			absent: []string{"upin"},
		},
		{
			name:  "letters hyphenated to digits are one word",
			query: "UTF-8 validation of SHA-256 sums",
			want:  map[string]float64{"utf8": 1, "sha256": 1},
		},
		{
			name:   "letters hyphenated to letters are not",
			query:  "read-only files",
			absent: []string{"readonly"},
		},
		{
			name:   "long issue text",
			query:  issueText,
			absent: []string{"largeheader", "idletimeout", "errorresponse", "requestlines"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := analyze.Analyze(tc.query)
			got := map[string]float64{}
			for _, term := range q.Terms {
				got[term.Text] = term.Weight
			}
			for text, w := range tc.want {
				if gw, ok := got[text]; !ok {
					t.Errorf("Analyze(%q).Terms = %v, missing %q", tc.query, q.Terms, text)
				} else if gw != w {
					t.Errorf("Analyze(%q): term %q has weight %v, want %v", tc.query, text, gw, w)
				}
			}
			for _, text := range tc.absent {
				if _, ok := got[text]; ok {
					t.Errorf("Analyze(%q).Terms = %v, should not contain %q", tc.query, q.Terms, text)
				}
			}
		})
	}
}

func TestAnalyzeExtraction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		// Frames and Phrases are compared exactly; Symbols and Paths must
		// contain these (their heuristics may add more).
		frames      []analyze.Frame
		phrases     []string
		symbols     []string
		paths       []string
		notSymbols  []string
		wantSymbols []string // exact Symbols, when set
	}{
		{
			name: "python traceback",
			query: `Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/django/core/handlers/exception.py", line 55, in inner
    response = get_response(request)
  File "/usr/lib/python3/site-packages/django/db/models/query.py", line 123, in get
    raise self.model.DoesNotExist(
django.core.exceptions.ObjectDoesNotExist: Matching query does not exist.`,
			frames: []analyze.Frame{
				{Path: "/usr/lib/python3/site-packages/django/core/handlers/exception.py", Line: 55, Func: "inner"},
				{Path: "/usr/lib/python3/site-packages/django/db/models/query.py", Line: 123, Func: "get"},
			},
			phrases: []string{
				"/usr/lib/python3/site-packages/django/core/handlers/exception.py",
				"/usr/lib/python3/site-packages/django/db/models/query.py",
			},
			symbols: []string{"inner", "get", "get_response", "self.model.DoesNotExist", "django.core.exceptions.ObjectDoesNotExist"},
			paths: []string{
				"/usr/lib/python3/site-packages/django/core/handlers/exception.py",
				"/usr/lib/python3/site-packages/django/db/models/query.py",
			},
		},
		{
			name:    "python module frame",
			query:   "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nNameError: name 'x' is not defined",
			frames:  []analyze.Frame{{Path: "<stdin>", Line: 1, Func: "<module>"}},
			phrases: []string{"<stdin>"},
			symbols: []string{"NameError"},
			// "<module>" is not a function anyone defined.
			notSymbols: []string{"<module>", "module"},
		},
		{
			name:    "go panic",
			query:   "goroutine 1 [running]:\nmain.main()\n\t/home/x/proj/main.go:12 +0x1d",
			frames:  []analyze.Frame{{Path: "/home/x/proj/main.go", Line: 12}},
			symbols: []string{"main.main"},
			paths:   []string{"/home/x/proj/main.go"},
		},
		{
			name: "go panic with several frames",
			query: `panic: runtime error: index out of range [3] with length 3

goroutine 1 [running]:
example.com/proj/internal/parse.(*Parser).next(...)
	/home/x/proj/internal/parse/parser.go:27
main.main()
	/home/x/proj/main.go:12 +0x1d
exit status 2`,
			frames: []analyze.Frame{
				{Path: "/home/x/proj/internal/parse/parser.go", Line: 27},
				{Path: "/home/x/proj/main.go", Line: 12},
			},
			symbols: []string{"main.main"},
			paths:   []string{"/home/x/proj/internal/parse/parser.go", "/home/x/proj/main.go"},
		},
		{
			name: "javascript stack",
			query: `TypeError: Cannot read properties of undefined (reading 'id')
    at Router.handle (lib/router/index.js:45:12)
    at next (lib/router/route.js:149:13)
    at Object.<anonymous> (/srv/app/server.js:10:5)`,
			frames: []analyze.Frame{
				{Path: "lib/router/index.js", Line: 45, Func: "Router.handle"},
				{Path: "lib/router/route.js", Line: 149, Func: "next"},
				{Path: "/srv/app/server.js", Line: 10, Func: "Object.<anonymous>"},
			},
			symbols: []string{"Router.handle", "next", "TypeError"},
			paths:   []string{"lib/router/index.js", "lib/router/route.js", "/srv/app/server.js"},
		},
		{
			name: "java stack",
			query: `Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null
	at com.example.app.UserService.findUser(UserService.java:42)
	at com.example.app.Main.main(Main.java:10)`,
			frames: []analyze.Frame{
				{Path: "UserService.java", Line: 42, Func: "findUser"},
				{Path: "Main.java", Line: 10, Func: "main"},
			},
			phrases: []string{"main", "String.length()", "name"},
			symbols: []string{"findUser", "java.lang.NullPointerException", "com.example.app.UserService.findUser", "UserService"},
			paths:   []string{"UserService.java", "Main.java"},
		},
		{
			name:        "backticks and quotes",
			query:       "why does `parseArgs` return \"unexpected EOF\" but `not a symbol` is fine",
			phrases:     []string{"unexpected EOF"},
			wantSymbols: []string{"parseArgs"},
		},
		{
			name:        "dotted, scoped and called names",
			query:       "Foo::bar calls conn.Close() and then retry()",
			wantSymbols: []string{"Foo::bar", "conn.Close", "Close", "retry"},
		},
		{
			name:       "calls of stopwords are not symbols",
			query:      "if (x) for (y) while (z)",
			notSymbols: []string{"if", "for", "while"},
		},
		{
			name:  "paths and file names",
			query: "see net/http/server.go and transport.go, not www.example.com or e.g. foo",
			paths: []string{"net/http/server.go", "transport.go"},
		},
		{
			name:        "a Go method keeps its receiver whole",
			query:       "(*Server).Shutdown",
			wantSymbols: []string{"(*Server).Shutdown"},
		},
		{
			name:        "a Go method call in backticks keeps its receiver whole",
			query:       "why does `(*Server).Shutdown()` hang but `(T).String` not",
			wantSymbols: []string{"(*Server).Shutdown", "(T).String", "Shutdown"},
		},
		{
			name:        "parentheses around a plain name are dropped",
			query:       "`(parse)` and `parse(`",
			wantSymbols: []string{"parse"},
		},
		{
			name:        "method call is a symbol, not a path",
			query:       "obj.method",
			wantSymbols: []string{"obj.method"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := analyze.Analyze(tc.query)
			if diff := cmp.Diff(tc.frames, q.Frames); diff != "" {
				t.Errorf("Frames mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.phrases, q.Phrases); diff != "" {
				t.Errorf("Phrases mismatch (-want +got):\n%s", diff)
			}
			for _, s := range tc.symbols {
				if !slices.Contains(q.Symbols, s) {
					t.Errorf("Symbols = %q, missing %q", q.Symbols, s)
				}
			}
			for _, s := range tc.notSymbols {
				if slices.Contains(q.Symbols, s) {
					t.Errorf("Symbols = %q, should not contain %q", q.Symbols, s)
				}
			}
			if tc.wantSymbols != nil {
				if diff := cmp.Diff(tc.wantSymbols, q.Symbols); diff != "" {
					t.Errorf("Symbols mismatch (-want +got):\n%s", diff)
				}
			}
			for _, p := range tc.paths {
				if !slices.Contains(q.Paths, p) {
					t.Errorf("Paths = %q, missing %q", q.Paths, p)
				}
			}
			for _, p := range q.Paths {
				if strings.Contains(p, "://") || strings.HasPrefix(p, "www.") || p == "e.g" {
					t.Errorf("Paths = %q, should not contain %q", q.Paths, p)
				}
			}
			if q.Raw != tc.query {
				t.Errorf("Raw = %q, want the query", q.Raw)
			}
		})
	}
}

func TestAnalyzeUnique(t *testing.T) {
	t.Parallel()
	q := analyze.Analyze("conn.Close conn.Close `conn.Close` server.go server.go close Close")
	for name, list := range map[string][]string{"Symbols": q.Symbols, "Paths": q.Paths} {
		seen := map[string]bool{}
		for _, s := range list {
			if seen[s] {
				t.Errorf("%s = %q has %q twice", name, list, s)
			}
			seen[s] = true
		}
	}
	seen := map[string]bool{}
	for _, term := range q.Terms {
		if seen[term.Text] {
			t.Errorf("Terms = %v has %q twice", q.Terms, term.Text)
		}
		seen[term.Text] = true
	}
}

func TestTopTerms(t *testing.T) {
	t.Parallel()
	q := &analyze.Query{Terms: []analyze.Term{{Text: "a", Weight: 1}, {Text: "b", Weight: 3}, {Text: "c", Weight: 2}, {Text: "d", Weight: 3}, {Text: "e", Weight: 1}}}
	tests := []struct {
		n    int
		want []analyze.Term
	}{
		{0, []analyze.Term{}},
		{1, []analyze.Term{{Text: "b", Weight: 3}}},
		{3, []analyze.Term{{Text: "b", Weight: 3}, {Text: "d", Weight: 3}, {Text: "c", Weight: 2}}},
		{10, []analyze.Term{{Text: "b", Weight: 3}, {Text: "d", Weight: 3}, {Text: "c", Weight: 2}, {Text: "a", Weight: 1}, {Text: "e", Weight: 1}}},
	}
	for _, tc := range tests {
		got := q.TopTerms(tc.n)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("TopTerms(%d) mismatch (-want +got):\n%s", tc.n, diff)
		}
	}
	if q.Terms[0].Text != "a" || q.Terms[1].Text != "b" {
		t.Errorf("TopTerms reordered q.Terms: %v", q.Terms)
	}
}

func TestIsIdentifier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word string
		want bool
	}{
		{"ReadMIMEHeader", true},
		{"getX", true},
		{"closeIdleConns", true},
		{"XMLHttpRequest", true},
		{"parse_args", true},
		{"MAX_SIZE", true},
		{"x_1", true},
		{"__init__", true},
		{"utf8Decode", true},
		{"md5sum", true},
		{"Server", false},
		{"server", false},
		{"HTTP", false},
		{"_private", false},
		{"private_", false},
		{"utf8", false},
		{"base64", false},
		{"1234", false},
		{"ab", false},
		{"aB", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			t.Parallel()
			if got := analyze.IsIdentifier(tc.word); got != tc.want {
				t.Errorf("IsIdentifier(%q) = %v, want %v", tc.word, got, tc.want)
			}
		})
	}
}

// TestAnalyzePathOnce: a path written both in a frame (absolute) and in
// the text is one mention, kept absolute.
func TestAnalyzePathOnce(t *testing.T) {
	t.Parallel()
	q := analyze.Analyze("see srv/app/server.js\n    at main (/srv/app/server.js:10:5)")
	if diff := cmp.Diff([]string{"/srv/app/server.js"}, q.Paths); diff != "" {
		t.Errorf("Paths mismatch (-want +got):\n%s", diff)
	}
}

// TestTitle checks which long queries have a title line: an issue's
// summary line does; a traceback's header, a one-line query and a first
// line of one word or of a paragraph's length do not.
func TestTitle(t *testing.T) {
	body := strings.Repeat("The generated file uses the wrong value here. ", 6)
	cases := []struct {
		raw, want string
	}{
		{"Migrations uses value of enum object instead of its name.\nDescription\n" + body, "Migrations uses value of enum object instead of its name."},
		{"  \n\tOptional URL params crash some view functions.\r\n" + body, "Optional URL params crash some view functions."},
		{"Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n" + body, ""},
		{"Bug\n" + body, ""},
		{"### Describe the bug\n" + body, ""},
		{"Steps to reproduce:\n" + body, ""},
		{"# Crash when the config file is empty\n" + body, "Crash when the config file is empty"},
		{strings.Repeat("word ", 35) + "\n" + body, ""},
		{body, ""},
		{"how are idle connections closed", ""},
	}
	for _, c := range cases {
		q := analyze.Analyze(c.raw)
		got := ""
		if q.Title != nil {
			got = q.Title.Raw
			if q.Title.Kind == analyze.QueryLong || len(q.Title.Terms) == 0 {
				t.Errorf("title %q analyzed as %s with %d terms", got, q.Title.Kind, len(q.Title.Terms))
			}
		}
		if got != c.want {
			t.Errorf("Analyze(%.40q).Title = %q, want %q", c.raw, got, c.want)
		}
	}
}

func TestAnalyzePatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  []analyze.Patch
		paths []string // must be among q.Paths
		not   []string // must not be among q.Paths
	}{
		{
			name: "git diff with a/ b/ prefixes and a hunk",
			query: "Restore fails.\nI suggest:\ndiff --git a/django/db/backends/base/creation.py b/django/db/backends/base/creation.py\n" +
				"index bca8376..7bed2be 100644\n--- a/django/db/backends/base/creation.py\n+++ b/django/db/backends/base/creation.py\n" +
				"@@ -4,7 +4,7 @@ import time\n-from django.db import router\n+from django.db import router, transaction\n" +
				"@@ -128,8 +128,9 @@ class BaseDatabaseCreation(object):\n",
			want:  []analyze.Patch{{Path: "django/db/backends/base/creation.py", Line: 4}},
			paths: []string{"django/db/backends/base/creation.py"},
			not:   []string{"a/django/db/backends/base/creation.py", "b/django/db/backends/base/creation.py"},
		},
		{
			name: "indented plain unified diff of two files, a test among them",
			query: "Wrong result.\n\t--- sympy/solvers/polysys.py\n\t+++ sympy/solvers/polysys.py\n\t@@ -240,7 +240,7 @@ def _solve_reduced_system(system, gens, entry=False):\n" +
				"\t--- sympy/solvers/tests/test_polysys.py\n\t+++ sympy/solvers/tests/test_polysys.py\n\t@@ -48,6 +48,10 @@ def test_solve_poly_system():\n",
			want: []analyze.Patch{{Path: "sympy/solvers/polysys.py", Line: 240}, {Path: "sympy/solvers/tests/test_polysys.py", Line: 48}},
		},
		{
			name:  "a timestamp after the path and no hunk header",
			query: "patch:\n--- lib/util.py.orig\t2020-01-01 10:00:00\n+++ lib/util.py\t2020-01-02 10:00:00\n",
			want:  []analyze.Patch{{Path: "lib/util.py"}},
		},
		{
			name: "a deleted file is left out, a mode change is kept",
			query: "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n@@ -1,3 +0,0 @@\n" +
				"diff --git a/bin/run.sh b/bin/run.sh\nold mode 100644\nnew mode 100755\n",
			want: []analyze.Patch{{Path: "bin/run.sh"}},
		},
		{
			name:  "a b/ directory of a diff without prefixes stays",
			query: "--- b/x.go\n+++ b/x.go\n@@ -1 +1 @@\n",
			want:  []analyze.Patch{{Path: "b/x.go", Line: 1}},
		},
		{
			name:  "a diff's first line is not a title",
			query: "diff --git a/config/config.go b/config/config.go\n--- a/config/config.go\n+++ b/config/config.go\n@@ -8,3 +8,4 @@\n",
			want:  []analyze.Patch{{Path: "config/config.go", Line: 8}},
		},
		{
			name:  "plus signs in prose are not a diff",
			query: "why does a +++ b overflow in parse.go and what does --- mean here",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := analyze.Analyze(tc.query)
			if diff := cmp.Diff(tc.want, q.Patches); diff != "" {
				t.Errorf("Patches mismatch (-want +got):\n%s", diff)
			}
			if strings.HasPrefix(tc.query, "diff ") && q.Title != nil {
				t.Errorf("Title = %q, want none for a query that opens with a diff", q.Title.Raw)
			}
			for _, p := range tc.paths {
				if !slices.Contains(q.Paths, p) {
					t.Errorf("Paths = %q, missing %q", q.Paths, p)
				}
			}
			for _, p := range tc.not {
				if slices.Contains(q.Paths, p) {
					t.Errorf("Paths = %q, should not hold %q", q.Paths, p)
				}
			}
		})
	}
}

func TestAnalyzeNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  []string
	}{
		{"Semigroup and Monoid type classes for combining values", []string{"Semigroup", "Monoid"}},
		// Code-style identifiers (WebSocket, parseArgs) are Symbols, not
		// Names; acronyms, stopwords and short words are left out.
		{"how does the WebSocket transport handle CORS", []string{}},
		{"What does parseArgs do with an IO error", []string{}},
		{"where are request headers parsed", []string{}},
		// Other kinds have none.
		{"Monoid", nil},
		{"Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: bad", nil},
	}
	for _, tc := range tests {
		q := analyze.Analyze(tc.query)
		got := q.Names
		if tc.want != nil && got == nil {
			got = []string{}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Analyze(%q).Names mismatch (-want +got):\n%s", tc.query, diff)
		}
	}
}

func TestInnermostFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  []string // frame paths, most recent call first
	}{
		{
			name:  "python lists the most recent call last",
			query: "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 3, in <module>\n  File \"/srv/app/pkg/core.py\", line 9, in run\nValueError: bad",
			want:  []string{"/srv/app/pkg/core.py", "/srv/app/main.py"},
		},
		{
			name:  "go lists it first",
			query: "goroutine 1 [running]:\nexample.com/p.f()\n\t/home/x/p/f.go:27\nmain.main()\n\t/home/x/p/main.go:12 +0x1d",
			want:  []string{"/home/x/p/f.go", "/home/x/p/main.go"},
		},
		{
			name:  "a Windows path takes slashes",
			query: "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n  File \"C:\\Python310\\lib\\site-packages\\sympy\\physics\\units\\unitsystem.py\", line 179, in _collect_factor_and_dimension\nValueError: x",
			want:  []string{"C:/Python310/lib/site-packages/sympy/physics/units/unitsystem.py", "<stdin>"},
		},
	}
	for _, tc := range tests {
		q := analyze.Analyze(tc.query)
		var got []string
		for _, f := range q.InnermostFirst() {
			got = append(got, f.Path)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: InnermostFirst paths mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestAnalyzeInstallPrefix checks that the words of where a reporter
// installed a package (a user name, a project or virtualenv folder) make
// no terms or symbols, while the path keeps them for suffix matching and
// the package's own words stay.
func TestAnalyzeInstallPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		gone, kept  []string // terms
		paths       []string
	}{
		{
			name: "virtualenv traceback",
			query: "Optional URL params crash some view functions.\nTraceback (most recent call last):\n" +
				` File "/l10n/venv/lib/python3.6/site-packages/django/core/handlers/base.py", line 115, in _get_response` + "\n" +
				"\tresponse = self.process_exception_by_middleware(e, request)\n",
			gone:  []string{"l10n", "venv", "python3", "site", "packages"},
			kept:  []string{"django", "core", "handlers", "base", "response", "_get_response"},
			paths: []string{"/l10n/venv/lib/python3.6/site-packages/django/core/handlers/base.py"},
		},
		{
			name:  "windows path",
			query: "it fails in C:\\Users\\hcui7\\miniconda3\\lib\\site-packages\\sympy\\core\\basic.py when a Symbol is compared with a Point in the plane",
			gone:  []string{"hcui7", "miniconda3", "users"},
			kept:  []string{"sympy", "basic", "symbol", "point"},
		},
		{
			name:  "npm dependency",
			query: "TypeError: cannot read properties of undefined\n    at Layer.handle (/home/dev/shop-api/node_modules/express/lib/router/layer.js:95:5)\n    at next (/home/dev/shop-api/node_modules/express/lib/router/route.js:149:13)",
			gone:  []string{"shop", "api", "dev", "home"},
			kept:  []string{"express", "router", "layer", "handle"},
			paths: []string{"/home/dev/shop-api/node_modules/express/lib/router/layer.js"},
		},
		{
			name: "standard library frames",
			query: "Traceback (most recent call last):\n" +
				`  File "/usr/local/Cellar/python@3.9/3.9.13_1/Frameworks/Python.framework/Versions/3.9/lib/python3.9/argparse.py", line 2483, in _get_value` + "\n" +
				`  File "C:\\Python310\\Lib\\sre_compile.py", line 788, in compile` + "\n" +
				`  File "/usr/lib64/python3/threading.py", line 932, in _bootstrap_inner` + "\n",
			gone:  []string{"cellar", "framework", "versions", "python", "lib64"},
			kept:  []string{"argparse", "sre_compile", "threading", "_get_value", "compile"},
			paths: []string{"/usr/local/Cellar/python@3.9/3.9.13_1/Frameworks/Python.framework/Versions/3.9/lib/python3.9/argparse.py"},
		},
		{
			name: "go module cache",
			query: "goroutine 1 [running]:\nnet/http.(*Server).Shutdown(0xc000132000)\n" +
				"\t/home/dev/go/pkg/mod/golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64/src/net/http/server.go:3120 +0x2c5\n" +
				"\t/home/dev/go/pkg/mod/github.com/spf13/cobra@v1.10.2/command.go:1015 +0x2c5\n",
			gone: []string{"toolchain", "linux", "amd64", "spf13", "dev"},
			kept: []string{"net", "http", "server", "shutdown", "command"},
		},
		{
			name:  "a project's own lib folder",
			query: "the loader in lib/pythonic/loader.py and src/lib/python_utils.py reads the config twice",
			kept:  []string{"lib", "pythonic", "loader", "python_utils"},
		},
		{
			name:  "the words alone",
			query: "pip installs into site-packages and npm into node_modules, and the loader reads both",
			kept:  []string{"site", "packages", "node_modules", "loader"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := analyze.Analyze(tt.query)
			terms := map[string]bool{}
			for _, term := range q.Terms {
				terms[term.Text] = true
			}
			if len(q.Text) != len(q.Raw) {
				t.Errorf("Text is %d bytes, Raw %d: offsets must match", len(q.Text), len(q.Raw))
			}
			for _, w := range tt.gone {
				if strings.Contains(strings.ToLower(q.Text), w) {
					t.Errorf("Text keeps %q from the install location: %q", w, q.Text)
				}
				if terms[w] {
					t.Errorf("term %q from the install location kept; terms %v", w, q.Terms)
				}
				if slices.Contains(q.Symbols, w) {
					t.Errorf("symbol %q from the install location kept", w)
				}
			}
			for _, w := range tt.kept {
				if !terms[w] {
					t.Errorf("term %q missing; terms %v", w, q.Terms)
				}
			}
			for _, p := range tt.paths {
				if !slices.Contains(q.Paths, p) {
					t.Errorf("path %q missing; paths %v", p, q.Paths)
				}
			}
		})
	}
}

// TestAnalyzeFrameScoped checks which symbols only a traceback's frames
// name: their functions, unless the issue also writes them elsewhere.
func TestAnalyzeFrameScoped(t *testing.T) {
	t.Parallel()
	q := analyze.Analyze("`get` fails for an empty queryset\nTraceback (most recent call last):\n" +
		`  File "/srv/app/venv/lib/python3.8/site-packages/django/core/handlers/exception.py", line 34, in inner` + "\n" +
		"    response = get_response(request)\n" +
		`  File "/srv/app/venv/lib/python3.8/site-packages/django/core/handlers/base.py", line 115, in _get_response` + "\n" +
		`  File "/srv/app/shop/views.py", line 9, in get_response` + "\n" +
		`  File "/srv/app/venv/lib/python3.8/site-packages/django/db/models/query.py", line 123, in get` + "\n")
	want := map[string][]string{
		"inner":         {"/srv/app/venv/lib/python3.8/site-packages/django/core/handlers/exception.py"},
		"_get_response": {"/srv/app/venv/lib/python3.8/site-packages/django/core/handlers/base.py"},
	}
	if diff := cmp.Diff(want, q.FrameScoped); diff != "" {
		t.Errorf("FrameScoped mismatch (-want +got):\n%s", diff)
	}
	for _, s := range []string{"inner", "_get_response", "get_response", "get"} {
		if !slices.Contains(q.Symbols, s) {
			t.Errorf("symbol %q missing from %v", s, q.Symbols)
		}
	}
}
