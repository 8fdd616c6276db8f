// Command notices writes the third-party notices that must travel with a
// ctx binary: the licence, notice and patent files of every module linked
// into it (read from the module cache, so only what the build really
// links), the Go standard library's, the upstream licences of the C
// sources that go-tree-sitter vendors without them (upstream/), and any
// file a release toolchain adds (-extra, e.g. the musl libc that a static
// linux build links).
//
//	go run ./scripts/notices -goos linux -goarch arm64 \
//	    -extra "musl libc (statically linked)=$ZIG_LIB/libc/musl/COPYRIGHT" \
//	    -out dist/THIRD_PARTY_NOTICES.txt
//
// It fails when a linked module has no licence file, when its licence is
// not one ctx accepts (MIT, BSD-2-Clause, BSD-3-Clause, ISC, Apache-2.0,
// MPL-2.0, CC-BY-4.0, OFL-1.1, FTL), or when a linked grammar has no directory in upstream/. The
// output is deterministic: no timestamp, modules in path order.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// treeSitter is the module that vendors the tree-sitter runtime and the
// grammars' generated parsers.
const treeSitter = "github.com/smacker/go-tree-sitter"

// accepted are the licences a linked component may carry. MPL-2.0 is
// file-level copyleft: a binary may be distributed under other terms as
// long as the MPL files' source stays available (the notices say where).
// CC-BY-4.0 (an SVG writer the eval report's charts use) asks for
// attribution and the licence's text, which the notices carry. OFL-1.1
// allows fonts to be bundled with software as long as they are not sold
// alone and keep the licence (the Liberation fonts the charts embed carry
// it in LICENSE-SIL, reproduced beside their Go code's BSD licence). FTL (see chosenLicence) is BSD-like with a credit line in the
// documentation.
var accepted = map[string]bool{
	"MIT": true, "BSD-2-Clause": true, "BSD-3-Clause": true, "ISC": true,
	"Apache-2.0": true, "MPL-2.0": true, "CC-BY-4.0": true, "OFL-1.1": true,
	"FTL": true,
}

// chosenLicence names, for a module that offers a choice of licences,
// the file (relative to the module) of the one ctx takes, reproduced with
// the module's own licence statement. github.com/golang/freetype (linked
// through the chart library of ctx eval's report) is FreeType License or
// GPL-2.0-or-later: ctx takes the FreeType License (FTL), whose credit
// line the notices' header carries.
var chosenLicence = map[string][]string{
	"github.com/golang/freetype": {"licenses/ftl.txt"},
}

// component is one body of third-party code in the binary.
type component struct {
	Name, Version, Licence, Source string
	// Files are the notice files to reproduce, in order.
	Files []noticeFile
}

type noticeFile struct {
	Name, Text string
}

// options select the build whose notices are written.
type options struct {
	Pkg, GOOS, GOARCH, Tags string
	// Upstream is the directory of vendored sources' licences.
	Upstream string
	// Extra are "NAME=FILE" additions from the release toolchain.
	Extra []string
}

type extraFlag []string

func (e *extraFlag) String() string     { return strings.Join(*e, ",") }
func (e *extraFlag) Set(v string) error { *e = append(*e, v); return nil }

func main() {
	log.SetFlags(0)
	var opts options
	var extra extraFlag
	out := flag.String("out", "", "file to write (default: standard output)")
	flag.StringVar(&opts.Pkg, "pkg", "./cmd/ctx", "the main package that is distributed")
	flag.StringVar(&opts.GOOS, "goos", runtime.GOOS, "target GOOS")
	flag.StringVar(&opts.GOARCH, "goarch", runtime.GOARCH, "target GOARCH")
	flag.StringVar(&opts.Tags, "tags", "", "build tags of the release build")
	flag.StringVar(&opts.Upstream, "upstream", "scripts/notices/upstream", "licences of C sources vendored without them")
	flag.Var(&extra, "extra", `"NAME=FILE": a toolchain component linked into the binary and its licence file (repeatable)`)
	flag.Parse()
	opts.Extra = extra
	comps, err := collect(opts)
	if err != nil {
		log.Fatal(err)
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		w = f
	}
	if err := write(w, opts, comps); err != nil {
		log.Fatal(err)
	}
}

// listed is one line of `go list -deps -json`.
type listed struct {
	ImportPath string
	Standard   bool
	Module     *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version, Dir string }
	}
}

// collect lists the packages linked into opts.Pkg for the target and
// gathers every component's notices, checking the licence policy.
func collect(opts options) ([]component, error) {
	args := []string{"list", "-deps", "-json=ImportPath,Standard,Module"}
	if opts.Tags != "" {
		args = append(args, "-tags", opts.Tags)
	}
	cmd := exec.Command("go", append(args, opts.Pkg)...)
	cmd.Env = append(os.Environ(), "GOOS="+opts.GOOS, "GOARCH="+opts.GOARCH, "CGO_ENABLED=1", "GOFLAGS=-mod=readonly")
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v", opts.Pkg, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	type mod struct{ path, version, dir string }
	mods := map[string]mod{}
	grammars := map[string]bool{}
	std := false
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list: %v", err)
		}
		if p.Standard {
			std = true
			continue
		}
		m := p.Module
		if m == nil || m.Main {
			continue
		}
		md := mod{m.Path, m.Version, m.Dir}
		if m.Replace != nil {
			md.version, md.dir = m.Replace.Version, m.Replace.Dir
		}
		mods[m.Path] = md
		if m.Path == treeSitter {
			if rest, ok := strings.CutPrefix(p.ImportPath, treeSitter+"/"); ok {
				// typescript/tsx and typescript/typescript are one grammar.
				grammars[strings.Split(rest, "/")[0]] = true
			}
		}
	}
	var comps []component
	if std {
		goroot := strings.TrimSpace(goEnv("GOROOT"))
		c := component{Name: "Go standard library and runtime", Version: strings.TrimSpace(goEnv("GOVERSION")),
			Source: "https://go.dev/dl/"}
		if err := addFiles(&c, goroot, []string{"LICENSE", "PATENTS"}); err != nil {
			return nil, err
		}
		comps = append(comps, c)
	}
	paths := make([]string, 0, len(mods))
	for p := range mods {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		m := mods[p]
		if m.dir == "" {
			return nil, fmt.Errorf("module %s@%s is not in the module cache (go mod download)", m.path, m.version)
		}
		c := component{Name: m.path, Version: m.version, Source: "https://pkg.go.dev/" + m.path + "@" + m.version}
		if err := addFiles(&c, m.dir, append(noticeNames(m.dir), chosenLicence[m.path]...)); err != nil {
			return nil, err
		}
		comps = append(comps, c)
		if m.path == treeSitter {
			ts, err := treeSitterComponents(opts.Upstream, m.dir, grammars)
			if err != nil {
				return nil, err
			}
			comps = append(comps, ts...)
		}
	}
	for _, e := range opts.Extra {
		name, file, ok := strings.Cut(e, "=")
		if !ok || name == "" || file == "" {
			return nil, fmt.Errorf("-extra %q: want NAME=FILE", e)
		}
		c := component{Name: name, Source: "the release toolchain"}
		if err := addFiles(&c, filepath.Dir(file), []string{filepath.Base(file)}); err != nil {
			return nil, err
		}
		comps = append(comps, c)
	}
	for i := range comps {
		c := &comps[i]
		c.Licence = licenceOf(c.Files)
		for _, l := range strings.Split(c.Licence, " AND ") {
			if !accepted[l] {
				return nil, fmt.Errorf("%s %s: licence %q is not one ctx accepts (%s)", c.Name, c.Version, c.Licence, acceptedList())
			}
		}
	}
	return comps, nil
}

// treeSitterComponents are the tree-sitter runtime and the linked
// grammars, with the upstream licence files kept in dir.
func treeSitterComponents(dir, modDir string, grammars map[string]bool) ([]component, error) {
	type grammar struct {
		Language, URL, Revision string
	}
	b, err := os.ReadFile(filepath.Join(modDir, "_automation", "grammars.json"))
	if err != nil {
		return nil, fmt.Errorf("reading %s's grammar list: %v", treeSitter, err)
	}
	var all []grammar
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("reading %s's grammar list: %v", treeSitter, err)
	}
	rt := component{Name: "tree-sitter runtime (C)", Source: "https://github.com/tree-sitter/tree-sitter, vendored by " + treeSitter}
	if err := addFiles(&rt, filepath.Join(dir, "tree-sitter"), []string{"LICENSE"}); err != nil {
		return nil, err
	}
	comps := []component{rt}
	for _, g := range all {
		if !grammars[g.Language] {
			continue
		}
		delete(grammars, g.Language)
		gd := filepath.Join(dir, g.Language)
		c := component{Name: "tree-sitter grammar " + g.Language + " (C)", Version: g.Revision,
			Source: g.URL + " at " + g.Revision + ", vendored by " + treeSitter}
		if err := addFiles(&c, gd, noticeNames(gd)); err != nil {
			return nil, fmt.Errorf("grammar %s: %w (see %s)", g.Language, err, filepath.Join(dir, "README.md"))
		}
		comps = append(comps, c)
	}
	for l := range grammars {
		return nil, fmt.Errorf("grammar %s is linked but not in %s's grammars.json", l, treeSitter)
	}
	return comps, nil
}

// noticeNames are the files at the top of dir that a distributor carries:
// licences, notices, patent grants, third-party lists and the authors
// files that licences name as copyright holders.
func noticeNames(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		u := strings.ToUpper(e.Name())
		if e.IsDir() {
			continue
		}
		for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "COPYRIGHT", "NOTICE", "PATENTS", "AUTHORS", "NOTE"} {
			if strings.HasPrefix(u, p) {
				names = append(names, e.Name())
				break
			}
		}
	}
	slices.Sort(names)
	return names
}

func addFiles(c *component, dir string, names []string) error {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("%s: %v", c.Name, err)
		}
		c.Files = append(c.Files, noticeFile{Name: n, Text: strings.TrimRight(string(b), "\n") + "\n"})
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: no licence file in %s", c.Name, dir)
	}
	return nil
}

// licenceOf names the licences of a component's licence files (those
// named LICENSE, LICENCE, COPYING or COPYRIGHT with at most an extension; notices,
// patent grants and third-party lists are reproduced but not classified),
// joined by " AND ", or "unknown".
func licenceOf(files []noticeFile) string {
	var ls []string
	for _, f := range files {
		base := strings.ToUpper(strings.TrimSuffix(f.Name, filepath.Ext(f.Name)))
		if base != "LICENSE" && base != "LICENCE" && base != "COPYING" && base != "COPYRIGHT" {
			continue
		}
		ls = append(ls, classify(f.Text)...)
	}
	slices.Sort(ls)
	ls = slices.Compact(ls)
	if len(ls) == 0 {
		for _, f := range files {
			if f.Name == "NOTE" {
				ls = classify(f.Text)
			}
		}
	}
	if len(ls) == 0 {
		return "unknown"
	}
	return strings.Join(ls, " AND ")
}

// classify names the licences whose standard wording text contains. A file
// may hold more than one (a relicensing in progress).
func classify(text string) []string {
	var ls []string
	// A recorded finding about a source without a licence file names the
	// declared licence with an SPDX tag (upstream/lua/NOTE).
	for _, line := range strings.Split(text, "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "SPDX-License-Identifier: "); ok {
			ls = append(ls, strings.TrimSpace(id))
		}
	}
	if len(ls) > 0 {
		return ls
	}
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	has := strings.Contains
	if has(t, "apache license") && has(t, "version 2.0") {
		ls = append(ls, "Apache-2.0")
	}
	mpl := has(t, "mozilla public license") && has(t, "2.0")
	if mpl {
		ls = append(ls, "MPL-2.0")
	}
	// A choice between the FreeType License and the GPL is taken as the
	// FreeType License (chosenLicence reproduces its text).
	ftl := has(t, "your choice of") && has(t, "freetype license")
	if ftl || has(t, "the freetype project license") {
		ls = append(ls, "FTL")
	}
	// MPL-2.0's text names the GNU licences as its "Secondary Licenses".
	if !mpl && !ftl && (has(t, "gnu general public license") || has(t, "gnu lesser general public license") || has(t, "gnu affero")) {
		ls = append(ls, "GPL-family")
	}
	if has(t, "permission is hereby granted, free of charge") {
		ls = append(ls, "MIT")
	}
	if has(t, "permission to use, copy, modify, and/or distribute") {
		ls = append(ls, "ISC")
	}
	if has(t, "redistribution and use in source and binary forms") {
		if has(t, "neither the name") || has(t, "names of its contributors") || has(t, "name of the copyright holder") {
			ls = append(ls, "BSD-3-Clause")
		} else {
			ls = append(ls, "BSD-2-Clause")
		}
	}
	if has(t, "creative commons attribution 4.0 international public license") {
		ls = append(ls, "CC-BY-4.0")
	}
	if has(t, "sil open font license") && has(t, "version 1.1") {
		ls = append(ls, "OFL-1.1")
	}
	// The MCP SDK's LICENSE: Apache-2.0, with contributions not yet
	// relicensed remaining under MIT.
	if has(t, "licensing transition from the mit license") {
		ls = append(ls, "MIT")
	}
	return ls
}

func acceptedList() string {
	var ls []string
	for l := range accepted {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return strings.Join(ls, ", ")
}

func goEnv(k string) string {
	b, err := exec.Command("go", "env", k).Output()
	if err != nil {
		return ""
	}
	return string(b)
}

// write renders the notices: a summary table, what a distributor must do,
// then every component's files in full.
func write(w io.Writer, opts options, comps []component) error {
	var b strings.Builder
	rule := strings.Repeat("=", 78)
	fmt.Fprintf(&b, "Third-party software in ctx for %s/%s\n%s\n\n", opts.GOOS, opts.GOARCH, rule)
	b.WriteString(`ctx itself is licensed under the Apache License, Version 2.0 (the LICENSE file
beside this one). The executable also contains the components below, each under
its own licence, reproduced in full after the summary. This file was generated
by scripts/notices from the modules the build links; do not edit it by hand.

`)
	fmt.Fprintf(&b, "%-60s  %s\n", "component", "licence")
	for _, c := range comps {
		name := c.Name
		if c.Version != "" && !strings.HasPrefix(c.Name, "tree-sitter") {
			name += " " + c.Version
		}
		fmt.Fprintf(&b, "%-60s  %s\n", name, c.Licence)
	}
	b.WriteString(`
Redistributing the executable: keep this file and LICENSE with it. Components
under MPL-2.0 are unmodified, and their source code is available at the address
given with them (MPL-2.0 section 3.2). The NOTICE files reproduced below are
the attribution notices that Apache-2.0 section 4(d) asks a distributor to carry.

`)
	for _, c := range comps {
		if c.Licence == "FTL" {
			// The FreeType License's credit clause (its section 3).
			fmt.Fprintf(&b, "Portions of this software (%s) are copyright The FreeType Project\n(www.freetype.org) and the Freetype-Go authors, used under the FreeType License.\n\n", c.Name)
		}
	}
	for _, c := range comps {
		fmt.Fprintf(&b, "%s\n%s", rule, c.Name)
		if c.Version != "" {
			fmt.Fprintf(&b, " %s", c.Version)
		}
		fmt.Fprintf(&b, "\nlicence: %s\nsource: %s\n%s\n", c.Licence, c.Source, rule)
		for _, f := range c.Files {
			fmt.Fprintf(&b, "\n--- %s ---\n\n%s", f.Name, f.Text)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
