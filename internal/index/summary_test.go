package index

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/chunk"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100)
	cases := []struct {
		name string
		c    chunk.Chunk
		text string
		want string
	}{
		{
			name: "signature first",
			c:    chunk.Chunk{Kind: chunk.KindFunction, Signature: "func Total(items []Item) int", Doc: "Total sums the items."},
			text: "// Total sums the items.\nfunc Total(items []Item) int {\n",
			want: "func Total(items []Item) int",
		},
		{
			name: "doc's first line without a signature",
			c:    chunk.Chunk{Kind: chunk.KindClass, Doc: "  A registered account.\n\n  More detail here.\n"},
			text: "class User:\n",
			want: "A registered account.",
		},
		{
			name: "section heading",
			c:    chunk.Chunk{Kind: chunk.KindSection, Symbol: "Getting started"},
			text: "## Getting started\n\nInstall it.\n",
			want: "Getting started",
		},
		{
			name: "a JSDoc block's first words, not its opening marker",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "/**\n * URL-encoded parser.\n * @public\n */\nexports.urlencoded = require('./u')\n",
			want: "URL-encoded parser.",
		},
		{
			name: "a licence banner's first words",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "/*!\n * body-parser\n */\n",
			want: "body-parser",
		},
		{
			name: "a Python comment's words, a preprocessor line kept",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "#\n# Helpers for the tests.\n",
			want: "Helpers for the tests.",
		},
		{
			name: "preprocessor line",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "#include <stdio.h>\n",
			want: "#include <stdio.h>",
		},
		{
			name: "a Go file's licence passed over for its package clause",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "// Copyright 2009 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\npackage http\n\nimport \"fmt\"\n",
			want: "package http",
		},
		{
			name: "a header's description after its licence",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "// Copyright (c) 2011 The LevelDB Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style license that can be\n// found in the LICENSE file.\n//\n// WriteBatch holds a collection of updates to apply atomically to a DB.\n//\n#ifndef WRITE_BATCH_H_\n",
			want: "WriteBatch holds a collection of updates to apply atomically to a DB.",
		},
		{
			name: "Apache's four paragraphs in a block comment",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "/*\n * Copyright 2015 Example Inc.\n *\n * Licensed under the Apache License, Version 2.0 (the \"License\");\n * you may not use this file except in compliance with the License.\n *\n *     http://www.apache.org/licenses/LICENSE-2.0\n *\n * Unless required by applicable law or agreed to in writing, software\n * distributed under the License is distributed on an \"AS IS\" BASIS.\n */\n\n/* Parses the wire format. */\n",
			want: "Parses the wire format.",
		},
		{
			name: "a GPL notice without stars",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "/*\n   Copyright (C) 2005 Someone\n\n   This program is free software; you can redistribute it and/or modify\n   it under the terms of the GNU General Public License.\n*/\n#include \"config.h\"\n",
			want: "#include \"config.h\"",
		},
		{
			name: "shebang, coding line and SPDX notice passed over",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# SPDX-License-Identifier: MIT\n\n# Helpers that rotate the logs.\nimport os\n",
			want: "Helpers that rotate the logs.",
		},
		{
			name: "a use strict directive passed over",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "'use strict';\n\nmodule.exports = function(Promise, INTERNAL) {\n",
			want: "module.exports = function(Promise, INTERNAL) {",
		},
		{
			name: "a chunk that is only a notice keeps its first line",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "// Copyright 2020 The Authors.\n// Licensed under the MIT license.\n",
			want: "Copyright 2020 The Authors.",
		},
		{
			name: "a doc that mentions a licence later is not a notice",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "// Package spdx reads licence expressions.\n//\n// Copyright lines are kept as written.\n",
			want: "Package spdx reads licence expressions.",
		},
		{
			name: "first non-blank code line",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: "\n\n   \t\n\timport (\n\t\t\"fmt\"\n",
			want: "import (",
		},
		{
			name: "whitespace collapsed",
			c:    chunk.Chunk{Kind: chunk.KindFunction, Signature: "func  F(a int,\t\tb   int)"},
			want: "func F(a int, b int)",
		},
		{
			name: "empty",
			c:    chunk.Chunk{Kind: chunk.KindWindow},
			text: "\n\n",
			want: "",
		},
		{
			name: "long line cut with an ellipsis",
			c:    chunk.Chunk{Kind: chunk.KindBlock},
			text: long,
			want: strings.TrimSpace(long)[:maxSummaryBytes] + "…",
		},
		{
			name: "invalid UTF-8 replaced",
			c:    chunk.Chunk{Kind: chunk.KindFunction, Signature: "def caf\xe9(x)"},
			want: "def caf�(x)",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Summary(c.c, c.text); got != c.want {
				t.Errorf("Summary = %q, want %q", got, c.want)
			}
		})
	}
}

// TestSummaryCutOnRuneBoundary: a cut never splits a multi-byte rune, for
// every alignment of the runes against the cap.
func TestSummaryCutOnRuneBoundary(t *testing.T) {
	t.Parallel()
	for pad := range 4 {
		text := strings.Repeat("x", pad) + strings.Repeat("日本語€", 40)
		got := Summary(chunk.Chunk{Kind: chunk.KindBlock}, text)
		if !utf8.ValidString(got) {
			t.Errorf("pad %d: invalid UTF-8 %q", pad, got)
		}
		body, ok := strings.CutSuffix(got, "…")
		if !ok || len(body) > maxSummaryBytes || len(body) < maxSummaryBytes-3 || !strings.HasPrefix(text, body) {
			t.Errorf("pad %d: Summary = %q (%d bytes), want a prefix of at most %d bytes of the text and an ellipsis", pad, got, len(body), maxSummaryBytes)
		}
	}
}

func TestEmbedText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		c          chunk.Chunk
		code, want string
	}{
		{"top level", "cart/discount.go", chunk.Chunk{Symbol: "ApplyCoupon"}, "func ApplyCoupon() {}\n", "cart/discount.go > ApplyCoupon\nfunc ApplyCoupon() {}\n"},
		{"with breadcrumb", "app/models/user.py", chunk.Chunk{Symbol: "User.save", Breadcrumb: "User"}, "def save(self): pass\n", "app/models/user.py > User > User.save\ndef save(self): pass\n"},
		{"block", "main.go", chunk.Chunk{}, "package main\n", "main.go\npackage main\n"},
	}
	for _, c := range cases {
		if got := EmbedText(c.path, c.c, c.code); got != c.want {
			t.Errorf("%s: EmbedText = %q, want %q", c.name, got, c.want)
		}
	}
	long := EmbedText("a.go", chunk.Chunk{}, strings.Repeat("é", maxEmbedTextBytes))
	if len(long) > maxEmbedTextBytes || !utf8.ValidString(long) || !strings.HasPrefix(long, "a.go\né") {
		t.Errorf("long chunk: %d bytes, valid UTF-8 %v; want at most %d valid bytes", len(long), utf8.ValidString(long), maxEmbedTextBytes)
	}
}
