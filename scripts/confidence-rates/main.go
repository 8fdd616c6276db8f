// Command confidence-rates measures ctx's confidence grade on benchmark
// questions against off-topic queries: how many of each are graded low,
// medium and high. The targets (issue of the grade): at least 80% of
// off-topic queries low, at most 10% of benchmark questions low.
//
// Sets, each optional:
//
//   - semble: the questions of every annotation file of -semble (the
//     semble DEV benchmark, ../shared/bench/semble) in its repository's
//     search root under -checkouts, and the off-topic queries
//     (-offtopic, default scripts/ranking-suite/testdata/offtopic.txt)
//     asked of each of those repositories;
//   - swebench: the issue texts of -swe (lite-dev50.jsonl) in
//     -swe-checkouts/<instance_id>.
//
// With -index each search root is indexed first. Run:
//
//	go build -o bin/ctx ./cmd/ctx && go run ./scripts/confidence-rates -ctx bin/ctx -index \
//	    -semble ../shared/bench/semble -checkouts CHECKOUTS \
//	    -swe ../shared/bench/swebench/lite-dev50.jsonl -swe-checkouts SWE_CHECKOUTS
//
// The Go standard library's questions and off-topic queries are graded by
// the ranking suite (go test ./scripts/ranking-suite).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

// query is one search: its text, the directory it runs in, and the set
// it is counted in.
type query struct {
	set, dir, text string
}

// tally counts the grades of one set.
type tally struct {
	name              string
	low, medium, high int
	lowQueries        []string
}

func (t *tally) n() int { return t.low + t.medium + t.high }

func main() {
	bin := flag.String("ctx", "bin/ctx", "the ctx binary to measure")
	semble := flag.String("semble", "", "the semble benchmark directory (repos.json, annotations/)")
	checkouts := flag.String("checkouts", "", "the semble checkouts, one directory per repository")
	offtopic := flag.String("offtopic", filepath.Join(ctxproc.ModuleRoot(), "scripts", "ranking-suite", "testdata", "offtopic.txt"), "off-topic queries, one a line")
	swe := flag.String("swe", "", "SWE-bench instances (lite-dev50.jsonl)")
	sweCheckouts := flag.String("swe-checkouts", "", "the SWE-bench checkouts, one directory per instance_id")
	index := flag.Bool("index", false, "run ctx index in each search root first")
	verbose := flag.Bool("v", false, "list the benchmark questions graded low")
	flag.Parse()
	if err := run(*bin, *semble, *checkouts, *offtopic, *swe, *sweCheckouts, *index, *verbose, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "confidence-rates:", err)
		os.Exit(1)
	}
}

func run(bin, semble, checkouts, offtopic, swe, sweCheckouts string, index, verbose bool, w io.Writer) error {
	abs, err := ctxproc.Binary(bin)
	if err != nil {
		return err
	}
	var qs []query
	if semble != "" {
		off, err := ctxproc.QueryLines(offtopic)
		if err != nil {
			return err
		}
		sq, err := sembleQueries(semble, checkouts, off)
		if err != nil {
			return err
		}
		qs = append(qs, sq...)
	}
	if swe != "" {
		sq, err := sweQueries(swe, sweCheckouts)
		if err != nil {
			return err
		}
		qs = append(qs, sq...)
	}
	if len(qs) == 0 {
		return fmt.Errorf("nothing to measure: give -semble and -checkouts, or -swe and -swe-checkouts")
	}
	ctx := context.Background()
	indexed := map[string]bool{}
	var order []string
	tallies := map[string]*tally{}
	for _, q := range qs {
		if index && !indexed[q.dir] {
			if _, err := ctxRun(ctx, abs, q.dir, "", "index"); err != nil {
				return err
			}
			indexed[q.dir] = true
		}
		out, err := ctxRun(ctx, abs, q.dir, q.text, "find", "--json", "--limit", "10", "-")
		if err != nil {
			return err
		}
		var a struct {
			Confidence string `json:"confidence"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			return fmt.Errorf("decoding ctx find output in %s: %v", q.dir, err)
		}
		t := tallies[q.set]
		if t == nil {
			t = &tally{name: q.set}
			tallies[q.set] = t
			order = append(order, q.set)
		}
		switch a.Confidence {
		case "low":
			t.low++
			title, _, _ := strings.Cut(q.text, "\n")
			t.lowQueries = append(t.lowQueries, filepath.Base(q.dir)+": "+title)
		case "medium":
			t.medium++
		case "high":
			t.high++
		default:
			return fmt.Errorf("ctx find in %s gave confidence %q", q.dir, a.Confidence)
		}
	}
	fmt.Fprintf(w, "%-22s %6s %6s %6s %6s  %s\n", "set", "n", "low", "medium", "high", "low share")
	for _, name := range order {
		t := tallies[name]
		fmt.Fprintf(w, "%-22s %6d %6d %6d %6d  %.3f\n", t.name, t.n(), t.low, t.medium, t.high, float64(t.low)/float64(t.n()))
	}
	if verbose {
		for _, name := range order {
			if strings.HasSuffix(name, "off-topic") {
				continue
			}
			for _, q := range tallies[name].lowQueries {
				fmt.Fprintf(w, "low  %s  %s\n", name, q)
			}
		}
	}
	return nil
}

// sembleQueries returns every annotated question of the semble benchmark
// in its repository's search root, then each off-topic query in each of
// those roots.
func sembleQueries(dir, checkouts string, off []string) ([]query, error) {
	if checkouts == "" {
		return nil, fmt.Errorf("-semble needs -checkouts")
	}
	b, err := os.ReadFile(filepath.Join(dir, "repos.json"))
	if err != nil {
		return nil, err
	}
	var repos []struct {
		Name string `json:"name"`
		Root string `json:"benchmark_root"`
	}
	if err := json.Unmarshal(b, &repos); err != nil {
		return nil, fmt.Errorf("reading repos.json: %v", err)
	}
	var qs, offs []query
	for _, r := range repos {
		root := filepath.Join(checkouts, r.Name, r.Root)
		if _, err := os.Stat(root); err != nil {
			return nil, fmt.Errorf("repository %s: %v", r.Name, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "annotations", r.Name+".json"))
		if err != nil {
			return nil, err
		}
		var anns []struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(b, &anns); err != nil {
			return nil, fmt.Errorf("reading the annotations of %s: %v", r.Name, err)
		}
		for _, a := range anns {
			qs = append(qs, query{set: "semble questions", dir: root, text: a.Query})
		}
		for _, o := range off {
			offs = append(offs, query{set: "semble off-topic", dir: root, text: o})
		}
	}
	return append(qs, offs...), nil
}

// sweQueries returns each SWE-bench instance's issue text in its checkout.
func sweQueries(file, checkouts string) ([]query, error) {
	if checkouts == "" {
		return nil, fmt.Errorf("-swe needs -swe-checkouts")
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var in struct {
			ID      string `json:"instance_id"`
			Problem string `json:"problem_statement"`
		}
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			return nil, fmt.Errorf("reading %s: %v", file, err)
		}
		qs = append(qs, query{set: "swebench issues", dir: filepath.Join(checkouts, in.ID), text: in.Problem})
	}
	return qs, sc.Err()
}

// ctxRun runs ctx with args in dir, stdin as its standard input, and
// returns its standard output.
func ctxRun(ctx context.Context, bin, dir, stdin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ctx %s in %s: %v: %s", args[0], dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
