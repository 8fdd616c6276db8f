// Command soak-mcp soaks `ctx serve` as many agents and a busy developer
// would: it copies a repository (default: the Go standard library's net
// package), indexes the copy, serves it with `ctx serve --http` on a free
// loopback port, and runs concurrent MCP clients (the Go SDK's streamable
// HTTP client) that call codebase_retrieval, get_symbol_definition,
// find_references, list_files and index_status, while another goroutine
// appends functions to files of the copy and runs `ctx index` and
// `ctx index --rebuild` as separate processes. It reports calls that
// failed (protocol or transport errors), isError results grouped by
// message, the latency of calls (p50/p95/max, overall and per tool), each
// index run, and the server's RSS.
//
//	go build -o bin/ctx ./cmd/ctx
//	go run ./scripts/soak-mcp -ctx bin/ctx
//	go run ./scripts/soak-mcp -ctx bin/ctx -src ~/src/project -clients 40 -calls 200 -runs 8
//
// The server and the index runs get a private cache directory, and the
// copy is removed at the end (-keep keeps both). CTX_* settings in the
// environment (the embedding provider, say) pass through. Exit status 1
// means a call failed or an index run did not succeed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

func main() {
	ctxBin := flag.String("ctx", "ctx", "ctx binary")
	src := flag.String("src", "", "repository to copy and serve (default: $(go env GOROOT)/src/net)")
	clients := flag.Int("clients", 20, "concurrent MCP clients")
	calls := flag.Int("calls", 50, "calls per client")
	runs := flag.Int("runs", 4, "index runs during the calls, alternating `ctx index` and `ctx index --rebuild`")
	edits := flag.Int("edits", 5, "files edited before each index run")
	pause := flag.Duration("pause", 500*time.Millisecond, "pause between index runs")
	think := flag.Duration("think", 100*time.Millisecond, "mean pause of a client between its calls (uniform in 0..2x), so the calls span the index runs")
	autoIndex := flag.Bool("auto-index", false, "let the server start index runs of its own (off: only this program's runs write the index)")
	seed := flag.Uint64("seed", 0, "random seed for the edits (default: the time)")
	keep := flag.Bool("keep", false, "keep the copy and its cache")
	flag.Parse()
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	if *src == "" {
		*src = filepath.Join(ctxproc.GoRoot(), "src", "net")
	}

	tmp, err := os.MkdirTemp("", "soak-mcp-")
	if err != nil {
		log.Fatal(err)
	}
	if *keep {
		log.Printf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	repo, cache := filepath.Join(tmp, "repo"), filepath.Join(tmp, "cache")
	nfiles, err := ctxproc.CopyTree(context.Background(), *src, repo)
	if err != nil {
		log.Fatalf("copying %s: %v", *src, err)
	}
	env := append(os.Environ(), "CTX_CACHE_DIR="+cache)
	fmt.Printf("repository: copy of %s (%d files) in %s\n", *src, nfiles, repo)

	first := runIndex(*ctxBin, env, repo, false)
	if first.err != nil {
		log.Fatalf("first index: %v\n%s", first.err, first.out)
	}
	fmt.Printf("first index: %v\n", first.dur.Round(time.Millisecond))

	addr, err := ctxproc.FreeAddr()
	if err != nil {
		log.Fatal(err)
	}
	args := []string{"serve", "--http", addr, "--repo", repo}
	if !*autoIndex {
		args = append(args, "--no-auto-index")
	}
	serve := exec.Command(*ctxBin, args...)
	serve.Env = env
	var serveLog bytes.Buffer
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	if err := serve.Start(); err != nil {
		log.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	base := "http://" + addr
	if err := ctxproc.WaitHealthy(base, exited, 60*time.Second); err != nil {
		log.Fatalf("%v\n%s", err, serveLog.Bytes())
	}
	rssStart := rss(serve.Process.Pid)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The editor: edit, index, pause, until the runs are done or the
	// clients are.
	var indexRuns []indexRun
	editorDone := make(chan struct{})
	go func() {
		defer close(editorDone)
		rng := rand.New(rand.NewPCG(*seed, 0))
		goFiles := listGoFiles(repo)
		for i := 0; i < *runs && ctx.Err() == nil; i++ {
			if err := editFiles(rng, goFiles, *edits, i); err != nil {
				log.Printf("editing: %v", err)
			}
			r := runIndex(*ctxBin, env, repo, i%2 == 1)
			indexRuns = append(indexRuns, r)
			select {
			case <-ctx.Done():
			case <-time.After(*pause):
			}
		}
	}()

	results := make([][]callResult, *clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range *clients {
		wg.Go(func() { results[c] = runClient(ctx, base, c, *calls, *think, *seed) })
	}
	wg.Wait()
	callsDur := time.Since(start)
	cancel()
	<-editorDone
	rssEnd := rss(serve.Process.Pid)

	serve.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		if err != nil {
			log.Printf("ctx serve exited with %v after an interrupt", err)
		}
	case <-time.After(10 * time.Second):
		serve.Process.Kill()
		log.Printf("ctx serve did not exit within 10s of an interrupt")
	}

	failed := report(results, indexRuns, callsDur, *clients, *calls)
	fmt.Printf("server RSS: %s at the start, %s at the end\n", rssStart, rssEnd)
	if bytes.Contains(serveLog.Bytes(), []byte("panic")) || bytes.Contains(serveLog.Bytes(), []byte("DATA RACE")) {
		fmt.Printf("server log:\n%s\n", serveLog.Bytes())
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}

// callResult is one tool call as a client saw it.
type callResult struct {
	tool    string
	start   time.Time
	dur     time.Duration
	err     error  // protocol or transport failure
	isError string // the text of an isError result
}

// queries are questions about the net package; others still exercise
// the server, with weaker answers.
var queries = []string{
	"dial a TCP connection with a timeout",
	"parse an IPv6 address with a zone",
	"look up the MX records of a domain",
	"how does the resolver read /etc/resolv.conf",
	"set keep-alive on a TCP connection",
	"split a host and port string",
	"listen on a unix domain socket",
	"happy eyeballs fallback between IPv4 and IPv6",
}

var symbols = []string{"Dial", "ParseIP", "LookupHost", "SplitHostPort", "Resolver", "TCPConn", "Listen", "IPNet"}

// runClient connects one MCP client and makes its calls.
func runClient(ctx context.Context, base string, c, calls int, think time.Duration, seed uint64) []callResult {
	out := make([]callResult, 0, calls)
	rng := rand.New(rand.NewPCG(seed, uint64(c)+1))
	client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("soak-%d", c), Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		for range calls {
			out = append(out, callResult{tool: "connect", err: err})
		}
		return out
	}
	defer cs.Close()
	for i := range calls {
		if think > 0 {
			time.Sleep(time.Duration(rng.Int64N(2 * int64(think))))
		}
		k := c + i
		var p mcp.CallToolParams
		switch i % 5 {
		case 0:
			p = mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": queries[k%len(queries)]}}
		case 1:
			p = mcp.CallToolParams{Name: "get_symbol_definition", Arguments: map[string]any{"symbol": symbols[k%len(symbols)]}}
		case 2:
			p = mcp.CallToolParams{Name: "find_references", Arguments: map[string]any{"symbol": symbols[k%len(symbols)], "max_results": 20}}
		case 3:
			p = mcp.CallToolParams{Name: "list_files", Arguments: map[string]any{"glob": "*.go", "max_results": 50}}
		case 4:
			p = mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}}
		}
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &p)
		r := callResult{tool: p.Name, start: t0, dur: time.Since(t0), err: err}
		if err == nil && res.IsError {
			r.isError = text(res)
			if r.isError == "" {
				r.isError = "(no text)"
			}
		}
		if err == nil && !res.IsError && res.StructuredContent == nil {
			r.err = errors.New("a result with no structured content")
		}
		out = append(out, r)
	}
	return out
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

var (
	reTmp    = regexp.MustCompile(`/[^\s'"` + "`" + `]*soak-mcp-[^\s'"` + "`" + `]*`)
	reNumber = regexp.MustCompile(`\d+(\.\d+)?`)
	reQuoted = regexp.MustCompile(`"[^"]*"`)
)

// messageKind groups isError texts and errors: the first line, with
// paths under the soak's directory, quoted names and numbers blanked out.
func messageKind(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = reTmp.ReplaceAllString(s, "<repo>")
	s = reQuoted.ReplaceAllString(s, `"…"`)
	s = reNumber.ReplaceAllString(s, "N")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// report prints the figures and says whether anything failed.
func report(results [][]callResult, runs []indexRun, callsDur time.Duration, clients, calls int) (failed bool) {
	var all []callResult
	for _, rs := range results {
		all = append(all, rs...)
	}
	byTool := map[string][]time.Duration{}
	var durs []time.Duration
	errs, isErrs := map[string]int{}, map[string]int{}
	nErr, nIsErr := 0, 0
	for _, r := range all {
		switch {
		case r.err != nil:
			nErr++
			errs[r.tool+": "+messageKind(r.err.Error())]++
		case r.isError != "":
			nIsErr++
			isErrs[r.tool+": "+messageKind(r.isError)]++
		}
		if r.err == nil {
			durs = append(durs, r.dur)
			byTool[r.tool] = append(byTool[r.tool], r.dur)
		}
	}
	fmt.Printf("calls: %d (%d clients x %d) in %v, %.0f calls/s\n", len(all), clients, calls, callsDur.Round(time.Millisecond), float64(len(all))/callsDur.Seconds())
	fmt.Printf("failed calls (protocol or transport errors): %d\n", nErr)
	printCounts(errs)
	fmt.Printf("isError results: %d\n", nIsErr)
	printCounts(isErrs)
	fmt.Printf("latency of answered calls: p50 %s  p95 %s  max %s\n", pct(durs, 50), pct(durs, 95), pct(durs, 100))
	tools := make([]string, 0, len(byTool))
	for t := range byTool {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		d := byTool[t]
		fmt.Printf("  %-22s n=%-4d p50 %-8s p95 %-8s max %s\n", t, len(d), pct(d, 50), pct(d, 95), pct(d, 100))
	}
	// The calls that overlapped an index run, and how they fared.
	during := map[string][3]int{} // run kind: calls, failed, isError
	for _, c := range all {
		for _, r := range runs {
			if c.start.Before(r.start.Add(r.dur)) && r.start.Before(c.start.Add(c.dur)) {
				n := during[r.name]
				n[0]++
				if c.err != nil {
					n[1]++
				} else if c.isError != "" {
					n[2]++
				}
				during[r.name] = n
				break
			}
		}
	}
	for _, name := range []string{"ctx index", "ctx index --rebuild"} {
		n := during[name]
		fmt.Printf("calls overlapping a %q run: %d (failed %d, isError %d)\n", name, n[0], n[1], n[2])
	}
	fmt.Printf("index runs started during the calls: %d\n", len(runs))
	for _, r := range runs {
		status := "ok"
		if r.err != nil {
			status = fmt.Sprintf("FAILED: %v: %s", r.err, lastLine(r.out))
			failed = true
		}
		fmt.Printf("  %-24s %8v  %s\n", r.name, r.dur.Round(time.Millisecond), status)
	}
	return failed || nErr > 0
}

func printCounts(m map[string]int) {
	type kv struct {
		k string
		n int
	}
	var list []kv
	for k, n := range m {
		list = append(list, kv{k, n})
	}
	slices.SortFunc(list, func(a, b kv) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.k, b.k)
	})
	for _, e := range list {
		fmt.Printf("  %5d  %s\n", e.n, e.k)
	}
}

// pct is the p-th percentile (nearest rank) of ds, rounded for printing.
func pct(ds []time.Duration, p float64) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	d := s[min(max(i, 0), len(s)-1)]
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// indexRun is one `ctx index` process.
type indexRun struct {
	name  string
	start time.Time
	dur   time.Duration
	err   error
	out   []byte
}

func runIndex(ctxBin string, env []string, repo string, rebuild bool) indexRun {
	args := []string{"index"}
	name := "ctx index"
	if rebuild {
		args = append(args, "--rebuild")
		name = "ctx index --rebuild"
	}
	cmd := exec.Command(ctxBin, append(args, repo)...)
	cmd.Env = env
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	return indexRun{name: name, start: t0, dur: time.Since(t0), err: err, out: out}
}

// editFiles appends a documented function to n random Go files.
func editFiles(rng *rand.Rand, files []string, n, round int) error {
	for i := range n {
		if len(files) == 0 {
			return errors.New("no Go files to edit")
		}
		path := files[rng.IntN(len(files))]
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("soakRetryBudget%d_%d", round, i)
		_, err = fmt.Fprintf(f, "\n// %s returns how many more times a soak client may retry a dial after %d failures.\nfunc %s(failures int) int { return max(%d-failures, 0) }\n", name, round, name, 3+round)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// listGoFiles lists the non-test Go files of a tree that declare a
// package (so appending a function keeps them valid Go).
func listGoFiles(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, string(filepath.Separator)+"testdata"+string(filepath.Separator)) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	return out
}

// rss is a process's VmRSS in MB.
func rss(pid int) string {
	kb, err := ctxproc.MemKB(pid)
	if v, ok := kb["VmRSS"]; err == nil && ok {
		return fmt.Sprintf("%d MB", v/1024)
	}
	return "unavailable"
}
