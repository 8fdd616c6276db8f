// Command bench-pack measures token efficiency on SWE-bench Lite issues:
// for each instance it asks `ctx find --json --budget B` for a pack and
// checks whether every gold file is in it, and, in the same run, a
// grep-style baseline: the files that contain the identifiers,
// ranked by how many times they match, read whole in that order until
// the budget is spent. It reports, per budget, how often the gold files
// are inside, and the o200k_base tokens used per query (median), plus
// how many tokens grep-and-read needs to reach the gold files at all.
//
//	go run ./scripts/bench-pack -ctx bin/ctx -data ../shared/bench/swebench/lite-dev50.jsonl \
//	    -checkouts /path/to/checkouts   # one directory per instance_id, already indexed
//
// CTX_CACHE_DIR and the other CTX_* variables pass through to ctx.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/tokens"
)

// maxGrepFiles bounds how far down the grep ranking the baseline reads
// looking for the gold files.
const maxGrepFiles = 300

type instance struct {
	ID      string   `json:"instance_id"`
	Problem string   `json:"problem_statement"`
	Gold    []string `json:"gold_files"`
}

func main() {
	ctxBin := flag.String("ctx", "ctx", "ctx binary")
	data := flag.String("data", "", "SWE-bench jsonl with instance_id, problem_statement, gold_files")
	checkouts := flag.String("checkouts", "", "directory holding one checkout per instance_id")
	budgetList := flag.String("budgets", "4000,8000", "token budgets")
	verbose := flag.Bool("v", false, "print each instance's gold-in result per budget on stderr")
	flag.Parse()
	var budgets []int
	for _, b := range strings.Split(*budgetList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil {
			log.Fatalf("bad budget %q", b)
		}
		budgets = append(budgets, n)
	}
	insts, err := readInstances(*data)
	if err != nil {
		log.Fatal(err)
	}
	type tally struct {
		ctxIn, grepIn, n int
		ctxTok, grepTok  []int
	}
	res := map[int]*tally{}
	for _, b := range budgets {
		res[b] = &tally{}
	}
	var grepToGold, top10Tok []int
	grepNever, top10In := 0, 0
	for _, in := range insts {
		root := filepath.Join(*checkouts, in.ID)
		if _, err := os.Stat(root); err != nil {
			log.Printf("skip %s: %v", in.ID, err)
			continue
		}
		ranked := grepRank(root, identifiers(in.Problem))
		sizes := map[int]int{}
		size := func(i int) int {
			if n, ok := sizes[i]; ok {
				return n
			}
			b, _ := os.ReadFile(filepath.Join(root, ranked[i]))
			sizes[i] = tokens.Count(string(b))
			return sizes[i]
		}
		toGold, seen := 0, 0
		for i, p := range ranked[:min(len(ranked), maxGrepFiles)] {
			toGold += size(i)
			if slices.Contains(in.Gold, p) {
				seen++
				if seen == len(in.Gold) {
					break
				}
			}
		}
		top := ranked[:min(len(ranked), 10)]
		if containsAll(top, in.Gold) {
			top10In++
		}
		t10 := 0
		for i := range top {
			t10 += size(i)
		}
		top10Tok = append(top10Tok, t10)
		if seen == len(in.Gold) {
			grepToGold = append(grepToGold, toGold)
		} else {
			grepNever++
		}
		for _, b := range budgets {
			t := res[b]
			t.n++
			files, used, err := ctxPack(*ctxBin, root, in.Problem, b)
			if err != nil {
				log.Fatalf("%s: %v", in.ID, err)
			}
			gotAll := containsAll(files, in.Gold)
			if gotAll {
				t.ctxIn++
			}
			if *verbose {
				fmt.Fprintf(os.Stderr, "\n%s budget %d: gold in %v, %d tokens", in.ID, b, gotAll, used)
			}
			t.ctxTok = append(t.ctxTok, used)
			var read []string
			sum := 0
			for i, p := range ranked {
				if sum+size(i) > b {
					break
				}
				sum += size(i)
				read = append(read, p)
			}
			if containsAll(read, in.Gold) {
				t.grepIn++
			}
			t.grepTok = append(t.grepTok, sum)
		}
		fmt.Fprintf(os.Stderr, ".")
	}
	fmt.Fprintln(os.Stderr)
	fmt.Printf("%-8s %4s  %-22s %-22s\n", "budget", "n", "ctx pack: gold in / tok", "grep+read: gold in / tok")
	for _, b := range budgets {
		t := res[b]
		fmt.Printf("%-8d %4d  %5.2f / %-14d %5.2f / %d\n", b, t.n, float64(t.ctxIn)/float64(t.n), median(t.ctxTok), float64(t.grepIn)/float64(t.n), median(t.grepTok))
	}
	fmt.Printf("grep+read of the top 10 files, no budget: gold in %.2f, median %d tokens\n", float64(top10In)/float64(len(top10Tok)), median(top10Tok))
	fmt.Printf("grep+read tokens until every gold file is read: median %d over %d issues (%d not within the first %d files)\n", median(grepToGold), len(grepToGold), grepNever, maxGrepFiles)
}

func readInstances(path string) ([]instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []instance
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var in instance
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, sc.Err()
}

// ctxPack runs ctx find --json --budget and returns the pack's distinct
// files and its tokens.
func ctxPack(bin, root, query string, budget int) ([]string, int, error) {
	cmd := exec.Command(bin, "find", "--json", "--budget", strconv.Itoa(budget), query)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("ctx find: %v: %s", err, stderr.String())
	}
	var resp struct {
		Results []struct {
			Path string `json:"path"`
		} `json:"results"`
		Pack struct {
			Tokens int `json:"tokens"`
		} `json:"pack"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, 0, err
	}
	var files []string
	for _, r := range resp.Results {
		if !slices.Contains(files, r.Path) {
			files = append(files, r.Path)
		}
	}
	return files, resp.Pack.Tokens, nil
}

// identRe matches code-style identifiers: snake_case, camelCase or
// PascalCase with an inner capital, dotted names, or calls "name(".
var identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)

// identifiers returns the distinct code-style identifiers of an issue
// text, the way a developer would grep for them: words with an
// underscore, an inner capital letter or a dot (each dotted part too).
func identifiers(text string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if len(w) >= 3 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range identRe.FindAllString(text, -1) {
		codey := strings.ContainsAny(w, "_.") || strings.ToLower(w[1:]) != w[1:]
		if !codey {
			continue
		}
		for _, part := range strings.Split(w, ".") {
			if strings.Contains(part, "_") || strings.ToLower(part[1:]) != part[1:] || len(part) > 3 {
				add(part)
			}
		}
	}
	return out
}

// grepRank returns the text files under root that contain any of the
// identifiers as a whole word, by total number of matches (then path).
func grepRank(root string, idents []string) []string {
	if len(idents) == 0 {
		return nil
	}
	quoted := make([]string, len(idents))
	for i, id := range idents {
		quoted[i] = regexp.QuoteMeta(id)
	}
	re := regexp.MustCompile(`\b(?:` + strings.Join(quoted, "|") + `)\b`)
	counts := map[string]int{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			return nil
		}
		if n := len(re.FindAllIndex(b, -1)); n > 0 {
			rel, _ := filepath.Rel(root, p)
			counts[filepath.ToSlash(rel)] = n
		}
		return nil
	})
	files := make([]string, 0, len(counts))
	for p := range counts {
		files = append(files, p)
	}
	sort.Slice(files, func(i, j int) bool {
		if counts[files[i]] != counts[files[j]] {
			return counts[files[i]] > counts[files[j]]
		}
		return files[i] < files[j]
	})
	return files
}

func containsAll(files, gold []string) bool {
	for _, g := range gold {
		if !slices.Contains(files, g) {
			return false
		}
	}
	return len(gold) > 0
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
