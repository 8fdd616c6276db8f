// Fuzz targets for the analyzer. Run each with:
//
//	go test -run='^$' -fuzz=FuzzTerms -fuzztime=60s ./internal/analyze
//	go test -run='^$' -fuzz=FuzzAnalyze -fuzztime=60s ./internal/analyze
//
// Crashers land in testdata/fuzz/<target> and are committed. Minimizing each
// new interesting input can stall the exec counter for up to a minute; add
// -fuzzminimizetime=2s to spend the time fuzzing instead.
package analyze_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/analyze"
)

var fuzzSeeds = []string{
	"",
	"getHTTPResponse",
	"ReadMIMEHeader http.Server parse_args Foo::bar",
	"max-width foo-bar-baz héllo-world x-1 a--b",
	"utf8Decode base64 v2 __init__ MAX_SIZE",
	"naïveCafé ÜberSchön Straße 日本語",
	strings.Repeat("Ⱥ", 32),
	strings.Repeat("a", 65) + "-b",
	"\xff\xfeabc\xc3 ab\xffcd",
	"how does the server close idle connections",
	"Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/django/db/models/query.py\", line 123, in get\n",
	"goroutine 1 [running]:\nmain.main()\n\t/home/x/proj/main.go:12 +0x1d",
	"File \"C:\\Py\\Python310\\Lib\\site-packages\\x\\y.py\", line 3, in f\n  at g (/a/node_modules/b/c.js:1:2) lib/python3.9/ /site-packages/",
	"    at Router.handle (lib/router/index.js:45:12)",
	"\tat com.example.app.UserService.findUser(UserService.java:42)",
	"why does `parseArgs` return \"unexpected EOF\"",
}

// checkTerm reports a term that breaks the analyzer's output contract.
func checkTerm(t *testing.T, input, term string) {
	t.Helper()
	switch {
	case term == "":
		t.Errorf("empty term from %q", input)
	case !utf8.ValidString(term):
		t.Errorf("invalid UTF-8 term %q from %q", term, input)
	case strings.ToLower(term) != term:
		t.Errorf("term %q from %q is not lower-case", term, input)
	case len(term) > analyze.MaxTermBytes:
		t.Errorf("term %q from %q is %d bytes, longer than MaxTermBytes", term, input, len(term))
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var got []string
		analyze.Terms(text, func(term string) {
			checkTerm(t, text, term)
			got = append(got, term)
		})
		if again := analyze.TermList(text); len(again) != len(got) {
			t.Errorf("TermList(%q) has %d terms, Terms emitted %d", text, len(again), len(got))
		}
		analyze.Words(text, func(w string, start int) {
			if w == "" || start < 0 || start+len(w) > len(text) || text[start:start+len(w)] != w {
				t.Errorf("Words(%q) emitted %q at %d", text, w, start)
			}
			analyze.Parts(w, func(p string) {
				if p == "" || !strings.Contains(w, p) {
					t.Errorf("Parts(%q) emitted %q", w, p)
				}
			})
		})
	})
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q := analyze.Analyze(raw)
		switch q.Kind {
		case analyze.QuerySymbol, analyze.QueryNatural, analyze.QueryLong:
		default:
			t.Errorf("Analyze(%q).Kind = %q", raw, q.Kind)
		}
		seen := map[string]bool{}
		for _, term := range q.Terms {
			checkTerm(t, raw, term.Text)
			if term.Weight <= 0 {
				t.Errorf("term %q from %q has weight %v", term.Text, raw, term.Weight)
			}
			if seen[term.Text] {
				t.Errorf("term %q from %q appears twice", term.Text, raw)
			}
			seen[term.Text] = true
			if analyze.IsStopword(term.Text) {
				t.Errorf("stopword %q from %q kept", term.Text, raw)
			}
		}
		if len(q.Text) != len(raw) {
			t.Errorf("Text of %q is %d bytes, want %d", raw, len(q.Text), len(raw))
		}
		for name, paths := range q.FrameScoped {
			if !slices.Contains(q.Symbols, name) || len(paths) == 0 {
				t.Errorf("frame-scoped %q (paths %q) from %q: not a symbol, or no path", name, paths, raw)
			}
		}
		for _, fr := range q.Frames {
			if fr.Path == "" || fr.Line < 0 {
				t.Errorf("bad frame %+v from %q", fr, raw)
			}
		}
		for _, s := range q.Symbols {
			if s == "" {
				t.Errorf("empty symbol from %q", raw)
			}
		}
		for _, p := range q.Paths {
			if p == "" {
				t.Errorf("empty path from %q", raw)
			}
		}
		if top := q.TopTerms(5); len(top) > 5 || len(top) > len(q.Terms) {
			t.Errorf("TopTerms(5) returned %d of %d terms", len(top), len(q.Terms))
		}
	})
}
