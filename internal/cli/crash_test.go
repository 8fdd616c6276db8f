//go:build unix

package cli_test

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

// TestCrashCampaign kills child `ctx index` processes with SIGKILL at random
// instants of cold runs, incremental runs after edits, and rebuilds, over
// a copy of Go standard library packages. After each kill the index must
// open and either say it is incomplete (or not indexed yet) or answer
// exactly like a clean index of the same files; after the next `ctx index`
// it must answer like one: the same top-10 files for fixed queries in the
// BM25, dense, symbol and fused channels (score ties aside).
//
// CTX_CRASH_KILLS sets the number of kills (default 10) and
// CTX_CRASH_SEED the seed (default: the time; the test logs it):
//
//	CTX_CRASH_KILLS=200 go test ./internal/cli -run TestCrashCampaign -v -timeout 60m
func TestCrashCampaign(t *testing.T) {
	kills := 10
	if v := os.Getenv("CTX_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CTX_CRASH_KILLS=%q: want a positive number", v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CTX_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CTX_CRASH_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("crash campaign: %d kills, seed %d (CTX_CRASH_SEED=%d reproduces it)", kills, seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	c := newCrashRig(t)
	// Calibrate: how long each kind of run takes to finish here.
	cold := c.timeRun(t, "index", c.root)
	c.edit(t, rng, 12)
	incr := c.timeRun(t, "index", c.root)
	t.Logf("calibration: cold %v, incremental (12 edits) %v", cold, incr)

	var tries, landed int
	for i := 0; tries < kills; i++ {
		kind := []string{"cold", "incremental", "rebuild"}[i%3]
		args := []string{"index", c.root}
		dur := incr
		switch kind {
		case "cold":
			c.clear(t)
			dur = cold
		case "incremental":
			c.edit(t, rng, 5+rng.IntN(20))
		case "rebuild":
			c.edit(t, rng, rng.IntN(4))
			args = []string{"index", "--rebuild", c.root}
			dur = cold + cold/4
		}
		at := time.Duration(rng.Int64N(int64(dur) + int64(dur)/10))
		tries++
		if c.killAt(t, at, args...) {
			landed++
		}
		label := fmt.Sprintf("kill %d (%s run at %v)", tries, kind, at.Round(time.Millisecond))
		want := c.reference(t)
		c.checkAfterKill(t, label, kind, want)
		c.mustRun(t, "index", c.root)
		c.checkComplete(t, label+", then ctx index", want)
	}
	t.Logf("crash campaign: %d kills tried, %d landed while the run was writing; every one recovered (seed %d)", tries, landed, seed)
}

// crashRig is the repository copy, the cache the child processes index
// into, and the ctx executable.
type crashRig struct {
	exe   string // the test binary, named ctx
	root  string
	cache string
	refs  string // cache directory of the clean reference indexes
	n     int    // edits made, for unique names
	ref   map[string][]fileHit
	state string // the files' state the reference was built for
}

func newCrashRig(t *testing.T) *crashRig {
	t.Helper()
	goroot := runtime.GOROOT()
	src := filepath.Join(goroot, "src", "encoding")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no Go standard library sources at %s", src)
	}
	c := &crashRig{root: filepath.Join(t.TempDir(), "repo"), cache: t.TempDir(), refs: t.TempDir()}
	for _, pkg := range []string{"json", "xml", "csv", "base64", "hex", "binary", "pem"} {
		copyGoFiles(t, filepath.Join(src, pkg), filepath.Join(c.root, pkg))
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	c.exe = filepath.Join(bin, "ctx")
	if err := os.Symlink(self, c.exe); err != nil {
		t.Fatal(err)
	}
	return c
}

func copyGoFiles(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *crashRig) command(args ...string) *exec.Cmd {
	cmd := exec.Command(c.exe, args...)
	cmd.Env = append(os.Environ(), "CTX_CACHE_DIR="+c.cache, "CTX_LOG_LEVEL=error")
	return cmd
}

func (c *crashRig) mustRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := c.command(args...).CombinedOutput(); err != nil {
		t.Fatalf("ctx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (c *crashRig) timeRun(t *testing.T, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	c.mustRun(t, args...)
	return time.Since(start)
}

// killAt starts ctx with args and kills it with SIGKILL after d. It
// reports whether the kill landed (the process was still running).
func (c *crashRig) killAt(t *testing.T, d time.Duration, args ...string) bool {
	t.Helper()
	cmd := c.command(args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ctx %s: %v", strings.Join(args, " "), err)
		}
		return false
	case <-time.After(d):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := <-done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true
		}
	}
	if err != nil {
		t.Fatalf("ctx %s: %v", strings.Join(args, " "), err)
	}
	return false
}

// clear removes the index, as a fresh machine would have none.
func (c *crashRig) clear(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(c.cache); err != nil {
		t.Fatal(err)
	}
}

// edit appends a function with a marker to n files, and now and then adds
// or deletes a file.
func (c *crashRig) edit(t *testing.T, rng *rand.Rand, n int) {
	t.Helper()
	var files []string
	filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	for range n {
		c.n++
		f := files[rng.IntN(len(files))]
		add := fmt.Sprintf("\n// ZebraQuokka%d counts edits made while a crash campaign runs: zebraquokka marker.\nfunc ZebraQuokka%d() int { return %d }\n", c.n, c.n, c.n)
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(add)
		fh.Close()
	}
	switch rng.IntN(4) {
	case 0:
		c.n++
		p := filepath.Join(c.root, "json", fmt.Sprintf("added%d.go", c.n))
		src := fmt.Sprintf("package json\n\n// AddedQuokka%d is a file the campaign added: zebraquokka marker.\nfunc AddedQuokka%d() string { return %q }\n", c.n, c.n, p)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	case 1:
		if err := os.Remove(files[rng.IntN(len(files))]); err != nil {
			t.Fatal(err)
		}
	}
}

// crashQueries are asked in each channel set after every kill.
var crashQueries = []string{
	"decode json into a struct",
	"base64 encoding with padding",
	"Unmarshal",
	"xml attribute name space",
	"read csv records with quotes",
	"zebraquokka marker",
}

// crashCandidates is a result limit above every channel's candidate count
// (search's candidate cap is 200), so answers are compared before the
// final cut.
const crashCandidates = 1000

// crashChannels are the channels whose answers are compared, one at a
// time: lexical (BM25), dense (embeddings) and defined names.
var crashChannels = []string{"bm25", "dense", "symbol"}

// fileHit is one file of a result list: its best score.
type fileHit struct {
	path  string
	score float64
}

// answers runs every query in each channel alone against the index in
// cache and returns its top-10 files by "query|channel", each with the
// best raw score the channel gave one of its chunks (a BM25 score, a
// cosine, a name match): raw scores do not depend on chunk ids, which an
// index built incrementally and a clean one assign differently.
func (c *crashRig) answers(t *testing.T, cache string) (map[string][]fileHit, *engine.FindStats) {
	t.Helper()
	e := c.engine(t, cache)
	out := map[string][]fileHit{}
	var stats *engine.FindStats
	for _, q := range crashQueries {
		for _, ch := range crashChannels {
			// Every candidate, not the first 100 results: which of several
			// equal scores makes a cut is decided by chunk ids, which an
			// incremental index and a clean one assign differently (the
			// file's other chunks then move it across the cut).
			resp, err := e.Find(t.Context(), engine.FindRequest{Query: q, Limit: crashCandidates, Channels: []string{ch}})
			if err != nil {
				t.Fatalf("find %q in %s: %v", q, ch, err)
			}
			stats = &resp.Stats
			best := map[string]float64{}
			for _, r := range resp.Raw {
				if h, ok := r.Channels[ch]; ok && h.Score > best[r.Path] {
					best[r.Path] = h.Score
				}
			}
			hits := make([]fileHit, 0, len(best))
			for p, s := range best {
				hits = append(hits, fileHit{p, s})
			}
			slices.SortFunc(hits, func(a, b fileHit) int {
				if a.score != b.score {
					return cmp.Compare(b.score, a.score)
				}
				return strings.Compare(a.path, b.path)
			})
			out[q+"|"+ch] = hits
		}
	}
	return out, stats
}

// reference returns the answers of a clean index of the files as they are
// now, building it when the files changed since the last call.
func (c *crashRig) reference(t *testing.T) map[string][]fileHit {
	t.Helper()
	state := c.fingerprint(t)
	if state == c.state && c.ref != nil {
		return c.ref
	}
	if err := os.RemoveAll(c.refs); err != nil {
		t.Fatal(err)
	}
	e := c.engine(t, c.refs)
	if _, err := e.Index(t.Context(), engine.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	c.ref, _ = c.answers(t, c.refs)
	c.state = state
	return c.ref
}

func (c *crashRig) fingerprint(t *testing.T) string {
	var b strings.Builder
	filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// engine opens the repository copy in-process on the index in cache.
func (c *crashRig) engine(t *testing.T, cache string) *engine.Engine {
	t.Helper()
	cfg := config.Default()
	cfg.CacheDir = cache
	e, err := engine.Open(cfg, c.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (c *crashRig) status(t *testing.T) (*engine.Status, error) {
	e := c.engine(t, c.cache)
	return e.Status(t.Context())
}

// checkAfterKill: the index opens, and it either says it is not complete
// or answers like the clean reference.
func (c *crashRig) checkAfterKill(t *testing.T, label, kind string, want map[string][]fileHit) {
	t.Helper()
	st, err := c.status(t)
	if errors.Is(err, engine.ErrNotIndexed) {
		if kind != "cold" {
			t.Fatalf("%s: status says not indexed after a %s run: %v", label, kind, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: status: %v", label, err)
	}
	honest := st.Incomplete || st.Stale || st.Changed+st.Added+st.Deleted > 0
	if st.StoredIdentity == "" {
		if !st.Incomplete {
			t.Fatalf("%s: a first run that did not finish is not reported incomplete: %+v", label, st)
		}
		return
	}
	got, stats := c.answers(t, c.cache)
	if st.Incomplete && (stats.Fresh || stats.IndexState != "interrupted") {
		t.Errorf("%s: status says incomplete, but answers say fresh=%v index_state=%q", label, stats.Fresh, stats.IndexState)
	}
	if honest {
		return
	}
	compareAnswers(t, label+" (status: complete and fresh)", want, got)
}

// checkComplete: after a finished run the index says it is complete and
// answers like the clean reference.
func (c *crashRig) checkComplete(t *testing.T, label string, want map[string][]fileHit) {
	t.Helper()
	st, err := c.status(t)
	if err != nil {
		t.Fatalf("%s: status: %v", label, err)
	}
	if st.Incomplete || st.Stale || st.Changed+st.Added+st.Deleted > 0 {
		t.Fatalf("%s: status after a finished run: incomplete %v, stale %v, %d changed, %d added, %d deleted",
			label, st.Incomplete, st.Stale, st.Changed, st.Added, st.Deleted)
	}
	got, stats := c.answers(t, c.cache)
	if !stats.Fresh || stats.IndexState != "" {
		t.Errorf("%s: answers say fresh=%v index_state=%q after a finished run", label, stats.Fresh, stats.IndexState)
	}
	compareAnswers(t, label, want, got)
}

// compareAnswers checks that each query's top-10 files match, score ties
// aside: files whose scores tie (within tieTolerance, for float rounding)
// may trade places, and a tie at the cut may bring in either file.
func compareAnswers(t *testing.T, label string, want, got map[string][]fileHit) {
	t.Helper()
	for key, w := range want {
		if d := diffTop(w, got[key], 10); d != "" {
			t.Errorf("%s: %s: %s", label, key, d)
		}
	}
}

const tieTolerance = 1e-4

func diffTop(want, got []fileHit, k int) string {
	tied := func(a, b float64) bool {
		d := a - b
		return d <= tieTolerance*a && -d <= tieTolerance*a
	}
	show := func() string { return fmt.Sprintf("\nwant %v\ngot  %v", head(want, k), head(got, k)) }
	n := min(k, len(want))
	if n == 0 {
		if len(got) > 0 {
			return "files, want none" + show()
		}
		return ""
	}
	if len(got) < n {
		return fmt.Sprintf("%d files, want at least %d", len(got), n) + show()
	}
	for i := range n {
		if !tied(want[i].score, got[i].score) {
			return fmt.Sprintf("rank %d scores %v, want %v", i+1, got[i].score, want[i].score) + show()
		}
	}
	score := func(hs []fileHit, path string) (float64, bool) {
		for _, h := range hs {
			if h.path == path {
				return h.score, true
			}
		}
		return 0, false
	}
	cut := want[n-1].score
	for _, h := range head(want, n) {
		if _, ok := score(head(got, n), h.path); !ok && !tied(cut, h.score) {
			return fmt.Sprintf("%s (score %v, above the cut %v) is missing", h.path, h.score, cut) + show()
		}
	}
	for _, h := range head(got, n) {
		if _, ok := score(head(want, n), h.path); !ok && !tied(cut, h.score) {
			return fmt.Sprintf("%s (score %v) is not in the clean index's top %d", h.path, h.score, n) + show()
		}
	}
	return ""
}

func head(hs []fileHit, k int) []fileHit { return hs[:min(k, len(hs))] }
