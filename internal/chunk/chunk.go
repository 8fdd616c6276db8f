// Package chunk is the parse+chunk stage of the index pipeline: it turns one
// file's bytes into [Chunk]s that follow definitions (functions, methods,
// types, module-level blocks), using tree-sitter grammars where ctx has one
// and line windows (Markdown: headings) everywhere else.
//
// A [Chunker] applies these rules to a parsed file:
//   - Each definition (function, method, class, struct, interface, trait,
//     enum, type, impl, module, namespace, const or var declaration, macro)
//     is a chunk, together with the doc comment directly above it (or its
//     Python docstring, or Elixir @doc), whose text is also in Chunk.Doc.
//   - A container (class, impl, module, namespace, interface with method
//     bodies) does not swallow its members: each member is a chunk of its
//     own, and the rest of the container (header, fields, code between
//     members) becomes chunks of the container's kind and symbol.
//   - A definition longer than Options.MaxLines or Options.MaxBytes is cut
//     at statement boundaries into parts that share its symbol and
//     signature and are numbered by Chunk.Part.
//   - Small neighbouring top-level statements (imports, assignments,
//     calls) are grouped into [KindBlock] chunks of up to
//     Options.GroupLines lines.
//
// Invariants, for every chunk of a file of n bytes:
//   - 0 <= StartByte < EndByte <= n, and StartLine/EndLine are the 1-based,
//     inclusive lines of those bytes;
//   - a chunk is made of whole lines: it starts at the start of a line and
//     ends after a '\n' (or at the end of the file);
//   - chunks of one file are sorted by StartByte and never overlap, and
//     every line that holds non-whitespace text is in exactly one chunk;
//   - no input, however malformed (invalid UTF-8, truncated source, binary
//     noise), makes the chunker panic.
package chunk

// Version identifies the chunking rules. It is part of the index identity:
// a change makes `ctx status` report the index as stale and `ctx index`
// rebuild every file's chunks.
//
//	1: tree-sitter definitions for 17 languages, line-window and Markdown fallback.
//	2: definitions split past 60 lines or 3000 bytes (was 120 and 6000).
//	3: C++ functions returning references ("T& at()") and conversion
//	   operators, and C# operators, are definitions (were filler).
//	4: Name is the last segment of a qualified definition name
//	   (defmodule Phoenix.Channel: Channel; was Phoenix.Channel).
//	5: declarations without a body (interface, trait and abstract
//	   methods, Go interface methods, C and C++ prototypes) are
//	   reported as [Decl]s;
//	   JavaScript "obj.m = function" assignments are functions; C and
//	   C++ specifier macros (FMT_API, UV_EXTERN) and lone macro lines
//	   (FMT_BEGIN_NAMESPACE) no longer derail the parse.
//	6: a JavaScript or TypeScript JSDoc block one or two blank lines
//	   above a definition is its doc comment (was a chunk of its own);
//	   a block's summary skips comment markers ("/**").
//	7: chunks carry a structural sketch (Chunk.Sketch, sketch.go); a
//	   change to the sketch's labels or features bumps this version.
//	8: enum members (Rust variants, C enumerators, Java constants,
//	   TypeScript, C#, Kotlin, Swift, PHP and Scala cases) are [Decl]s
//	   "Enum.Member"; a C or C++ macro word alone on its line after a
//	   comma (the last enumerator) is no longer masked.
//	9: a Python class deriving from an enumeration base (Enum, IntEnum,
//	   Flag, Django's Choices, …) reports its assigned members as
//	   [Decl]s "Class.NAME".
//	10: a file whose name names no language is chunked as the language
//	   its first line names, by a shebang or an Emacs mode line
//	   (discover.ContentLanguage: bin/deploy with "#!/usr/bin/env bash"
//	   and hook-functions with "# -*- shell-script -*-" are Bash; were
//	   text).
//	11: a block's summary passes over a leading licence notice, a
//	   shebang and an editor mode line (index.Summary: "package http",
//	   not "Copyright 2009 The Go Authors. All rights reserved.").
//	12: the definitions inside a JavaScript function that wraps a module
//	   (module.exports = function (Promise) { … }, an immediately
//	   invoked function) are chunks of their own (were blocks); a
//	   block's summary passes over a "use strict" directive.
//	13: C# "#if … #endif" nodes are transparent, as C's are: a class the
//	   grammar takes into one (after an attribute under #if) is a chunk.
const Version = 13

// Kind names what a chunk holds.
type Kind string

// Chunk kinds. Definitions use the kind of the construct; everything that is
// not a definition is a [KindBlock] (grouped top-level statements), a
// [KindSection] (a Markdown heading and its body) or a [KindWindow] (a window
// of lines from a file with no grammar).
const (
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
	KindClass     Kind = "class"
	KindStruct    Kind = "struct"
	KindInterface Kind = "interface"
	KindTrait     Kind = "trait"
	KindEnum      Kind = "enum"
	KindType      Kind = "type"
	KindImpl      Kind = "impl"
	KindModule    Kind = "module"
	KindConst     Kind = "const"
	KindVar       Kind = "var"
	KindMacro     Kind = "macro"
	KindBlock     Kind = "block"
	KindSection   Kind = "section"
	KindWindow    Kind = "window"
)

// Chunk is one retrievable piece of a file.
type Chunk struct {
	// Kind is what the chunk holds.
	Kind Kind
	// Symbol is the defined name, qualified the way the language's users
	// write it: "ReadMIMEHeader", "(*Reader).ReadMIMEHeader" for a Go
	// method, "Router.handle" for a method elsewhere. Empty for blocks and
	// windows; the heading text for Markdown sections.
	Symbol string
	// Name is the bare defined name ("ReadMIMEHeader"); empty when Symbol is.
	Name string
	// Breadcrumb is the chain of names of the enclosing definitions
	// (module, namespace, class, impl, receiver type), outermost first,
	// joined by " > " (e.g. "Sinatra > Base"); empty at top level.
	Breadcrumb string
	// Signature is the definition's header on one line (whitespace
	// collapsed, at most 200 bytes), e.g. "func (r *Reader) ReadMIMEHeader() (MIMEHeader, error)".
	Signature string
	// Doc is the doc comment or docstring attached to the definition, with
	// comment markers stripped; empty when there is none.
	Doc string
	// StartLine and EndLine are 1-based and inclusive.
	StartLine, EndLine int
	// StartByte and EndByte are 0-based byte offsets, half-open: the chunk's
	// text is src[StartByte:EndByte]. The range includes the doc comment.
	StartByte, EndByte int
	// Part is 0 for a whole definition, and 1, 2, … for the pieces of a long
	// definition split at statement boundaries (and for the pieces a
	// container leaves around its members, or a long Markdown section);
	// pieces keep the Symbol, Kind, Breadcrumb and Signature of the whole,
	// and only the first carries the Doc.
	Part int
	// Sketch is the structural sketch of the chunk's syntax ([SketchBytes]
	// bytes, compared by [Similarity]); nil for a chunk of a file without
	// a grammar, or holding only comments.
	Sketch []byte
}

// Decl is a declaration that is not a chunk of its own: a member without a
// body (an interface, trait or abstract method, a C++ member prototype), a
// C or C++ prototype, or a second name an assignment gives a function
// (JavaScript "a.x = a.y = function"). Its lines lie inside some chunk
// (usually its container's); it exists so that a definition lookup finds
// the name where it is declared.
type Decl struct {
	// Kind, Symbol, Name and Breadcrumb are as in [Chunk]: "method",
	// "HttpCacheStorage.find", "find", "io > ktor > HttpCacheStorage".
	Kind       Kind
	Symbol     string
	Name       string
	Breadcrumb string
	// StartLine and EndLine are 1-based and inclusive: the declaration's
	// own lines, without its doc comment.
	StartLine, EndLine int
}

// File is everything the chunker reads from one file: its chunks, sorted
// by StartByte, and its declarations that are not chunks, in line order.
type File struct {
	Chunks []Chunk
	Decls  []Decl
}
