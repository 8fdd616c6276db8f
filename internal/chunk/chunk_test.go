package chunk

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func init() {
	// Fail loudly on an invariant violation instead of quietly falling
	// back to line windows.
	debugChecks = true
}

// allLangs lists every language the chunker distinguishes, in a fixed
// order (the fuzz target indexes into it).
var allLangs = []string{
	discover.LangGo, discover.LangPython, discover.LangJavaScript, discover.LangTypeScript,
	discover.LangTSX, discover.LangJava, discover.LangRust, discover.LangC, discover.LangCPP,
	discover.LangCSharp, discover.LangRuby, discover.LangPHP, discover.LangKotlin,
	discover.LangSwift, discover.LangScala, discover.LangLua, discover.LangElixir,
	discover.LangBash, discover.LangMarkdown, discover.LangText,
}

// checkInvariants reports every way cs breaks the package invariants for
// src: chunks sorted and not overlapping, ranges inside the file, lines
// consistent with bytes, whole lines, every non-blank line in exactly one
// chunk, Part numbers consecutive per definition.
func checkInvariants(t testing.TB, src []byte, cs []Chunk) {
	t.Helper()
	if err := invariantErr(src, cs); err != nil {
		t.Fatalf("invariant broken: %v\nchunks:\n%s", err, dumpChunks(cs))
	}
}

func invariantErr(src []byte, cs []Chunk) error {
	prevEnd := 0
	covered := make([]bool, bytes.Count(src, []byte("\n"))+1)
	for i, c := range cs {
		if c.StartByte < 0 || c.StartByte >= c.EndByte || c.EndByte > len(src) {
			return fmt.Errorf("chunk %d: bytes [%d,%d) outside file of %d", i, c.StartByte, c.EndByte, len(src))
		}
		if c.StartByte < prevEnd {
			return fmt.Errorf("chunk %d: starts at %d before previous end %d", i, c.StartByte, prevEnd)
		}
		prevEnd = c.EndByte
		if want := 1 + bytes.Count(src[:c.StartByte], []byte("\n")); c.StartLine != want {
			return fmt.Errorf("chunk %d: StartLine %d, bytes say %d", i, c.StartLine, want)
		}
		if want := 1 + bytes.Count(src[:c.EndByte-1], []byte("\n")); c.EndLine != want {
			return fmt.Errorf("chunk %d: EndLine %d, bytes say %d", i, c.EndLine, want)
		}
		if c.StartByte > 0 && src[c.StartByte-1] != '\n' {
			return fmt.Errorf("chunk %d: starts mid-line at %d", i, c.StartByte)
		}
		if c.EndByte < len(src) && src[c.EndByte-1] != '\n' {
			return fmt.Errorf("chunk %d: ends mid-line at %d", i, c.EndByte)
		}
		for l := c.StartLine; l <= c.EndLine; l++ {
			covered[l-1] = true
		}
		if c.Kind == "" {
			return fmt.Errorf("chunk %d: no kind", i)
		}
		if (c.Symbol == "") != (c.Name == "") {
			return fmt.Errorf("chunk %d: Symbol %q with Name %q", i, c.Symbol, c.Name)
		}
	}
	for i, line := range bytes.Split(src, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && !covered[i] {
			return fmt.Errorf("line %d %q is in no chunk", i+1, line)
		}
	}
	// Parts of one definition are numbered 1, 2, ... in order.
	next := map[string]int{}
	for i, c := range cs {
		if c.Part == 0 {
			continue
		}
		key := string(c.Kind) + "\x00" + c.Breadcrumb + "\x00" + c.Symbol
		if want := next[key] + 1; c.Part != want && c.Part != 1 {
			return fmt.Errorf("chunk %d (%s): part %d after part %d", i, c.Symbol, c.Part, want-1)
		}
		next[key] = c.Part
	}
	return nil
}

func dumpChunks(cs []Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %-9s %4d-%-4d part=%d %q crumb=%q sig=%q doc=%q\n",
			c.Kind, c.StartLine, c.EndLine, c.Part, c.Symbol, c.Breadcrumb, c.Signature, c.Doc)
	}
	return b.String()
}

// chunkOK chunks src and checks the invariants.
func chunkOK(t testing.TB, c *Chunker, lang string, src []byte) []Chunk {
	t.Helper()
	cs, err := c.Chunk(context.Background(), "f", lang, src)
	if err != nil {
		t.Fatalf("Chunk: %v", err)
	}
	checkInvariants(t, src, cs)
	return cs
}

// brief is the part of a chunk that the table tests compare.
type brief struct {
	Kind       Kind
	Symbol     string
	Name       string
	Crumb      string
	Start, End int
	Part       int
	Doc        string
}

func briefOf(c Chunk) brief {
	return brief{c.Kind, c.Symbol, c.Name, c.Breadcrumb, c.StartLine, c.EndLine, c.Part, c.Doc}
}

func briefs(cs []Chunk) []brief {
	out := make([]brief, len(cs))
	for i, c := range cs {
		out[i] = briefOf(c)
	}
	return out
}

func TestEmptyAndBlank(t *testing.T) {
	t.Parallel()
	c := New(nil)
	for _, lang := range allLangs {
		for _, src := range []string{"", "\n", "  \n\t\n\r\n"} {
			cs := chunkOK(t, c, lang, []byte(src))
			if len(cs) != 0 {
				t.Errorf("%s %q: got %d chunks, want none", lang, src, len(cs))
			}
		}
	}
}

func TestOnlyComments(t *testing.T) {
	t.Parallel()
	srcs := map[string]string{
		discover.LangGo:     "// Copyright 2024.\n// All rights reserved.\n\n/* block\n   comment */\n",
		discover.LangPython: "# just\n# comments\n\n# here\n",
		discover.LangRust:   "//! crate docs\n//! more\n",
		discover.LangLua:    "--[[ block\ncomment ]]\n-- line\n",
		discover.LangC:      "/* a */\n// b\n",
	}
	c := New(nil)
	for lang, src := range srcs {
		cs := chunkOK(t, c, lang, []byte(src))
		if len(cs) != 1 || cs[0].Kind != KindBlock {
			t.Errorf("%s: got\n%s\nwant one block", lang, dumpChunks(cs))
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	src := []byte("package p\n\n// Doc \xff\xfe.\nfunc F\xc3(x int) {\n\treturn \"\xed\xa0\x80\"\n}\n\nfunc G() {}\n")
	c := New(nil)
	for _, lang := range allLangs {
		cs := chunkOK(t, c, lang, src)
		for _, ch := range cs {
			for _, s := range []string{ch.Symbol, ch.Name, ch.Breadcrumb, ch.Signature, ch.Doc} {
				if !strings.Contains(s, "\uFFFD") && !isValid(s) {
					t.Errorf("%s: invalid UTF-8 in %q", lang, s)
				}
			}
		}
	}
	cs := chunkOK(t, c, discover.LangGo, src)
	if got := cs[len(cs)-1].Symbol; got != "G" {
		t.Errorf("last symbol = %q, want G\n%s", got, dumpChunks(cs))
	}
}

func isValid(s string) bool { return strings.ToValidUTF8(s, "") == s }

func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(nil).Chunk(ctx, "f.go", discover.LangGo, []byte("package p\n"))
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWindows(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
		if i == 55 {
			b.WriteString("\n") // a blank line late in the first window
		}
	}
	src := []byte(b.String())
	cs := chunkOK(t, New(nil), discover.LangText, src)
	got := briefs(cs)
	want := []brief{
		{Kind: KindWindow, Start: 1, End: 55},
		{Kind: KindWindow, Start: 57, End: 116},
		{Kind: KindWindow, Start: 117, End: 151},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}

	// MaxBytes cuts windows too; one over-long line stays whole.
	long := strings.Repeat("x", 9000)
	src = []byte("a\n" + long + "\nb\n")
	cs = chunkOK(t, New(nil), discover.LangText, src)
	if diff := cmp.Diff([]brief{
		{Kind: KindWindow, Start: 1, End: 1},
		{Kind: KindWindow, Start: 2, End: 2},
		{Kind: KindWindow, Start: 3, End: 3},
	}, briefs(cs)); diff != "" {
		t.Errorf("long line (-want +got):\n%s", diff)
	}
}

func TestUnknownLanguageNoTrailingNewline(t *testing.T) {
	t.Parallel()
	src := []byte("a\n\n\nb")
	cs := chunkOK(t, New(nil), "cobol", src)
	if len(cs) != 1 || cs[0].EndByte != len(src) {
		t.Fatalf("got\n%s", dumpChunks(cs))
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	got := (*Options)(nil).withDefaults()
	want := Options{MaxLines: 60, MaxBytes: 3000, GroupLines: 40, WindowLines: 60}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	got = (&Options{MaxLines: 10}).withDefaults()
	if got.MaxLines != 10 || got.MaxBytes != 3000 {
		t.Errorf("partial = %+v", got)
	}
}

func TestParseTimeout(t *testing.T) {
	t.Parallel()
	c := New(nil)
	c.budget = func(int) time.Duration { return time.Microsecond }
	src := []byte(longGoFunc(2000))
	cs := chunkOK(t, c, discover.LangGo, src)
	for _, ch := range cs {
		if ch.Kind != KindWindow {
			t.Fatalf("a parse out of time gave %q chunks, want windows", ch.Kind)
		}
	}
	// The pool still hands out working parsers.
	cs = chunkOK(t, New(nil), discover.LangGo, []byte("package p\n\nfunc F() {}\n"))
	if cs[len(cs)-1].Symbol != "F" {
		t.Errorf("after timeouts: %s", dumpChunks(cs))
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	c := New(nil)
	var wg sync.WaitGroup
	for _, lang := range allLangs {
		_, src := readSampleIf(lang)
		if src == nil {
			continue
		}
		want := chunkOK(t, c, lang, src)
		for range 4 {
			wg.Go(func() {
				for range 20 {
					got, err := c.Chunk(t.Context(), "f", lang, src)
					if err != nil {
						t.Error(err)
						return
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s: concurrent result differs:\n%s", lang, diff)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}

func TestBareName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Phoenix.Channel", "Channel"},
		{"Foo::bar", "bar"},
		{"ns::Foo.bar", "bar"},
		{"a.b::c", "c"},
		{"Read", "Read"},
		{"broken.", "broken."},
		{"", ""},
	} {
		if got := bareName(c.in); got != c.want {
			t.Errorf("bareName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestJSWrapperFunctions: the definitions inside a function that wraps a
// whole module (a CommonJS factory assigned to module.exports, an
// immediately invoked function) are chunks of their own, as at top level;
// an anonymous exported function that defines nothing stays one chunk of
// filler.
func TestJSWrapperFunctions(t *testing.T) {
	t.Parallel()
	c := New(nil)
	defs := func(src string) []string {
		var out []string
		for _, ch := range chunkOK(t, c, discover.LangJavaScript, []byte(src)) {
			if ch.Symbol != "" {
				out = append(out, fmt.Sprintf("%s %s %d-%d", ch.Kind, ch.Symbol, ch.StartLine, ch.EndLine))
			}
		}
		return out
	}
	factory := `"use strict";
module.exports = function(Promise, INTERNAL) {
var util = require("./util");

function isPromisified(fn) {
    return fn.__isPromisified__ === true;
}

Promise.promisifyAll = function (target, options) {
    return promisifyAll(target, options);
};

Promise.prototype.timeout = function (ms) {
    return this;
};
};
`
	// The factory's closing "};" joins the last definition.
	want := []string{"function isPromisified 5-7", "function Promise.promisifyAll 9-11", "method Promise.prototype.timeout 13-16"}
	if got := defs(factory); !slices.Equal(got, want) {
		t.Errorf("CommonJS factory: definitions %q, want %q", got, want)
	}
	iife := `(function () {
  var cache = {};

  function lookup(key) {
    return cache[key];
  }

  window.store = { lookup: lookup };
})();
`
	if got, want := defs(iife), []string{"function lookup 4-6"}; !slices.Equal(got, want) {
		t.Errorf("immediately invoked function: definitions %q, want %q", got, want)
	}
	plain := `module.exports = function (req, res, next) {
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};
`
	if got := defs(plain); len(got) != 0 {
		t.Errorf("an exported middleware that defines nothing: definitions %q, want none", got)
	}
}

// TestCSharpDirectiveAroundAttribute: "#if DEBUG … #endif" around a
// class's attribute takes the class into the directive's node in
// tree-sitter's C# grammar; the class and its members are still chunks.
func TestCSharpDirectiveAroundAttribute(t *testing.T) {
	t.Parallel()
	src := `using System.Diagnostics;

namespace Vault.Security
{
	/// <summary>
	/// A string kept encrypted in memory.
	/// </summary>
#if (DEBUG && !LITE)
	[DebuggerDisplay("{Read()}")]
#endif
	public sealed class SecretText
	{
		private string m_plain = null;

		private static readonly SecretText m_empty = new SecretText();
		public static SecretText Empty
		{
			get { return m_empty; }
		}

		public string Read()
		{
			return m_plain ?? string.Empty;
		}
	}
}
`
	var got []string
	for _, c := range chunkOK(t, New(nil), discover.LangCSharp, []byte(src)) {
		if c.Kind == KindClass || c.Kind == KindFunction || c.Kind == KindMethod {
			got = append(got, fmt.Sprintf("%s %s", c.Kind, c.Symbol))
		}
	}
	if want := []string{"class SecretText", "method SecretText.Read"}; !slices.Equal(got, want) {
		t.Errorf("definitions %q, want %q", got, want)
	}
}
