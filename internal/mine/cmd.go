package mine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Main is the ctx-mine command: it parses args (without the program
// name), resolves the Go toolchain's GOROOT and GOMODCACHE by running `go
// env` unless flags give them, mines, and prints a summary to stderr. It
// returns the exit code: 0 ok, 1 error, 2 usage.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctx-mine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		out         = fs.String("out", "", "output `dir` for "+PairsFile+" and "+ManifestFile+" (required)")
		seed        = fs.Uint64("seed", 1, "seed for the held-out split and language balancing")
		heldout     = fs.Float64("heldout", 0.05, "fraction of sources held out")
		maxPerLang  = fs.Int("max-per-lang", 200000, "pairs kept per language (0: no cap)")
		goroot      = fs.String("goroot", "auto", "GOROOT to mine (auto: `go env GOROOT`; empty: none)")
		modcache    = fs.String("modcache", "auto", "Go module cache to mine (auto: `go env GOMODCACHE`; empty: none)")
		python      = fs.String("python", "", "Debian dist-packages `dir` to mine, e.g. /usr/lib/python3/dist-packages")
		dpkg        = fs.String("dpkg-status", "/var/lib/dpkg/status", "dpkg status `file` for Debian package versions")
		include     = fs.String("include", "", "header `dir` to mine, one source per subdirectory, e.g. /usr/include")
		dpkgInfo    = fs.String("dpkg-info", "/var/lib/dpkg/info", "dpkg info `dir` holding each package's file list")
		splitFiles  = fs.Int("split-files", DefaultSplitFiles, "code files above which a Debian package, tree or --dir is split by directory")
		nodeModules multiFlag
		dirs        multiFlag
		debs        multiFlag
		debSrcs     multiFlag
		debTrees    multiFlag
		verbose     = fs.Bool("verbose", false, "log each source")
	)
	fs.Var(&nodeModules, "node-modules", "node_modules `dir` to mine (repeatable)")
	fs.Var(&dirs, "dir", "extra source as `id=dir` (repeatable)")
	fs.Var(&debs, "deb", "installed Debian packages to mine, a `glob` such as 'librust-*-dev' or 'ruby-*' (repeatable)")
	fs.Var(&debSrcs, "deb-src", "`dir` of Debian source packages extracted by apt-get source (repeatable)")
	fs.Var(&debTrees, "deb-tree", "code unpacked from an archive a Debian package ships, as `pkg=dir`, e.g. openjdk-17-source=/tmp/jdk-src (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ctx-mine --out DIR [flags]\n\nMines (natural language → code) training pairs. Example:\n\n"+
			"  ctx-mine --out /tmp/mine-out --seed 1 --python /usr/lib/python3/dist-packages --node-modules /usr/lib/node_modules\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	if *goroot == "auto" || *modcache == "auto" {
		gr, mc, err := goEnv(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "ctx-mine: %v\n", err)
			return 1
		}
		if *goroot == "auto" {
			*goroot = gr
		}
		if *modcache == "auto" {
			*modcache = mc
		}
	}
	var roots []Root
	add := func(rs []Root, err error) error {
		roots = append(roots, rs...)
		return err
	}
	var errs []error
	if *goroot != "" {
		errs = append(errs, add(GoStdRoots(*goroot)))
	}
	if *modcache != "" {
		errs = append(errs, add(GoModuleRoots(*modcache)))
	}
	if *python != "" {
		errs = append(errs, add(PythonRoots(*python, *dpkg)))
	}
	if *include != "" {
		errs = append(errs, add(IncludeRoots(*include)))
	}
	for _, d := range nodeModules {
		errs = append(errs, add(NodeModulesRoots(d)))
	}
	if len(debs) > 0 {
		errs = append(errs, add(DebianPackageRoots(*dpkgInfo, debianDocDir, *dpkg, debs, *splitFiles)))
	}
	for _, d := range debSrcs {
		errs = append(errs, add(DebianSourceRoots(d, *splitFiles)))
	}
	for _, d := range debTrees {
		pkg, dir, ok := strings.Cut(d, "=")
		if !ok {
			fmt.Fprintf(stderr, "ctx-mine: --deb-tree wants pkg=dir, got %q\n", d)
			return 2
		}
		errs = append(errs, add(TreeRoots(pkg, dir, debianDocDir, *dpkg, *splitFiles)))
	}
	for _, d := range dirs {
		id, dir, ok := strings.Cut(d, "=")
		if !ok {
			fmt.Fprintf(stderr, "ctx-mine: --dir wants id=dir, got %q\n", d)
			return 2
		}
		errs = append(errs, add(DirRoots(id, dir, *splitFiles)))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "ctx-mine: %v\n", err)
		return 1
	}
	start := time.Now()
	m, err := Mine(ctx, Options{Roots: roots, Out: *out, Seed: *seed, Heldout: *heldout, MaxPerLang: *maxPerLang, Logger: log})
	if err != nil {
		fmt.Fprintf(stderr, "ctx-mine: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "%d pairs from %d sources (%d excluded) in %.1fs → %s\n", m.Pairs, len(m.Sources), len(m.Excluded), time.Since(start).Seconds(), *out)
	summary(stderr, "lang", m.ByLang)
	summary(stderr, "kind", m.ByKind)
	return 0
}

func summary(w io.Writer, what string, m map[string]map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s %-12s train %7d  heldout %6d\n", what, k, m[k][SplitTrain], m[k][SplitHeldout])
	}
}

// goEnv runs `go env GOROOT GOMODCACHE`.
func goEnv(ctx context.Context) (goroot, modcache string, err error) {
	b, err := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return "", "", fmt.Errorf("running go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("go env printed %q", b)
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), nil
}

// debianDocDir holds each installed Debian package's copyright file.
const debianDocDir = "/usr/share/doc"

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
