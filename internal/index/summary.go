package index

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/chunk"
)

// maxSummaryBytes caps a chunk summary.
const maxSummaryBytes = 160

// Summary returns the one-line description of a chunk shown in results: its
// signature, else the first line of its doc, else its first line that says
// something once comment markers are taken off (a block opening with
// "/**" is summarised by the comment's first words, not by "/**") and a
// leading licence notice, shebang and editor mode line are passed over
// (see [firstSaying]); whitespace collapsed and cut at 160 bytes on a
// rune boundary.
func Summary(c chunk.Chunk, text string) string {
	s := c.Signature
	if s == "" && c.Kind == chunk.KindSection {
		s = c.Symbol
	}
	if s == "" && c.Doc != "" {
		s, _, _ = strings.Cut(strings.TrimSpace(c.Doc), "\n")
	}
	if s == "" {
		s = firstSaying(text)
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxSummaryBytes {
		cut := maxSummaryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}

// stripCommentMarkers returns a line without the markers that open,
// continue or close a comment ("/**", "/*!", "*", "//", "# ", "*/",
// "<!--", "-->", a docstring's quotes), so a line of markers alone is
// empty. A preprocessor line ("#include") keeps its "#".
func stripCommentMarkers(t string) string {
	for _, p := range []string{"/**", "/*!", "/*", "<!--", `"""`, "'''", "//!", "///", "//"} {
		if strings.HasPrefix(t, p) {
			t = t[len(p):]
			break
		}
	}
	if strings.HasPrefix(t, "*") && (len(t) == 1 || t[1] == ' ' || t[1] == '\t' || t[1] == '/') {
		t = t[1:]
	}
	if t == "#" || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "#\t") {
		t = t[1:]
	}
	for _, sfx := range []string{"*/", "-->", `"""`, "'''"} {
		t = strings.TrimSuffix(strings.TrimSpace(t), sfx)
	}
	return strings.TrimSpace(t)
}

// firstSaying returns the first line of text that says something once
// comment markers are taken off, passing over what opens a file without
// describing it: a shebang, an editor mode line ("-*- coding: utf-8 -*-"),
// a "use strict" directive and the paragraphs of a licence notice in the
// leading comment. Before,
// 6,833 of the Go standard library's 106,596 chunks were summarised as
// "Copyright 20xx The Go Authors. All rights reserved." (every file's
// first chunk without a package doc), and leveldb's write_batch.h, whose
// header goes on to say what a WriteBatch is, the same. A chunk that holds
// nothing else keeps its first line.
//
// A notice is recognised by its first paragraph (paragraphs are split by
// blank comment lines): one naming a copyright, an SPDX identifier or a
// licence's usual words. The paragraphs after it that still speak of the
// licence, its warranty or its web address are passed over with it
// (Apache's notice is four paragraphs); the first that does not, or the
// first line of code, is the summary.
func firstSaying(text string) string {
	first := ""
	notice := false   // inside a licence notice's paragraphs
	startPara := true // the next line that says something opens a paragraph
	inBlock := false  // inside a /* … */ comment
	for line := range strings.Lines(text) {
		raw := strings.TrimSpace(line)
		comment := inBlock || isCommentLine(raw)
		if i := strings.Index(raw, "/*"); i >= 0 && !strings.Contains(raw[i:], "*/") {
			inBlock = true
		} else if inBlock && strings.Contains(raw, "*/") {
			inBlock = false
		}
		t := stripCommentMarkers(raw)
		if t == "" {
			startPara = true
			continue
		}
		if first == "" {
			first = t
		}
		if !comment {
			if isStrictDirective(raw) {
				continue
			}
			// Code ends the leading comments (a "package" or "#include"
			// line says which file this is).
			return t
		}
		lower := strings.ToLower(t)
		if strings.HasPrefix(raw, "#!") || strings.Count(t, "-*-") >= 2 || strings.HasPrefix(lower, "vim:") {
			continue
		}
		if startPara {
			startPara = false
			notice = licenceStart(lower) || notice && licenceMore(lower)
		}
		if !notice {
			return t
		}
	}
	return first
}

// isStrictDirective reports whether a trimmed line is JavaScript's "use
// strict" directive, which opens most CommonJS files and says nothing
// about them.
func isStrictDirective(raw string) bool {
	switch strings.TrimSuffix(raw, ";") {
	case `"use strict"`, `'use strict'`:
		return true
	}
	return false
}

// isCommentLine reports whether a trimmed line opens with a comment marker
// (a "#" only as "# …", "#!" or alone, so "#include" is code).
func isCommentLine(raw string) bool {
	for _, p := range []string{"//", "/*", "*", "<!--", "--", ";", `"""`, "'''", "#!", "# ", "#\t"} {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	return raw == "#"
}

// licenceStart reports whether a lower-cased line names a copyright or a
// licence in the words notices open with.
func licenceStart(lower string) bool {
	for _, w := range []string{"copyright", "(c) ", "spdx-license-identifier", "licensed under", "license that can be", "governed by a", "all rights reserved", "free software", "permission is hereby granted", "this file is part of", "licensed to the apache"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// licenceMore reports whether a lower-cased paragraph opening still speaks
// of a licence notice: the licence, its warranty or where to read it.
func licenceMore(lower string) bool {
	for _, w := range []string{"licen", "warrant", "http://", "https://", "distributed", "applicable law"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return licenceStart(lower)
}
