package mine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mkfiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGoModuleRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"cache/download/github.com/x/y/@v/v1.0.0.zip":   "",
		"github.com/!burnt!sushi/toml@v1.2.0/toml.go":   "package toml",
		"github.com/!burnt!sushi/toml@v1.10.0/toml.go":  "package toml",
		"github.com/google/uuid@v1.6.0/uuid.go":         "package uuid",
		"github.com/google/uuid@v1.6.0-rc1/uuid.go":     "package uuid",
		"golang.org/x/tools@v0.52.0/go.mod":             "module golang.org/x/tools",
		"golang.org/x/tools/gopls@v0.20.0/go.mod":       "module golang.org/x/tools/gopls",
		"github.com/bmatcuk/doublestar/v4@v4.10.4/a.go": "package doublestar",
	})
	roots, err := GoModuleRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	type r struct{ ID, Group, Version string }
	var got []r
	for _, x := range roots {
		got = append(got, r{x.ID, x.Group, x.Version})
		if x.Kind != KindGoModule {
			t.Errorf("%s: kind %q", x.ID, x.Kind)
		}
	}
	want := []r{
		{"github.com/BurntSushi/toml@v1.10.0", "github.com/BurntSushi/toml", "v1.10.0"},
		{"github.com/bmatcuk/doublestar/v4@v4.10.4", "github.com/bmatcuk/doublestar", "v4.10.4"},
		{"github.com/google/uuid@v1.6.0", "github.com/google/uuid", "v1.6.0"},
		{"golang.org/x/tools/gopls@v0.20.0", "golang.org/x/tools/gopls", "v0.20.0"},
		{"golang.org/x/tools@v0.52.0", "golang.org/x/tools", "v0.52.0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

func TestSemverLess(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{
		{"v1.2.0", "v1.10.0"}, {"v1.6.0-rc1", "v1.6.0"}, {"v0.0.0-20240101000000-abc", "v0.1.0"}, {"v1.9.9", "v2.0.0+incompatible"},
	} {
		if !semverLess(c[0], c[1]) || semverLess(c[1], c[0]) {
			t.Errorf("semverLess(%s, %s) wrong", c[0], c[1])
		}
	}
}

func TestGoStdRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"VERSION": "go1.26.8\ntime 2026\n", "LICENSE": "Redistribution and use in source and binary forms\nNeither the name of Google",
		"src/net/net.go": "package net", "src/vendor/x/y.go": "package y", "src/testdata/a.go": "package a", "src/cmd/go/main.go": "package main",
	})
	roots, err := GoStdRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range roots {
		ids = append(ids, r.ID)
		if r.Version != "go1.26.8" || detectLicence(r) != "BSD-3-Clause" {
			t.Errorf("%s: version %q licence %q", r.ID, r.Version, detectLicence(r))
		}
	}
	if diff := cmp.Diff([]string{"go/std/cmd", "go/std/net"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestPythonRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"dist/yaml/__init__.py": "", "dist/_pytest/main.py": "", "dist/PyYAML-6.0.dist-info/METADATA": "",
		"dist/__pycache__/x.pyc": "", "dist/data_only/x.txt": "", "dist/six.py": "",
		"status": "Package: python3-yaml\nStatus: install ok installed\nVersion: 6.0-3+b2\n\nPackage: other\nVersion: 1\n",
	})
	roots, err := PythonRoots(filepath.Join(dir, "dist"), filepath.Join(dir, "status"))
	if err != nil {
		t.Fatal(err)
	}
	type r struct{ ID, Package, Version string }
	var got []r
	for _, x := range roots {
		got = append(got, r{x.ID, x.Package, x.Version})
	}
	want := []r{{"debian/python3/_pytest", "", ""}, {"debian/python3/yaml", "python3-yaml", "6.0-3+b2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if _, ex := DefaultExclusions().Check(roots[0]); !ex {
		t.Errorf("_pytest not excluded")
	}
}

func TestNodeModulesRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"semver/package.json":       `{"version": "7.6.0", "repository": {"type": "git", "url": "https://github.com/npm/node-semver.git"}}`,
		"@trpc/server/package.json": `{"version": "10.0.0", "repository": "github:trpc/trpc"}`,
		"axios/package.json":        `{"version": "1.7.0", "repository": {"url": "git+https://github.com/axios/axios.git"}}`,
		".bin/x":                    "",
	})
	roots, err := NodeModulesRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	type r struct {
		ID, Version, Repo string
		Excluded          bool
	}
	var got []r
	for _, x := range roots {
		_, ex := DefaultExclusions().Check(x)
		got = append(got, r{x.ID, x.Version, x.Repo, ex})
	}
	want := []r{
		{"npm/@trpc/server", "10.0.0", "github:trpc/trpc", true},
		{"npm/axios", "1.7.0", "git+https://github.com/axios/axios.git", true},
		{"npm/semver", "7.6.0", "https://github.com/npm/node-semver.git", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

func TestClassifyLicence(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"MIT License\n\nCopyright (c) 2020":                                                                        "MIT",
		"Permission is hereby granted, free of charge, to any person":                                              "MIT",
		"                                 Apache License\n                           Version 2.0, January 2004":    "Apache-2.0",
		"Redistribution and use in source and binary forms, with or without\nmodification":                         "BSD-2-Clause",
		"Redistribution and use in source and binary forms\n* Neither the name of Google Inc.":                     "BSD-3-Clause",
		"GNU GENERAL PUBLIC LICENSE\nVersion 2":                                                                    "GPL",
		"GNU LESSER GENERAL PUBLIC LICENSE":                                                                        "LGPL",
		"Mozilla Public License Version 2.0":                                                                       "MPL",
		"ISC License\n\nPermission to use, copy, modify, and/or distribute":                                        "ISC",
		"PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2":                                                             "Python-2.0",
		"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nLicense: Expat\n": "MIT",
		"Some custom terms": "unknown",
	}
	for text, want := range tests {
		if got := classifyLicence(text); got != want {
			t.Errorf("classifyLicence(%q) = %q, want %q", text, got, want)
		}
	}
}
