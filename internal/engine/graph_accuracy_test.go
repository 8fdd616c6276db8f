package engine_test

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/engine"
)

// Graph accuracy: the fixtures of testdata/defs (see TestDefsAccuracy)
// also hold two hand-written lists, written by reading the code and not
// from ctx's output.
//
// imports.txt lists every import statement of the fixture:
//
//	path<TAB>line<TAB>spec<TAB>target
//
// spec follows [graph.Import]'s convention (a Go import path, a Python
// module with its leading dots, a JS specifier, a dotted Java or C# name,
// one Rust path per name of a use group with inline modules' self:: and
// super:: rebased, "mod name" for a file module, a C include with its
// delimiters); line is the line that holds the spec. target is the
// repository file the import names, or for Go and C# the package or
// namespace directory, or "-" for one outside the repository.
//
// calls.txt lists, for a few functions per fixture, every call site of
// their name, including calls of another function with the same name
// (Vec::push beside RingBuffer::push):
//
//	path<TAB>line<TAB>callee<TAB>definition
//
// definition is where the called function is defined, as
// [engine.Reference.Definition] spells it: the path and first line of
// the definition's chunk, which is its doc comment's first line when it
// has one, else its first annotation, decorator, attribute or template
// line, else the line that names it; "-" when the callee is not defined
// in the fixture (a library's function).
//
// Measured, per language and over all fixtures (summed counts):
//   - import extraction: precision and recall of (path, line, spec) in
//     [engine.Engine.Deps] of every indexed file;
//   - resolution: the share of the listed in-repository imports whose
//     Target is the listed one (and, reported only, how many external
//     ones have no Target);
//   - call sites: precision and recall of (path, line) among
//     [engine.Engine.References] of kind "call" for each listed callee;
//   - links: the share of listed call sites found with the listed
//     Definition ("" for "-").
const (
	// Extraction reads statements by grammar or close line patterns, so
	// a miss is a bug: the bar is the 0.95 for both.
	graphMinImportPrecision = 0.95
	graphMinImportRecall    = 0.95
	// Resolution follows each language's layout conventions; 0.90 leaves
	// room for one convention a fixture does not follow.
	graphMinResolved = 0.90
	// Call sites are whole-word text matches followed by "(" on lines
	// that do not declare the name, so a call written in a way the line
	// patterns do not see (a function passed by name, a call through a
	// macro) is a miss, and a declaration they do not recognise is an
	// extra; the fixtures measure 1.000 for both, and the bar is the
	// issue's 0.95.
	graphMinCallPrecision = 0.95
	graphMinCallRecall    = 0.95
	// Links pick a definition by name and scope, not by type, so a call
	// of a library function that shares a name with one of the
	// fixture's (List.add, Vec::push, path.split, StringBuilder's
	// ToString) or of one of several overloads links to the fixture's
	// (the first in its file). The fixtures hold 7 such calls of 72 on
	// purpose (0.903); 0.85 leaves room for one or two more.
	graphMinLinked = 0.85
)

// measureFixtures runs measure on every testdata/defs archive in
// parallel subtests and returns the results in file order.
func measureFixtures[R any](t *testing.T, measure func(t *testing.T, lang, file string) R) []R {
	t.Helper()
	fixtures, err := filepath.Glob(filepath.Join("testdata", "defs", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) == 0 {
		t.Fatal("no fixtures in testdata/defs")
	}
	results := make([]R, len(fixtures))
	t.Run("lang", func(t *testing.T) {
		for i, f := range fixtures {
			lang := strings.TrimSuffix(filepath.Base(f), ".txtar")
			t.Run(lang, func(t *testing.T) {
				t.Parallel()
				results[i] = measure(t, lang, f)
			})
		}
	})
	return results
}

// fixture is one testdata/defs archive: its code files and its golden
// sections.
type fixture struct {
	code   *txtar.Archive
	src    map[string][]byte // code files by path
	golden map[string][]byte // golden sections by name
}

// readFixture splits a testdata/defs archive into code and goldens.
func readFixture(t *testing.T, file string) fixture {
	t.Helper()
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{code: &txtar.Archive{}, src: map[string][]byte{}, golden: map[string][]byte{}}
	for _, f := range a.Files {
		if goldenSections[f.Name] {
			fx.golden[f.Name] = f.Data
			continue
		}
		fx.src[f.Name] = f.Data
		fx.code.Files = append(fx.code.Files, f)
	}
	return fx
}

// index writes the fixture's code to a new directory and indexes it
// lexical-only.
func (fx fixture) index(t *testing.T) *engine.Engine {
	t.Helper()
	root := t.TempDir()
	if err := txtar.Write(fx.code, root); err != nil {
		t.Fatal(err)
	}
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	return e
}

// goldenSections are the fixture sections that hold expected results
// rather than code; they are not written into the indexed repository.
var goldenSections = map[string]bool{"want.txt": true, "imports.txt": true, "calls.txt": true}

// wantImport is one line of imports.txt; Target is "" for "-".
type wantImport struct {
	Path         string
	Line         int
	Spec, Target string
}

// wantCall is one line of calls.txt; Def is "" for "-".
type wantCall struct {
	Path        string
	Line        int
	Callee, Def string
}

// graphResult is one fixture's measurement.
type graphResult struct {
	lang                                  string
	impWanted, impGot, impMatched         int
	inRepo, resolved, external, extNoPath int
	callWanted, callGot, callMatched      int
	linked                                int
	notes                                 []string
}

func (r *graphResult) add(o graphResult) {
	r.impWanted += o.impWanted
	r.impGot += o.impGot
	r.impMatched += o.impMatched
	r.inRepo += o.inRepo
	r.resolved += o.resolved
	r.external += o.external
	r.extNoPath += o.extNoPath
	r.callWanted += o.callWanted
	r.callGot += o.callGot
	r.callMatched += o.callMatched
	r.linked += o.linked
}

func TestGraphAccuracy(t *testing.T) {
	t.Parallel()
	results := measureFixtures(t, measureGraph)
	if t.Failed() {
		return
	}

	total := graphResult{lang: "all"}
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "language\timports\tfound\tmatched\tprecision\trecall\tresolved\text. no target\t"+
		"calls\tfound\tmatched\tprecision\trecall\tlinked\t")
	row := func(r graphResult) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3f\t%.3f\t%d/%d\t%d/%d\t%d\t%d\t%d\t%.3f\t%.3f\t%d/%d\t\n", r.lang,
			r.impWanted, r.impGot, r.impMatched, defsRatio(r.impMatched, r.impGot), defsRatio(r.impMatched, r.impWanted),
			r.resolved, r.inRepo, r.extNoPath, r.external,
			r.callWanted, r.callGot, r.callMatched, defsRatio(r.callMatched, r.callGot), defsRatio(r.callMatched, r.callWanted),
			r.linked, r.callWanted)
	}
	for _, r := range results {
		row(r)
		total.add(r)
	}
	row(total)
	tw.Flush()
	t.Logf("import and call accuracy (lexical index, Engine.Deps and Engine.References):\n%s", tab.String())
	for _, r := range results {
		for _, n := range r.notes {
			t.Logf("%s: %s", r.lang, n)
		}
	}

	check := func(what string, got, min float64) {
		if got < min {
			t.Errorf("overall %s %.3f, want >= %.2f", what, got, min)
		}
	}
	check("import precision", defsRatio(total.impMatched, total.impGot), graphMinImportPrecision)
	check("import recall", defsRatio(total.impMatched, total.impWanted), graphMinImportRecall)
	check("import resolution", defsRatio(total.resolved, total.inRepo), graphMinResolved)
	check("call-site precision", defsRatio(total.callMatched, total.callGot), graphMinCallPrecision)
	check("call-site recall", defsRatio(total.callMatched, total.callWanted), graphMinCallRecall)
	check("call links", defsRatio(total.linked, total.callWanted), graphMinLinked)
}

// measureGraph indexes one fixture and compares its imports and call
// sites with its imports.txt and calls.txt.
func measureGraph(t *testing.T, lang, file string) graphResult {
	t.Helper()
	fx := readFixture(t, file)
	imports := parseWantImports(t, fx.golden["imports.txt"])
	calls := parseWantCalls(t, fx.golden["calls.txt"])
	if len(imports) == 0 || len(calls) == 0 {
		t.Fatalf("%s needs imports.txt and calls.txt sections", file)
	}
	checkGraphGoldens(t, fx.src, imports, calls)
	e := fx.index(t)
	r := graphResult{lang: lang}

	// Imports, from every indexed file's own import list.
	files, _, err := e.Files(t.Context(), "", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]engine.Dependency{}
	for _, f := range files {
		d, err := e.Deps(t.Context(), f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range d.Imports {
			got[fmt.Sprintf("%s:%d:%s", im.Path, im.Line, im.Spec)] = im
		}
	}
	r.impWanted, r.impGot = len(imports), len(got)
	for _, w := range imports {
		key := fmt.Sprintf("%s:%d:%s", w.Path, w.Line, w.Spec)
		g, ok := got[key]
		if w.Target != "" {
			r.inRepo++
		} else {
			r.external++
		}
		if !ok {
			r.notes = append(r.notes, "import missed "+key)
			continue
		}
		delete(got, key)
		r.impMatched++
		switch {
		case w.Target == "" && g.Target == "":
			r.extNoPath++
		case w.Target == "":
			r.notes = append(r.notes, fmt.Sprintf("import %s: external, resolved to %s", key, g.Target))
		case g.Target == w.Target:
			r.resolved++
		default:
			r.notes = append(r.notes, fmt.Sprintf("import %s: target %q, want %s (internal %v)", key, g.Target, w.Target, g.Internal))
		}
	}
	for key := range got {
		r.notes = append(r.notes, "import extra "+key)
	}

	// Call sites of each listed callee.
	byCallee := map[string][]wantCall{}
	var callees []string
	for _, c := range calls {
		if byCallee[c.Callee] == nil {
			callees = append(callees, c.Callee)
		}
		byCallee[c.Callee] = append(byCallee[c.Callee], c)
	}
	r.callWanted = len(calls)
	for _, name := range callees {
		refs, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: name, Kinds: []string{"call"}, Max: 1000})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]engine.Reference{}
		for _, ref := range refs {
			found[fmt.Sprintf("%s:%d", ref.Path, ref.Line)] = ref
		}
		r.callGot += len(found)
		for _, w := range byCallee[name] {
			key := fmt.Sprintf("%s:%d", w.Path, w.Line)
			ref, ok := found[key]
			if !ok {
				r.notes = append(r.notes, fmt.Sprintf("call %s %s missed", key, name))
				continue
			}
			delete(found, key)
			r.callMatched++
			if ref.Definition == w.Def {
				r.linked++
			} else {
				want := cmpOr(w.Def, "-")
				r.notes = append(r.notes, fmt.Sprintf("call %s %s linked to %q (%.2f), want %s", key, name, ref.Definition, ref.Confidence, want))
			}
		}
		for key, ref := range found {
			r.notes = append(r.notes, fmt.Sprintf("call %s %s extra: %s", key, name, ref.Text))
		}
	}
	return r
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// goldenFields reads tab-separated lines of n fields, skipping blank
// lines and # comments; field lineField is a 1-based line number.
func goldenFields(t *testing.T, name string, data []byte, n, lineField int) ([][]string, []int) {
	t.Helper()
	var rows [][]string
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != n {
			t.Fatalf("%s:%d: %d fields, want %d", name, ln, len(f), n)
		}
		v, err := strconv.Atoi(f[lineField])
		if err != nil || v < 1 {
			t.Fatalf("%s:%d: bad line %q", name, ln, f[lineField])
		}
		rows = append(rows, f)
		lines = append(lines, v)
	}
	return rows, lines
}

func parseWantImports(t *testing.T, data []byte) []wantImport {
	t.Helper()
	rows, lines := goldenFields(t, "imports.txt", data, 4, 1)
	out := make([]wantImport, len(rows))
	for i, f := range rows {
		out[i] = wantImport{Path: f[0], Line: lines[i], Spec: f[2], Target: strings.TrimPrefix(f[3], "-")}
	}
	return out
}

func parseWantCalls(t *testing.T, data []byte) []wantCall {
	t.Helper()
	rows, lines := goldenFields(t, "calls.txt", data, 4, 1)
	out := make([]wantCall, len(rows))
	for i, f := range rows {
		out[i] = wantCall{Path: f[0], Line: lines[i], Callee: f[2], Def: strings.TrimPrefix(f[3], "-")}
	}
	return out
}

// specWord finds the identifiers of an import spec.
var specWord = regexp.MustCompile(`[A-Za-z_]\w*`)

// checkGraphGoldens guards the hand-written lists against typos: each
// line exists and mentions its spec's last name or its callee, each
// import is listed once, targets are files or directories of the
// archive, and definitions are lines of its files.
func checkGraphGoldens(t *testing.T, src map[string][]byte, imports []wantImport, calls []wantCall) {
	t.Helper()
	line := func(p string, n int) string {
		data, ok := src[p]
		if !ok {
			t.Fatalf("no file %s in the archive", p)
		}
		lines := strings.Split(string(data), "\n")
		if n > len(lines) {
			t.Fatalf("%s has %d lines, not %d", p, len(lines), n)
		}
		return lines[n-1]
	}
	dirs := map[string]bool{}
	for p := range src {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	seen := map[string]bool{}
	for _, w := range imports {
		key := fmt.Sprintf("%s:%d:%s", w.Path, w.Line, w.Spec)
		if seen[key] {
			t.Fatalf("import %s listed twice", key)
		}
		seen[key] = true
		text := line(w.Path, w.Line)
		var words []string
		for _, s := range specWord.FindAllString(w.Spec, -1) {
			if s != "self" && s != "super" && s != "crate" && s != "mod" {
				words = append(words, s)
			}
		}
		if len(words) > 0 && !strings.Contains(text, words[len(words)-1]) {
			t.Fatalf("import %s: the line does not name it: %q", key, text)
		}
		if _, isFile := src[w.Target]; w.Target != "" && !isFile && !dirs[w.Target] {
			t.Fatalf("import %s: target %s is neither a file nor a directory of the archive", key, w.Target)
		}
	}
	for _, w := range calls {
		if text := line(w.Path, w.Line); !regexp.MustCompile(`\b` + regexp.QuoteMeta(w.Callee) + `\b`).MatchString(text) {
			t.Fatalf("call %s:%d: the line does not name %s: %q", w.Path, w.Line, w.Callee, text)
		}
		if w.Def == "" {
			continue
		}
		p, n, ok := strings.Cut(w.Def, ":")
		ln, err := strconv.Atoi(n)
		if !ok || err != nil || ln < 1 {
			t.Fatalf("call %s:%d: bad definition %q", w.Path, w.Line, w.Def)
		}
		line(p, ln)
	}
}
