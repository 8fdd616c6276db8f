package chunk

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// fuzzLang pins FuzzChunk to one language, for example
//
//	go test -run='^$' -fuzz=FuzzChunk -fuzztime=60s -chunk.fuzzlang=rust ./internal/chunk
var fuzzLang = flag.String("chunk.fuzzlang", "", "fuzz only this language (a discover.Lang* id)")

// fuzzSeeds are small inputs that reach the corners of the walker:
// wrappers, containers, doc comments, parse errors, NUL bytes.
var fuzzSeeds = []string{
	"package p\n\ntype (\n\t// A\n\tA int\n)\n\nfunc (r *T[K]) M() {}\n",
	"class A:\n    '''doc'''\n    @d\n    def f(self): pass\n",
	"export default class K { m() {} }\n/** d */\nconst f = () => 1;\n",
	"namespace N { export class C { @dec m(): void {} } }\n",
	"#ifdef X\nstruct S { int a; };\n#endif\nint f(void) { return 0; }\n",
	"#[derive(Debug)]\n/// d\nimpl<T> Tr for S<T> { fn f() {} }\n",
	"module A; class B; def c; end; end; end\n",
	"defmodule A do\n  @doc \"x\"\n  def f(a), do: a\nend\n",
	"function M:f() end\nlocal g = function() end\n",
	"f() { echo; }\n",
	"# T\n\n```\n# no\n```\nx\n---\n",
	"\x00\xff{}\n}}}class {\n",
	"func (",
	"class A { class B { class C { void f() {} } } }\n",
}

func FuzzChunk(f *testing.F) {
	for i, lang := range allLangs {
		if name, src := readSampleIf(lang); name != "" {
			f.Add(uint8(i), src)
			f.Add(uint8(i), src[:len(src)/2])
		}
		for _, s := range fuzzSeeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	for _, rel := range []string{"go/ast/ast.go", "net/http/server.go", "strings/strings.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		for _, n := range []int{len(src) / 7, len(src) / 3, min(len(src), 20000)} {
			f.Add(uint8(0), src[:n])
		}
	}
	c := New(&Options{MaxLines: 30, MaxBytes: 1500, GroupLines: 8, WindowLines: 20})
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := allLangs[int(li)%len(allLangs)]
		if *fuzzLang != "" {
			if !slices.Contains(allLangs, *fuzzLang) {
				t.Fatalf("unknown language %q", *fuzzLang)
			}
			lang = *fuzzLang
		}
		cs, err := c.Chunk(context.Background(), "fuzz", lang, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := invariantErr(src, cs); err != nil {
			t.Fatalf("%s: %v\n%s", lang, err, dumpChunks(cs))
		}
	})
}

// readSampleIf is readSample without a test: it returns "" when lang has
// no sample.
func readSampleIf(lang string) (string, []byte) {
	data, err := os.ReadFile(filepath.Join("testdata", "lang", lang+".txtar"))
	if err != nil {
		return "", nil
	}
	files := parseTxtar(data)
	if len(files) != 1 {
		return "", nil
	}
	return files[0].name, files[0].data
}
