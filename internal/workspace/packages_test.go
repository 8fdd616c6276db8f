package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/workspace"
)

// writeTree extracts a txtar archive into a new directory; a file named
// DIR/.keep only makes DIR.
func writeTree(t *testing.T, archive string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) == ".keep" {
			continue
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestPackages(t *testing.T) {
	tests := []struct {
		name    string
		tree    string
		want    []workspace.Package
		wantErr string
	}{
		{name: "go module", tree: `
-- go.mod --
// The API.
module "example.com/api" // trailing

go 1.24
-- internal/x.go --
package x
`, want: []workspace.Package{{Kind: "go", Name: "example.com/api"}}},
		{name: "go work", tree: `
-- go.work --
go 1.24

use (
	./svc // the service
	tools
	../outside
)
use ./lib
-- svc/go.mod --
module example.com/svc
-- tools/go.mod --
module example.com/tools
-- lib/go.mod --
module example.com/lib
`, want: []workspace.Package{
			{Kind: "go", Name: "example.com/lib", Dir: "lib"},
			{Kind: "go", Name: "example.com/svc", Dir: "svc"},
			{Kind: "go", Name: "example.com/tools", Dir: "tools"},
		}},
		{name: "npm workspaces", tree: `
-- package.json --
{"name": "monorepo", "private": true, "workspaces": ["packages/*", "apps/**", "!packages/skip"]}
-- packages/ui/package.json --
{"name": "@acme/ui"}
-- packages/skip/package.json --
{"name": "@acme/skip"}
-- packages/noname/package.json --
{"private": true}
-- packages/node_modules/dep/package.json --
{"name": "dep"}
-- apps/web/package.json --
{"name": "web"}
-- apps/group/admin/package.json --
{"name": "admin"}
-- apps/group/admin/deep/x/package.json --
{"name": "too-deep"}
`, want: []workspace.Package{
			{Kind: "npm", Name: "@acme/ui", Dir: "packages/ui"},
			{Kind: "npm", Name: "admin", Dir: "apps/group/admin"},
			{Kind: "npm", Name: "monorepo"},
			{Kind: "npm", Name: "web", Dir: "apps/web"},
		}},
		{name: "npm workspaces object and pnpm", tree: `
-- package.json --
{"name": "root", "workspaces": {"packages": ["libs/*"]}}
-- pnpm-workspace.yaml --
# pnpm
packages:
  - 'tools/*' # tools
  - "extra"
catalog:
  - nope
-- libs/a/package.json --
{"name": "a"}
-- tools/b/package.json --
{"name": "b"}
-- extra/package.json --
{"name": "extra"}
-- nope/package.json --
{"name": "nope"}
`, want: []workspace.Package{
			{Kind: "npm", Name: "a", Dir: "libs/a"},
			{Kind: "npm", Name: "b", Dir: "tools/b"},
			{Kind: "npm", Name: "extra", Dir: "extra"},
			{Kind: "npm", Name: "root"},
		}},
		{name: "pyproject src layout", tree: `
-- pyproject.toml --
[project]
name = "My.Shared-Lib"
version = "1.0"
-- src/my_shared_lib/__init__.py --
-- src/my_shared_lib/core.py --
-- src/helpers/__init__.py --
-- tests/test_core.py --
-- src/not-ident/__init__.py --
`, want: []workspace.Package{
			{Kind: "python", Name: "helpers", Dir: "src/helpers"},
			{Kind: "python", Name: "my_shared_lib", Dir: "src/my_shared_lib"},
		}},
		{name: "poetry flat layout", tree: `
-- pyproject.toml --
[tool.poetry]
name = "acme-client"
-- acme_client/__init__.py --
`, want: []workspace.Package{{Kind: "python", Name: "acme_client", Dir: "acme_client"}}},
		{name: "setup.py only", tree: `
-- setup.py --
from setuptools import setup
setup(name="legacy")
-- legacy/__init__.py --
-- legacy/util.py --
-- docs/conf.py --
-- .venv/lib/__init__.py --
`, want: []workspace.Package{{Kind: "python", Name: "legacy", Dir: "legacy"}}},
		{name: "mixed", tree: `
-- go.mod --
module example.com/mixed
-- package.json --
{"name": "mixed-ui"}
-- pyproject.toml --
[project]
name = "mixed"
`, want: []workspace.Package{
			{Kind: "go", Name: "example.com/mixed"},
			{Kind: "npm", Name: "mixed-ui"},
			{Kind: "python", Name: "mixed"},
		}},
		{name: "empty", tree: `
-- README.md --
hi
`},
		{name: "malformed pyproject", tree: `
-- go.mod --
module example.com/ok
-- pyproject.toml --
[project]
name = "x
`, want: []workspace.Package{{Kind: "go", Name: "example.com/ok"}}, wantErr: "pyproject.toml:2:"},
		{name: "malformed package.json", tree: `
-- package.json --
{"name": 
`, wantErr: "package.json: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, tt.tree)
			got, err := workspace.Packages(root)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Packages: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Packages error %v, want one containing %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Packages (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPackagesRootInit: a root that is itself a package is named by its
// base name.
func TestPackagesRootInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mypkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := workspace.Packages(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]workspace.Package{{Kind: "python", Name: "mypkg"}}, got); diff != "" {
		t.Errorf("Packages (-want +got):\n%s", diff)
	}
}
