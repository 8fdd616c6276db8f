package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestImports(t *testing.T) {
	for _, tc := range []struct {
		lang, src string
		want      []Import
	}{
		{discover.LangGo, "package p\n\nimport \"fmt\"\n\nimport (\n\tstr \"strings\"\n\t_ \"embed\"\n\t\"example.com/m/sub\" // comment\n)\n\nfunc F() { import_ := 1; _ = import_ }\n",
			[]Import{{"fmt", 3}, {"strings", 6}, {"embed", 7}, {"example.com/m/sub", 8}}},
		{discover.LangGo, "package p\nimport \"os\"\nfunc (\n", []Import{{"os", 2}}}, // broken file: what was read
		{discover.LangPython, `"""Docs.

import nothing
"""
import os, sys as system
from . import sibling
from ..pkg.mod import (a,
    b)
import pkg.sub.leaf as leaf
    from .inner import x
x = "import notreal"
`, []Import{{"os", 5}, {"sys", 5}, {".", 6}, {"..pkg.mod", 7}, {"pkg.sub.leaf", 9}, {".inner", 10}}},
		{discover.LangTypeScript, `import React from "react";
import { a, b } from './util';
import {
  c,
} from "../lib/c.js";
export * from './re';
import './side-effect.css';
const x = require('./cjs');
// import nope from './commented';
const lazy = await import("./lazy");
`, []Import{{"react", 1}, {"./util", 2}, {"../lib/c.js", 5}, {"./re", 6}, {"./side-effect.css", 7}, {"./cjs", 8}, {"./lazy", 10}}},
		{discover.LangSwift, "import Foundation", nil},
	} {
		if d := cmp.Diff(tc.want, Imports(tc.lang, []byte(tc.src))); d != "" {
			t.Errorf("Imports(%s) (-want +got):\n%s", tc.lang, d)
		}
	}
}

func TestResolve(t *testing.T) {
	files := []string{
		"go.mod", "main.go", "internal/db/db.go", "vendor/golang.org/x/text/width/width.go",
		"tools/go.mod", "tools/gen/gen.go",
		"py/app/__init__.py", "py/app/views.py", "py/app/models/__init__.py", "py/app/models/user.py", "py/setup.py",
		"src/lib/__init__.py", "src/lib/core.py",
		"web/src/index.ts", "web/src/util.ts", "web/src/comp/index.tsx", "web/src/legacy.js",
	}
	r := NewResolver(files, map[string]string{"": "example.com/app", "tools": "example.com/app/tools"})
	for _, tc := range []struct {
		from, lang, spec string
		want             Resolution
	}{
		{"main.go", "go", "example.com/app/internal/db", Resolution{"internal/db", true}},
		{"main.go", "go", "example.com/app", Resolution{".", true}},
		{"main.go", "go", "example.com/app/missing", Resolution{"", true}},
		{"main.go", "go", "golang.org/x/text/width", Resolution{"vendor/golang.org/x/text/width", true}},
		{"main.go", "go", "example.com/app/tools/gen", Resolution{"tools/gen", true}}, // the nested module
		{"tools/gen/gen.go", "go", "example.com/app/internal/db", Resolution{"internal/db", true}},
		{"main.go", "go", "fmt", Resolution{}},
		{"main.go", "go", "github.com/other/lib", Resolution{}},

		{"py/app/views.py", "python", ".models", Resolution{"py/app/models/__init__.py", true}},
		{"py/app/views.py", "python", ".models.user", Resolution{"py/app/models/user.py", true}},
		{"py/app/models/user.py", "python", "..views", Resolution{"py/app/views.py", true}},
		{"py/app/views.py", "python", ".", Resolution{"py/app/__init__.py", true}},
		{"py/setup.py", "python", "app.models.user", Resolution{"py/app/models/user.py", true}},
		{"py/app/views.py", "python", "lib.core", Resolution{"src/lib/core.py", true}},
		{"py/app/views.py", "python", "app.missing", Resolution{"", true}},
		{"py/app/views.py", "python", "os.path", Resolution{}},

		{"web/src/index.ts", "typescript", "./util", Resolution{"web/src/util.ts", true}},
		{"web/src/index.ts", "typescript", "./util.js", Resolution{"web/src/util.ts", true}},
		{"web/src/index.ts", "typescript", "./comp", Resolution{"web/src/comp/index.tsx", true}},
		{"web/src/comp/index.tsx", "tsx", "../legacy", Resolution{"web/src/legacy.js", true}},
		{"web/src/index.ts", "typescript", "./gone", Resolution{"", true}},
		{"web/src/index.ts", "typescript", "react", Resolution{}},
		{"web/src/index.ts", "typescript", "../../../outside", Resolution{"", true}},
	} {
		if got := r.Resolve(tc.from, tc.lang, tc.spec); got != tc.want {
			t.Errorf("Resolve(%s, %q) = %+v, want %+v", tc.from, tc.spec, got, tc.want)
		}
	}
}

// TestResolveGoSourceTree: the Go source tree's modules are named std
// and cmd, and import paths are directories below them.
func TestResolveGoSourceTree(t *testing.T) {
	files := []string{"go.mod", "net/http/server.go", "vendor/golang.org/x/net/http2/hpack/hpack.go", "cmd/go.mod",
		"cmd/go/main.go", "cmd/internal/obj/link.go", "cmd/vendor/golang.org/x/mod/module/module.go"}
	r := NewResolver(files, map[string]string{"": "std", "cmd": "cmd"})
	for _, tc := range []struct {
		from, spec string
		want       Resolution
	}{
		{"net/http/server.go", "golang.org/x/net/http2/hpack", Resolution{"vendor/golang.org/x/net/http2/hpack", true}},
		{"cmd/go/main.go", "cmd/internal/obj", Resolution{"cmd/internal/obj", true}},
		{"cmd/go/main.go", "net/http", Resolution{"net/http", true}},
		{"cmd/go/main.go", "golang.org/x/mod/module", Resolution{"cmd/vendor/golang.org/x/mod/module", true}},
		{"net/http/server.go", "unicode/utf8", Resolution{"", true}}, // std, but not in this file list
	} {
		if got := r.Resolve(tc.from, "go", tc.spec); got != tc.want {
			t.Errorf("Resolve(%s, %q) = %+v, want %+v", tc.from, tc.spec, got, tc.want)
		}
	}
}

// resolveCase is one Resolve call and the resolution it must give.
type resolveCase struct {
	name, from, spec string
	want             Resolution
}

// checkResolve runs each case as a parallel subtest of
// r.Resolve(from, lang, spec).
func checkResolve(t *testing.T, r *Resolver, lang string, cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := r.Resolve(tc.from, lang, tc.spec); got != tc.want {
				t.Errorf("Resolve(%s, %q) = %+v, want %+v", tc.from, tc.spec, got, tc.want)
			}
		})
	}
}
