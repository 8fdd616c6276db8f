// Command bench-fresh measures how fresh `ctx serve` keeps its answers
// while files change under it (issue 14, "Always fresh"): it copies a
// corpus (default: the Go standard library, $(go env GOROOT)/src),
// indexes the copy with a private cache directory, serves it with
// `ctx serve --http` on a free loopback port (the watcher on, as by
// default) and, from the same index, a second server with --no-watch, and
// then, talking MCP over streamable HTTP (the Go SDK client):
//
//   - edits: appends a uniquely named function to an existing Go file and
//     times from just before the write to the first codebase_retrieval
//     answer whose results include that file with the function's code
//     (polling a query for the marker word every -poll);
//   - new files: the same for a new Go file in an existing package;
//   - checkout burst: rewrites -checkout files at once the way git
//     checkout does (unlink, create, write) and times until the marker
//     of every file (of a -burst-sample of them) is found, then restores
//     them and times until none is and index_status is fresh, and counts
//     the texts embedded again for the restore (the embeddings table's
//     growth: restored texts were seen before, so it should be 0);
//   - soak: random appends, modifications, new files and deletions, each
//     followed at once by a query for its marker, counting answers that
//     say fresh: true but miss an edit made before the query was sent;
//   - cached query: the same call many times, client and server time;
//   - idle: CPU and RSS of both servers over -idle, so the watcher's
//     cost is a difference measured in the same run.
//
// It prints a table per section with the targets and PASS/FAIL (with
// -json: one JSON object on stdout, the tables on stderr). Progress goes
// to stderr. Each phase is skipped when its count is 0.
//
// # Running
//
//	go build -o bin/ctx ./cmd/ctx && go run ./scripts/bench-fresh -ctx bin/ctx
//	go run ./scripts/bench-fresh -ctx bin/ctx -corpus $(go env GOROOT)/src/net -edits 10 -new 5 -checkout 50 -soak 100 -idle 5s
//
// Flags after "--" go to both `ctx serve` commands (for example
// -- --no-auto-index). CTX_* settings in the environment (the embedding
// provider, say) pass through; CTX_CACHE_DIR is replaced by a private
// directory under the temporary copy, which is removed at the end (-keep
// keeps it, with the servers' logs). Every wait gives up after -timeout
// (the burst's after -burst-timeout) and counts as a failure; a phase
// stops after -give-up timeouts in a row, so a build without a watcher
// finishes in minutes. Exit status: 0 when every target passed, 3 when
// one failed, 1 on a setup error or an interrupt.
//
// What the answers carry is read defensively: `fresh` from stats.fresh
// or else freshness.fresh, `index_state` and a `stale` note from stats or
// freshness, a cache-hit flag from stats; the report's "interface"
// section says which of them the answers held.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

// options are the command's flags.
type options struct {
	ctxBin       string
	corpus       string
	keep         bool
	seed         uint64
	edits        int
	newFiles     int
	checkout     int
	burstSample  int
	soak         int
	cached       int
	idle         time.Duration
	settle       time.Duration
	timeout      time.Duration
	burstTimeout time.Duration
	poll         time.Duration
	giveUp       int
	workers      int
	query        string
	soakThink    time.Duration
	json         bool
	serveArgs    []string
}

func main() {
	var o options
	flag.StringVar(&o.ctxBin, "ctx", "bin/ctx", "ctx binary (build it with: go build -o bin/ctx ./cmd/ctx)")
	flag.StringVar(&o.corpus, "corpus", "", "tree to copy, index and serve (default: $(go env GOROOT)/src)")
	flag.BoolVar(&o.keep, "keep", false, "keep the copy, its cache and the servers' logs")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed: which files are edited, and the marker words")
	flag.IntVar(&o.edits, "edits", 100, "edits of existing files to time (0: skip)")
	flag.IntVar(&o.newFiles, "new", 50, "new files to time (0: skip)")
	flag.IntVar(&o.checkout, "checkout", 500, "files rewritten at once in the checkout burst (0: skip)")
	flag.IntVar(&o.burstSample, "burst-sample", 100, "markers of the burst polled until found (0: all); fewer poll each one more often")
	flag.IntVar(&o.soak, "soak", 1000, "random edits of the soak, each followed by a query (0: skip)")
	flag.IntVar(&o.cached, "cached", 200, "repetitions of the cached query (0: skip)")
	flag.DurationVar(&o.idle, "idle", 30*time.Second, "idle window for the servers' CPU and RSS (0: skip)")
	flag.DurationVar(&o.settle, "settle", 20*time.Second, "time before the idle window, for the work a watcher defers until it is idle (the full BM25 merge and the vector file, 10 s after the last run); its CPU is reported apart")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "longest wait for one edit to be found (or the index to settle); a timeout is a failure")
	flag.DurationVar(&o.burstTimeout, "burst-timeout", 30*time.Second, "longest wait for the checkout burst (and its restore) to be consistent")
	flag.DurationVar(&o.poll, "poll", 5*time.Millisecond, "interval between the starts of two polling queries")
	flag.IntVar(&o.giveUp, "give-up", 3, "timeouts in a row after which a phase stops (0: never)")
	flag.IntVar(&o.workers, "workers", 8, "concurrent polling clients in the checkout burst")
	flag.StringVar(&o.query, "query", "parse a duration string such as 1h30m", "codebase_retrieval request of the cached-query phase")
	flag.DurationVar(&o.soakThink, "soak-think", 0, "pause between a soak query and the next edit")
	flag.BoolVar(&o.json, "json", false, "print a JSON summary on stdout (the tables go to stderr)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./scripts/bench-fresh [flags] [-- ctx serve flags]\n\nBuild ctx first: go build -o bin/ctx ./cmd/ctx\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	o.serveArgs = flag.Args()
	if o.corpus == "" {
		o.corpus = filepath.Join(ctxproc.GoRoot(), "src")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &o)
	stop()
	os.Exit(code)
}

var start = time.Now()

// logf reports progress on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o *options) int {
	bin, err := ctxproc.Binary(o.ctxBin)
	if err != nil {
		logf("%v", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "bench-fresh-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer func() {
		if o.keep {
			logf("kept %s", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()
	repo, cache := filepath.Join(tmp, "repo"), filepath.Join(tmp, "cache")
	logf("copying %s to %s", o.corpus, repo)
	nfiles, err := ctxproc.CopyTree(ctx, o.corpus, repo)
	if err != nil {
		logf("copying %s: %v", o.corpus, err)
		return 1
	}
	env := append(os.Environ(), "CTX_CACHE_DIR="+cache)

	sum := &summary{Corpus: o.corpus, CorpusFiles: nfiles, Binary: bin, Seed: o.seed, ServeArgs: o.serveArgs}
	logf("indexing the copy (%d files)", nfiles)
	t0 := time.Now()
	idx := exec.CommandContext(ctx, bin, "index", "--json", repo)
	idx.Env = env
	var idxErr bytes.Buffer
	idx.Stderr = &idxErr
	out, err := idx.Output()
	if err != nil {
		logf("ctx index: %v\n%s", err, idxErr.Bytes())
		return 1
	}
	sum.IndexSeconds = time.Since(t0).Seconds()
	var ir map[string]any
	if json.Unmarshal(out, &ir) == nil {
		sum.IndexedFiles, _ = ir["files"].(float64)
		sum.IndexEmbedded, _ = ir["embedded"].(float64)
	}
	logf("indexed in %.1fs", sum.IndexSeconds)

	watch, err := startServer(ctx, "watch", bin, env, repo, tmp, o.serveArgs)
	if err != nil {
		logf("starting ctx serve: %v", err)
		return 1
	}
	defer watch.stop()
	noWatch, err := startServer(ctx, "no-watch", bin, env, repo, tmp, append([]string{"--no-watch"}, o.serveArgs...))
	if err != nil {
		sum.NoWatchError = err.Error()
		logf("the --no-watch server did not start (%v); the watcher's cost is not measured", firstLine(err.Error()))
		noWatch = nil
	} else {
		defer noWatch.stop()
	}

	b := &bench{o: o, repo: repo, rng: rand.New(rand.NewPCG(o.seed, 0x62662d66)), words: map[string]bool{}, seen: newSeen(), watch: watch}
	b.sum = sum
	if err := b.listFiles(ctx); err != nil {
		logf("listing indexed Go files: %v", err)
		return 1
	}
	logf("%d indexed Go files to edit", len(b.files))

	// Warm both servers the same way before the baseline RSS.
	for _, s := range []*server{watch, noWatch} {
		if s != nil {
			b.warm(ctx, s)
		}
	}
	sleepCtx(ctx, time.Second)
	sum.Baseline = map[string]memory{"watch": readMem(watch.pid())}
	if noWatch != nil {
		sum.Baseline["noWatch"] = readMem(noWatch.pid())
	}

	phases := []struct {
		name string
		skip bool
		run  func(context.Context) *section
	}{
		{"edits", o.edits == 0, b.runEdits},
		{"new files", o.newFiles == 0, b.runNewFiles},
		{"checkout burst", o.checkout == 0, b.runCheckout},
		{"soak", o.soak == 0, b.runSoak},
		{"cached query", o.cached == 0, b.runCached},
		{"idle cost", o.idle == 0, func(ctx context.Context) *section { return b.runIdle(ctx, noWatch) }},
	}
	for _, p := range phases {
		if ctx.Err() != nil {
			break
		}
		if p.skip {
			sum.Sections = append(sum.Sections, &section{Name: p.name, Skipped: true})
			continue
		}
		logf("phase: %s", p.name)
		sum.Sections = append(sum.Sections, p.run(ctx))
	}
	if ctx.Err() != nil {
		logf("interrupted; stopping the servers")
		return 1
	}
	sum.Sections = append(sum.Sections, b.serverLogs(noWatch))
	sum.Interface = b.seen.report()
	sum.Pass = true
	for _, s := range sum.Sections {
		for _, m := range s.Metrics {
			if m.Verdict == "FAIL" {
				sum.Pass = false
			}
		}
	}
	tables := os.Stdout
	if o.json {
		tables = os.Stderr
	}
	printReport(tables, sum)
	if o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(sum)
	}
	if !sum.Pass {
		return 3
	}
	return 0
}

// bench holds the run's state shared by the phases.
type bench struct {
	o     *options
	repo  string
	rng   *rand.Rand
	words map[string]bool // marker words handed out
	files []string        // indexed Go files, relative to repo, slash-separated
	watch *server
	seen  *seen
	sum   *summary
}

// marker returns a new marker word: lowercase letters only, so every
// tokenizer keeps it whole, and unlike any word of the corpus.
func (b *bench) marker() string {
	for {
		w := make([]byte, 12)
		w[0], w[1] = 'b', 'f'
		for i := 2; i < len(w); i++ {
			w[i] = byte('a' + b.rng.IntN(26))
		}
		if s := string(w); !b.words[s] {
			b.words[s] = true
			return s
		}
	}
}

// block is the code a marker adds: a documented function named by it.
func block(marker, kind string, n int) string {
	return fmt.Sprintf("\n// %s marks a bench-fresh %s: it returns %d.\nfunc %s() int { return %d }\n", marker, kind, n, marker, n)
}

func (b *bench) abs(rel string) string { return filepath.Join(b.repo, filepath.FromSlash(rel)) }

// listFiles asks the server which Go files it indexed, leaving out
// testdata, whose files need not be valid Go.
func (b *bench) listFiles(ctx context.Context) error {
	res, err := b.watch.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_files", Arguments: map[string]any{"glob": "*.go", "max_results": 10000}})
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New(text(res))
	}
	var out struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := remarshal(res.StructuredContent, &out); err != nil {
		return err
	}
	for _, f := range out.Files {
		if !strings.Contains("/"+f.Path, "/testdata/") {
			b.files = append(b.files, f.Path)
		}
	}
	sort.Strings(b.files)
	if len(b.files) == 0 {
		return errors.New("the index holds no Go files outside testdata")
	}
	return nil
}

// warm sends the queries both servers get before the baseline.
func (b *bench) warm(ctx context.Context, s *server) {
	for i := range 20 {
		q := b.o.query
		if i%2 == 1 {
			q = "bfwarmupquery"
		}
		s.retrieve(ctx, q, nil)
	}
}

// appendTo appends text to a file.
func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// found says whether an answer shows marker in the code of file rel.
func found(a *answer, rel, marker string) bool {
	for _, sg := range a.Segments {
		if sg.Path == rel && strings.Contains(sg.Code, marker) {
			return true
		}
	}
	return false
}

// shows says whether any returned code holds marker.
func shows(a *answer, marker string) bool {
	for _, sg := range a.Segments {
		if strings.Contains(sg.Code, marker) {
			return true
		}
	}
	return false
}

// gone says whether an answer no longer has marker in file rel: no
// segment of the file shows it or is marked stale (a stale segment's code
// is read from the current file, so it hides an index that still has it).
func gone(a *answer, rel, marker string) bool {
	for _, sg := range a.Segments {
		if sg.Path == rel && (sg.Stale || strings.Contains(sg.Code, marker)) {
			return false
		}
	}
	return !shows(a, marker)
}

// wait is one timed wait for an edit to be found.
type wait struct {
	dur      time.Duration
	ok       bool
	polls    int
	rtts     []time.Duration // each poll's round trip
	lies     int             // fresh: true answers that missed the edit
	errs     int
	notFresh int // fresh: false answers
}

// pollUntil queries marker every poll until cond holds of an answer, or
// timeout after t0.
func (b *bench) pollUntil(ctx context.Context, s *server, t0 time.Time, marker string, cond func(*answer) bool) wait {
	var w wait
	deadline := t0.Add(b.o.timeout)
	for ctx.Err() == nil {
		tc := time.Now()
		a, err := s.retrieve(ctx, marker, b.seen)
		w.polls++
		w.rtts = append(w.rtts, time.Since(tc))
		switch {
		case err != nil:
			w.errs++
		case cond(a):
			w.dur, w.ok = time.Since(t0), true
			return w
		case a.Fresh != nil && *a.Fresh:
			w.lies++
		case a.Fresh != nil:
			w.notFresh++
		}
		if time.Now().After(deadline) {
			break
		}
		sleepCtx(ctx, b.o.poll-time.Since(tc))
	}
	w.dur = time.Since(t0)
	return w
}

// timedEdits runs n edits made by do (which returns the file and marker
// it wrote, and the time just before the write) and summarizes them.
func (b *bench) timedEdits(ctx context.Context, name string, n int, p50, p95 time.Duration, do func(i int) (rel, marker string, t0 time.Time, err error)) *section {
	sec := &section{Name: name}
	var durs, rtts []time.Duration
	timeouts, inRow, lies, errs, notFresh, polls := 0, 0, 0, 0, 0, 0
	stopped := false
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		rel, marker, t0, err := do(i)
		if err != nil {
			sec.Notes = append(sec.Notes, fmt.Sprintf("edit %d: %v", i, err))
			errs++
			continue
		}
		w := b.pollUntil(ctx, b.watch, t0, marker, func(a *answer) bool { return found(a, rel, marker) })
		if ctx.Err() != nil {
			break
		}
		polls += w.polls
		rtts = append(rtts, w.rtts...)
		lies += w.lies
		errs += w.errs
		notFresh += w.notFresh
		if w.ok {
			durs = append(durs, w.dur)
			inRow = 0
		} else {
			durs = append(durs, timedOut)
			timeouts++
			inRow++
			logf("  %s %d (%s in %s): not found within %v", name, i, marker, rel, b.o.timeout)
		}
		if b.o.giveUp > 0 && inRow >= b.o.giveUp {
			sec.Notes = append(sec.Notes, fmt.Sprintf("stopped after %d timeouts in a row (%d of %d edits made)", inRow, i+1, n))
			stopped = true
			break
		}
	}
	sec.add("edits timed", float64(len(durs)), "", "", "")
	sec.add("found", float64(len(durs)-timeouts), "", "", "")
	sec.addDur("p50 write→found", pct(durs, 50), p50)
	sec.addDur("p95 write→found", pct(durs, 95), p95)
	sec.addDur("max write→found", pct(durs, 100), 0)
	sec.count("timeouts (cap "+b.o.timeout.String()+")", timeouts)
	sec.count("fresh:true answers missing the edit (while polling)", lies)
	sec.add("fresh:false answers (while polling)", float64(notFresh), "", "", "")
	sec.add("polls", float64(polls), "", "", "")
	sec.addDur("poll round trip p50 (the timing's resolution, with -poll)", pct(rtts, 50), 0)
	sec.count("errors", errs)
	if stopped {
		sec.add("phase completed", 0, "", "all edits", "FAIL")
	}
	return sec
}

// runEdits appends a marker function to random existing files.
func (b *bench) runEdits(ctx context.Context) *section {
	order := b.rng.Perm(len(b.files))
	return b.timedEdits(ctx, "edits", b.o.edits, 150*time.Millisecond, 300*time.Millisecond, func(i int) (string, string, time.Time, error) {
		rel := b.files[order[i%len(order)]]
		m := b.marker()
		text := block(m, "edit", i)
		t0 := time.Now()
		return rel, m, t0, appendTo(b.abs(rel), text)
	})
}

// runNewFiles creates Go files in the packages of random existing files.
func (b *bench) runNewFiles(ctx context.Context) *section {
	return b.timedEdits(ctx, "new files", b.o.newFiles, 0, 300*time.Millisecond, func(i int) (string, string, time.Time, error) {
		m := b.marker()
		rel, clause, err := b.newFile(m)
		if err != nil {
			return "", "", time.Time{}, err
		}
		content := clause + block(m, "new file", i)
		t0 := time.Now()
		return rel, m, t0, os.WriteFile(b.abs(rel), []byte(content), 0o644)
	})
}

// newFile returns the path of a new Go file named after marker in the
// package of a random indexed file, and its package clause.
func (b *bench) newFile(marker string) (rel, clause string, err error) {
	for range 20 {
		sib := b.files[b.rng.IntN(len(b.files))]
		if strings.HasSuffix(sib, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), b.abs(sib), nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		return path.Join(path.Dir(sib), "zz_benchfresh_"+marker+".go"), "package " + f.Name.Name + "\n", nil
	}
	return "", "", errors.New("no non-test file with a package clause among 20 tries")
}

// checkoutWrite replaces a file's content the way git checkout does:
// unlink, then create and write.
func checkoutWrite(path string, content []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pending is one file of the burst and its marker.
type pending struct{ rel, marker string }

// untilAll polls each item's marker with b.o.workers clients until cond
// holds for every one, or the burst timeout. It returns how many held and
// when the last one did.
func (b *bench) untilAll(ctx context.Context, t0 time.Time, items []pending, cond func(*answer, pending) bool) (done int, last time.Duration, lies, errs int) {
	queue := make(chan pending, len(items))
	for _, it := range items {
		queue <- it
	}
	deadline := t0.Add(b.o.burstTimeout)
	var mu sync.Mutex // guards done, last, lies, errs
	var wg sync.WaitGroup
	for range b.o.workers {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(deadline) {
				var it pending
				select {
				case it = <-queue:
				default:
					return
				}
				tc := time.Now()
				a, err := b.watch.retrieve(ctx, it.marker, b.seen)
				mu.Lock()
				switch {
				case err != nil:
					errs++
				case cond(a, it):
					done++
					last = max(last, time.Since(t0))
					mu.Unlock()
					continue
				case a.Fresh != nil && *a.Fresh:
					lies++
				}
				mu.Unlock()
				queue <- it
				sleepCtx(ctx, b.o.poll-time.Since(tc))
			}
		})
	}
	wg.Wait()
	return done, last, lies, errs
}

// firstFresh polls index_status every 50 ms from t0 until it says
// fresh with no run in progress, and sends the time that took, or a
// negative duration when within passes first.
func (b *bench) firstFresh(ctx context.Context, t0 time.Time, within time.Duration) <-chan time.Duration {
	ch := make(chan time.Duration, 1)
	go func() {
		for {
			st, err := b.watch.status(ctx)
			if err == nil && st.settled() {
				ch <- time.Since(t0)
				return
			}
			select {
			case <-ctx.Done():
				ch <- -1
				return
			case <-time.After(50 * time.Millisecond):
			}
			if time.Since(t0) > within {
				ch <- -1
				return
			}
		}
	}()
	return ch
}

// settle waits until index_status says fresh with no run in progress,
// for at most b.o.timeout.
func (b *bench) settle(ctx context.Context) (indexStatus, bool) {
	deadline := time.Now().Add(b.o.timeout)
	for {
		st, err := b.watch.status(ctx)
		if err == nil && st.settled() {
			return st, true
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return st, false
		}
		sleepCtx(ctx, 100*time.Millisecond)
	}
}

// runCheckout rewrites many files at once, waits for the index to hold
// every change, restores them and counts what the restore embedded.
func (b *bench) runCheckout(ctx context.Context) *section {
	sec := &section{Name: "checkout burst"}
	n := min(b.o.checkout, len(b.files))
	if n < b.o.checkout {
		sec.Notes = append(sec.Notes, fmt.Sprintf("only %d indexed Go files: the burst rewrites %d", len(b.files), n))
	}
	order := b.rng.Perm(len(b.files))[:n]
	items := make([]pending, n)
	orig := make([][]byte, n)
	next := make([][]byte, n)
	for i, k := range order {
		rel := b.files[k]
		data, err := os.ReadFile(b.abs(rel))
		if err != nil {
			sec.Notes = append(sec.Notes, err.Error())
			return sec
		}
		m := b.marker()
		items[i], orig[i] = pending{rel, m}, data
		next[i] = append(slices.Clip(data), block(m, "checkout", i)...)
	}
	before, ok := b.settle(ctx)
	if !ok {
		sec.Notes = append(sec.Notes, "the index had not settled before the burst (index_status not fresh, or a run in progress)")
	}

	// The burst.
	t0 := time.Now()
	freshCh := b.firstFresh(ctx, t0, b.o.burstTimeout)
	for i, it := range items {
		if err := checkoutWrite(b.abs(it.rel), next[i]); err != nil {
			sec.Notes = append(sec.Notes, fmt.Sprintf("writing %s: %v", it.rel, err))
		}
	}
	writeDur := time.Since(t0)
	sample := items
	if k := b.o.burstSample; k > 0 && k < n {
		sample = make([]pending, k)
		for i, j := range b.rng.Perm(n)[:k] {
			sample[i] = items[j]
		}
	}
	done, last, lies, errs := b.untilAll(ctx, t0, sample, func(a *answer, it pending) bool { return found(a, it.rel, it.marker) })
	freshAt := <-freshCh
	sec.add("files rewritten", float64(n), "", "", "")
	sec.addDur("writing them", writeDur, 0)
	sec.add("markers polled", float64(len(sample)), "", "", "")
	sec.add("markers found", float64(done), "", fmt.Sprintf("%d", len(sample)), verdict(done == len(sample)))
	allDur := timedOut
	if done == len(sample) {
		allDur = last
	}
	sec.addDur("write→every polled marker found", allDur, 5*time.Second)
	sec.addDur("write→index_status fresh", orTimeout(freshAt), 0)
	sec.count("fresh:true answers missing a marker", lies)
	sec.count("errors", errs)
	if ctx.Err() != nil {
		return sec
	}
	mid, settled := b.settle(ctx)
	if !settled {
		sec.Notes = append(sec.Notes, "the index did not settle after the burst")
	}
	if before.vectors != nil && mid.vectors != nil {
		sec.add("texts embedded for the burst (embeddings table growth)", float64(*mid.vectors-*before.vectors), "", "", "")
	}

	// The restore.
	t1 := time.Now()
	freshCh = b.firstFresh(ctx, t1, b.o.burstTimeout)
	for i, it := range items {
		if err := checkoutWrite(b.abs(it.rel), orig[i]); err != nil {
			sec.Notes = append(sec.Notes, fmt.Sprintf("restoring %s: %v", it.rel, err))
		}
	}
	done, last, lies, errs = b.untilAll(ctx, t1, sample, func(a *answer, it pending) bool { return gone(a, it.rel, it.marker) })
	restoreFresh := <-freshCh // a marker never indexed is "gone" at once: index_status must agree
	sec.add("restore: markers gone", float64(done), "", fmt.Sprintf("%d", len(sample)), verdict(done == len(sample)))
	restoreDur := timedOut
	if done == len(sample) && restoreFresh >= 0 {
		restoreDur = max(last, restoreFresh)
	}
	sec.addDur("restore: write→consistent (markers gone, index_status fresh)", restoreDur, 5*time.Second)
	sec.count("restore: fresh:true answers still showing a marker", lies)
	sec.count("restore: errors", errs)
	if ctx.Err() != nil {
		return sec
	}
	after, settled := b.settle(ctx)
	// The embeddings table is the content-addressed cache (never pruned):
	// its growth is the number of texts the restore embedded. It only
	// counts when the restore was indexed: the generation moved on and
	// the index settled (index_status fresh: every file as on disk).
	switch {
	case mid.vectors == nil || after.vectors == nil:
		sec.add("restore: texts re-embedded", math.NaN(), "", "0", "n/a")
		sec.Notes = append(sec.Notes, "re-embeddings not measurable: index_status has no status.vectors")
	case !settled || after.generation <= mid.generation:
		sec.add("restore: texts re-embedded", math.NaN(), "", "0", "n/a")
		sec.Notes = append(sec.Notes, fmt.Sprintf("re-embeddings not measured: the restore was not indexed (generation %d → %d, index settled %v)", mid.generation, after.generation, settled))
	default:
		re := *after.vectors - *mid.vectors
		sec.add("restore: texts re-embedded", float64(re), "", "0", verdict(re == 0))
		sec.Notes = append(sec.Notes, "re-embeddings = growth of index_status status.vectors (rows of the embeddings table, the content-addressed cache, which is never pruned) from the settled burst to the settled restore")
	}
	if len(after.embedCounters) > 0 {
		sec.Notes = append(sec.Notes, "embedding counters in index_status: "+strings.Join(after.embedCounters, ", "))
	}
	return sec
}

// soakOp is one soak edit.
type soakOp struct {
	kind    string // append, modify, create, delete
	marker  string
	rel     string
	present bool // the marker is in the file after the op
}

// violation is a fresh: true answer that missed an edit.
type violation struct {
	Op     string `json:"op"`
	Marker string `json:"marker"`
	Path   string `json:"path"`
	Want   string `json:"want"`
	Answer string `json:"answer"`
}

// runSoak makes random edits, each followed by a query for its marker,
// and counts fresh answers that miss an edit.
func (b *bench) runSoak(ctx context.Context) *section {
	sec := &section{Name: "soak"}
	type liveMarker struct{ rel, block string }
	live := map[string]liveMarker{}
	var liveList []string            // markers in live, for random picks
	created := map[string][]string{} // new file → its markers
	var createdList []string
	type deadMarker struct{ rel, marker string }
	var dead []deadMarker
	removeLive := func(m string) {
		delete(live, m)
		if i := slices.Index(liveList, m); i >= 0 {
			liveList[i] = liveList[len(liveList)-1]
			liveList = liveList[:len(liveList)-1]
		}
	}
	ops := map[string]int{}
	queries, freshTrue, freshFalse, freshUnknown, errs, misses, opErrs := 0, 0, 0, 0, 0, 0, 0
	var lies []violation
	nLies := 0
	check := func(op, marker, rel string, present bool) {
		a, err := b.watch.retrieve(ctx, marker, b.seen)
		queries++
		if err != nil {
			errs++
			return
		}
		ok := found(a, rel, marker)
		if !present {
			ok = !shows(a, marker)
		}
		if !ok {
			misses++
		}
		switch {
		case a.Fresh == nil:
			freshUnknown++
		case !*a.Fresh:
			freshFalse++
		default:
			freshTrue++
			if !ok {
				nLies++
				if len(lies) < 5 {
					want := "present"
					if !present {
						want = "absent"
					}
					lies = append(lies, violation{Op: op, Marker: marker, Path: rel, Want: want, Answer: a.brief()})
				}
			}
		}
	}
	for i := range b.o.soak {
		if ctx.Err() != nil {
			break
		}
		kind := "append"
		switch r := b.rng.IntN(100); {
		case r < 35:
		case r < 60:
			kind = "modify"
		case r < 80:
			kind = "create"
		default:
			kind = "delete"
		}
		if (kind == "modify" || kind == "delete") && len(liveList) == 0 {
			kind = "append"
		}
		var done []soakOp
		var err error
		switch kind {
		case "append":
			rel, m := b.files[b.rng.IntN(len(b.files))], b.marker()
			bl := block(m, "soak append", i)
			if err = appendTo(b.abs(rel), bl); err == nil {
				live[m] = liveMarker{rel, bl}
				liveList = append(liveList, m)
				done = append(done, soakOp{kind, m, rel, true})
			}
		case "create":
			m := b.marker()
			bl := block(m, "soak new file", i)
			var rel, clause string
			if rel, clause, err = b.newFile(m); err == nil {
				if err = os.WriteFile(b.abs(rel), []byte(clause+bl), 0o644); err == nil {
					live[m] = liveMarker{rel, bl}
					liveList = append(liveList, m)
					created[rel] = []string{m}
					createdList = append(createdList, rel)
					done = append(done, soakOp{kind, m, rel, true})
				}
			}
		case "modify":
			old := liveList[b.rng.IntN(len(liveList))]
			lm := live[old]
			m := b.marker()
			bl := block(m, "soak modify", i)
			if err = replaceIn(b.abs(lm.rel), lm.block, bl); err == nil {
				removeLive(old)
				dead = append(dead, deadMarker{lm.rel, old})
				live[m] = liveMarker{lm.rel, bl}
				liveList = append(liveList, m)
				if ms, ok := created[lm.rel]; ok {
					created[lm.rel] = append(ms, m)
				}
				done = append(done, soakOp{kind, m, lm.rel, true}, soakOp{kind, old, lm.rel, false})
			}
		case "delete":
			if len(createdList) > 0 && b.rng.IntN(2) == 0 {
				k := b.rng.IntN(len(createdList))
				rel := createdList[k]
				if err = os.Remove(b.abs(rel)); err == nil {
					createdList = slices.Delete(createdList, k, k+1)
					for _, m := range created[rel] {
						if _, ok := live[m]; ok {
							removeLive(m)
							dead = append(dead, deadMarker{rel, m})
							done = append(done, soakOp{kind, m, rel, false})
						}
					}
					delete(created, rel)
				}
				break
			}
			m := liveList[b.rng.IntN(len(liveList))]
			lm := live[m]
			if _, isNew := created[lm.rel]; isNew {
				kind = "delete (function of a new file)"
			}
			if err = replaceIn(b.abs(lm.rel), lm.block, ""); err == nil {
				removeLive(m)
				dead = append(dead, deadMarker{lm.rel, m})
				done = append(done, soakOp{kind, m, lm.rel, false})
			}
		}
		if err != nil {
			opErrs++
			if opErrs <= 3 {
				sec.Notes = append(sec.Notes, fmt.Sprintf("%s: %v", kind, err))
			}
			continue
		}
		ops[strings.Fields(kind)[0]]++
		// The edit's own marker first, at once; then, now and then, an
		// earlier edit's.
		for _, op := range done {
			check(op.kind, op.marker, op.rel, op.present)
		}
		if b.rng.IntN(5) == 0 {
			if len(dead) > 0 && b.rng.IntN(2) == 0 {
				d := dead[b.rng.IntN(len(dead))]
				check("earlier delete", d.marker, d.rel, false)
			} else if len(liveList) > 0 {
				m := liveList[b.rng.IntN(len(liveList))]
				check("earlier edit", m, live[m].rel, true)
			}
		}
		if b.o.soakThink > 0 {
			sleepCtx(ctx, b.o.soakThink)
		}
	}
	sec.add("edits", float64(ops["append"]+ops["modify"]+ops["create"]+ops["delete"]), "", "", "")
	sec.Notes = append(sec.Notes, fmt.Sprintf("edits by kind: append %d, modify %d, create %d, delete %d", ops["append"], ops["modify"], ops["create"], ops["delete"]))
	sec.add("queries", float64(queries), "", "", "")
	sec.count("fresh:true answers missing an earlier edit", nLies)
	sec.add("fresh:true answers", float64(freshTrue), "", "", "")
	sec.add("fresh:false answers", float64(freshFalse), "", "", "")
	sec.add("answers without a fresh flag", float64(freshUnknown), "", "0", verdict(freshUnknown == 0))
	sec.add("answers missing the edit (any freshness)", float64(misses), "", "", "")
	sec.count("errors", errs)
	sec.count("edits that could not be made", opErrs)
	sec.Violations = lies
	for _, v := range lies {
		sec.Notes = append(sec.Notes, fmt.Sprintf("fresh:true but %s %s in %s (%s): %s", v.Marker, v.Want, v.Path, v.Op, v.Answer))
	}
	return sec
}

// replaceIn replaces the first old in a file with new.
func replaceIn(path, old, new string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(data)
	if !strings.Contains(s, old) {
		return fmt.Errorf("%s no longer holds the block it was given", path)
	}
	return os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o644)
}

// runCached times the same call many times after a warm-up.
func (b *bench) runCached(ctx context.Context) *section {
	sec := &section{Name: "cached query"}
	if _, ok := b.settle(ctx); !ok {
		sec.Notes = append(sec.Notes, "the index had not settled: the cache may be cold between generations")
	}
	for range 10 {
		b.watch.retrieve(ctx, b.o.query, b.seen)
	}
	var client, server, search []time.Duration
	hits, flags, errs := 0, 0, 0
	var flagName string
	for range b.o.cached {
		if ctx.Err() != nil {
			break
		}
		t0 := time.Now()
		a, err := b.watch.retrieve(ctx, b.o.query, b.seen)
		d := time.Since(t0)
		if err != nil {
			errs++
			continue
		}
		client = append(client, d)
		if a.ServerMS != nil {
			server = append(server, ms(*a.ServerMS))
		}
		if a.SearchMS != nil {
			search = append(search, ms(*a.SearchMS))
		}
		if a.CacheHit != nil {
			flags++
			flagName = a.CacheFlag
			if *a.CacheHit {
				hits++
			}
		}
	}
	sec.add("calls", float64(len(client)), "", "", "")
	sec.addDur("client p50", pct(client, 50), 0)
	sec.addDur("client p95", pct(client, 95), 0)
	if len(server) > 0 {
		sec.addDur("server p50 (stats.server_ms)", pct(server, 50), 200*time.Microsecond)
		sec.addDur("server p95 (stats.server_ms)", pct(server, 95), 0)
	} else {
		sec.add("server p50", math.NaN(), "", "≤ 0.2ms", "n/a")
		sec.Notes = append(sec.Notes, "the answers carry no stats.server_ms")
	}
	if len(search) > 0 {
		sec.addDur("search p50 (stats.search_ms)", pct(search, 50), 0)
	}
	if flags > 0 {
		sec.add("cache hits ("+flagName+")", float64(hits), "", fmt.Sprintf("%d", flags), "")
	} else {
		sec.Notes = append(sec.Notes, "no cache-hit flag in stats (looked for "+strings.Join(cacheFlags, ", ")+")")
	}
	sec.count("errors", errs)
	return sec
}

// cpuOver waits d and returns each server's CPU use over it, in percent
// of one core, and the window's length in seconds.
func cpuOver(ctx context.Context, servers []*server, d time.Duration) ([]float64, float64) {
	tick := clockTick()
	t0 := time.Now()
	before := make([]int64, len(servers))
	for i, s := range servers {
		before[i] = cpuTicks(s.pid())
	}
	sleepCtx(ctx, d)
	wall := time.Since(t0).Seconds()
	cpu := make([]float64, len(servers))
	for i, s := range servers {
		after := cpuTicks(s.pid())
		cpu[i] = math.NaN()
		if before[i] >= 0 && after >= 0 {
			cpu[i] = float64(after-before[i]) / tick / wall * 100
		}
	}
	return cpu, wall
}

// runIdle lets both servers idle and reads their CPU time and RSS.
func (b *bench) runIdle(ctx context.Context, noWatch *server) *section {
	sec := &section{Name: "idle cost"}
	if _, ok := b.settle(ctx); !ok {
		sec.Notes = append(sec.Notes, "the index had not settled before the idle window")
	}
	servers := []*server{b.watch}
	if noWatch != nil {
		servers = append(servers, noWatch)
	}
	if b.o.settle > 0 {
		cpu, wall := cpuOver(ctx, servers, b.o.settle)
		sec.add("settling window (deferred maintenance)", wall, "s", "", "")
		sec.add("watch server CPU while settling (informational)", cpu[0], "%", "", "")
	}
	cpu, wall := cpuOver(ctx, servers, b.o.idle)
	mem := make([]memory, len(servers))
	for i, s := range servers {
		mem[i] = readMem(s.pid())
	}
	sec.add("idle window", wall, "s", "", "")
	v := "n/a"
	if !math.IsNaN(cpu[0]) {
		v = verdict(cpu[0] < 1)
	}
	sec.add("watch server CPU", cpu[0], "%", "< 1%", v)
	sec.add("watch server RSS", float64(mem[0].RSSKB)/1024, "MB", "", "")
	base := b.sum.Baseline
	if noWatch == nil {
		sec.add("watcher's extra RSS", math.NaN(), "MB", "≤ 30 MB", "n/a")
		sec.Notes = append(sec.Notes, "no --no-watch server to compare with: "+firstLine(b.sum.NoWatchError))
		return sec
	}
	sec.add("no-watch server CPU", cpu[1], "%", "", "")
	sec.add("no-watch server RSS", float64(mem[1].RSSKB)/1024, "MB", "", "")
	extra := float64(mem[0].RSSKB-mem[1].RSSKB) / 1024
	sec.add("watcher's extra RSS after the run (informational)", extra, "MB", "", "")
	if w, n := base["watch"], base["noWatch"]; w.RSSKB > 0 && n.RSSKB > 0 {
		d := float64(w.RSSKB-n.RSSKB) / 1024
		sec.add("watcher's extra RSS at the start (after the same warm-up)", d, "MB", "≤ 30 MB", verdict(d <= 30))
	}
	sec.add("watcher's extra CPU", cpu[0]-cpu[1], "%", "", "")
	sec.Notes = append(sec.Notes, "the target applies to the start's difference (both servers fresh and warmed the same way: the watcher alone); the run's also holds what the watch server's index runs left on its heap")
	return sec
}

// serverLogs reports panics and races in the servers' logs.
func (b *bench) serverLogs(noWatch *server) *section {
	sec := &section{Name: "server logs"}
	for _, s := range []*server{b.watch, noWatch} {
		if s == nil {
			continue
		}
		data, _ := os.ReadFile(s.logPath)
		bad := bytes.Contains(data, []byte("panic:")) || bytes.Contains(data, []byte("DATA RACE"))
		sec.add(s.name+" server log free of panics and races", boolNum(!bad), "", "yes", verdict(!bad))
		if s.exitedEarly() {
			sec.add(s.name+" server still running", 0, "", "yes", "FAIL")
		}
		if b.o.keep {
			sec.Notes = append(sec.Notes, s.name+" log: "+s.logPath)
		}
	}
	return sec
}

// server is a `ctx serve` process and a client session with it.
type server struct {
	name     string
	cmd      *exec.Cmd
	waitDone chan struct{} // closed when the process has exited
	logPath  string
	logFile  *os.File
	cs       *mcp.ClientSession
	stopped  bool
}

func startServer(ctx context.Context, name, bin string, env []string, repo, tmp string, extra []string) (*server, error) {
	addr, err := ctxproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, logPath: filepath.Join(tmp, "serve-"+name+".log"), waitDone: make(chan struct{})}
	if s.logFile, err = os.Create(s.logPath); err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--http", addr, "--repo", repo}, extra...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = s.logFile, s.logFile
	if err := s.cmd.Start(); err != nil {
		s.logFile.Close()
		return nil, err
	}
	exited := make(chan error, 1)
	go func() {
		exited <- s.cmd.Wait()
		close(s.waitDone)
	}()
	base := "http://" + addr
	if err := ctxproc.WaitHealthy(base, exited, 60*time.Second); err != nil {
		s.stop()
		log, _ := os.ReadFile(s.logPath)
		return nil, fmt.Errorf("%v: %s", err, bytes.TrimSpace(log))
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-fresh-" + name, Version: "1"}, nil)
	s.cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		s.stop()
		return nil, err
	}
	logf("ctx %s (pid %d)", strings.Join(args, " "), s.cmd.Process.Pid)
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// exitedEarly says whether the process ended before stop.
func (s *server) exitedEarly() bool {
	select {
	case <-s.waitDone:
		return true
	default:
		return false
	}
}

// stop interrupts the server and kills it if it has not exited in 10 s.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	if s.cs != nil {
		s.cs.Close()
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.waitDone:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.waitDone
		logf("%s server did not exit within 10s of an interrupt; killed", s.name)
	}
	s.logFile.Close()
}

// answer is what the bench reads of a codebase_retrieval result. Fields
// that the server may not send yet are pointers or empty: absent means
// unknown.
type answer struct {
	Segments   []segment `json:"segments"`
	Fresh      *bool     `json:"-"`
	IndexState string    `json:"-"`
	Stale      string    `json:"-"` // the stale note, as text
	ServerMS   *float64  `json:"-"`
	SearchMS   *float64  `json:"-"`
	CacheHit   *bool     `json:"-"`
	CacheFlag  string    `json:"-"`
}

type segment struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Code      string `json:"code"`
	Stale     bool   `json:"stale"`
}

// brief describes an answer in one line.
func (a *answer) brief() string {
	var paths []string
	for _, sg := range a.Segments {
		paths = append(paths, fmt.Sprintf("%s:%d-%d", sg.Path, sg.StartLine, sg.EndLine))
	}
	s := fmt.Sprintf("%d segments [%s]", len(a.Segments), strings.Join(paths, " "))
	if a.IndexState != "" {
		s += " index_state=" + a.IndexState
	}
	return s
}

// cacheFlags are the stats fields read as a cache-hit flag.
var cacheFlags = []string{"cache_hit", "cached", "cache"}

// retrieve calls codebase_retrieval for q in quick mode and records the
// answer's freshness fields in sn (when not nil).
func (s *server) retrieve(ctx context.Context, q string, sn *seen) (*answer, error) {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": q, "mode": "quick"}})
	if err == nil && res.IsError {
		err = fmt.Errorf("isError: %s", firstLine(text(res)))
	}
	if err == nil && res.StructuredContent == nil {
		err = errors.New("no structured content")
	}
	var a answer
	var raw struct {
		Stats     map[string]any `json:"stats"`
		Freshness map[string]any `json:"freshness"`
	}
	if err == nil {
		if err = remarshal(res.StructuredContent, &a); err == nil {
			err = remarshal(res.StructuredContent, &raw)
		}
	}
	if err != nil {
		if sn != nil && ctx.Err() == nil {
			sn.error(err)
		}
		return nil, err
	}
	where := "absent"
	if v, ok := raw.Stats["fresh"].(bool); ok {
		a.Fresh, where = &v, "stats.fresh"
	} else if v, ok := raw.Freshness["fresh"].(bool); ok {
		a.Fresh, where = &v, "freshness.fresh"
	}
	for _, m := range []map[string]any{raw.Stats, raw.Freshness} {
		if v, ok := m["index_state"].(string); ok && a.IndexState == "" {
			a.IndexState = v
		}
		if v, ok := m["stale"]; ok && a.Stale == "" && v != nil && v != false && v != "" {
			b, _ := json.Marshal(v)
			a.Stale = string(b)
		}
	}
	if v, ok := raw.Stats["server_ms"].(float64); ok {
		a.ServerMS = &v
	}
	if v, ok := raw.Stats["search_ms"].(float64); ok {
		a.SearchMS = &v
	}
	for _, f := range cacheFlags {
		if v, ok := raw.Stats[f].(bool); ok {
			a.CacheHit, a.CacheFlag = &v, "stats."+f
			break
		}
	}
	if sn != nil {
		sn.answer(&a, where)
	}
	return &a, nil
}

// indexStatus is what the bench reads of index_status.
type indexStatus struct {
	fresh         *bool
	indexing      bool // a run is in progress (status.indexing or a job's phase)
	generation    int64
	vectors       *int
	embedCounters []string // numeric fields whose name mentions "embed", as path=value
}

func (st indexStatus) settled() bool { return st.fresh != nil && *st.fresh && !st.indexing }

func (s *server) status(ctx context.Context) (indexStatus, error) {
	var st indexStatus
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}})
	if err != nil {
		return st, err
	}
	if res.IsError {
		return st, errors.New(text(res))
	}
	var raw map[string]any
	if err := remarshal(res.StructuredContent, &raw); err != nil {
		return st, err
	}
	if v, ok := raw["fresh"].(bool); ok {
		st.fresh = &v
	}
	if job, ok := raw["indexing"].(map[string]any); ok {
		if p, _ := job["phase"].(string); p == "scanning" || p == "indexing" {
			st.indexing = true
		}
	}
	if sm, ok := raw["status"].(map[string]any); ok {
		if v, _ := sm["indexing"].(bool); v {
			st.indexing = true
		}
		if v, ok := sm["generation"].(float64); ok {
			st.generation = int64(v)
		}
		if v, ok := sm["vectors"].(float64); ok {
			n := int(v)
			st.vectors = &n
		}
	}
	walkNumbers(raw, "", func(path string, v float64) {
		if strings.Contains(strings.ToLower(path[strings.LastIndex(path, ".")+1:]), "embed") {
			st.embedCounters = append(st.embedCounters, fmt.Sprintf("%s=%g", path, v))
		}
	})
	return st, nil
}

// walkNumbers calls f for each number in v, with its dotted path.
func walkNumbers(v any, path string, f func(string, float64)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkNumbers(x, p, f)
		}
	case float64:
		f(path, v)
	}
}

// seen counts what the answers carried, so the report can say which of
// the fields the bench reads exist yet.
type seen struct {
	mu         sync.Mutex // guards the fields below
	freshIn    map[string]int
	states     map[string]int
	staleNotes int
	staleEx    string
	cacheFlag  map[string]int
	errors     map[string]int
}

func newSeen() *seen {
	return &seen{freshIn: map[string]int{}, states: map[string]int{}, cacheFlag: map[string]int{}, errors: map[string]int{}}
}

func (sn *seen) answer(a *answer, where string) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	sn.freshIn[where]++
	if a.IndexState != "" {
		sn.states[a.IndexState]++
	}
	if a.Stale != "" {
		sn.staleNotes++
		if sn.staleEx == "" {
			sn.staleEx = a.Stale
		}
	}
	if a.CacheFlag != "" {
		sn.cacheFlag[a.CacheFlag]++
	}
}

func (sn *seen) error(err error) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	sn.errors[firstLine(err.Error())]++
}

// interfaceReport is the "interface" part of the summary.
type interfaceReport struct {
	FreshField   map[string]int `json:"freshField"`
	IndexStates  map[string]int `json:"indexStates"`
	StaleNotes   int            `json:"staleNotes"`
	StaleExample string         `json:"staleExample,omitempty"`
	CacheFlag    map[string]int `json:"cacheFlag"`
	Errors       map[string]int `json:"errors"`
}

func (sn *seen) report() interfaceReport {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return interfaceReport{FreshField: sn.freshIn, IndexStates: sn.states, StaleNotes: sn.staleNotes, StaleExample: sn.staleEx, CacheFlag: sn.cacheFlag, Errors: sn.errors}
}

// summary is the whole run, printed as tables or JSON.
type summary struct {
	Corpus        string            `json:"corpus"`
	CorpusFiles   int               `json:"corpusFiles"`
	IndexedFiles  float64           `json:"indexedFiles"`
	IndexSeconds  float64           `json:"indexSeconds"`
	IndexEmbedded float64           `json:"indexEmbedded"`
	Binary        string            `json:"binary"`
	ServeArgs     []string          `json:"serveArgs,omitempty"`
	Seed          uint64            `json:"seed"`
	NoWatchError  string            `json:"noWatchError,omitempty"`
	Baseline      map[string]memory `json:"baselineMemory"`
	Interface     interfaceReport   `json:"interface"`
	Sections      []*section        `json:"sections"`
	Pass          bool              `json:"pass"`
}

// section is one phase's figures.
type section struct {
	Name       string      `json:"name"`
	Skipped    bool        `json:"skipped,omitempty"`
	Metrics    []metric    `json:"metrics,omitempty"`
	Notes      []string    `json:"notes,omitempty"`
	Violations []violation `json:"violations,omitempty"`
}

// metric is one figure, with its target and verdict when it has one.
// Value is null when it could not be measured; durations are in ms, and
// a timed-out one is null with Text "timeout".
type metric struct {
	Name    string   `json:"name"`
	Value   *float64 `json:"value"`
	Unit    string   `json:"unit,omitempty"`
	Text    string   `json:"text"`
	Target  string   `json:"target,omitempty"`
	Verdict string   `json:"verdict,omitempty"` // PASS, FAIL or n/a
}

func (s *section) add(name string, v float64, unit, target, verdict string) {
	m := metric{Name: name, Unit: unit, Target: target, Verdict: verdict}
	switch {
	case math.IsNaN(v):
		m.Text = "not measurable"
	case unit != "%" && v == math.Trunc(v) && math.Abs(v) < 1e15:
		m.Value, m.Text = &v, strconv.FormatFloat(v, 'f', 0, 64)
	default:
		m.Value, m.Text = &v, strconv.FormatFloat(v, 'f', 2, 64)
	}
	if unit != "" && m.Value != nil {
		m.Text += " " + unit
	}
	s.Metrics = append(s.Metrics, m)
}

// count adds a count whose target is zero.
func (s *section) count(name string, n int) {
	s.add(name, float64(n), "", "0", verdict(n == 0))
}

// addDur adds a duration with target "≤ target" (none when 0).
func (s *section) addDur(name string, d, target time.Duration) {
	m := metric{Name: name, Unit: "ms"}
	if target > 0 {
		m.Target = "≤ " + fmtDur(target)
		m.Verdict = verdict(d != timedOut && d <= target)
	}
	if d == timedOut {
		m.Text = "timeout"
	} else if d >= 0 {
		v := float64(d.Microseconds()) / 1000
		m.Value, m.Text = &v, fmtDur(d)
	} else {
		m.Text = "-"
		m.Verdict = ""
		if target > 0 {
			m.Verdict = "n/a"
		}
	}
	s.Metrics = append(s.Metrics, m)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// timedOut stands for a wait that gave up, in duration lists: it sorts
// last, so percentiles that reach it read "timeout".
const timedOut = time.Duration(math.MaxInt64)

func orTimeout(d time.Duration) time.Duration {
	if d < 0 {
		return timedOut
	}
	return d
}

// pct is the p-th percentile (nearest rank) of ds; -1 when ds is empty.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*p/100)) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d.Nanoseconds())/1e6, 'f', 3, 64) + "ms"
	case d < time.Second:
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func printReport(w io.Writer, sum *summary) {
	fmt.Fprintf(w, "bench-fresh: %s, copy of %s (%d files; %.0f indexed in %.1fs, %.0f texts embedded), seed %d\n",
		sum.Binary, sum.Corpus, sum.CorpusFiles, sum.IndexedFiles, sum.IndexSeconds, sum.IndexEmbedded, sum.Seed)
	for _, s := range sum.Sections {
		fmt.Fprintf(w, "\n== %s", s.Name)
		if s.Skipped {
			fmt.Fprintln(w, ": skipped")
			continue
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  metric\tvalue\ttarget\tverdict")
		for _, m := range s.Metrics {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Name, m.Text, m.Target, m.Verdict)
		}
		tw.Flush()
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	in := sum.Interface
	fmt.Fprintln(w, "\n== interface (what the answers carried)")
	fmt.Fprintf(w, "  fresh flag: %s\n", counts(in.FreshField, "no answers"))
	fmt.Fprintf(w, "  index_state: %s\n", counts(in.IndexStates, "never present"))
	if in.StaleNotes > 0 {
		fmt.Fprintf(w, "  stale note: in %d answers, e.g. %s\n", in.StaleNotes, in.StaleExample)
	} else {
		fmt.Fprintln(w, "  stale note: never present (stats.stale / freshness.stale)")
	}
	fmt.Fprintf(w, "  cache-hit flag: %s\n", counts(in.CacheFlag, "never present"))
	if len(in.Errors) > 0 {
		fmt.Fprintf(w, "  call errors: %s\n", counts(in.Errors, ""))
	}
	if sum.Pass {
		fmt.Fprintln(w, "\nresult: every target PASSED")
	} else {
		fmt.Fprintln(w, "\nresult: some targets FAILED")
	}
}

func counts(m map[string]int, none string) string {
	if len(m) == 0 {
		return none
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// memory is a process's resident memory in kB.
type memory struct {
	RSSKB  int `json:"rssKB"`
	AnonKB int `json:"anonKB"`
}

func readMem(pid int) memory {
	kb, err := ctxproc.MemKB(pid)
	if err != nil {
		return memory{}
	}
	return memory{RSSKB: kb["VmRSS"], AnonKB: kb["RssAnon"]}
}

// cpuTicks is a process's user plus system CPU time from /proc (Linux),
// in clock ticks; -1 when unreadable.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name may hold spaces: fields start after its ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64) // utime, field 14
	k, err2 := strconv.ParseInt(f[12], 10, 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return -1
	}
	return u + k
}

// clockTick is the kernel's USER_HZ (getconf CLK_TCK), 100 when unknown.
func clockTick() float64 {
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			return v
		}
	}
	return 100
}

func remarshal(v, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// sleepCtx sleeps for d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
