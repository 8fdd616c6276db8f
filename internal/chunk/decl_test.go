package chunk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

// TestDecls checks, on testdata/decls/decls.txtar, the declarations that
// are not chunks (interface, trait and pure virtual methods, C and C++
// prototypes, a JavaScript chain's second name) and the definitions found
// around the constructs that used to hide them (C++ specifier macros,
// JavaScript assignments, Ruby class methods).
func TestDecls(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "decls", "decls.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		decls []string // "kind symbol crumb start-end"
		defs  []string // "kind symbol start-end", chunks with a symbol
	}
	wants := map[string]want{
		"Storage.java": {
			decls: []string{"method Storage.find Storage 6-6", "method Storage.store Storage 8-8"},
			defs:  []string{"interface Storage 3-8", "method Storage.size 10-13"},
		},
		"Storage.kt": {
			decls: []string{"method CacheStorage.find CacheStorage 4-4", "method CacheStorage.store CacheStorage 6-6"},
			defs:  []string{"interface CacheStorage 3-7"},
		},
		"ser.rs": {
			decls: []string{"method Serializer.serialize_str Serializer 5-5"},
			defs:  []string{"trait Serializer 1-5", "method Serializer.collect_str 7-10"},
		},
		"buffer.h": {
			decls: []string{"method buffer.grow detail > buffer 14-14", "method buffer.clear detail > buffer 17-17", "function report_error  23-23"},
			defs: []string{
				"module detail 4-4", "class buffer 6-11", "method buffer.buffer 12-12", "class buffer 14-17",
				"method buffer.size 18-21", "class format_error 25-28",
			},
		},
		"uv.h": {
			decls: []string{"function uv_loop_init  3-3", "function uv_default_loop  4-4", "function uv_run  6-6"},
			defs:  []string{"macro UV_EXTERN 1-1"},
		},
		"io.go": {
			decls: []string{"method Reader.Read Reader 6-6", "method Closer.Close Closer 11-11"},
			defs:  []string{"interface Reader 3-8", "interface Closer 10-11", "struct Nothing 12-13"},
		},
		"proto.c": {
			// A variable of function pointer type is not a prototype.
			decls: []string{"function uv_run  3-3"},
		},
		"response.js": {
			decls: []string{"function res.header  10-10"},
			// The JSDoc block one blank line above res.json, or two above
			// res.redirect, is its doc; three blank lines part res.end
			// from the comment above it.
			defs: []string{"function res.set 6-12", "method View.prototype.render 14-16", "function normalizeType 18-20", "function res.json 24-30",
				"function res.redirect 32-39", "function res.end 47-49"},
		},
		"header.js": {
			// A licence header is not the first function's doc.
			defs: []string{"function first 5-7"},
		},
		"base.rb": {
			defs: []string{
				"module Sinatra 1-1", "class Base 2-2", "method Base#call 3-5", "method Base.settings 7-9",
				"method Base#settings 11-13", "class Base 15-15", "method Base.call 16-21",
			},
		},
	}
	ck := New(nil)
	eachChunked(t, data, ck, func(t *testing.T, f txtarFile, lang string, got File) {
		w, ok := wants[f.name]
		if !ok {
			t.Fatalf("no expectations for %s", f.name)
		}
		var decls, defs []string
		for _, d := range got.Decls {
			decls = append(decls, fmt.Sprintf("%s %s %s %d-%d", d.Kind, d.Symbol, d.Breadcrumb, d.StartLine, d.EndLine))
		}
		for _, c := range got.Chunks {
			if c.Symbol != "" {
				defs = append(defs, fmt.Sprintf("%s %s %d-%d", c.Kind, c.Symbol, c.StartLine, c.EndLine))
			}
		}
		if diff := cmp.Diff(w.decls, decls); diff != "" {
			t.Errorf("%s (%s) decls (-want +got):\n%s", f.name, lang, diff)
		}
		if diff := cmp.Diff(w.defs, defs); diff != "" {
			t.Errorf("%s (%s) definitions (-want +got):\n%s", f.name, lang, diff)
		}
		for _, c := range got.Chunks {
			if c.Symbol == "res.json" && c.Doc != "Send a JSON response." {
				t.Errorf("res.json doc = %q, want the JSDoc a blank line above", c.Doc)
			}
			if c.Symbol == "first" && c.Doc != "" {
				t.Errorf("first doc = %q, want none (a licence header)", c.Doc)
			}
		}
		// Chunk and ChunkFile agree.
		cs, _ := ck.Chunk(context.Background(), f.name, lang, f.data)
		if !cmp.Equal(cs, got.Chunks) {
			t.Errorf("Chunk and ChunkFile differ")
		}
	})
}

// eachChunked chunks every file of the txtar data with ck, each in a
// subtest named by the file, and calls check with the file, its language
// and its chunking.
func eachChunked(t *testing.T, data []byte, ck *Chunker, check func(t *testing.T, f txtarFile, lang string, got File)) {
	for _, f := range parseTxtar(data) {
		t.Run(f.name, func(t *testing.T) {
			lang := discover.ContentLanguage(f.name, discover.Language(f.name), f.data)
			got, err := ck.ChunkFile(context.Background(), f.name, lang, f.data)
			if err != nil {
				t.Fatal(err)
			}
			check(t, f, lang, got)
		})
	}
}

// TestMaskMacros pins which capitalised words the C and C++ parse blanks:
// specifiers before a declaration and words alone on a line, never
// preprocessor lines, calls, values or types without a second word.
func TestMaskMacros(t *testing.T) {
	for _, c := range []struct {
		src, want string
		cpp       bool
	}{
		{src: "FMT_API void close();", want: "        void close();"},
		{src: "static FMT_CONSTEXPR20 void grow(buffer<T>& b, size_t n) {", want: "static                 void grow(buffer<T>& b, size_t n) {"},
		{src: "FMT_NORETURN FMT_API void report_error(const char* m);", want: "                     void report_error(const char* m);"},
		{src: "FMT_BEGIN_NAMESPACE\nnamespace detail {", want: "                   \nnamespace detail {"},
		// After a comma, a word alone on its line is the last enumerator.
		{src: "enum { UV_RUN_DEFAULT = 0,\n  UV_RUN_ONCE\n};", want: "enum { UV_RUN_DEFAULT = 0,\n  UV_RUN_ONCE\n};"},
		{src: "class FMT_API format_error : public std::runtime_error {", want: "class         format_error : public std::runtime_error {"},
		{src: "  FMT_CONSTEXPR buffer(size_t sz) {}", want: "                buffer(size_t sz) {}", cpp: true},
		// In C, a word before a lone name and parameters is the type.
		{src: "MY_TYPE_T make(int x) {", want: "MY_TYPE_T make(int x) {"},
		{src: "#define FMT_API __attribute__((visibility(\"default\")))", want: "#define FMT_API __attribute__((visibility(\"default\")))"},
		{src: "#define X \\\n  FMT_API void f();", want: "#define X \\\n  FMT_API void f();"},
		{src: "FMT_ENABLE_IF(is_char<T>::value)> void f();", want: "FMT_ENABLE_IF(is_char<T>::value)> void f();"},
		{src: "int x = MAX_SIZE;\nreturn FOO_BAR + 1;", want: "int x = MAX_SIZE;\nreturn FOO_BAR + 1;"},
		{src: "const char* s = \"FMT_API void f();\";", want: "const char* s = \"FMT_API void f();\";"},
		{src: "// FMT_API void f();\nDWORD WINAPI run(void* p);", want: "// FMT_API void f();\nDWORD WINAPI run(void* p);"},
		// Reserved macros (a leading underscore), a macro after the
		// parameters, and one between a namespace's name and body.
		{src: "      _GLIBCXX20_CONSTEXPR\n      pointer\n      _M_allocate(size_t __n)", want: "                          \n      pointer\n      _M_allocate(size_t __n)", cpp: true},
		{src: "size() const _GLIBCXX_NOEXCEPT { return 0; }", want: "size() const                   { return 0; }", cpp: true},
		{src: "namespace std _GLIBCXX_VISIBILITY(default)\n{", want: "namespace std " + strings.Repeat(" ", len("_GLIBCXX_VISIBILITY(default)")) + "\n{", cpp: true},
		{src: "_Tp _M_x = __n;", want: "_Tp _M_x = __n;", cpp: true},
	} {
		got := string(cMaskMacros([]byte(c.src), c.cpp))
		if got != c.want {
			t.Errorf("cMaskMacros(%q, cpp=%v)\n got %q\nwant %q", c.src, c.cpp, got, c.want)
		}
		if len(got) != len(c.src) || strings.Count(got, "\n") != strings.Count(c.src, "\n") {
			t.Errorf("cMaskMacros(%q) changed the length or the lines", c.src)
		}
	}
	// Nothing to blank: the same slice comes back, not a copy.
	src := []byte("int main(void) { return 0; }\n")
	if got := cMaskMacros(src, true); &got[0] != &src[0] {
		t.Error("cMaskMacros copied a file it did not change")
	}
}

// TestEnumMembers checks, on testdata/decls/enums.txtar, that each
// language's enum members are declarations "Enum.Member" inside the
// enum's chunk.
func TestEnumMembers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "decls", "enums.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string][]string{
		"action.rs":   {"ArgAction.Set 4", "ArgAction.Count 6", "ArgAction.Custom 7", "ArgAction.Map 8"},
		"color.c":     {"color.RED 1", "color.GREEN 1", "uv_run_mode.UV_RUN_DEFAULT 4", "uv_run_mode.UV_RUN_ONCE 5"},
		"color.hpp":   {"Color.Red 2", "Color.Green 2"},
		"Color.java":  {"Color.RED 4", "Color.GREEN 5"},
		"Color.cs":    {"Color.Red 5", "Color.Green 6"},
		"color.ts":    {"Color.Red 2", "Color.Green 3", "Color.Blue 4"},
		"Color.kt":    {"Color.RED 4", "Color.GREEN 5"},
		"Suit.php":    {"Suit.Hearts 4", "Suit.Spades 5"},
		"Color.scala": {"Color.Red 2", "Color.Green 2", "Color.Blue 3"},
		"Color.swift": {"Color.red 2", "Color.green 2", "Color.blue 3"},
		// A class deriving from an enumeration base; a plain class's
		// attributes are not members.
		"status.py": {"Status.OK 7", "Status.NOT_FOUND 8", "Color.RED 16"},
		"simple.py": {"HTTPStatus.OK 3"}, // an enumeration by its decorator
	}
	eachChunked(t, data, New(nil), func(t *testing.T, f txtarFile, lang string, got File) {
		want, ok := wants[f.name]
		if !ok {
			t.Fatalf("no expectations for %s", f.name)
		}
		var decls []string
		for _, d := range got.Decls {
			if d.Kind != KindConst || !strings.HasSuffix(d.Symbol, "."+d.Name) {
				t.Errorf("decl %+v: want kind const and a symbol ending in .%s", d, d.Name)
			}
			decls = append(decls, fmt.Sprintf("%s %d", d.Symbol, d.StartLine))
			inEnum := false
			for _, c := range got.Chunks {
				// A Python enumeration stays a class.
				inEnum = inEnum || (c.Kind == KindEnum || c.Kind == KindClass && lang == discover.LangPython) && c.StartLine <= d.StartLine && d.EndLine <= c.EndLine
			}
			if !inEnum {
				t.Errorf("decl %s at %d-%d lies in no enum chunk", d.Symbol, d.StartLine, d.EndLine)
			}
		}
		if diff := cmp.Diff(want, decls); diff != "" {
			t.Errorf("%s (%s) enum members (-want +got):\n%s", f.name, lang, diff)
		}
	})
}
