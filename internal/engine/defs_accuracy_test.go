package engine_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

// Definition accuracy: testdata/defs holds one small repository per
// language, each a txtar archive whose want.txt section lists, one per
// line, the definitions its files hold:
//
//	path<TAB>kind<TAB>qualified-symbol<TAB>start_line
//
// The lists are written by hand from the code, not from ctx's output.
// start_line is the line of the declaration itself (the line with the
// name), not of its doc comment or decorators.
//
// What counts as a definition, in every language:
//   - named types with a body or an aliased type: classes, structs,
//     unions, interfaces, traits, enums, records, type aliases, typedefs,
//     delegates, concepts, Rust impl blocks (named by their type) and
//     associated types;
//   - namespace and module blocks with a body (not package clauses or
//     C# file-scoped namespaces);
//   - functions, methods, constructors, destructors and operators that
//     have a body, however short (expression bodies and Python's "..."
//     count); so Python @overload stubs count, while TypeScript overload
//     signatures, abstract and interface methods without a body, C
//     prototypes and C++ in-class declarations of out-of-class members
//     do not;
//   - every constant and variable at file, package or namespace scope,
//     one-line or not, each name of a Go const/var group, and macros
//     (not include guards).
//
// Not counted: imports, locals and nested functions inside functions, and
// data members (fields, properties, events, enum members, class
// attributes, Java/C# static constants).
//
// Qualified symbols follow [chunk.Chunk.Symbol]'s convention: enclosing
// types joined by "." ("Queue.Stats.total"), Go methods as "(T).M" or
// "(*T).M", with namespaces and modules left out. Kinds use the chunk
// kind names. Neither is part of the match; both are reported.
//
// Match rule: a listed symbol (from [engine.Engine.Symbols]) matches a
// wanted definition when it has the same path and bare name and its line
// span holds the definition's start line (the span starts at the doc
// comment or decorators, so "within" rather than "equal"). Names compare
// with spaces removed ("operator +"). Each side matches at most once;
// when several symbols qualify, the one with the shortest span wins.
// Precision is matched/listed, recall is matched/wanted, per language
// and over all fixtures (summed counts).
//
// A one-line constant or variable at top level (C, C++, JavaScript,
// TypeScript, Python) is grouped into an unnamed block chunk, and a Go
// const or var group is one chunk named by its first spec; those names
// come from the names table (graph.Names), which Symbols lists beside
// the chunks.
const (
	// defsMinPrecision and defsMinRecall are the bar over all
	// fixtures.
	defsMinPrecision = 0.95
	defsMinRecall    = 0.90
	// defsMinPerLanguage is the floor for each language's precision and
	// recall, so that one good language cannot hide a broken one.
	defsMinPerLanguage = 0.80
)

// wantDef is one line of a fixture's want.txt.
type wantDef struct {
	Path, Kind, Symbol string
	Line               int
}

// defsResult is one fixture's measurement.
type defsResult struct {
	lang                     string
	wanted, listed, matched  int
	kindOK, symbolOK         int
	missed, extra, mislabels []string
}

func TestDefsAccuracy(t *testing.T) {
	t.Parallel()
	results := measureFixtures(t, measureDefs)
	if t.Failed() {
		return
	}

	var total defsResult
	total.lang = "all"
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "language\twanted\tlisted\tmatched\tprecision\trecall\tkind ok\tsymbol ok\t")
	row := func(r defsResult) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3f\t%.3f\t%d/%d\t%d/%d\t\n", r.lang, r.wanted, r.listed, r.matched,
			defsRatio(r.matched, r.listed), defsRatio(r.matched, r.wanted), r.kindOK, r.matched, r.symbolOK, r.matched)
	}
	for _, r := range results {
		row(r)
		total.wanted += r.wanted
		total.listed += r.listed
		total.matched += r.matched
		total.kindOK += r.kindOK
		total.symbolOK += r.symbolOK
	}
	row(total)
	tw.Flush()
	t.Logf("definition accuracy (lexical index, Engine.Symbols):\n%s", tab.String())
	for _, r := range results {
		for _, s := range r.missed {
			t.Logf("%s: missed %s", r.lang, s)
		}
		for _, s := range r.extra {
			t.Logf("%s: extra %s", r.lang, s)
		}
		for _, s := range r.mislabels {
			t.Logf("%s: %s", r.lang, s)
		}
	}

	for _, r := range results {
		if p, rc := defsRatio(r.matched, r.listed), defsRatio(r.matched, r.wanted); p < defsMinPerLanguage || rc < defsMinPerLanguage {
			t.Errorf("%s: precision %.3f, recall %.3f; want both >= %.2f", r.lang, p, rc, defsMinPerLanguage)
		}
	}
	if p := defsRatio(total.matched, total.listed); p < defsMinPrecision {
		t.Errorf("overall precision %.3f, want >= %.2f", p, defsMinPrecision)
	}
	if rc := defsRatio(total.matched, total.wanted); rc < defsMinRecall {
		t.Errorf("overall recall %.3f, want >= %.2f", rc, defsMinRecall)
	}
}

// measureDefs indexes one fixture and matches its symbols against its
// want.txt.
func measureDefs(t *testing.T, lang, file string) defsResult {
	t.Helper()
	fx := readFixture(t, file)
	want := parseWantDefs(t, fx.golden["want.txt"])
	if len(want) == 0 {
		t.Fatalf("%s has no want.txt section", file)
	}
	for _, w := range want {
		checkWantDef(t, w, fx.src[w.Path])
	}
	e := fx.index(t)
	syms, err := e.Symbols(t.Context(), nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}

	r := defsResult{lang: lang, wanted: len(want), listed: len(syms)}
	used := make([]bool, len(syms))
	for _, w := range want {
		name := defsBareName(w.Symbol)
		best := -1
		for i, s := range syms {
			if used[i] || s.Path != w.Path || defsNormName(s.Name) != name || w.Line < s.StartLine || w.Line > s.EndLine {
				continue
			}
			if best < 0 || s.EndLine-s.StartLine < syms[best].EndLine-syms[best].StartLine {
				best = i
			}
		}
		if best < 0 {
			r.missed = append(r.missed, fmt.Sprintf("%s:%d %s %s", w.Path, w.Line, w.Kind, w.Symbol))
			continue
		}
		used[best] = true
		r.matched++
		s := syms[best]
		if s.Kind == w.Kind {
			r.kindOK++
		} else {
			r.mislabels = append(r.mislabels, fmt.Sprintf("kind %s:%d %s: got %s, want %s", w.Path, w.Line, w.Symbol, s.Kind, w.Kind))
		}
		if s.Symbol == w.Symbol {
			r.symbolOK++
		} else {
			r.mislabels = append(r.mislabels, fmt.Sprintf("symbol %s:%d: got %s, want %s", w.Path, w.Line, s.Symbol, w.Symbol))
		}
	}
	for i, s := range syms {
		if !used[i] {
			r.extra = append(r.extra, fmt.Sprintf("%s:%d-%d %s %s", s.Path, s.StartLine, s.EndLine, s.Kind, s.Symbol))
		}
	}
	return r
}

// parseWantDefs reads want.txt lines: path, kind, qualified symbol and
// start line, tab-separated.
func parseWantDefs(t *testing.T, data []byte) []wantDef {
	t.Helper()
	rows, lines := goldenFields(t, "want.txt", data, 4, 3)
	out := make([]wantDef, len(rows))
	for i, f := range rows {
		out[i] = wantDef{Path: f[0], Kind: f[1], Symbol: f[2], Line: lines[i]}
	}
	return out
}

// checkWantDef guards the hand-written list against typos: the file
// exists and the start line names the definition.
func checkWantDef(t *testing.T, w wantDef, src []byte) {
	t.Helper()
	if src == nil {
		t.Fatalf("want %s: no file %s in the archive", w.Symbol, w.Path)
	}
	lines := strings.Split(string(src), "\n")
	if w.Line > len(lines) {
		t.Fatalf("want %s: %s has %d lines, not %d", w.Symbol, w.Path, len(lines), w.Line)
	}
	if !strings.Contains(defsNormName(lines[w.Line-1]), defsBareName(w.Symbol)) {
		t.Fatalf("want %s: %s:%d does not name it: %q", w.Symbol, w.Path, w.Line, lines[w.Line-1])
	}
}

// defsBareName returns a qualified symbol's last name: "(*Map).Get" →
// "Get", "Queue.Stats.total" → "total", "Vec2.operator+" → "operator+".
func defsBareName(sym string) string {
	if strings.HasPrefix(sym, "(") {
		if _, after, ok := strings.Cut(sym, ")."); ok {
			sym = after
		}
	}
	if i := strings.LastIndex(sym, "."); i >= 0 {
		sym = sym[i+1:]
	}
	return defsNormName(sym)
}

// defsNormName drops spaces so that "operator +" and "operator+" compare equal.
func defsNormName(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func defsRatio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}
