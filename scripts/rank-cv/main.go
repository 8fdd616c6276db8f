// Command rank-cv sweeps ctx's ranking constants (the tuning table in
// internal/search/rank.go) on a benchmark and checks each chosen value by
// leave-one-repository-out cross-validation, so a report can say whether
// a shipped constant survives outside the data it was tuned on.
//
// # Running
//
//	go build -o /tmp/x/ctx ./cmd/ctx
//	go run ./scripts/rank-cv -ctx /tmp/x/ctx -bench semble -cache /tmp/x/scache -work /tmp/x/cv \
//	    -grid 'Coherence=0,0.04,0.08,0.12,0.16;TestPenalty=0.2,0.3,0.5' [-repo chi -repo zod] [-v]
//	go run ./scripts/rank-cv -ctx /tmp/x/ctx -bench swebench -data ../shared/bench/swebench/lite-dev50.jsonl \
//	    -checkouts /work/swe-checkouts -mirror-map mirrors.json -cache /tmp/x/wcache -work /tmp/x/wcv \
//	    -grid 'Coherence=0,0.08,0.16' -metric acc5
//
// Every run is one `python3 ../shared/bench/eval.py` over the whole
// benchmark (or the -repo subset) with CTX_RANK_TUNE set for the ctx it
// calls (search.TuneEnv) and CTX_CACHE_DIR set to -cache, so after the
// first run `ctx index` finds every index fresh: the constants change
// only ranking. The runs are a baseline (CTX_RANK_TUNE is -base, or
// unset) and, for each constant of -grid, one run per value with the
// other constants at their shipped values (-base, a comma-separated
// Name=value list, comes first in every run). Each run's --out JSON is
// kept in -work as <bench>-base.json or <bench>-<Name>=<value>.json and
// reused when it exists, so an interrupted sweep resumes where it
// stopped; -work/settings.json records the benchmark, -base, -repo,
// -data and the ctx binary's SHA-256, and a work directory used with
// other settings is refused. A run that fails (eval.py exits non-zero,
// or ctx index fails on a repository) stops the sweep with eval.py's
// last stderr lines.
//
// # Scores
//
// A fold is a repository: on semble its score is the repository's
// -metric (ndcg10, ndcg10_file, ndcg10_reach, r1 or r5; eval.py's mean
// over its queries) and every repository weighs 1, so a mean is eval.py's
// overall "repo-mean"; on SWE-bench it is the mean of the instances'
// -metric (mrr, acc1, acc3, acc5 or acc10) grouped by repo (owner/name),
// weighted by the instance count, so a mean is the usual mean over
// instances. Instances without a checkout are left out.
//
// The shipped value of a constant is -shipped's, else -base's, else its
// value in the search package this command is built with (the checkout's
// internal/search/rank.go, which ctx must be built from); a shipped value missing
// from the grid is added to it. For each constant rank-cv prints the
// in-sample mean at each value (-v: and each repository's score), then
// leaves each repository r out in turn: the value with the best mean over
// the other repositories is chosen (ties: the value nearest the shipped
// one, then the lower) and r is scored at it; the held-out CV mean is the
// mean of those scores. The verdict is "survives" when the held-out CV
// mean is not above the shipped value's mean by more than -margin (0.005)
// or when at least half the folds choose the shipped value; otherwise
// "does not survive (CV prefers X)", X being the value the most folds
// choose. The report ends with a markdown table of all constants.
// Progress goes to stderr; the report to stdout.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

// tuneEnv and cacheEnv are the variables the child ctx reads
// (search.TuneEnv; config.Load).
const (
	tuneEnv  = search.TuneEnv
	cacheEnv = "CTX_CACHE_DIR"
)

// tieEps is how close two means must be to count as a tie: eval.py's
// scores are means of at most a few hundred terms, so a real difference
// is far larger.
const tieEps = 1e-9

// options are the command's flags.
type options struct {
	ctxBin    string
	bench     string
	evalPy    string
	reposJSON string
	annots    string
	checkouts string
	data      string
	mirrorMap string
	cache     string
	work      string
	grid      string
	base      string
	shipped   string
	metric    string
	repos     []string
	margin    float64
	timeout   float64
	verbose   bool
}

func main() {
	var o options
	root := ctxproc.ModuleRoot()
	bench := filepath.Join(root, "..", "shared", "bench")
	flag.StringVar(&o.ctxBin, "ctx", "bin/ctx", "ctx binary (build it with: go build -o bin/ctx ./cmd/ctx)")
	flag.StringVar(&o.bench, "bench", "semble", "benchmark: semble or swebench")
	flag.StringVar(&o.evalPy, "eval", filepath.Join(bench, "eval.py"), "the evaluator")
	flag.StringVar(&o.reposJSON, "repos", filepath.Join(bench, "semble", "repos.json"), "semble repos.json")
	flag.StringVar(&o.annots, "annotations", filepath.Join(bench, "semble", "annotations"), "semble annotations directory")
	flag.StringVar(&o.checkouts, "checkouts", "", "directory of checkouts (default /work/checkouts for semble; required for swebench)")
	flag.StringVar(&o.data, "data", "", "swebench: JSONL of instances, e.g. ../shared/bench/swebench/lite-dev50.jsonl")
	flag.StringVar(&o.mirrorMap, "mirror-map", "", "swebench: JSON {owner/name: git dir} for checkouts still to materialize")
	flag.StringVar(&o.cache, "cache", "", "CTX_CACHE_DIR for ctx (required; indexes are reused across runs)")
	flag.StringVar(&o.work, "work", "", "directory for the runs' JSON, reused to resume (default: a new temporary directory)")
	flag.StringVar(&o.grid, "grid", "", "constants and values to sweep: 'Name=v1,v2,...;Name2=...'")
	flag.StringVar(&o.base, "base", "", "CTX_RANK_TUNE settings prepended to every run, 'Name=v,Name2=v'")
	flag.StringVar(&o.shipped, "shipped", "", "shipped values, 'Name=v;Name2=v' (default: -base, then the literals in -rank)")
	flag.StringVar(&o.metric, "metric", "", "semble: ndcg10 (default), ndcg10_file, ndcg10_reach, r1, r5; swebench: mrr (default), acc1, acc3, acc5, acc10")
	flag.Func("repo", "restrict to this repository (eval.py --repo; repeatable)", func(s string) error {
		o.repos = append(o.repos, s)
		return nil
	})
	flag.Float64Var(&o.margin, "margin", 0.005, "held-out gain over the shipped value's mean that fails a constant")
	flag.Float64Var(&o.timeout, "timeout", 60, "eval.py per-query timeout in seconds")
	flag.BoolVar(&o.verbose, "v", false, "print each repository's scores and each fold's choice, and eval.py's stderr")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./scripts/rank-cv -ctx /abs/ctx -bench semble -cache DIR -grid 'Coherence=0,0.08,0.16' [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, &o, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank-cv: %v\n", err)
		os.Exit(1)
	}
}

// logf reports progress on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rank-cv: %s\n", fmt.Sprintf(format, args...))
}

// gridEntry is one constant of -grid and its values, ascending and
// without duplicates.
type gridEntry struct {
	name   string
	values []float64
}

// parseGrid parses "Name=v1,v2;Name2=v3" into entries in the order given.
func parseGrid(s string) ([]gridEntry, error) {
	var out []gridEntry
	for part := range strings.SplitSeq(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, vals, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("grid: %q is not Name=v1,v2", part)
		}
		if slices.ContainsFunc(out, func(g gridEntry) bool { return g.name == name }) {
			return nil, fmt.Errorf("grid: %s given twice", name)
		}
		g := gridEntry{name: name}
		for v := range strings.SplitSeq(vals, ",") {
			if v = strings.TrimSpace(v); v == "" {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("grid: %s=%q is not a number", name, v)
			}
			g.values = append(g.values, x)
		}
		if len(g.values) == 0 {
			return nil, fmt.Errorf("grid: %s has no values", name)
		}
		slices.Sort(g.values)
		g.values = slices.Compact(g.values)
		out = append(out, g)
	}
	if len(out) == 0 {
		return nil, errors.New("grid: no constants (want 'Name=v1,v2;Name2=v3')")
	}
	return out, nil
}

// parseAssign parses "Name=v" pairs separated by commas or semicolons
// (-base, -shipped); a later pair for a name wins, as in CTX_RANK_TUNE.
func parseAssign(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for kv := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ';' }) {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not Name=value", kv)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not a number", name, val)
		}
		out[strings.TrimSpace(name)] = x
	}
	return out, nil
}

// fmtVal prints a constant's value the shortest way that reads back
// exactly; it also names the value's run file.
func fmtVal(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fold is one repository's score (the metric, 0..1) in a run and its
// weight in a mean (1 on semble, the instance count on SWE-bench).
type fold struct {
	score, weight float64
}

// sweep is one constant's scores: score[v][r] is repository repos[r]'s
// metric (0..1) at values[v], weight[r] its weight in every mean, and
// values[shipped] the shipped value. values ascend.
type sweep struct {
	name    string
	values  []float64
	shipped int
	repos   []string
	weight  []float64
	score   [][]float64
}

// cvResult is what [crossValidate] finds for a sweep. Indexes are into
// the sweep's values; means are weighted means of the metric (0..1).
type cvResult struct {
	means        []float64 // in-sample mean over all repositories, per value
	best         int       // the best in-sample value ([choose]'s tie rule)
	choice       []int     // per repository r: the value chosen without r
	heldOut      float64   // mean over r of r's score at choice[r]
	shippedFolds int       // repositories whose fold chose the shipped value
}

// weightedMean is the mean of score over the repositories other than
// skip (-1: all) with the given weights; NaN when no weight is left.
func weightedMean(score, weight []float64, skip int) float64 {
	var sum, w float64
	for r, s := range score {
		if r == skip {
			continue
		}
		sum += weight[r] * s
		w += weight[r]
	}
	if w == 0 {
		return math.NaN()
	}
	return sum / w
}

// choose returns the index of the best mean. Means within tieEps of the
// best tie, and a tie goes to the value nearest values[shipped], then to
// the lower value.
func choose(means, values []float64, shipped int) int {
	top := math.Inf(-1)
	for _, m := range means {
		top = max(top, m)
	}
	best := -1
	for i, m := range means {
		if m < top-tieEps {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		// Distances within tieEps are equal: 0.12-0.08 is not exactly
		// 0.08-0.04 in floating point.
		d, bd := math.Abs(values[i]-values[shipped]), math.Abs(values[best]-values[shipped])
		if d < bd-tieEps || (d <= bd+tieEps && values[i] < values[best]) {
			best = i
		}
	}
	return best
}

// crossValidate scores s in sample and by leave-one-repository-out. It
// needs at least two repositories.
func crossValidate(s *sweep) cvResult {
	res := cvResult{means: make([]float64, len(s.values)), choice: make([]int, len(s.repos))}
	for v := range s.values {
		res.means[v] = weightedMean(s.score[v], s.weight, -1)
	}
	res.best = choose(res.means, s.values, s.shipped)
	held := make([]float64, len(s.repos))
	for r := range s.repos {
		m := make([]float64, len(s.values))
		for v := range s.values {
			m[v] = weightedMean(s.score[v], s.weight, r)
		}
		res.choice[r] = choose(m, s.values, s.shipped)
		held[r] = s.score[res.choice[r]][r]
		if res.choice[r] == s.shipped {
			res.shippedFolds++
		}
	}
	res.heldOut = weightedMean(held, s.weight, -1)
	return res
}

// preferred is the value index the most folds choose; a tie goes to the
// higher in-sample mean, then by [choose]'s rule.
func preferred(s *sweep, res cvResult) int {
	n := make([]int, len(s.values))
	for _, c := range res.choice {
		n[c]++
	}
	top := slices.Max(n)
	m := make([]float64, len(s.values))
	for v := range m {
		m[v] = math.Inf(-1)
		if n[v] == top {
			m[v] = res.means[v]
		}
	}
	return choose(m, s.values, s.shipped)
}

// verdict says whether s's shipped value survives cross-validation: the
// held-out CV mean is at most margin above the shipped value's mean, or
// at least half the folds choose the shipped value.
func verdict(s *sweep, res cvResult, margin float64) (survives bool, text string) {
	if res.heldOut-res.means[s.shipped] <= margin+tieEps || 2*res.shippedFolds >= len(s.repos) {
		return true, "survives"
	}
	return false, fmt.Sprintf("does not survive (CV prefers %s)", fmtVal(s.values[preferred(s, res)]))
}

// sembleRun and sweRun are the parts of eval.py's --out JSON that
// rank-cv reads; rows stay maps so that any numeric metric can be named.
type sembleRun struct {
	Repos []map[string]any `json:"repos"`
}

type sweRun struct {
	Instances []map[string]any `json:"instances"`
}

// metricKey maps -metric to eval.py's field name; "" picks the default.
func metricKey(bench, metric string) (string, error) {
	switch bench {
	case "semble":
		switch metric {
		case "":
			return "ndcg10", nil
		case "ndcg10", "ndcg10_file", "ndcg10_reach", "r1", "r5":
			return metric, nil
		}
	case "swebench":
		switch metric {
		case "", "mrr":
			return "mrr", nil
		case "acc1", "acc3", "acc5", "acc10":
			return "acc@" + strings.TrimPrefix(metric, "acc"), nil
		}
	default:
		return "", fmt.Errorf("-bench %q: want semble or swebench", bench)
	}
	return "", fmt.Errorf("-metric %q is not a %s metric", metric, bench)
}

// readFolds reads one eval.py --out JSON and returns each repository's
// score for key (an eval.py field name) and weight. It refuses a run in
// which ctx index failed, and warns on stderr of query errors.
func readFolds(data []byte, bench, key string) (map[string]fold, error) {
	out := map[string]fold{}
	num := func(row map[string]any, k string) (float64, bool) {
		x, ok := row[k].(float64)
		return x, ok
	}
	indexFailed := func(row map[string]any) string {
		idx, _ := row["index"].(map[string]any)
		if st, _ := idx["status"].(string); idx != nil && st != "ok" {
			return st
		}
		return ""
	}
	switch bench {
	case "semble":
		var run sembleRun
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, err
		}
		for _, row := range run.Repos {
			name, _ := row["repo"].(string)
			if st := indexFailed(row); st != "" {
				return nil, fmt.Errorf("ctx index on %s: %s", name, st)
			}
			if n, _ := num(row, "errors"); n > 0 {
				logf("warning: %s: %v queries failed (scored as misses)", name, n)
			}
			x, ok := num(row, key)
			if !ok {
				return nil, fmt.Errorf("repository %s has no number %q", name, key)
			}
			out[name] = fold{score: x, weight: 1}
		}
	case "swebench":
		var run sweRun
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, err
		}
		sum := map[string]float64{}
		errs := 0
		for _, row := range run.Instances {
			if row["status"] == "no_checkout" {
				continue
			}
			id, _ := row["instance_id"].(string)
			repo, _ := row["repo"].(string)
			if st := indexFailed(row); st != "" {
				return nil, fmt.Errorf("ctx index on %s: %s", id, st)
			}
			if row["status"] != "ok" {
				errs++
			}
			x, ok := num(row, key)
			if !ok {
				return nil, fmt.Errorf("instance %s has no number %q", id, key)
			}
			sum[repo] += x
			f := out[repo]
			f.weight++
			out[repo] = f
		}
		for repo, f := range out {
			out[repo] = fold{score: sum[repo] / f.weight, weight: f.weight}
		}
		if errs > 0 {
			logf("warning: %d queries failed or timed out (scored as misses)", errs)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no repositories scored")
	}
	return out, nil
}

// runSpec is one eval.py run: its label, the CTX_RANK_TUNE it sets ("":
// unset) and its output file.
type runSpec struct {
	label, tune, file string
}

// joinTune appends Name=value to a CTX_RANK_TUNE list.
func joinTune(base, name string, x float64) string {
	kv := name + "=" + fmtVal(x)
	if base == "" {
		return kv
	}
	return base + "," + kv
}

// settings identify what a work directory's runs measured.
type settings struct {
	Bench  string   `json:"bench"`
	CtxSHA string   `json:"ctxSha256"`
	Base   string   `json:"base"`
	Repos  []string `json:"repos"`
	Data   string   `json:"data,omitempty"`
}

// claimWork writes s to dir/settings.json, or checks that the file there
// holds s.
func claimWork(dir string, s settings) error {
	path := filepath.Join(dir, "settings.json")
	want, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	want = append(want, '\n')
	have, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return os.WriteFile(path, want, 0o644)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(have, want) {
		return fmt.Errorf("work directory %s holds runs with other settings:\n%s\nthis sweep:\n%s(use another -work)", dir, have, want)
	}
	return nil
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// evalArgs is eval.py's command line for one run writing out.
func evalArgs(o *options, out string) []string {
	find := fmt.Sprintf("%s find --json --limit %d {query}", o.ctxBin, map[string]int{"semble": 10, "swebench": 20}[o.bench])
	args := []string{o.evalPy, o.bench}
	if o.bench == "semble" {
		args = append(args, "--repos", o.reposJSON, "--annotations", o.annots)
	} else {
		args = append(args, "--data", o.data, "--keep-checkouts")
		if o.mirrorMap != "" {
			args = append(args, "--mirror-map", o.mirrorMap)
		}
	}
	args = append(args, "--checkouts", o.checkouts, "--cmd", find, "--index-cmd", o.ctxBin+" index",
		"--timeout", fmtVal(o.timeout), "--out", out)
	for _, r := range o.repos {
		args = append(args, "--repo", r)
	}
	return args
}

// evalRun runs eval.py for rs. The output is written beside rs.file
// first and renamed on success, so a file in the work directory is
// always a finished run.
func evalRun(ctx context.Context, o *options, rs runSpec) error {
	partial := rs.file + ".partial"
	cmd := exec.CommandContext(ctx, "python3", evalArgs(o, partial)...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, tuneEnv+"=") || strings.HasPrefix(kv, cacheEnv+"=")
	})
	cmd.Env = append(cmd.Env, cacheEnv+"="+o.cache)
	if rs.tune != "" {
		cmd.Env = append(cmd.Env, tuneEnv+"="+rs.tune)
	}
	// eval.py starts each ctx in a session of its own; on cancel, kill
	// eval.py's group and let ctx finish its one query.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	errTail := &tail{max: 4000}
	cmd.Stderr = errTail
	if o.verbose {
		cmd.Stderr = io.MultiWriter(errTail, os.Stderr)
	}
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("eval.py run %s: %v; its stderr ends:\n%s", rs.label, err, errTail.buf)
	}
	logf("%s: done in %s", rs.label, time.Since(start).Round(time.Second))
	return os.Rename(partial, rs.file)
}

// loadRun reads a finished run's folds, naming its file in errors.
func loadRun(rs runSpec, bench, key string) (map[string]fold, error) {
	data, err := os.ReadFile(rs.file)
	if err != nil {
		return nil, err
	}
	folds, err := readFolds(data, bench, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (delete it to run again)", rs.file, err)
	}
	return folds, nil
}

// repoNames returns the repositories of folds, sorted.
func repoNames(folds map[string]fold) []string {
	var names []string
	for n := range folds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// report is one constant's outcome, for the closing table.
type report struct {
	s       *sweep
	res     cvResult
	verdict string
}

func run(ctx context.Context, o *options, w io.Writer) error {
	key, err := metricKey(o.bench, o.metric)
	if err != nil {
		return err
	}
	if o.cache == "" {
		return errors.New("-cache is required (CTX_CACHE_DIR for ctx, reused across runs)")
	}
	if o.checkouts == "" {
		if o.bench == "swebench" {
			return errors.New("-checkouts is required for swebench")
		}
		o.checkouts = "/work/checkouts"
	}
	if o.bench == "swebench" && o.data == "" {
		return errors.New("-data is required for swebench")
	}
	if o.ctxBin, err = ctxproc.Binary(o.ctxBin); err != nil {
		return err
	}
	if strings.ContainsAny(o.ctxBin, " \t'\"\\") {
		// eval.py splits --cmd with shlex.
		return fmt.Errorf("ctx binary path %q: use one without spaces or quotes", o.ctxBin)
	}
	for _, p := range []*string{&o.evalPy, &o.reposJSON, &o.annots, &o.checkouts, &o.data, &o.mirrorMap, &o.cache} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	grid, err := parseGrid(o.grid)
	if err != nil {
		return err
	}
	base, err := parseAssign(o.base)
	if err != nil {
		return fmt.Errorf("-base: %v", err)
	}
	shipped, err := parseAssign(o.shipped)
	if err != nil {
		return fmt.Errorf("-shipped: %v", err)
	}
	lits := search.Tuning()
	for i, g := range grid {
		if _, ok := lits[g.name]; !ok {
			return fmt.Errorf("no ranking constant %q (have %s)", g.name, strings.Join(search.TuningNames(), ", "))
		}
		x, ok := shipped[g.name]
		if !ok {
			x, ok = base[g.name]
		}
		if !ok {
			x, ok = lits[g.name]
		}
		if !ok {
			return fmt.Errorf("no shipped value for %s: give -shipped '%s=VALUE'", g.name, g.name)
		}
		shipped[g.name] = x
		if !slices.Contains(g.values, x) {
			logf("adding %s's shipped value %s to its grid", g.name, fmtVal(x))
			grid[i].values = append(g.values, x)
			slices.Sort(grid[i].values)
		}
	}

	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "rank-cv-"); err != nil {
			return err
		}
		logf("work directory %s (give it as -work to resume)", o.work)
	} else if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	sum, err := fileSHA256(o.ctxBin)
	if err != nil {
		return err
	}
	repos := slices.Sorted(slices.Values(o.repos))
	if err := claimWork(o.work, settings{Bench: o.bench, CtxSHA: sum, Base: o.base, Repos: repos, Data: o.data}); err != nil {
		return err
	}

	baseRun := runSpec{label: "baseline", tune: o.base, file: filepath.Join(o.work, o.bench+"-base.json")}
	runs := []runSpec{baseRun}
	runOf := func(name string, x float64) runSpec {
		kv := name + "=" + fmtVal(x)
		return runSpec{label: kv, tune: joinTune(o.base, name, x), file: filepath.Join(o.work, o.bench+"-"+kv+".json")}
	}
	for _, g := range grid {
		for _, x := range g.values {
			runs = append(runs, runOf(g.name, x))
		}
	}
	for i, rs := range runs {
		if _, err := os.Stat(rs.file); err == nil {
			logf("run %d/%d: %s: reusing %s", i+1, len(runs), rs.label, rs.file)
			continue
		}
		logf("run %d/%d: %s (%s=%q)", i+1, len(runs), rs.label, tuneEnv, rs.tune)
		if err := evalRun(ctx, o, rs); err != nil {
			return err
		}
	}

	baseFolds, err := loadRun(baseRun, o.bench, key)
	if err != nil {
		return err
	}
	repoList := repoNames(baseFolds)
	if len(repoList) < 2 {
		return fmt.Errorf("leave-one-repository-out needs 2 repositories or more; the baseline scored %v", repoList)
	}
	weights := make([]float64, len(repoList))
	baseScores := make([]float64, len(repoList))
	for r, n := range repoList {
		weights[r], baseScores[r] = baseFolds[n].weight, baseFolds[n].score
	}
	baseMean := weightedMean(baseScores, weights, -1)
	tuneDesc := "unset"
	if o.base != "" {
		tuneDesc = o.base
	}
	unit := "mean over repositories"
	if o.bench == "swebench" {
		unit = "mean over instances"
	}
	fmt.Fprintf(w, "%s %s, %s, %d repositories (%s). Baseline (%s=%s): %.4f\n",
		o.bench, key, unit, len(repoList), strings.Join(repoList, " "), tuneEnv, tuneDesc, baseMean)

	var reports []report
	for _, g := range grid {
		s := &sweep{name: g.name, values: g.values, repos: repoList, weight: weights,
			shipped: slices.Index(g.values, shipped[g.name])}
		for _, x := range g.values {
			rs := runOf(g.name, x)
			folds, err := loadRun(rs, o.bench, key)
			if err != nil {
				return err
			}
			if got := repoNames(folds); !slices.Equal(got, repoList) {
				return fmt.Errorf("%s scored repositories %v, the baseline %v", rs.file, got, repoList)
			}
			row := make([]float64, len(repoList))
			for r, n := range repoList {
				if folds[n].weight != weights[r] {
					return fmt.Errorf("%s: %s has %v instances, %v in the baseline", rs.file, n, folds[n].weight, weights[r])
				}
				row[r] = folds[n].score
			}
			s.score = append(s.score, row)
		}
		if !slices.Equal(s.score[s.shipped], baseScores) {
			logf("warning: %s=%s does not reproduce the baseline's scores: was ctx built from this checkout, or is the ranking not deterministic?",
				g.name, fmtVal(g.values[s.shipped]))
		}
		res := crossValidate(s)
		_, text := verdict(s, res, o.margin)
		reports = append(reports, report{s: s, res: res, verdict: text})
		printSweep(w, s, res, text, o.verbose)
	}
	printMarkdown(w, reports, key)
	return nil
}

// printSweep prints one constant's table, folds (verbose) and verdict.
func printSweep(w io.Writer, s *sweep, res cvResult, text string, verbose bool) {
	fmt.Fprintf(w, "\n%s (shipped %s)\n", s.name, fmtVal(s.values[s.shipped]))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "value\tmean\t")
	if verbose {
		for _, r := range s.repos {
			fmt.Fprintf(tw, "%s\t", r)
		}
	}
	fmt.Fprint(tw, "\n")
	for v, x := range s.values {
		fmt.Fprintf(tw, "%s\t%.4f\t", fmtVal(x), res.means[v])
		if verbose {
			for r := range s.repos {
				fmt.Fprintf(tw, "%.3f\t", s.score[v][r])
			}
		}
		var marks []string
		if v == s.shipped {
			marks = append(marks, "shipped")
		}
		if v == res.best {
			marks = append(marks, "in-sample best")
		}
		fmt.Fprintf(tw, "  %s\n", strings.Join(marks, ", "))
	}
	tw.Flush()
	if verbose {
		fmt.Fprintln(w, "held-out folds (repository: value chosen on the others → its score there; at shipped):")
		for r, n := range s.repos {
			c := res.choice[r]
			fmt.Fprintf(w, "  %s: %s → %.3f; %.3f\n", n, fmtVal(s.values[c]), s.score[c][r], s.score[s.shipped][r])
		}
	}
	fmt.Fprintf(w, "%s: shipped %s mean %.4f; in-sample best %s mean %.4f; held-out CV mean %.4f; shipped chosen in %d/%d folds: %s\n",
		s.name, fmtVal(s.values[s.shipped]), res.means[s.shipped], fmtVal(s.values[res.best]), res.means[res.best],
		res.heldOut, res.shippedFolds, len(s.repos), text)
}

// printMarkdown prints the closing table, one row per constant.
func printMarkdown(w io.Writer, reports []report, key string) {
	fmt.Fprintf(w, "\n| constant | shipped | shipped %[1]s | in-sample best | best %[1]s | held-out CV %[1]s | folds choosing shipped | verdict |\n", key)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|")
	for _, rp := range reports {
		s, res := rp.s, rp.res
		fmt.Fprintf(w, "| %s | %s | %.4f | %s | %.4f | %.4f | %d/%d | %s |\n",
			s.name, fmtVal(s.values[s.shipped]), res.means[s.shipped], fmtVal(s.values[res.best]), res.means[res.best],
			res.heldOut, res.shippedFolds, len(s.repos), rp.verdict)
	}
}
