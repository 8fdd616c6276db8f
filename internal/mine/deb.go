package mine

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Kinds of the roots built from Debian's packages beyond [KindDebian].
const (
	KindDebianSource = "debian-source" // an extracted Debian source package (apt-get source)
)

// DefaultSplitFiles is the number of code files above which a package or
// tree is split into one source per subdirectory, so the held-out split
// never takes a whole language's only package at once.
const DefaultSplitFiles = 400

// vendoredDirs are directory names under which source trees bundle other
// projects' code; they are never mined, whatever the project.
var vendoredDirs = map[string]bool{
	"third_party": true, "third-party": true, "thirdparty": true, "3rdparty": true, "vendor": true, "vendored": true,
	"external": true, "extern": true, "bundled": true, "node_modules": true, ".git": true, ".pc": true, "debian": true,
}

// codeFile reports whether the slash path p is source code ctx chunks as
// definitions (not text or markdown), outside documentation and tests
// fixtures.
func codeFile(p string) bool {
	switch discover.Language(p) {
	case "", discover.LangText, discover.LangMarkdown:
		return false
	}
	return !strings.HasPrefix(p, "/usr/share/doc/")
}

// DebianPackageRoots returns a [KindDebian] root for each installed Debian
// package whose name matches the glob patterns (path.Match syntax:
// "librust-*-dev", "ruby-*", "libruby3.1"); a pattern starting with "!"
// takes matching packages out again, and the last pattern that matches
// decides ("lib*-dev", "!libstdc++-*-dev"). A root holds the code files the
// package owns, as listed in infoDir/<pkg>[:<arch>].list (dpkg's info
// directory, /var/lib/dpkg/info), as [Root.Files] relative to their
// deepest common directory; packages with no code are left out. Version
// comes from the dpkg status file, the licence from
// docDir/<pkg>/copyright (docDir is /usr/share/doc), and [Root.Upstream] from that file's
// Source field and from the Cargo.toml, gemspec, composer.json and
// package.json files the package owns. A package with more than split code
// files is split by directory ([DefaultSplitFiles] when split is 0).
func DebianPackageRoots(infoDir, docDir, dpkgStatus string, patterns []string, split int) ([]Root, error) {
	versions := readDpkgStatus(dpkgStatus)
	names := make([]string, 0, len(versions))
	for pkg := range versions {
		in := false
		for _, pat := range patterns {
			neg := strings.HasPrefix(pat, "!")
			ok, err := path.Match(strings.TrimPrefix(pat, "!"), pkg)
			if err != nil {
				return nil, fmt.Errorf("bad package pattern %q: %w", pat, err)
			}
			if ok {
				in = !neg
			}
		}
		if in {
			names = append(names, pkg)
		}
	}
	sort.Strings(names)
	var roots []Root
	for _, pkg := range names {
		owned, err := dpkgList(infoDir, pkg)
		if err != nil {
			return nil, err
		}
		var code, meta []string
		for _, f := range owned {
			switch base := path.Base(f); {
			case base == "Cargo.toml" || base == "composer.json" || base == "package.json" || strings.HasSuffix(base, ".gemspec"):
				meta = append(meta, f)
			case codeFile(f) && !vendored(f):
				if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
					code = append(code, f)
				}
			}
		}
		if len(code) == 0 {
			continue
		}
		dir := commonDir(code)
		rel := make([]string, len(code))
		for i, f := range code {
			rel[i] = strings.TrimPrefix(f, dir+"/")
		}
		copyright := filepath.Join(docDir, pkg, "copyright")
		r := Root{
			Dir: dir, ID: "debian/" + pkg, Kind: KindDebian, Package: pkg, Version: versions[pkg],
			LicenceFiles: []string{copyright}, Files: rel,
			Upstream: append(copyrightSource(copyright), upstreamURLs(meta)...),
		}
		roots = append(roots, splitRoot(r, split)...)
	}
	return roots, nil
}

// dpkgList reads the files Debian package pkg installed, from
// infoDir/pkg.list or infoDir/pkg:ARCH.list.
func dpkgList(infoDir, pkg string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(infoDir, pkg+".list"))
	if err != nil {
		m, _ := filepath.Glob(filepath.Join(infoDir, pkg+":*.list"))
		if len(m) == 0 {
			return nil, fmt.Errorf("listing files of %s: %w", pkg, err)
		}
		if b, err = os.ReadFile(m[0]); err != nil {
			return nil, fmt.Errorf("listing files of %s: %w", pkg, err)
		}
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "/." {
			out = append(out, l)
		}
	}
	return out, nil
}

// commonDir returns the deepest directory holding every one of the
// absolute slash paths ps.
func commonDir(ps []string) string {
	dir := path.Dir(ps[0])
	for _, p := range ps[1:] {
		for dir != "/" && !strings.HasPrefix(p, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	return dir
}

// vendored reports whether slash path p lies below a [vendoredDirs] directory.
func vendored(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		if vendoredDirs[d] {
			return true
		}
	}
	return false
}

// DebianSourceRoots returns the Debian source packages extracted below dir
// (`apt-get source NAME` leaves NAME-VERSION/ with a debian/ directory):
// one [KindDebianSource] root per package ("debian-src/elixir"), split by
// directory past split code files ([DefaultSplitFiles] when 0). Package
// is the source package's name and [Root.Aliases] the binary packages it
// builds (debian/control), so either is checked against the exclusion
// list; Version is the debian/changelog head; [Root.Upstream] comes from
// debian/copyright's Source and debian/upstream/metadata's Repository.
// Vendored directories (third_party, vendor, …), debian/ and top-level
// test suites (test/, tests/) are not mined.
func DebianSourceRoots(dir string, split int) ([]Root, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var roots []Root
	for _, e := range ents {
		src := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		control, err := os.ReadFile(filepath.Join(src, "debian", "control"))
		if err != nil {
			continue
		}
		name, bins := controlNames(control)
		if name == "" {
			continue
		}
		files, err := codeFiles(src, testDirs)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			continue
		}
		copyright := filepath.Join(src, "debian", "copyright")
		up := copyrightSource(copyright)
		if b, err := os.ReadFile(filepath.Join(src, "debian", "upstream", "metadata")); err == nil {
			up = append(up, urlsIn(b)...)
		}
		r := Root{
			Dir: src, ID: "debian-src/" + name, Kind: KindDebianSource, Package: name, Aliases: bins,
			Version: changelogVersion(filepath.Join(src, "debian", "changelog")), LicenceFiles: []string{copyright},
			Files: files, Upstream: up,
		}
		roots = append(roots, splitRoot(r, split)...)
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].ID < roots[j].ID })
	return roots, nil
}

// TreeRoots returns the code extracted from an archive that installed
// Debian package pkg ships, such as openjdk-17-source's lib/src.zip
// unzipped into dir: [KindDebian] roots "debian/<pkg>" split by directory
// past split code files ([DefaultSplitFiles] when 0), so the JDK becomes
// one source per package (java.base/java/util/concurrent). Version comes
// from the dpkg status file and the licence from docDir/<pkg>/copyright.
func TreeRoots(pkg, dir, docDir, dpkgStatus string, split int) ([]Root, error) {
	files, err := codeFiles(dir, nil)
	if err != nil {
		return nil, err
	}
	copyright := filepath.Join(docDir, pkg, "copyright")
	r := Root{
		Dir: dir, ID: "debian/" + pkg, Kind: KindDebian, Package: pkg, Version: readDpkgStatus(dpkgStatus)[pkg],
		LicenceFiles: []string{copyright}, Files: files, Upstream: copyrightSource(copyright),
	}
	return splitRoot(r, split), nil
}

// DirRoots returns the code below dir as [KindDir] roots named id, split
// by directory past split code files ([DefaultSplitFiles] when 0) as a
// Debian tree is, so a large tree (a language's class library) is held
// out or trained on directory by directory, not whole. Vendored and
// hidden directories are skipped ([codeFiles]); each piece takes its
// licence from dir's own LICENSE*, LICENCE* or COPYING* files first.
func DirRoots(id, dir string, split int) ([]Root, error) {
	files, err := codeFiles(dir, nil)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, nil
	}
	return splitRoot(Root{ID: id, Dir: dir, Kind: KindDir, Files: files, LicenceFiles: licenceFilesIn(dir)}, split), nil
}

// testDirs are the top-level directories of a source package that hold
// its test suite: compiler test cases (scala/test/files/neg) are not code
// worth learning from.
var testDirs = map[string]bool{"test": true, "tests": true, "testsuite": true, "testing": true}

// codeFiles lists the code files below dir, slash paths relative to it,
// sorted, skipping [vendoredDirs], hidden directories, symbolic links and
// the top-level directories in skipTop.
func codeFiles(dir string, skipTop map[string]bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (vendoredDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") || (skipTop[d.Name()] && filepath.Dir(p) == dir)) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && codeFile(rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	return out, nil
}

// splitRoot splits r, whose Files are set, into one root per
// subdirectory while it holds more than max files: a child "ID/sub" keeps
// r's package, licence and upstream, and the files directly in a split
// directory stay with that directory's ID. max 0 means [DefaultSplitFiles].
func splitRoot(r Root, max int) []Root {
	if max <= 0 {
		max = DefaultSplitFiles
	}
	return splitAt(r, "", max)
}

// splitAt splits r, whose ID is still to be extended by sub, the
// directories descended since r.ID was last set.
func splitAt(r Root, sub string, max int) []Root {
	if len(r.Files) <= max {
		return []Root{r}
	}
	groups := map[string][]string{}
	var loose []string
	for _, f := range r.Files {
		if d, rest, ok := strings.Cut(f, "/"); ok {
			groups[d] = append(groups[d], rest)
		} else {
			loose = append(loose, f)
		}
	}
	if len(groups) == 0 {
		return []Root{r}
	}
	child := func(d string, files []string) Root {
		c := r
		c.Dir, c.Files = filepath.Join(r.Dir, filepath.FromSlash(d)), files
		return c
	}
	if len(groups) == 1 && len(loose) == 0 {
		// One subdirectory only: descend without a source of its own.
		for d, files := range groups {
			return splitAt(child(d, files), path.Join(sub, d), max)
		}
	}
	if sub != "" {
		r.ID += "/" + sub
	}
	keys := make([]string, 0, len(groups))
	for d := range groups {
		keys = append(keys, d)
	}
	sort.Strings(keys)
	var out []Root
	if len(loose) > 0 {
		c := r
		c.Files = loose
		out = append(out, c)
	}
	for _, d := range keys {
		c := child(d, groups[d])
		c.ID = r.ID + "/" + d
		out = append(out, splitAt(c, "", max)...)
	}
	return out
}

// copyrightSource returns the URLs of the Source field of a
// machine-readable Debian copyright file's header.
func copyrightSource(p string) []string {
	b, err := readHead(p, 16<<10)
	if err != nil {
		return nil
	}
	var field []byte
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			return urlsIn(field)
		case strings.HasPrefix(l, "Source:"):
			in = true
			field = append(field, l[len("Source:"):]...)
		case in && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")):
			field = append(field, l...)
		default:
			in = false
		}
		field = append(field, '\n')
	}
	return urlsIn(field)
}

var urlRe = lazyre.New(`(?:https?|git)://[^\s"'<>(),]+|git@github\.com:[^\s"'<>(),]+`)

// urlsIn returns the URLs in b, in order, without duplicates.
func urlsIn(b []byte) []string {
	var out []string
	for _, u := range urlRe().FindAllString(string(b), -1) {
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// upstreamURLs returns the repository URLs that package metadata files
// (Cargo.toml, *.gemspec, composer.json, package.json) name.
func upstreamURLs(files []string) []string {
	var out []string
	for _, f := range files {
		b, err := readHead(f, 64<<10)
		if err != nil {
			continue
		}
		for _, u := range urlsIn(b) {
			if strings.Contains(u, "github.com") && !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// controlNames returns the Source and Package names of a debian/control file.
func controlNames(b []byte) (source string, binaries []string) {
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Source:"); ok && source == "" {
			source = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "Package:"); ok {
			binaries = append(binaries, strings.TrimSpace(v))
		}
	}
	return source, binaries
}

// changelogVersion reads the version of a debian/changelog's first entry:
// "elixir (1.14.0.dfsg-2) unstable; urgency=medium" → "1.14.0.dfsg-2".
func changelogVersion(p string) string {
	b, err := readHead(p, 512)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\n")
	_, v, ok := strings.Cut(first, "(")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, ")")
	return v
}
