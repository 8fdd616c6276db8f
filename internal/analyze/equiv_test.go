package analyze

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func collect(terms func(string, func(string)), text string) []string {
	var out []string
	terms(text, func(t string) { out = append(out, t) })
	return out
}

// TestTermsMatchReference checks that the analyzer emits exactly the terms,
// in the same order, with its ASCII fast path as without it, and that
// every term stems as with every suffix tried in turn (reference_test.go),
// on real code from the toolchain, on the fuzz seeds and on random
// strings over an alphabet of the characters the rules care about.
func TestTermsMatchReference(t *testing.T) {
	seen := map[string]bool{}
	check := func(name, text string) {
		t.Helper()
		want, got := collect(refTerms, text), collect(Terms, text)
		for _, term := range got {
			if !seen[term] {
				seen[term] = true
				if s, r := Stem(term), refStem(term); s != r {
					t.Fatalf("%s: Stem(%q) = %q, want %q", name, term, s, r)
				}
			}
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%s: term %d is %q, want %q (of %d/%d terms)", name, i, got[i], want[i], len(got), len(want))
				}
			}
			t.Fatalf("%s: %d terms, want %d", name, len(got), len(want))
		}
	}
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "*", "*.go"))
	more, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "*", "*", "*.go"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no Go sources under GOROOT")
	}
	// Every 4th file (about 1.5k files, 12 MB) keeps the race build quick;
	// -short reads 100.
	step := 4
	if testing.Short() {
		step = max(1, len(files)/100)
	}
	for i := 0; i < len(files); i += step {
		f := files[i]
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, string(b))
	}
	for _, s := range []string{
		"getHTTPResponse utf8Decode XMLHttpRequest IPv6Addr ABCDef aB Ab A1b2 __init__ _x_ x__y",
		"naïveCafé ÜberSchön Straße 日本語 ǅungla ǈx Ⱥbc", "max-width foo-bar-baz a--b x-1 -a- héllo-world",
		"\xff\xfeabc\xc3 ab\xffcd", "buffered logging stripped indexes matches passes files validation serializations",
		"stress status analysis ties dies agrees noted able ables ities", strings.Repeat("Ab", 40), strings.Repeat("a", 65) + "-b",
	} {
		check(s, s)
	}
	alphabet := []rune("aAbBeEiIsSnNgGdDrRyYtTlLzZ019_- .éÉßǅ日\u0301\xff")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		n := rng.IntN(24)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		check("random #"+string(rune('0'+i%10)), b.String())
	}
}

// TestStemMatchesReference checks [Stem] against the reference on every
// lower-case ASCII word of up to five letters over an alphabet of the
// letters the suffix rules use, and on suffix-bearing words.
func TestStemMatchesReference(t *testing.T) {
	letters := "abdeginorstuyzlx"
	var rec func(prefix string, depth int)
	rec = func(prefix string, depth int) {
		if got, want := Stem(prefix), refStem(prefix); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", prefix, got, want)
		}
		if depth == 0 {
			return
		}
		for i := range len(letters) {
			rec(prefix+letters[i:i+1], depth-1)
		}
	}
	rec("", 5)
	for _, stem := range []string{"valid", "serial", "log", "strip", "buff", "x", "ab", "abc", "tree", "rhythm"} {
		for _, suf := range stemSuffixes {
			w := stem + suf
			if got, want := Stem(w), refStem(w); got != want {
				t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
}
