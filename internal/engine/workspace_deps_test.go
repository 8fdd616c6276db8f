package engine_test

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

const wsApp = `
-- go.mod --
module example.com/app
-- main.go --
package main

import (
	"fmt"

	"example.com/api/limit"
)

func main() { fmt.Println(new(limit.Bucket).Take()) }
-- tools/report.py --
from mylib.util import total

print(total([1, 2]))
-- web/page.js --
import { renderTemplate } from "web-ui/src/render";

export const page = renderTemplate("{{x}}", { x: 1 });
`

const wsPyLib = `
-- pyproject.toml --
[project]
name = "mylib"
-- src/mylib/__init__.py --
-- src/mylib/util.py --
def total(xs):
    """Sum of a list."""
    return sum(xs)
`

// TestDepsAcross: imports that name another member's Go module, npm
// package or Python package resolve into it, and that member's file lists
// the importer from the first.
func TestDepsAcross(t *testing.T) {
	cfg := testConfig(t)
	roots := map[string]string{"app": writeTxtar(t, wsApp), "api": writeTxtar(t, wsAPI), "web": writeTxtar(t, wsWeb), "mylib": writeTxtar(t, wsPyLib)}
	var ms []engine.Member
	for _, name := range []string{"app", "api", "web", "mylib"} {
		e := open(t, cfg, roots[name], nil)
		index(t, e, engine.IndexOptions{})
		ms = append(ms, engine.Member{Name: name, Engine: e})
	}
	for _, tc := range []struct {
		file, spec, repo, target string
	}{
		{"main.go", "example.com/api/limit", "api", "limit"},
		{"web/page.js", "web-ui/src/render", "web", "src/render.js"},
		{"tools/report.py", "mylib.util", "mylib", "src/mylib/util.py"},
	} {
		d, err := engine.DepsAcross(t.Context(), ms, "app", tc.file)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, im := range d.Imports {
			if im.Spec == tc.spec {
				found = true
				if im.TargetRepo != tc.repo || im.Target != tc.target {
					t.Errorf("%s: import %s resolves to %s:%s, want %s:%s", tc.file, tc.spec, im.TargetRepo, im.Target, tc.repo, tc.target)
				}
			}
			if im.Spec == "fmt" && im.TargetRepo != "" {
				t.Errorf("fmt resolved into %s", im.TargetRepo)
			}
		}
		if !found {
			t.Errorf("%s: no import %s in %+v", tc.file, tc.spec, d.Imports)
		}
	}

	for _, tc := range []struct {
		repo, file, importer string
	}{
		{"api", "limit/bucket.go", "main.go"},
		{"mylib", "src/mylib/util.py", "tools/report.py"},
		{"web", "src/render.js", "web/page.js"},
	} {
		d, err := engine.DepsAcross(t.Context(), ms, tc.repo, tc.file)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, in := range d.Importers {
			if in.Repo == "app" && in.Path == tc.importer {
				found = true
			}
		}
		if !found {
			t.Errorf("%s:%s: importers %+v, want app:%s", tc.repo, tc.file, d.Importers, tc.importer)
		}
	}
	if _, err := engine.DepsAcross(t.Context(), ms, "nope", "main.go"); err == nil {
		t.Error("a repo outside the workspace: no error")
	}
}
