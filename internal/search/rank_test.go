package search

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// ids returns the chunk ids of results, in order.
func ids(rs []Result) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.ChunkID)
	}
	return out
}

func byID(rs []Result, id int64) Result {
	i := slices.IndexFunc(rs, func(r Result) bool { return r.ChunkID == id })
	if i < 0 {
		panic(fmt.Sprintf("no chunk %d", id))
	}
	return rs[i]
}

func TestDiversify(t *testing.T) {
	t.Parallel()
	// Sorted best first, as rank leaves them: file a has the two best
	// chunks, b and c one each.
	in := func() []Result {
		return []Result{
			{ChunkID: 1, Path: "a.go", Score: 1.0},
			{ChunkID: 2, Path: "a.go", Score: 0.9},
			{ChunkID: 3, Path: "b.go", Score: 0.8},
			{ChunkID: 4, Path: "c.go", Score: 0.7},
		}
	}
	t.Run("second chunk falls behind other files", func(t *testing.T) {
		t.Parallel()
		out := diversify(in(), 10, false)
		if diff := cmp.Diff([]int64{1, 3, 4, 2}, ids(out)); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
		if s := byID(out, 2).Score; s >= 0.9 || s <= 0 {
			t.Errorf("second chunk of a.go scored %v, want damped below its 0.9 but positive", s)
		}
		for _, id := range []int64{1, 3, 4} {
			if s, want := byID(out, id).Score, byID(in(), id).Score; s != want {
				t.Errorf("first chunk %d of its file scored %v, want it unchanged at %v", id, s, want)
			}
		}
	})
	t.Run("limit", func(t *testing.T) {
		t.Parallel()
		for limit := range 6 {
			out := diversify(in(), limit, false)
			if len(out) != min(limit, 4) {
				t.Errorf("limit %d: %d results", limit, len(out))
			}
			if limit >= 2 && out[1].Path == "a.go" {
				t.Errorf("limit %d: %v, want another file second", limit, ids(out))
			}
		}
	})
	t.Run("each further chunk is damped more", func(t *testing.T) {
		t.Parallel()
		out := diversify([]Result{
			{ChunkID: 1, Path: "a.go", Score: 1},
			{ChunkID: 2, Path: "a.go", Score: 1},
			{ChunkID: 3, Path: "a.go", Score: 1},
		}, 3, false)
		if diff := cmp.Diff([]int64{1, 2, 3}, ids(out)); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
		if !(out[0].Score > out[1].Score && out[1].Score > out[2].Score && out[2].Score > 0) {
			t.Errorf("scores %v, %v, %v: want strictly decreasing and positive", out[0].Score, out[1].Score, out[2].Score)
		}
	})
	t.Run("one chunk per file is unchanged", func(t *testing.T) {
		t.Parallel()
		want := []Result{{ChunkID: 5, Path: "x", Score: 3}, {ChunkID: 6, Path: "y", Score: 2}, {ChunkID: 7, Path: "z", Score: 1}}
		if diff := cmp.Diff(want, diversify(slices.Clone(want), 3, false)); diff != "" {
			t.Errorf("diversify (-want +got):\n%s", diff)
		}
	})
	t.Run("grouped: a sibling as strong as its file's best is damped less", func(t *testing.T) {
		t.Parallel()
		// a.go's second chunk (0.9 of its best) stays above c.go
		// grouped, not in a flat list; a weaker sibling is damped as
		// ever.
		rs := func() []Result {
			return []Result{
				{ChunkID: 1, Path: "a.go", Score: 1.0},
				{ChunkID: 2, Path: "a.go", Score: 0.9},
				{ChunkID: 3, Path: "b.go", Score: 0.4},
				{ChunkID: 4, Path: "c.go", Score: 0.3},
				{ChunkID: 5, Path: "b.go", Score: 0.2},
			}
		}
		if diff := cmp.Diff([]int64{1, 2, 3, 4, 5}, ids(diversify(rs(), 10, true))); diff != "" {
			t.Errorf("grouped order (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int64{1, 3, 4, 2, 5}, ids(diversify(rs(), 10, false))); diff != "" {
			t.Errorf("flat order (-want +got):\n%s", diff)
		}
	})
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		if out := diversify(nil, 10, false); len(out) != 0 {
			t.Errorf("diversify(nil) = %v", out)
		}
	})
}

// The rank tests give every candidate the same 21-line span, so that
// adjustments by chunk size play no part.

// TestRankTestPenalty: a test file's chunk that scored as well as an
// implementation chunk ranks below it, unless the query asks for tests.
func TestRankTestPenalty(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query    string
		testPath string
		penalise bool
	}{
		{"frobnicate the gizmo", "pkg/gizmo/frob_test.go", true},
		{"frobnicate the gizmo", "tests/test_frob.py", true},
		{"frobnicate the gizmo", "src/__tests__/frob.test.js", true},
		{"frobnicate the gizmo", "src/test/java/FrobTest.java", true},
		{"frobnicate the gizmo tests", "pkg/gizmo/frob_test.go", false},
		{"frobnicate gizmo in a test", "tests/test_frob.py", false},
		{"frobnicate gizmo spec", "spec/frob_spec.rb", false},
	}
	for _, c := range cases {
		t.Run(c.query+"/"+c.testPath, func(t *testing.T) {
			t.Parallel()
			// The test chunk has the higher id, so a tie puts it second.
			cands := []Result{
				{ChunkID: 2, Path: c.testPath, StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
				{ChunkID: 1, Path: "pkg/gizmo/frob.go", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
			}
			rankQuery(analyze.Analyze(c.query), cands, map[int64]string{1: "Frob", 2: "TestFrob"})
			impl, test := byID(cands, 1), byID(cands, 2)
			if c.penalise {
				if test.Score >= impl.Score || cands[0].ChunkID != 1 {
					t.Errorf("test chunk %v >= implementation chunk %v; want it ranked below", test.Score, impl.Score)
				}
				if !slices.Contains(test.Boosts, "test") {
					t.Errorf("test chunk boosts = %v, want a test penalty named", test.Boosts)
				}
				return
			}
			if test.Score < impl.Score {
				t.Errorf("query mentions tests but the test chunk %v < implementation chunk %v", test.Score, impl.Score)
			}
			if slices.Contains(test.Boosts, "test") {
				t.Errorf("query mentions tests but the test chunk was penalised: %v", test.Boosts)
			}
		})
	}
}

// TestRankPathPenalties: example, vendored, documentation and declaration
// files drop below an equal implementation chunk.
func TestRankPathPenalties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, lang, boost string
		kind              string // "": function
	}{
		{"examples/frob/main.go", "go", "example", ""},
		{"vendor/github.com/x/frob/frob.go", "go", "vendored", ""},
		{"third_party/frob/frob.c", "c", "vendored", ""},
		{"notes/frobbing.md", "markdown", "docs", ""},
		{"types/frob.d.ts", "typescript", "declarations", ""},
		{"frobpkg/__init__.py", "python", "declarations", "block"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			cands := []Result{
				{ChunkID: 2, Path: c.path, StartLine: 10, EndLine: 30, Language: c.lang, Kind: kindOr(c.kind), Score: 0.5},
				{ChunkID: 1, Path: "pkg/gizmo/impl.go", StartLine: 10, EndLine: 30, Language: "go", Kind: "function", Score: 0.5},
			}
			rankQuery(analyze.Analyze("frobnicate the gizmo quickly"), cands, nil)
			if cands[0].ChunkID != 1 || cands[1].Score >= cands[0].Score {
				t.Errorf("%s (%v) not ranked below the implementation (%v)", c.path, cands[1].Score, cands[0].Score)
			}
			if !slices.Contains(byID(cands, 2).Boosts, c.boost) {
				t.Errorf("boosts = %v, want %q", byID(cands, 2).Boosts, c.boost)
			}
		})
	}
}

// TestRankInitDefinition: a function or class that a Python package's
// __init__.py defines is code, not a re-export: it is not lowered as a
// declaration, while the file's import block is.
func TestRankInitDefinition(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"function", "class"} {
		cands := []Result{
			{ChunkID: 1, Path: "pkg/gizmo/impl.py", StartLine: 10, EndLine: 30, Language: "python", Kind: "function", Score: 0.5},
			{ChunkID: 2, Path: "pkg/lexers/__init__.py", StartLine: 10, EndLine: 30, Language: "python", Kind: kind, Score: 0.5},
			{ChunkID: 3, Path: "pkg/lexers/__init__.py", StartLine: 1, EndLine: 8, Language: "python", Kind: "block", Score: 0.5},
		}
		rankQuery(analyze.Analyze("frobnicate the gizmo quickly"), cands, nil)
		if b := byID(cands, 2).Boosts; slices.Contains(b, "declarations") {
			t.Errorf("a %s in __init__.py: boosts %v, want no declarations", kind, b)
		}
		if b := byID(cands, 3).Boosts; !slices.Contains(b, "declarations") {
			t.Errorf("the import block of __init__.py: boosts %v, want declarations", b)
		}
	}
	// An issue text keeps the penalty (see rank).
	issue := analyze.Analyze("Frobnicating a gizmo fails when the option is set.\n\nSteps to reproduce: call frobnicate() on a gizmo with quickly=True, then read the result; it raises ValueError instead of returning the frobnicated gizmo. Expected the same result as without the option.")
	if issue.Kind != analyze.QueryLong {
		t.Fatalf("the issue text is a %v query, want long", issue.Kind)
	}
	cands := []Result{{ChunkID: 2, Path: "pkg/lexers/__init__.py", StartLine: 10, EndLine: 30, Language: "python", Kind: "function", Score: 0.5}}
	rankQuery(issue, cands, nil)
	if !slices.Contains(cands[0].Boosts, "declarations") {
		t.Errorf("a function in __init__.py for an issue text: boosts %v, want declarations", cands[0].Boosts)
	}
}

// TestRankSymbolDefinition: for a symbol query the definition whose name
// has the query's exact case comes first, ahead of a same-named
// definition in another case and of chunks that merely mention it.
func TestRankSymbolDefinition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query string
		want  int64
	}{
		{"ParseConfig", 2},
		{"parseConfig", 1},
		{"config.ParseConfig", 2},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			t.Parallel()
			// Chunk 1 and 2 tie on fused score and chunk 1 has the lower
			// id; chunk 3 mentions the name and scored best.
			cands := []Result{
				{ChunkID: 3, Path: "cmd/main.go", StartLine: 10, EndLine: 30, Kind: "block", Score: 0.6},
				{ChunkID: 1, Path: "web/a.js", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
				{ChunkID: 2, Path: "pkg/b.go", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
				{ChunkID: 4, Path: "pkg/c.go", StartLine: 10, EndLine: 30, Kind: "method", Score: 0.55},
			}
			names := map[int64]string{1: "parseConfig", 2: "ParseConfig", 4: "Other"}
			q := analyze.Analyze(c.query)
			if q.Kind != analyze.QuerySymbol {
				t.Fatalf("%q analyzed as %s", c.query, q.Kind)
			}
			rankQuery(q, cands, names)
			if got := ids(cands); got[0] != c.want {
				t.Errorf("order %v, want chunk %d first", got, c.want)
			}
			// config.ParseConfig's only definition is outside a config
			// directory: still first, with the other owner's boost.
			if !slices.ContainsFunc(cands[0].Boosts, func(b string) bool {
				return b == "definition" || b == "definition (other owner)"
			}) {
				t.Errorf("first chunk boosts = %v, want a definition boost", cands[0].Boosts)
			}
		})
	}
}

// TestRankFileName: query words that name a file lift its chunks over an
// equal chunk of another file.
func TestRankFileName(t *testing.T) {
	t.Parallel()
	cands := []Result{
		{ChunkID: 1, Path: "pkg/other/util.go", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
		{ChunkID: 2, Path: "pkg/retry/backoff.go", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
	}
	rankQuery(analyze.Analyze("how does the backoff work"), cands, nil)
	if cands[0].ChunkID != 2 {
		t.Errorf("order %v, want backoff.go first", ids(cands))
	}
}

func TestRankEmptyAndOrder(t *testing.T) {
	t.Parallel()
	rankQuery(analyze.Analyze("anything"), nil, nil) // no panic
	cands := []Result{
		{ChunkID: 3, Path: "c.go", StartLine: 10, EndLine: 30, Score: 0.1},
		{ChunkID: 2, Path: "b.go", StartLine: 10, EndLine: 30, Score: 0.3},
		{ChunkID: 1, Path: "a.go", StartLine: 10, EndLine: 30, Score: 0.3},
	}
	rankQuery(analyze.Analyze("zzz qqq"), cands, nil)
	// Equal scores order by chunk id, so the ranking is deterministic.
	if diff := cmp.Diff([]int64{1, 2, 3}, ids(cands)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestIsExamplePath(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"examples/hello/main.go":   true,
		"pkg/example_test.go":      true,
		"demo/app.js":              true,
		"site/demo/app.js":         true,
		"samples/basic.py":         true,
		"repo/samples/basic.py":    true,
		"benchmarks/run.py":        true,
		"tools/benchmark/run.py":   true,
		"docs/tutorial/step1.py":   true,
		"site/docs_src/intro.py":   true,
		"test/format_benchmark.cc": true,
		"src/parse-bench.c":        true,
		"pkg/server.go":            false,
		"src/sample.go":            false,
		"internal/docs.go":         false,
		"src/democracy/vote.go":    false,
	}
	for p, want := range cases {
		if got := isExamplePath(p); got != want {
			t.Errorf("isExamplePath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestIsVendorPath(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"vendor/github.com/x/y/y.go":      true,
		"pkg/vendor/lib.go":               true,
		"third_party/zlib/inflate.c":      true,
		"src/compat/py2.py":               true,
		"src/legacy/old.js":               true,
		"api/types_generated.go":          true,
		"api/service.pb.go":               true,
		"api/gen/client.go":               true,
		"static/app.min.js":               true,
		"themes/static/jquery-3.5.1.js":   true,
		"static/underscore-1.13.1.min.js": true,
		"static/app.js":                   false,
		"src/v1.2/app.js":                 false,
		"pkg/server.go":                   false,
		"src/generator.py":                false,
		"src/compatibility.go":            false,
	}
	for p, want := range cases {
		if got := isVendorPath(p); got != want {
			t.Errorf("isVendorPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestRankSupersededVersion: a chunk under src/v3 ranks below an equal
// chunk under src/v4 of the same parent, unless the query names v3; a
// version directory with no newer sibling among the candidates, or one
// under another parent, is left alone.
func TestRankSupersededVersion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query, oldPath, newPath string
		damp                    bool
	}{
		{"object schema parsing", "pkg/src/v3/types.ts", "pkg/src/v4/core/schemas.ts", true},
		{"object schema parsing", "api/v1/server.go", "api/v2/server.go", true},
		{"object schema parsing", "api/v9/server.go", "api/v10/server.go", true},
		{"v3 object schema parsing", "pkg/src/v3/types.ts", "pkg/src/v4/core/schemas.ts", false},
		{"object schema parsing", "pkg/src/v3/types.ts", "other/v4/schemas.ts", false},
		{"object schema parsing", "pkg/src/v3/types.ts", "pkg/src/core/schemas.ts", false},
		{"object schema parsing", "pkg/src/vector/types.ts", "pkg/src/v4/schemas.ts", false},
	}
	for _, c := range cases {
		t.Run(c.query+"/"+c.oldPath+"/"+c.newPath, func(t *testing.T) {
			t.Parallel()
			// The old chunk has the lower id, so a tie puts it first.
			cands := []Result{
				{ChunkID: 1, Path: c.oldPath, StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
				{ChunkID: 2, Path: c.newPath, StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
			}
			rankQuery(analyze.Analyze(c.query), cands, map[int64]string{1: "parse", 2: "parse"})
			old, cur := byID(cands, 1), byID(cands, 2)
			damped := slices.Contains(old.Boosts, "superseded")
			if damped != c.damp {
				t.Fatalf("old chunk boosts = %v, want superseded %v", old.Boosts, c.damp)
			}
			if c.damp && (old.Score >= cur.Score || cands[0].ChunkID != 2) {
				t.Errorf("superseded chunk %v >= current chunk %v; want it ranked below", old.Score, cur.Score)
			}
			if slices.Contains(cur.Boosts, "superseded") {
				t.Errorf("newer chunk damped: %v", cur.Boosts)
			}
		})
	}
}

func TestIsForeignOSPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, host string
		want       bool
	}{
		{"src/win/tcp.c", "linux", true},
		{"src/unix/tcp.c", "linux", false},
		{"src/tcp.c", "linux", false},
		{"src/unix/tcp.c", "windows", true},
		{"src/win/tcp.c", "windows", false},
		{"os/exec_windows.go", "linux", true},
		{"syscall/zsyscall_windows.go", "darwin", true},
		{"os/exec_linux.go", "linux", false},
		{"os/exec_linux.go", "darwin", true},
		{"os/exec_darwin.go", "darwin", false},
		{"os/exec_unix.go", "linux", false},
		{"os/exec_unix.go", "windows", true},
		{"src/unix/sunos.c", "linux", true},
		{"src/unix/os390-syscalls.c", "linux", true},
		{"src/unix/linux.c", "linux", false},
		{"src/window/frame.go", "linux", false},
		{"src/winter/sale.go", "linux", false},
		{"src/windows.go", "linux", true},
		{"net/dns_windows_test.go", "linux", true},
	}
	for _, c := range cases {
		if got := isForeignOSPath(c.path, c.host); got != c.want {
			t.Errorf("isForeignOSPath(%q, %q) = %v, want %v", c.path, c.host, got, c.want)
		}
	}
}

// TestRankForeignOS: on a Linux host a Windows-only file ranks below its
// equal Unix counterpart, unless the query names an operating system.
func TestRankForeignOS(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the host is Windows")
	}
	for _, c := range []struct {
		query string
		damp  bool
	}{
		{"tcp stream connect and accept", true},
		{"tcp stream connect on windows", false},
		{"win32 tcp stream connect", false},
		{"tcp stream connect on linux", false},
	} {
		cands := []Result{
			{ChunkID: 1, Path: "src/win/tcp.c", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
			{ChunkID: 2, Path: "src/unix/tcp.c", StartLine: 10, EndLine: 30, Kind: "function", Score: 0.5},
		}
		rankQuery(analyze.Analyze(c.query), cands, map[int64]string{1: "connect", 2: "connect"})
		win := byID(cands, 1)
		if got := slices.Contains(win.Boosts, "other-os"); got != c.damp {
			t.Errorf("%q: windows chunk boosts = %v, want other-os %v", c.query, win.Boosts, c.damp)
		}
		if c.damp && cands[0].ChunkID != 2 {
			t.Errorf("%q: windows chunk first; want the unix one", c.query)
		}
	}
}

// TestRankQualifiedSymbol: for a qualified symbol query the definition
// whose owners hold the qualifier ranks first, even when another
// definition of the name fused higher; a public declaration ranks above
// its internal twin; an unqualified query leaves the order to fusion.
func TestRankQualifiedSymbol(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query     string
		paths     [2]string // fused order: the first scores higher
		wantFirst string
	}{
		{"io.Reader", [2]string{"strings/reader.go", "io/io.go"}, "io/io.go"},
		{"Sinatra::Base", [2]string{"lib/rack/base.rb", "lib/sinatra/base.rb"}, "lib/sinatra/base.rb"},
		{"sync.Mutex", [2]string{"internal/sync/mutex.go", "sync/mutex.go"}, "sync/mutex.go"},
		{"internal/sync.Mutex", [2]string{"internal/sync/mutex.go", "sync/mutex.go"}, "internal/sync/mutex.go"},
		{"Reader", [2]string{"strings/reader.go", "io/io.go"}, "strings/reader.go"},
	}
	for _, c := range cases {
		cands := []Result{
			{ChunkID: 1, Path: c.paths[0], StartLine: 10, EndLine: 30, Kind: "type", Score: 0.6},
			{ChunkID: 2, Path: c.paths[1], StartLine: 10, EndLine: 30, Kind: "type", Score: 0.5},
		}
		name := lastSegment(c.query)
		rankQuery(analyze.Analyze(c.query), cands, map[int64]string{1: name, 2: name})
		if cands[0].Path != c.wantFirst {
			t.Errorf("%q: first %s (boosts %v, %v), want %s", c.query, cands[0].Path, cands[0].Boosts, cands[1].Boosts, c.wantFirst)
		}
	}
}

// TestRankOwnerDefinition: for a qualified symbol query ("Class.method")
// the method's definition ranks above the owner's, even when the owner's
// one-line header fused higher in the same file; the owner's definition
// still gets the lift of a name the query mentions, so it stays above an
// unrelated chunk that fused just below it. A short query writing the two
// apart ("Class method") asks for the method as well. Asked for alone,
// the owner is the definition asked for.
func TestRankOwnerDefinition(t *testing.T) {
	t.Parallel()
	cands := func() []Result {
		return []Result{
			{ChunkID: 1, Path: "lib/core/AxiosHeaders.js", StartLine: 211, EndLine: 211, Kind: "class", Symbol: "AxiosHeaders", Language: "javascript", Score: 0.6},
			{ChunkID: 2, Path: "lib/core/AxiosHeaders.js", StartLine: 361, EndLine: 386, Kind: "method", Symbol: "AxiosHeaders.normalize", Language: "javascript", Score: 0.4},
			{ChunkID: 3, Path: "lib/helpers/other.js", StartLine: 1, EndLine: 30, Kind: "function", Symbol: "other", Language: "javascript", Score: 0.55},
		}
	}
	names := map[int64]string{1: "AxiosHeaders", 2: "normalize", 3: "other"}
	for _, query := range []string{"AxiosHeaders.normalize", "AxiosHeaders#normalize"} {
		cs := cands()
		rankQuery(analyze.Analyze(query), cs, names)
		order := []int64{cs[0].ChunkID, cs[1].ChunkID, cs[2].ChunkID}
		if !slices.Equal(order, []int64{2, 1, 3}) {
			t.Errorf("%q: chunks in order %v (boosts %v %v %v), want the method, the owner, then the other", query, order, cs[0].Boosts, cs[1].Boosts, cs[2].Boosts)
		}
		for _, c := range cs {
			if c.ChunkID == 1 && !slices.Contains(c.Boosts, "owner-definition") {
				t.Errorf("%q: owner's boosts %v, want owner-definition", query, c.Boosts)
			}
		}
	}
	// Written apart, the type and the member's name ask for the member
	// too; a member of another type with that name is not lifted.
	for _, query := range []string{"AxiosHeaders normalize", "how AxiosHeaders normalize works"} {
		cs := append(cands(), Result{ChunkID: 4, Path: "lib/core/Other.js", StartLine: 1, EndLine: 20, Kind: "method", Symbol: "Other.normalize", Language: "javascript", Score: 0.58})
		rankQuery(analyze.Analyze(query), cs, map[int64]string{1: "AxiosHeaders", 2: "normalize", 3: "other", 4: "normalize"})
		if cs[0].ChunkID != 2 || !slices.Contains(cs[0].Boosts, "member-definition") {
			t.Errorf("%q: first chunk %d (boosts %v), want the method with member-definition", query, cs[0].ChunkID, cs[0].Boosts)
		}
		for _, c := range cs {
			if c.ChunkID == 4 && slices.Contains(c.Boosts, "member-definition") {
				t.Errorf("%q: Other.normalize lifted as a member of AxiosHeaders", query)
			}
		}
	}
	// The member written in code style is still the member: the type is
	// not a second subject that outranks it.
	{
		cs := []Result{
			{ChunkID: 1, Path: "src/parser/matches/arg_matches.rs", StartLine: 20, EndLine: 73, Kind: "struct", Symbol: "ArgMatches", Language: "rust", Score: 0.6},
			{ChunkID: 2, Path: "src/parser/matches/arg_matches.rs", StartLine: 77, EndLine: 114, Kind: "method", Symbol: "ArgMatches.get_one", Language: "rust", Score: 0.4},
			{ChunkID: 3, Path: "src/parser/other.rs", StartLine: 1, EndLine: 30, Kind: "method", Symbol: "Other.get_one", Language: "rust", Score: 0.55},
			{ChunkID: 4, Path: "src/parser/matches/arg_matches.rs", StartLine: 200, EndLine: 210, Kind: "function", Symbol: "ArgMatches.ArgMatches", Language: "rust", Score: 0.58},
		}
		rankQuery(analyze.Analyze("ArgMatches get_one"), cs, map[int64]string{1: "ArgMatches", 2: "get_one", 3: "get_one", 4: "ArgMatches"})
		if cs[0].ChunkID != 2 || !slices.Contains(cs[0].Boosts, "member-definition") {
			t.Errorf("ArgMatches get_one: first chunk %d (boosts %v), want the method with member-definition", cs[0].ChunkID, cs[0].Boosts)
		}
		for _, c := range cs {
			if c.ChunkID != 2 && slices.Contains(c.Boosts, "member-definition") {
				t.Errorf("ArgMatches get_one: chunk %d (%s) lifted as the member", c.ChunkID, c.Symbol)
			}
		}
	}
	cs := cands()
	rankQuery(analyze.Analyze("normalize headers"), cs, names)
	for _, c := range cs {
		if slices.Contains(c.Boosts, "member-definition") {
			t.Errorf("normalize headers: chunk %d lifted as a member (boosts %v), but the query names no type", c.ChunkID, c.Boosts)
		}
	}
	cs = cands()
	rankQuery(analyze.Analyze("AxiosHeaders"), cs, names)
	if cs[0].ChunkID != 1 || !slices.Contains(cs[0].Boosts, "definition") {
		t.Errorf("AxiosHeaders: first chunk %d (boosts %v), want the class's definition", cs[0].ChunkID, cs[0].Boosts)
	}
}

// rankQuery ranks cands for q as a search does, with q's words and
// qualified names analysed first.
func rankQuery(q *analyze.Query, cands []Result, names map[int64]string) {
	rank(q, newQueryWords(q.Raw), queryQualifiers(q), cands, names, nil)
}

// TestNamedPathCache checks that the cached path facts are those worked
// out afresh, whatever the query, and that the cache stays bounded.
func TestNamedPathCache(t *testing.T) {
	words := func(q string) queryWords { return newQueryWords(q) }
	for _, p := range []string{"net/http/server.go", "internal/poll/fd_windows.go", "src/utils/index.d.ts", "pkg/__init__.py", "vendor/x/y_test.go"} {
		for _, q := range []string{"http server", "poll windows", "nothing in common"} {
			got := factsOf(p, words(q))
			got2 := factsOf(p, words(q)) // from the cache
			fresh := pathNameOf(p)
			want := fresh.facts
			want.share = words(q).share(nameTerms(p), nameWords(p))
			if *got != want || *got2 != want {
				t.Errorf("factsOf(%q, %q) = %+v, then %+v; want %+v", p, q, *got, *got2, want)
			}
		}
	}
	for i := range maxPathNames + 100 {
		namedPath(fmt.Sprintf("d%d/f%d.go", i%97, i))
	}
	if n := pathNamesLen.Load(); n > maxPathNames {
		t.Errorf("%d paths cached; want at most %d", n, maxPathNames)
	}
}

// TestRankImplBlock: for a symbol query, an impl block of the name (a
// one-line "impl X {" header once its methods are chunks) is lifted as
// an owner, below the type's definition; with no definition of the type
// among the candidates it is the definition.
func TestRankImplBlock(t *testing.T) {
	t.Parallel()
	cands := func() []Result {
		return []Result{
			{ChunkID: 1, Path: "src/builder/value_parser.rs", StartLine: 73, EndLine: 73, Kind: "impl", Symbol: "ValueParser", Language: "rust", Score: 0.6},
			{ChunkID: 2, Path: "src/builder/value_parser.rs", StartLine: 7, EndLine: 59, Kind: "struct", Symbol: "ValueParser", Language: "rust", Score: 0.4},
			{ChunkID: 3, Path: "src/builder/other.rs", StartLine: 1, EndLine: 30, Kind: "function", Symbol: "other", Language: "rust", Score: 0.5},
		}
	}
	names := map[int64]string{1: "ValueParser", 2: "ValueParser", 3: "other"}
	cs := cands()
	rankQuery(analyze.Analyze("ValueParser"), cs, names)
	if cs[0].ChunkID != 2 || !slices.Contains(cs[0].Boosts, "definition") {
		t.Errorf("ValueParser: first chunk %d (boosts %v), want the struct's definition", cs[0].ChunkID, cs[0].Boosts)
	}
	for _, c := range cs {
		if c.ChunkID == 1 && (!slices.Contains(c.Boosts, "impl-block") || !slices.Contains(c.Boosts, "tiny")) {
			t.Errorf("ValueParser: the impl header's boosts %v, want impl-block and tiny", c.Boosts)
		}
	}
	cs = cands()[:1]
	cs = append(cs, cands()[2])
	rankQuery(analyze.Analyze("ValueParser"), cs, names)
	if cs[0].ChunkID != 1 || !slices.Contains(cs[0].Boosts, "definition") {
		t.Errorf("ValueParser, no struct among the candidates: first chunk %d (boosts %v), want the impl block as the definition", cs[0].ChunkID, cs[0].Boosts)
	}
}

// kindOr returns k, or "function" when k is empty.
func kindOr(k string) string {
	if k == "" {
		return "function"
	}
	return k
}

// TestRankDeclarationDefines: a declarations file's chunk that defines
// the name a symbol query asks for (a package that ships .d.ts and .js
// only) is the answer, not lowered; its other chunks still are.
func TestRankDeclarationDefines(t *testing.T) {
	t.Parallel()
	cands := []Result{
		{ChunkID: 1, Path: "server/auth/errors.js", StartLine: 23, EndLine: 26, Kind: "method", Symbol: "OAuthError.errorCode", Language: "javascript", Score: 0.5},
		{ChunkID: 2, Path: "types.d.ts", StartLine: 254, EndLine: 266, Kind: "enum", Symbol: "ErrorCode", Language: "typescript", Score: 0.5},
		{ChunkID: 3, Path: "types.d.ts", StartLine: 300, EndLine: 320, Kind: "type", Symbol: "Request", Language: "typescript", Score: 0.5},
	}
	rankQuery(analyze.Analyze("ErrorCode"), cands, map[int64]string{1: "errorCode", 2: "ErrorCode", 3: "Request"})
	if cands[0].ChunkID != 2 || slices.Contains(cands[0].Boosts, "declarations") {
		t.Errorf("ErrorCode: first chunk %d (boosts %v), want the enum's definition, not lowered", cands[0].ChunkID, cands[0].Boosts)
	}
	if b := byID(cands, 3).Boosts; !slices.Contains(b, "declarations") {
		t.Errorf("another chunk of the .d.ts: boosts %v, want declarations", b)
	}
}

// TestRankQualifiedOtherOwnerFileName: once the qualified definition is
// among the candidates, another owner's definition of the name gets no
// lift from a file name that holds the qualifier (value_parser.rs for
// Parser::parse).
func TestRankQualifiedOtherOwnerFileName(t *testing.T) {
	t.Parallel()
	cands := []Result{
		{ChunkID: 1, Path: "src/builder/value_parser.rs", StartLine: 699, EndLine: 709, Kind: "method", Symbol: "TypedValueParser.parse", Language: "rust", Score: 0.5},
		{ChunkID: 2, Path: "src/derive.rs", StartLine: 80, EndLine: 93, Kind: "method", Symbol: "Parser.parse", Language: "rust", Score: 0.45},
	}
	rankQuery(analyze.Analyze("Parser::parse"), cands, map[int64]string{1: "parse", 2: "parse"})
	if cands[0].ChunkID != 2 || !slices.Contains(cands[0].Boosts, "definition (qualified)") {
		t.Errorf("Parser::parse: first chunk %d (boosts %v), want Parser.parse as the qualified definition", cands[0].ChunkID, cands[0].Boosts)
	}
	if b := byID(cands, 1).Boosts; slices.ContainsFunc(b, func(s string) bool { return strings.HasPrefix(s, "file-name") }) {
		t.Errorf("the other owner's parse: boosts %v, want no file-name lift", b)
	}
}

// TestRankLooselyQualified: a definition whose scope ends with the
// qualifier (fernet.py's Fernet.decrypt for "Fernet.decrypt") comes
// before one that holds it only further out (MultiFernet.decrypt, in the
// module fernet), whatever their other evidence; and without such a
// definition among the candidates, the loose one keeps its lift.
func TestRankLooselyQualified(t *testing.T) {
	t.Parallel()
	cands := func() []Result {
		return []Result{
			{ChunkID: 1, Path: "fernet.py", StartLine: 202, EndLine: 210, Kind: "method", Symbol: "MultiFernet.decrypt", Breadcrumb: "MultiFernet", Language: "python", Score: 0.5},
			{ChunkID: 2, Path: "fernet.py", StartLine: 82, EndLine: 90, Kind: "method", Symbol: "Fernet.decrypt", Breadcrumb: "Fernet", Language: "python", Score: 0.3},
			{ChunkID: 3, Path: "aead.py", StartLine: 200, EndLine: 210, Kind: "method", Symbol: "AESGCM.decrypt", Breadcrumb: "AESGCM", Language: "python", Score: 0.45},
		}
	}
	names := map[int64]string{1: "decrypt", 2: "decrypt", 3: "decrypt"}
	cs := cands()
	rankQuery(analyze.Analyze("Fernet.decrypt"), cs, names)
	if cs[0].ChunkID != 2 || !slices.Contains(cs[0].Boosts, "definition (qualified)") {
		t.Errorf("Fernet.decrypt: first chunk %d (boosts %v), want Fernet's method", cs[0].ChunkID, cs[0].Boosts)
	}
	if b := byID(cs, 1).Boosts; !slices.Contains(b, "definition (loosely qualified)") {
		t.Errorf("MultiFernet.decrypt: boosts %v, want the loose qualifier's", b)
	}
	cs = slices.DeleteFunc(cands(), func(r Result) bool { return r.ChunkID == 2 })
	rankQuery(analyze.Analyze("Fernet.decrypt"), cs, names)
	if cs[0].ChunkID != 1 || !slices.Contains(cs[0].Boosts, "definition (qualified)") {
		t.Errorf("without Fernet's method: first chunk %d (boosts %v), want MultiFernet's, qualified by its module", cs[0].ChunkID, cs[0].Boosts)
	}
}

// TestRankFrameScopedName: a name an issue writes only as a traceback
// frame's function lifts the definition in that frame's file, not every
// definition of the name; a name also written in the issue's text lifts
// each definition of it.
func TestRankFrameScopedName(t *testing.T) {
	t.Parallel()
	query := "Run fails on an rc file with a regular expression\n" +
		"Traceback (most recent call last):\n" +
		`  File "/home/u/venv/lib/python3.9/site-packages/pylint/lint/run.py", line 161, in __init__` + "\n" +
		"    args = _config_initialization(linter)\n" +
		`  File "/home/u/venv/lib/python3.9/site-packages/pylint/config/config_initialization.py", line 57, in _config_initialization` + "\n" +
		"    linter._parse_configuration_file(config_args)\n"
	q := analyze.Analyze(query)
	cands := []Result{
		{ChunkID: 1, Path: "pylint/lint/run.py", StartLine: 113, EndLine: 165, Kind: "method", Symbol: "Run.__init__", Language: "python", Score: 0.4},
		{ChunkID: 2, Path: "pylint/config/argument.py", StartLine: 156, EndLine: 178, Kind: "method", Symbol: "_Argument.__init__", Language: "python", Score: 0.4},
		{ChunkID: 3, Path: "pylint/config/config_initialization.py", StartLine: 20, EndLine: 76, Kind: "function", Symbol: "_config_initialization", Language: "python", Score: 0.4},
		{ChunkID: 4, Path: "pylint/extensions/init_helpers.py", StartLine: 10, EndLine: 30, Kind: "function", Symbol: "_config_initialization", Language: "python", Score: 0.4},
	}
	rankQuery(q, cands, map[int64]string{1: "__init__", 2: "__init__", 3: "_config_initialization", 4: "_config_initialization"})
	lifted := func(id int64) bool { return slices.Contains(byID(cands, id).Boosts, "mentioned-definition") }
	if !lifted(1) {
		t.Errorf("run.py's __init__, the frame's function: boosts %v, want mentioned-definition", byID(cands, 1).Boosts)
	}
	if lifted(2) {
		t.Errorf("argument.py's __init__, named only by a frame in run.py: boosts %v, want no lift", byID(cands, 2).Boosts)
	}
	if !lifted(3) || !lifted(4) {
		t.Errorf("_config_initialization is also written in a code line: lifts %v and %v, want both", byID(cands, 3).Boosts, byID(cands, 4).Boosts)
	}
}
