package mine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// debFixture lays out a fake dpkg database (status, info/*.list, doc/*/copyright)
// and the files the packages own below root.
func debFixture(t *testing.T) (root, info, doc, status string) {
	t.Helper()
	root = t.TempDir()
	info, doc, status = filepath.Join(root, "info"), filepath.Join(root, "doc"), filepath.Join(root, "status")
	reg := filepath.Join(root, "cargo", "registry")
	vr := filepath.Join(root, "vendor_ruby")
	files := map[string]string{
		"cargo/registry/regex-1.7.1/Cargo.toml":        "[package]\nname = \"regex\"\nrepository = \"https://github.com/rust-lang/regex\"\n",
		"cargo/registry/regex-1.7.1/src/lib.rs":        "/// Compiles a regular expression.\npub fn compile() {}\n",
		"cargo/registry/regex-1.7.1/src/re/mod.rs":     "pub mod x;\n",
		"cargo/registry/serde_derive-1.0.1/Cargo.toml": "[package]\nrepository = \"https://github.com/serde-rs/serde\"\n",
		"cargo/registry/serde_derive-1.0.1/src/lib.rs": "pub fn derive() {}\n",
		"vendor_ruby/thor.rb":                          "class Thor; end\n",
		"vendor_ruby/thor/actions.rb":                  "class Thor; module Actions; end; end\n",
		"vendor_ruby/active_support.rb":                "module ActiveSupport; end\n",
		"vendor_ruby/rack/test.rb":                     "module Rack; module Test; end; end\n",
		"vendor_ruby/rack-test.rb":                     "require 'rack/test'\n",
		"doc/librust-regex-dev/copyright":              "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: regex\nSource: https://github.com/rust-lang/regex\n\nFiles: *\nLicense: MIT or Apache-2.0\n",
		"doc/ruby-activesupport/copyright":             "Format: x\nSource:\n https://github.com/rails/rails\n\nFiles: *\nLicense: Expat\n",
		"doc/ruby-thor/copyright":                      "Format: x\nSource: https://github.com/rails/thor\n\nFiles: *\nLicense: Expat\n",
		"doc/librust-serde-derive-dev/copyright":       "Format: x\nSource: https://crates.io/crates/serde_derive\n\nFiles: *\nLicense: MIT\n",
		"status": "Package: librust-regex-dev\nVersion: 1.7.1-1\n\nPackage: librust-serde-derive-dev\nVersion: 1.0.1-1\n\n" +
			"Package: ruby-thor\nVersion: 1.2.1-1\n\nPackage: ruby-activesupport\nVersion: 2:6.1.7\n\nPackage: ruby-rack-test\nVersion: 2.0\n\n" +
			"Package: libfoo-bin\nVersion: 1\n\nPackage: ruby-nothing\nVersion: 1\n",
	}
	mkfiles(t, root, files)
	list := func(paths ...string) string { return "/.\n" + strings.Join(paths, "\n") + "\n" }
	mkfiles(t, info, map[string]string{
		"librust-regex-dev:amd64.list":  list(reg, reg+"/regex-1.7.1", reg+"/regex-1.7.1/Cargo.toml", reg+"/regex-1.7.1/src/lib.rs", reg+"/regex-1.7.1/src/re/mod.rs"),
		"librust-serde-derive-dev.list": list(reg+"/serde_derive-1.0.1/Cargo.toml", reg+"/serde_derive-1.0.1/src/lib.rs"),
		"ruby-thor.list":                list(vr, vr+"/thor.rb", vr+"/thor", vr+"/thor/actions.rb", "/usr/share/doc/ruby-thor/examples/x.rb"),
		"ruby-activesupport.list":       list(vr + "/active_support.rb"),
		"ruby-rack-test.list":           list(vr+"/rack/test.rb", vr+"/rack-test.rb"),
		"libfoo-bin.list":               list("/usr/bin/foo"),
		"ruby-nothing.list":             list("/usr/share/doc/ruby-nothing/README"),
	})
	return root, info, doc, status
}

func TestDebianPackageRoots(t *testing.T) {
	t.Parallel()
	root, info, doc, status := debFixture(t)
	roots, err := DebianPackageRoots(info, doc, status, []string{"librust-*-dev", "ruby-*", "libfoo-*"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	type r struct {
		ID, Dir, Version, Licence string
		Files                     []string
		Excluded                  string
	}
	var got []r
	for _, x := range roots {
		why, _ := DefaultExclusions().Check(x)
		got = append(got, r{x.ID, strings.TrimPrefix(x.Dir, root), x.Version, detectLicence(x), x.Files, why})
		if x.Kind != KindDebian {
			t.Errorf("%s: kind %q", x.ID, x.Kind)
		}
	}
	want := []r{
		{"debian/librust-regex-dev", "/cargo/registry/regex-1.7.1/src", "1.7.1-1", "MIT", []string{"lib.rs", "re/mod.rs"}, ""},
		{"debian/librust-serde-derive-dev", "/cargo/registry/serde_derive-1.0.1/src", "1.0.1-1", "MIT", []string{"lib.rs"},
			"benchmark repository github.com/serde-rs/serde"},
		{"debian/ruby-activesupport", "/vendor_ruby", "2:6.1.7", "MIT", []string{"active_support.rb"}, "benchmark repository github.com/rails/rails"},
		{"debian/ruby-rack-test", "/vendor_ruby", "2.0", "unknown", []string{"rack/test.rb", "rack-test.rb"}, ""},
		{"debian/ruby-thor", "/vendor_ruby", "1.2.1-1", "MIT", []string{"thor.rb", "thor/actions.rb"}, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}

	// The rack/ directory of rack-test is named like the excluded ruby-rack:
	// its files are skipped when mined, the rest of the package is not.
	out := t.TempDir()
	rt := roots[slices.IndexFunc(roots, func(x Root) bool { return x.ID == "debian/ruby-rack-test" })]
	m, err := Mine(t.Context(), Options{Roots: []Root{rt}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m.SkippedFiles["excluded-dir"] != 1 || m.Sources[0].Files != 1 {
		t.Errorf("rack-test: skipped %v, files %d; want 1 excluded-dir and 1 file", m.SkippedFiles, m.Sources[0].Files)
	}

	// "!" takes packages out again; the last matching pattern decides.
	roots, err = DebianPackageRoots(info, doc, status, []string{"*", "!ruby-*", "ruby-thor"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range roots {
		ids = append(ids, x.ID)
	}
	if diff := cmp.Diff([]string{"debian/librust-regex-dev", "debian/librust-serde-derive-dev", "debian/ruby-thor"}, ids); diff != "" {
		t.Errorf("negated patterns (-want +got):\n%s", diff)
	}

	if _, err := DebianPackageRoots(info, doc, status, []string{"["}, 0); err == nil {
		t.Error("bad pattern: no error")
	}
}

func TestDebianSourceRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"elixir-1.14.0.dfsg/debian/control":                "Source: elixir\nSection: interpreters\n\nPackage: elixir\nArchitecture: any\n",
		"elixir-1.14.0.dfsg/debian/changelog":              "elixir (1.14.0.dfsg-2) unstable; urgency=medium\n\n  * x\n",
		"elixir-1.14.0.dfsg/debian/copyright":              "Format: x\nSource: https://github.com/elixir-lang/elixir/tags\n\nFiles: *\nLicense: Apache-2.0\n",
		"elixir-1.14.0.dfsg/debian/rules":                  "#!/usr/bin/make -f\n",
		"elixir-1.14.0.dfsg/lib/elixir/lib/enum.ex":        "defmodule Enum do\nend\n",
		"elixir-1.14.0.dfsg/lib/mix/lib/mix.ex":            "defmodule Mix do\nend\n",
		"elixir-1.14.0.dfsg/lib/mix/lib/mix/tasks/x.ex":    "defmodule Mix.Tasks.X do\nend\n",
		"elixir-1.14.0.dfsg/lib/elixir/third_party/a/b.ex": "defmodule B do\nend\n",
		"elixir-1.14.0.dfsg/.pc/patch/lib/elixir/lib/a.ex": "defmodule A do\nend\n",
		"elixir-1.14.0.dfsg/lib/elixir/pages/intro.md":     "# Intro\n",
		"plugsrc-1.0/debian/control":                       "Source: plugsrc\n\nPackage: elixir-plug\n",
		"plugsrc-1.0/lib/plug.ex":                          "defmodule Plug do\nend\n",
		"fmtsrc-9/debian/control":                          "Source: fmtsrc\n\nPackage: libfmtsrc-dev\n",
		"fmtsrc-9/debian/upstream/metadata":                "Repository: https://github.com/fmtlib/fmt.git\n",
		"fmtsrc-9/src/format.cc":                           "int f() { return 1; }\n",
		"notasource/lib/x.ex":                              "defmodule X do\nend\n",
	})
	roots, err := DebianSourceRoots(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	type r struct {
		ID, Dir, Version, Licence string
		Files                     []string
		Excluded                  string
	}
	var got []r
	for _, x := range roots {
		why, _ := DefaultExclusions().Check(x)
		got = append(got, r{x.ID, strings.TrimPrefix(x.Dir, dir), x.Version, detectLicence(x), x.Files, why})
	}
	want := []r{
		{"debian-src/elixir/lib/elixir", "/elixir-1.14.0.dfsg/lib/elixir", "1.14.0.dfsg-2", "Apache-2.0", []string{"lib/enum.ex"}, ""},
		{"debian-src/elixir/lib/mix", "/elixir-1.14.0.dfsg/lib/mix", "1.14.0.dfsg-2", "Apache-2.0", []string{"lib/mix/tasks/x.ex", "lib/mix.ex"}, ""},
		{"debian-src/fmtsrc", "/fmtsrc-9", "", "unknown", []string{"src/format.cc"}, "benchmark repository github.com/fmtlib/fmt"},
		{"debian-src/plugsrc", "/plugsrc-1.0", "", "unknown", []string{"lib/plug.ex"}, "benchmark Debian package elixir-plug"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

func TestTreeRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"doc/openjdk-17-source/copyright": "Format: x\n\nFiles: *\nLicense: GPL-2 with Classpath exception\n",
		"status":                          "Package: openjdk-17-source\nVersion: 17.0.21+2-1\n",
		"src/java.sql/java/sql/Date.java": "package java.sql;\n",
	}
	for i := range 3 {
		files[fmt.Sprintf("src/java.base/java/util/A%d.java", i)] = "package java.util;\n"
		files[fmt.Sprintf("src/java.base/java/util/concurrent/B%d.java", i)] = "package java.util.concurrent;\n"
	}
	mkfiles(t, dir, files)
	roots, err := TreeRoots("openjdk-17-source", filepath.Join(dir, "src"), filepath.Join(dir, "doc"), filepath.Join(dir, "status"), 3)
	if err != nil {
		t.Fatal(err)
	}
	type r struct {
		ID, Version, Licence string
		Files                []string
	}
	var got []r
	for _, x := range roots {
		got = append(got, r{x.ID, x.Version, detectLicence(x), x.Files})
	}
	want := []r{
		{"debian/openjdk-17-source/java.base/java/util", "17.0.21+2-1", "GPL", []string{"A0.java", "A1.java", "A2.java"}},
		{"debian/openjdk-17-source/java.base/java/util/concurrent", "17.0.21+2-1", "GPL", []string{"B0.java", "B1.java", "B2.java"}},
		{"debian/openjdk-17-source/java.sql", "17.0.21+2-1", "GPL", []string{"java/sql/Date.java"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

func TestDirRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"LICENSE.txt":               "MIT License\n\nCopyright (c) the authors\n",
		"src/Io/Path.cs":            "namespace Io { class Path {} }\n",
		"src/Io/File.cs":            "namespace Io { class File {} }\n",
		"src/Net/Http.cs":           "namespace Net { class Http {} }\n",
		"src/Net/Dns.cs":            "namespace Net { class Dns {} }\n",
		"src/Net/external/Vend.cs":  "class Vend {}\n",
		"README.md":                 "# not code\n",
		".git/hooks/pre-commit.sh":  "exit 0\n",
		"src/Text/Encoding/Utf8.cs": "namespace Text { class Utf8 {} }\n",
	}
	mkfiles(t, dir, files)
	roots, err := DirRoots("mono", dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	type r struct {
		ID, Kind, Licence string
		Files             []string
	}
	var got []r
	for _, x := range roots {
		got = append(got, r{x.ID, x.Kind, detectLicence(x), x.Files})
	}
	want := []r{
		{"mono/src/Io", KindDir, "MIT", []string{"File.cs", "Path.cs"}},
		{"mono/src/Net", KindDir, "MIT", []string{"Dns.cs", "Http.cs"}},
		{"mono/src/Text", KindDir, "MIT", []string{"Encoding/Utf8.cs"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if roots, err := DirRoots("empty", t.TempDir(), 2); err != nil || roots != nil {
		t.Errorf("an empty tree: %v, %v; want no roots", roots, err)
	}
}

func TestSplitRoot(t *testing.T) {
	t.Parallel()
	r := Root{ID: "p", Dir: "/d", Kind: KindDebian, Package: "p",
		Files: []string{"a.rb", "net/http.rb", "net/smtp.rb", "net/http/get.rb", "only/deep/x.rb", "only/deep/y.rb"}}
	type s struct {
		ID, Dir string
		Files   []string
	}
	var got []s
	for _, x := range splitRoot(r, 2) {
		got = append(got, s{x.ID, filepath.ToSlash(x.Dir), x.Files})
		if x.Package != "p" || x.Kind != KindDebian {
			t.Errorf("%s lost its package or kind: %+v", x.ID, x)
		}
	}
	want := []s{
		{"p", "/d", []string{"a.rb"}},
		{"p/net", "/d/net", []string{"http.rb", "smtp.rb"}},
		{"p/net/http", "/d/net/http", []string{"get.rb"}},
		{"p/only", "/d/only", []string{"deep/x.rb", "deep/y.rb"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("split (-want +got):\n%s", diff)
	}
	if n := len(splitRoot(r, 0)); n != 1 {
		t.Errorf("default split of 6 files gave %d roots", n)
	}
}

func TestCopyrightSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfiles(t, dir, map[string]string{
		"a": "Format: x\nUpstream-Name: y\nSource: https://github.com/o/n\n https://example.org/y (mirror)\nComment: see https://not.this\n\nFiles: *\nSource: https://nor.this\n",
		"b": "This is not machine-readable.\nSource: https://github.com/x/y\n",
	})
	if diff := cmp.Diff([]string{"https://github.com/o/n", "https://example.org/y"}, copyrightSource(filepath.Join(dir, "a"))); diff != "" {
		t.Errorf("a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://github.com/x/y"}, copyrightSource(filepath.Join(dir, "b"))); diff != "" {
		t.Errorf("b (-want +got):\n%s", diff)
	}
	if got := copyrightSource(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("missing file: %q", got)
	}
}

func TestExclusionsPath(t *testing.T) {
	t.Parallel()
	e := DefaultExclusions()
	for p, want := range map[string]bool{
		"third_party/fmt/format.h":     true,
		"vendor/serde-1.0.1/lib.rs":    true,
		"lib/rack/utils.rb":            true,
		"src/fmt.rs":                   false, // a file, not a directory
		"lib/rackup/server.rb":         false,
		"java.base/java/util/Map.java": false,
	} {
		if _, got := e.Path(p); got != want {
			t.Errorf("Path(%q) = %v, want %v", p, got, want)
		}
	}
}
