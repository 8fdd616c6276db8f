package discover

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// This file reads fixture trees in the txtar format of
// golang.org/x/tools/txtar: a comment, then files, each introduced by a line
// "-- name --". It stands in for github.com/rogpeppe/go-internal/txtar, which
// wraps x/tools/txtar: that module is not in go.sum yet and this package may
// not change go.mod. Swap it in when it is.

// archive is a parsed txtar archive.
type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

func parseArchive(data []byte) *archive {
	a := new(archive)
	var cur *archiveFile
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if name, ok := fileMarker(line); ok {
			a.files = append(a.files, archiveFile{name: name})
			cur = &a.files[len(a.files)-1]
		} else if cur == nil {
			a.comment = append(append(a.comment, line...), '\n')
		} else {
			cur.data = append(append(cur.data, line...), '\n')
		}
		data = rest
	}
	return a
}

func fileMarker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}

func formatArchive(a *archive) []byte {
	var b bytes.Buffer
	b.Write(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.Write(f.data)
	}
	return b.Bytes()
}

// writeTree extracts the files of a txtar archive into a new temporary
// directory and returns it. Files named in skip are left out.
func writeTree(t *testing.T, a *archive, skip ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range a.files {
		if slices.Contains(skip, f.name) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if strings.HasSuffix(f.name, "/") { // an empty directory
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tree extracts an archive given as text.
func tree(t *testing.T, text string) string {
	t.Helper()
	return writeTree(t, parseArchive([]byte(text)))
}

func TestContentLanguage(t *testing.T) {
	for _, c := range []struct {
		path, src, want string
	}{
		{"fmt/base.h", "#pragma once\ntemplate <typename T> class buffer {};\n", LangCPP},
		{"fmt/ns.h", "namespace fmt {\nint f();\n}\n", LangCPP},
		{"fmt/cls.h", "class Widget : public Base {\n public:\n};\n", LangCPP},
		{"uv.h", "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint uv_run(uv_loop_t* loop);\n", LangC},
		{"uv.h", "/* a class of errors */\nstruct uv_err { int code; };\n", LangC},
		{"main.c", "template <typename T> class X {};\n", LangC}, // only headers are judged by content
		{"bin/deploy", "#!/bin/bash\nset -e\n", LangBash},
		{"bin/run", "#!/bin/sh\nexec foo\n", LangBash},
		{"scripts/release", "#!/usr/bin/env bash\n", LangBash},
		{"tools/gen", "#!/usr/bin/env python3.11\nimport sys\n", LangPython},
		{"tools/py", "#! /usr/bin/python3 -u\n", LangPython},
		{"cli", "#!/usr/bin/env -S node --no-warnings\n", LangJavaScript},
		{"cli2", "#!/usr/bin/env NODE_ENV=production node\n", LangJavaScript},
		{"exe/rake", "#!/usr/bin/env ruby\n", LangRuby},
		{"tool.pl", "#!/usr/bin/perl\n", LangText}, // no Perl grammar: stays text
		{"notes", "#!not a path\n", LangText},
		{"README", "#! is how a script starts\n", LangText},
		{"empty", "#!", LangText},
		{"deploy.py", "#!/bin/bash\n", LangPython}, // the name decides when it names a language
		{"hook-functions", "# -*- shell-script -*-\nfoo() { :; }\n", LangBash},
		{"vector", "// <vector> -*- C++ -*-\n", LangCPP},
		{"lib/tool", "# -*- mode: python; coding: utf-8 -*-\n", LangPython},
		{"notes.txt", "-*- Text -*-\n", LangText},
		{"half", "# -*- sh\n", LangText},
		{"tool2", "#!/usr/bin/perl\n# -*- sh -*-\n", LangText}, // a shebang decides alone
	} {
		if got := ContentLanguage(c.path, Language(c.path), []byte(c.src)); got != c.want {
			t.Errorf("ContentLanguage(%s, %q) = %s, want %s", c.path, c.src, got, c.want)
		}
	}
}
