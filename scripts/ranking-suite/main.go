// Command ranking-suite is ctx's ranking regression suite: questions with
// the files that answer them (queries.json, written by hand from each
// corpus's layout, not from ctx's answers) over two corpora nobody tunes
// on: "goroot", 65 questions over the Go standard library ($(go env
// GOROOT)/src), and "mcp-sdk", 10 over the JavaScript and TypeScript
// declarations of the MCP TypeScript SDK that e2e/mcp installs
// (e2e/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm, pinned by its
// package-lock.json; `npm ci --prefix e2e/mcp`). It runs `ctx find --json
// --limit 10` for each question and scores the distinct files of the
// answer, in order: a question's rank is the position of the first of its
// target files among them (0 when none is in the top 10). A target
// "path:LINE" asks for the chunk: its rank is the position of the first
// result holding the line among the results themselves.
//
// The stats: recall@1 and recall@5, the share of questions with rank 1
// and with rank 1-5, and MRR, the mean of 1/rank (0 for rank 0). They go,
// per corpus and over all, with every question's rank, to
// testdata/golden.txt; TestRankingGolden
// (skipped under -short) compares a fresh run with that file, so a
// ranking change shows its effect in the diff; `go test
// ./scripts/ranking-suite -update` rewrites it.
//
// Every answer's confidence grade (high, medium, low) is kept too, and
// the off-topic queries of testdata/offtopic.txt (nonsense, everyday
// questions, other fields' tasks, with no target) are asked of the goroot
// corpus: the golden file holds the share of questions and of off-topic
// queries graded low, and the test fails when the first passes
// maxQuestionsLow or the second falls below minOffTopicLow.
//
// Running it by hand:
//
//	go build -o bin/ctx ./cmd/ctx && go run ./scripts/ranking-suite -ctx bin/ctx -index
//
// prints the stats and ranks (-o FILE writes them in the golden format).
// -goroot names another directory holding the standard library's source.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

// question is one entry of queries.json: targets are slash paths relative
// to the corpus, any of which answers it; a target "path:LINE" asks for
// the chunk holding that 1-based line (a declaration a symbol query
// names), not only its file.
type question struct {
	Corpus  string   `json:"corpus"`
	Query   string   `json:"query"`
	Targets []string `json:"targets"`
}

// corpora are the suite's corpora, in report order.
var corpora = []string{"goroot", "mcp-sdk"}

// corpusDir returns where corpus name lives: goroot is the given Go
// source directory, mcp-sdk is under the module's e2e/mcp.
func corpusDir(name, goroot, module string) string {
	if name == "goroot" {
		return goroot
	}
	return filepath.Join(module, "e2e", "mcp", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm")
}

// outcome is how one question ranked: Rank is 1-based, 0 when no target
// file is among the answer's first 10 distinct files (and for an
// off-topic query, which has no target). Confidence is the answer's
// grade.
type outcome struct {
	question
	Rank       int
	Confidence string
}

// offTopic marks the pseudo-corpus of off-topic queries: asked of the
// goroot corpus, scored only by their confidence.
const offTopic = "off-topic"

// Bounds on the confidence grade (the engine's calibration targets): at
// most this share of the questions graded low, at least this share of
// the off-topic queries.
const (
	maxQuestionsLow = 0.10
	minOffTopicLow  = 0.80
)

// lowShare returns how many of outs are graded low, and their share.
func lowShare(outs []outcome) (int, float64) {
	n := 0
	for _, o := range outs {
		if o.Confidence == "low" {
			n++
		}
	}
	if len(outs) == 0 {
		return 0, 0
	}
	return n, float64(n) / float64(len(outs))
}

// split returns the questions and the off-topic queries of outs.
func split(outs []outcome) (questions, off []outcome) {
	for _, o := range outs {
		if o.Corpus == offTopic {
			off = append(off, o)
		} else {
			questions = append(questions, o)
		}
	}
	return questions, off
}

// loadOffTopic reads the off-topic queries: one a line, # comments.
func loadOffTopic(file string) ([]question, error) {
	lines, err := ctxproc.QueryLines(file)
	if err != nil {
		return nil, err
	}
	qs := make([]question, len(lines))
	for i, l := range lines {
		qs[i] = question{Corpus: offTopic, Query: l}
	}
	return qs, nil
}

// stats are the suite's aggregate scores.
type stats struct {
	N                 int
	Recall1, Recall5  float64 // shares of questions, 0..1
	MRR               float64
	Top1, Top5, Found int // questions at rank 1, at 1-5, at any rank
}

func score(outs []outcome) stats {
	s := stats{N: len(outs)}
	for _, o := range outs {
		if o.Rank == 0 {
			continue
		}
		s.Found++
		s.MRR += 1 / float64(o.Rank)
		if o.Rank == 1 {
			s.Top1++
		}
		if o.Rank <= 5 {
			s.Top5++
		}
	}
	if s.N > 0 {
		s.Recall1, s.Recall5, s.MRR = float64(s.Top1)/float64(s.N), float64(s.Top5)/float64(s.N), s.MRR/float64(s.N)
	}
	return s
}

// hit is one result of `ctx find --json`: its path and 1-based,
// inclusive lines.
type hit struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// rankOf returns the 1-based position of the first target among the
// distinct files of hits (in order), 0 when none is within the first
// limit distinct files. A line target ("path:LINE") is ranked among the
// results themselves: the position of the first result of that path
// holding the line, 0 past limit results.
func rankOf(hits []hit, targets []string, limit int) int {
	type line struct {
		path string
		n    int
	}
	var files []string
	var lines []line
	for _, t := range targets {
		if p, n, ok := lineTarget(t); ok {
			lines = append(lines, line{p, n})
		} else {
			files = append(files, t)
		}
	}
	holds := func(h hit) bool {
		return slices.ContainsFunc(lines, func(l line) bool {
			return filepath.ToSlash(h.Path) == l.path && h.StartLine <= l.n && l.n <= h.EndLine
		})
	}
	best := 1 + slices.IndexFunc(hits[:min(len(hits), limit)], holds) // 0: none
	seen := map[string]bool{}
	n := 0
	for _, h := range hits {
		p := filepath.ToSlash(h.Path)
		if seen[p] {
			continue
		}
		seen[p] = true
		n++
		if n > limit || best > 0 && n >= best {
			break
		}
		if slices.Contains(files, p) {
			return n
		}
	}
	return best
}

// lineTarget splits a target "path:LINE" (LINE a positive integer).
func lineTarget(t string) (path string, line int, ok bool) {
	i := strings.LastIndexByte(t, ':')
	if i < 0 {
		return "", 0, false
	}
	line, err := strconv.Atoi(t[i+1:])
	if err != nil || line < 1 {
		return "", 0, false
	}
	return t[:i], line, true
}

// golden formats the outcomes the way testdata/golden.txt holds them:
// a header naming the Go release (whose source is the goroot corpus), the
// stats of each corpus and of all, then one line per question in file
// order.
func golden(all []outcome, goVersion string) string {
	outs, off := split(all)
	var b strings.Builder
	fmt.Fprintf(&b, "# ctx ranking regression suite: %d questions, %d off-topic queries; Go standard library of %s\n", len(outs), len(off), goVersion)
	b.WriteString("# rank: the first target file among the distinct files of `ctx find --json --limit 10`, or for a path:LINE target the first result holding that line (0: not there); then the answer's confidence\n")
	line := func(name string, s stats) {
		fmt.Fprintf(&b, "%-8s n=%-3d recall@1 %.3f (%d)  recall@5 %.3f (%d)  mrr %.3f\n", name, s.N, s.Recall1, s.Top1, s.Recall5, s.Top5, s.MRR)
	}
	for _, c := range corpora {
		var in []outcome
		for _, o := range outs {
			if o.Corpus == c {
				in = append(in, o)
			}
		}
		if len(in) > 0 {
			line(c, score(in))
		}
	}
	line("all", score(outs))
	n, share := lowShare(outs)
	fmt.Fprintf(&b, "confidence low: questions %d of %d (%.3f), ", n, len(outs), share)
	n, share = lowShare(off)
	fmt.Fprintf(&b, "off-topic %d of %d (%.3f)\n", n, len(off), share)
	for _, o := range outs {
		// An issue-style query is listed by its title line.
		title, rest, _ := strings.Cut(o.Query, "\n")
		if strings.TrimSpace(rest) != "" {
			title += " …"
		}
		fmt.Fprintf(&b, "rank %2d  %-6s  %-7s  %s\n", o.Rank, o.Confidence, o.Corpus, title)
	}
	for _, o := range off {
		fmt.Fprintf(&b, "%-6s  %s  %s\n", o.Confidence, offTopic, o.Query)
	}
	return b.String()
}

// goldenVersion reads the Go release a golden file was written with.
func goldenVersion(text string) string {
	first, _, _ := strings.Cut(text, "\n")
	i := strings.LastIndex(first, " of ")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(first[i+len(" of "):])
}

// missingCorpus returns the first corpus of qs whose directory does not
// exist, with how to get it; "" when all do.
func missingCorpus(qs []question, goroot, module string) string {
	for _, c := range corpora {
		dir := corpusDir(c, goroot, module)
		if _, err := os.Stat(dir); err != nil && slices.ContainsFunc(qs, func(q question) bool { return q.Corpus == c }) {
			if c == "mcp-sdk" {
				return dir + " is missing: run npm ci --prefix e2e/mcp"
			}
			return dir + " is missing"
		}
	}
	return ""
}

func loadQuestions(file string) ([]question, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var qs []question
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("reading %s: %v", file, err)
	}
	for i, q := range qs {
		if q.Query == "" || len(q.Targets) == 0 || !slices.Contains(corpora, q.Corpus) {
			return nil, fmt.Errorf("%s: entry %d has no query, no targets or an unknown corpus %q", file, i, q.Corpus)
		}
	}
	return qs, nil
}

// suite runs the questions with ctx in their corpora's directories
// (dirs, by corpus name), indexing each first when index is set. Errors:
// ctx failing to index, or on a question, or printing output that does
// not decode.
func suite(ctx context.Context, bin string, dirs map[string]string, qs []question, index bool) ([]outcome, error) {
	run := func(dir string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("ctx %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	indexed := map[string]bool{}
	var out []outcome
	for _, q := range qs {
		dir := dirs[q.Corpus]
		if q.Corpus == offTopic {
			dir = dirs["goroot"]
		}
		if index && !indexed[dir] {
			if _, err := run(dir, "index", "--repo", dir); err != nil {
				return nil, err
			}
			indexed[dir] = true
		}
		b, err := run(dir, "find", "--json", "--limit", "10", "--repo", dir, "--", q.Query)
		if err != nil {
			return nil, err
		}
		var a struct {
			Results    []hit  `json:"results"`
			Confidence string `json:"confidence"`
		}
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("decoding ctx find output for %q: %v", q.Query, err)
		}
		out = append(out, outcome{question: q, Rank: rankOf(a.Results, q.Targets, 10), Confidence: a.Confidence})
	}
	return out, nil
}

func main() {
	bin := flag.String("ctx", "bin/ctx", "the ctx binary to measure")
	goroot := flag.String("goroot", filepath.Join(ctxproc.GoRoot(), "src"), "the Go standard library's source directory")
	index := flag.Bool("index", false, "run ctx index in the corpus first")
	outFile := flag.String("o", "", "also write the stats and ranks to this file, in the golden format")
	flag.Parse()
	if err := mainErr(*bin, *goroot, *index, *outFile, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ranking-suite:", err)
		os.Exit(1)
	}
}

func mainErr(bin, goroot string, index bool, outFile string, w io.Writer) error {
	abs, err := ctxproc.Binary(bin)
	if err != nil {
		return err
	}
	module := ctxproc.ModuleRoot()
	qs, err := allQueries(module)
	if err != nil {
		return err
	}
	if m := missingCorpus(qs, goroot, module); m != "" {
		return errors.New(m)
	}
	outs, err := suite(context.Background(), abs, corpusDirs(goroot, module), qs, index)
	if err != nil {
		return err
	}
	text := golden(outs, runtime.Version())
	fmt.Fprint(w, text)
	if outFile != "" {
		return writeFile(outFile, text)
	}
	return nil
}

// allQueries returns the questions of queries.json followed by the
// off-topic queries of testdata/offtopic.txt.
func allQueries(module string) ([]question, error) {
	qs, err := loadQuestions(filepath.Join(suiteDir(module), "queries.json"))
	if err != nil {
		return nil, err
	}
	off, err := loadOffTopic(filepath.Join(suiteDir(module), "testdata", "offtopic.txt"))
	if err != nil {
		return nil, err
	}
	return append(qs, off...), nil
}

// suiteDir is this command's directory in the module at root.
func suiteDir(root string) string { return filepath.Join(root, "scripts", "ranking-suite") }

// corpusDirs maps every corpus to its directory.
func corpusDirs(goroot, module string) map[string]string {
	m := map[string]string{}
	for _, c := range corpora {
		m[c] = corpusDir(c, goroot, module)
	}
	return m
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o644) }
