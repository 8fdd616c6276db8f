package mine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// writeTree extracts testdata/tree.txtar into a temporary directory.
func writeTree(t *testing.T) string {
	t.Helper()
	return writeTxtar(t, "testdata/tree.txtar")
}

// writeTxtar extracts a txtar archive into a temporary directory.
func writeTxtar(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fixtureRoots(dir string) []Root {
	return []Root{
		{Dir: filepath.Join(dir, "gomod"), ID: "example.com/header@v1.0.0", Kind: KindGoModule, Group: "example.com/header", Version: "v1.0.0"},
		{Dir: filepath.Join(dir, "gocopy"), ID: "example.com/zcopy@v0.1.0", Kind: KindGoModule},
		{Dir: filepath.Join(dir, "pylib"), ID: "debian/python3/pylib", Kind: KindDebian},
		{Dir: filepath.Join(dir, "jslib"), ID: "npm/jslib", Kind: KindNPM, Package: "jslib"},
		{Dir: filepath.Join(dir, "cobra"), ID: "github.com/spf13/cobra@v1.10.2", Kind: KindGoModule},
	}
}

func readPairs(t *testing.T, dir string) []Pair {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, PairsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ps []Pair
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p Pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("bad record %q: %v", sc.Text(), err)
		}
		ps = append(ps, p)
	}
	return ps
}

func TestMineFixture(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	out := t.TempDir()
	m, err := Mine(t.Context(), Options{Roots: fixtureRoots(dir), Out: out, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := readPairs(t, out)
	type key struct{ Source, Kind, Lang, Query string }
	var got []key
	code := map[string]string{}
	for _, p := range ps {
		got = append(got, key{p.Source, p.Kind, p.Lang, p.Query})
		code[p.Kind+" "+p.Query] = p.Code
		if p.Split != SplitTrain {
			t.Errorf("split %q with Heldout 0", p.Split)
		}
	}
	want := []key{
		{"debian/python3/pylib", "doc", "python", "A store that holds bars keyed by name."},
		{"debian/python3/pylib", "doc", "python", "Return the bar named name from the store."},
		{"debian/python3/pylib", "name", "python", "get bar (BarStore)"},
		{"debian/python3/pylib", "comment", "python", "look the name up in the cache first"},
		{"debian/python3/pylib", "doc", "python", "Parse the configuration file at path into a dictionary."},
		{"debian/python3/pylib", "name", "python", "parse config file"},
		{"example.com/header@v1.0.0", "doc", "go", "Reader reads MIME-style headers from a buffered stream."},
		{"example.com/header@v1.0.0", "doc", "go", "ReadMIMEHeader reads a MIME-style header from r and returns it as a map. It stops at the first blank line."},
		{"example.com/header@v1.0.0", "name", "go", "read mime header (Reader)"},
		{"example.com/header@v1.0.0", "comment", "go", "skip leading blank lines before the first key"},
		{"example.com/header@v1.0.0", "comment", "go", "split every remaining line at its colon"},
		{"example.com/header@v1.0.0", "name", "go", "helper thing"},
		{"example.com/header@v1.0.0", "name", "go", "short doc"},
		{"example.com/header@v1.0.0", "doc", "go", "CanonicalKey returns the canonical form of a header key string."},
		{"example.com/header@v1.0.0", "name", "go", "canonical key"},
		{"npm/jslib", "doc", "javascript", "Parse the given string into whitespace separated tokens."},
		{"npm/jslib", "name", "javascript", "parse tokens"},
		{"npm/jslib", "name", "javascript", "join all tokens"},
		{"npm/jslib", "comment", "javascript", "glue the tokens back with single spaces"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}

	// The code of each kind: doc pairs lose the doc, name pairs the header,
	// comment pairs hold the statements after the comment.
	codes := map[string]string{
		"doc ReadMIMEHeader reads a MIME-style header from r and returns it as a map. It stops at the first blank line.": "func (r *Reader) ReadMIMEHeader() (map[string]string, error) {\n",
		"name read mime header (Reader)":                               "m := map[string]string{}\n",
		"comment skip leading blank lines before the first key":        "for len(r.buf) > 0 && r.buf[0] == '\\n' {\n\tr.buf = r.buf[1:]\n}\n",
		"doc Return the bar named name from the store.":                "@property\ndef get_bar(self, name):\n# look the name up in the cache first\n",
		"name get bar (BarStore)":                                      "# look the name up in the cache first\ncached = self._cache.get(name)\n",
		"doc Parse the given string into whitespace separated tokens.": "function parseTokens(s) {\n  return s.split(/\\s+/).filter(Boolean);\n}\n",
	}
	for k, prefix := range codes {
		c, ok := code[k]
		if !ok {
			t.Errorf("no pair %q", k)
			continue
		}
		if k == "doc Return the bar named name from the store." {
			if strings.Contains(c, `"""`) || strings.Contains(c, "Raises KeyError") {
				t.Errorf("docstring left in doc pair code:\n%s", c)
			}
			continue
		}
		if !strings.HasPrefix(c, prefix) {
			t.Errorf("code of %q = %q, want prefix %q", k, c, prefix)
		}
		if strings.Contains(c, "// ReadMIMEHeader") {
			t.Errorf("doc left in code of %q", k)
		}
	}

	// The excluded module is in the manifest, with a reason, and none of its code is mined.
	if len(m.Excluded) != 1 || m.Excluded[0].ID != "github.com/spf13/cobra@v1.10.2" || m.Excluded[0].Reason == "" {
		t.Errorf("Excluded = %+v, want cobra with a reason", m.Excluded)
	}
	// The duplicate in gocopy is dropped, leaving that source empty (a class
	// whose body is only its docstring makes no name pair).
	if m.Dropped["duplicate-code"] != 2 {
		t.Errorf("duplicate-code drops = %d, want 2 (doc and name of the copied CanonicalKey)", m.Dropped["duplicate-code"])
	}
	for _, why := range []string{"doc-todo", "doc-short"} {
		if m.Dropped[why] != 1 {
			t.Errorf("Dropped[%s] = %d, want 1", why, m.Dropped[why])
		}
	}
	if m.SkippedFiles["generated"] != 1 || m.SkippedFiles["testdata"] != 1 {
		t.Errorf("SkippedFiles = %v, want one generated and one testdata", m.SkippedFiles)
	}
}

func TestManifestCounts(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	out := t.TempDir()
	m, err := Mine(t.Context(), Options{Roots: fixtureRoots(dir), Out: out, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var onDisk Manifest
	b, err := os.ReadFile(filepath.Join(out, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*m, onDisk); diff != "" {
		t.Errorf("manifest on disk differs from the returned one (-returned +disk):\n%s", diff)
	}
	type src struct {
		ID, Licence, Version string
		Files                int
		Pairs                map[string]int
	}
	var got []src
	for _, s := range m.Sources {
		got = append(got, src{s.ID, s.Licence, s.Version, s.Files, s.Pairs})
	}
	want := []src{
		{"debian/python3/pylib", "GPL", "", 1, map[string]int{"doc": 3, "name": 2, "comment": 1}},
		{"example.com/header@v1.0.0", "MIT", "v1.0.0", 1, map[string]int{"doc": 3, "name": 4, "comment": 2}},
		{"example.com/zcopy@v0.1.0", "unknown", "", 1, map[string]int{}},
		{"npm/jslib", "unknown", "", 1, map[string]int{"doc": 1, "name": 2, "comment": 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	wantLang := map[string]map[string]int{
		"go":         {"train": 9, "heldout": 0},
		"python":     {"train": 6, "heldout": 0},
		"javascript": {"train": 4, "heldout": 0},
	}
	if diff := cmp.Diff(wantLang, m.ByLang); diff != "" {
		t.Errorf("ByLang (-want +got):\n%s", diff)
	}
	total := 0
	for _, s := range m.ByKind {
		total += s["train"] + s["heldout"]
	}
	if total != m.Pairs || m.Pairs != len(readPairs(t, out)) {
		t.Errorf("ByKind total %d, Pairs %d, records %d: want equal", total, m.Pairs, len(readPairs(t, out)))
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	roots := manyRoots(t, 30)
	roots = append(roots, fixtureRoots(dir)...)
	run := func(seed uint64, workers int) ([]byte, []byte) {
		out := t.TempDir()
		if _, err := Mine(t.Context(), Options{Roots: roots, Out: out, Seed: seed, Heldout: 0.3, MaxPerLang: 25, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		p, _ := os.ReadFile(filepath.Join(out, PairsFile))
		m, _ := os.ReadFile(filepath.Join(out, ManifestFile))
		return p, m
	}
	p1, m1 := run(7, 1)
	// Reverse the roots and use more workers: same bytes.
	slices.Reverse(roots)
	p2, m2 := run(7, 8)
	if !bytes.Equal(p1, p2) || !bytes.Equal(m1, m2) {
		t.Errorf("two runs with seed 7 differ")
	}
	p3, _ := run(8, 1)
	if bytes.Equal(p1, p3) {
		t.Errorf("seeds 7 and 8 gave the same pairs")
	}
}

// manyRoots writes n small Go sources, each with two documented
// functions, and returns their roots.
func manyRoots(t *testing.T, n int) []Root {
	t.Helper()
	dir := t.TempDir()
	var roots []Root
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("src%02d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf(`package p%[1]d

// ComputeValue%[1]d computes the value number %[1]d from its input.
func ComputeValue%[1]d(x int) int {
	return x*%[1]d + %[1]d
}

// FormatLabel%[1]d formats the label of item %[1]d for display.
func FormatLabel%[1]d(s string) string {
	return s + "-%[1]d"
}
`, i)
		if err := os.WriteFile(filepath.Join(d, "p.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, Root{Dir: d, ID: fmt.Sprintf("example.com/src%02d@v1.0.0", i), Kind: KindGoModule, Group: fmt.Sprintf("example.com/src%02d", i)})
	}
	return roots
}

func TestHeldoutBySource(t *testing.T) {
	t.Parallel()
	roots := manyRoots(t, 40)
	splits := func(seed uint64) map[string]string {
		out := t.TempDir()
		m, err := Mine(t.Context(), Options{Roots: roots, Out: out, Seed: seed, Heldout: 0.25})
		if err != nil {
			t.Fatal(err)
		}
		bySource := map[string]string{}
		for _, p := range readPairs(t, out) {
			if s, ok := bySource[p.Source]; ok && s != p.Split {
				t.Errorf("source %s has pairs in both splits", p.Source)
			}
			bySource[p.Source] = p.Split
		}
		for _, s := range m.Sources {
			want := unitHash(seed, "split", s.Group) < 0.25
			if s.Heldout != want || (bySource[s.ID] == SplitHeldout) != want {
				t.Errorf("source %s: Heldout %v, records %q, want held out %v", s.ID, s.Heldout, bySource[s.ID], want)
			}
		}
		return bySource
	}
	a, b := splits(1), splits(2)
	held := 0
	for _, s := range a {
		if s == SplitHeldout {
			held++
		}
	}
	if held == 0 || held == len(a) {
		t.Errorf("%d of %d sources held out with fraction 0.25", held, len(a))
	}
	if cmp.Equal(a, b) {
		t.Errorf("seeds 1 and 2 split the sources the same way")
	}
}

func TestMaxPerLang(t *testing.T) {
	t.Parallel()
	roots := manyRoots(t, 20) // 40 doc + 40 name pairs of Go
	out := t.TempDir()
	m, err := Mine(t.Context(), Options{Roots: roots, Out: out, Seed: 3, MaxPerLang: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(readPairs(t, out)); got != 10 || m.Pairs != 10 {
		t.Errorf("records %d, Pairs %d, want 10", got, m.Pairs)
	}
	if m.Dropped["language-cap"] != 70 {
		t.Errorf("language-cap drops = %d, want 70", m.Dropped["language-cap"])
	}
}

func TestExcludedNeverRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Unreadable content would still be counted if the walk entered it;
	// the excluded roots must not be walked at all, so point them at
	// directories that do not exist.
	roots := []Root{
		{Dir: filepath.Join(dir, "missing1"), ID: "github.com/gin-gonic/gin/v2@v2.0.0", Kind: KindGoModule},
		{Dir: filepath.Join(dir, "requests"), ID: "debian/python3/requests", Kind: KindDebian},
		{Dir: filepath.Join(dir, "missing3"), ID: "npm/@trpc/server", Kind: KindNPM, Package: "@trpc/server"},
		{Dir: filepath.Join(dir, "missing4"), ID: "npm/ax", Kind: KindNPM, Package: "ax", Repo: "https://github.com/axios/axios"},
	}
	m, err := Mine(t.Context(), Options{Roots: roots, Out: t.TempDir(), Seed: 1})
	if err != nil {
		t.Fatalf("Mine walked an excluded root: %v", err)
	}
	if len(m.Excluded) != 4 || len(m.Sources) != 0 || m.Pairs != 0 {
		t.Errorf("Excluded %d, Sources %d, Pairs %d; want 4, 0, 0", len(m.Excluded), len(m.Sources), m.Pairs)
	}
}

func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]Options{
		"no out":       {},
		"bad heldout":  {Out: t.TempDir(), Heldout: 1.5},
		"duplicate id": {Out: t.TempDir(), Roots: []Root{{ID: "a", Dir: "x"}, {ID: "a", Dir: "y"}}},
		"no id":        {Out: t.TempDir(), Roots: []Root{{Dir: "x"}}},
	} {
		if _, err := Mine(t.Context(), o); err == nil {
			t.Errorf("%s: Mine succeeded", name)
		}
	}
}
