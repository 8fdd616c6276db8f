package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/store"
)

// fixtureFiles are the indexable files of testdata/repo.txtar.
var fixtureFiles = []string{"README.md", "cart/cart.go", "cart/discount.go", "go.mod", "tools/export.py", "web/checkout.js"}

// fixtureSkips are the files of testdata/repo.txtar that discovery skips.
var fixtureSkips = []discover.Skip{
	{Path: ".env", Reason: discover.ReasonSecret},
	{Path: "logo.png", Reason: discover.ReasonBinary},
	{Path: "package-lock.json", Reason: discover.ReasonLockfile},
}

// repo extracts testdata/repo.txtar into a new temporary directory and
// returns its symlink-resolved path.
func repo(t *testing.T) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(a, dir); err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func run(t *testing.T, db *store.DB, root string, opts *Options) *Stats {
	t.Helper()
	st, err := Run(t.Context(), db, root, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return st
}

// counts is the part of Stats that says what a run did to each file.
type counts struct {
	Discovered, Added, Changed, Unchanged, Touched, Deleted int
}

func countsOf(st *Stats) counts {
	return counts{st.Discovered, st.Added, st.Changed, st.Unchanged, st.Touched, st.Deleted}
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// found returns the sorted paths of the chunks whose FTS row holds every
// term of word.
func found(t *testing.T, db *store.DB, word string) []string {
	t.Helper()
	q := store.BM25Query{Weights: store.BM25Weights{1, 1, 1, 1}, Limit: 1000, Groups: [][]int{nil}}
	for i, term := range analyze.TermList(word) {
		q.Terms = append(q.Terms, term)
		q.Groups[0] = append(q.Groups[0], i)
	}
	hits, err := db.SearchBM25(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	rows, err := db.Chunks(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range rows {
		if !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
	}
	slices.Sort(paths)
	return paths
}

// chunkIDs returns the ids of a file's chunks: new ids mean the file was
// re-chunked and rewritten.
func chunkIDs(t *testing.T, db *store.DB, path string) []int64 {
	t.Helper()
	rows, err := db.FileChunks(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

func allChunkIDs(t *testing.T, db *store.DB) map[string][]int64 {
	t.Helper()
	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]int64{}
	for p := range states {
		m[p] = chunkIDs(t, db, p)
	}
	return m
}

func storedPaths(t *testing.T, db *store.DB) []string {
	t.Helper()
	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range states {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ignoreDetail compares skips by path and reason only.
var ignoreDetail = cmpopts.IgnoreFields(discover.Skip{}, "Detail", "Dir")

func TestRunFresh(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	var progress []int
	st := run(t, db, root, &Options{Progress: func(done, total int) {
		if total != len(fixtureFiles) {
			t.Errorf("Progress total = %d, want %d", total, len(fixtureFiles))
		}
		progress = append(progress, done)
	}})

	want := counts{Discovered: len(fixtureFiles), Added: len(fixtureFiles)}
	if diff := cmp.Diff(want, countsOf(st)); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fixtureSkips, st.Skips, ignoreDetail); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"secret": 1, "binary": 1, "lockfile": 1}, st.SkipCounts()); diff != "" {
		t.Errorf("SkipCounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5, 6}, progress); diff != "" {
		t.Errorf("Progress done values (-want +got):\n%s", diff)
	}
	if st.Embedded != 0 || st.Duration <= 0 {
		t.Errorf("Embedded = %d, Duration = %v; want 0 and positive", st.Embedded, st.Duration)
	}
	if diff := cmp.Diff(fixtureFiles, storedPaths(t, db)); diff != "" {
		t.Errorf("stored files (-want +got):\n%s", diff)
	}
	// The cold run deferred the name and import-target indexes and built
	// them at its end.
	if n, err := db.BuildLookupIndexes(t.Context()); err != nil || n != 0 {
		t.Errorf("after a cold run, %d lookup indexes were missing (%v)", n, err)
	}

	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Chunks != st.Chunks || c.Chunks < len(fixtureFiles) {
		t.Errorf("stored %d chunks, Stats.Chunks = %d; want equal and at least one per file", c.Chunks, st.Chunks)
	}
	if c.Vectors != 0 {
		t.Errorf("%d vectors stored without an embedder", c.Vectors)
	}
	wantLangs := map[string]int{"go": 2, "python": 1, "javascript": 1, "markdown": 1, "text": 1}
	if diff := cmp.Diff(wantLangs, c.Languages); diff != "" {
		t.Errorf("languages (-want +got):\n%s", diff)
	}

	// Every definition of the fixture is a chunk with its symbol and a
	// summary, and its words are searchable.
	rows, err := db.FileChunks(t.Context(), "cart/cart.go")
	if err != nil {
		t.Fatal(err)
	}
	var syms []string
	for _, r := range rows {
		if r.Symbol != "" {
			syms = append(syms, r.Symbol)
		}
		if r.Summary == "" || r.StartLine < 1 || r.EndLine < r.StartLine || r.StartByte >= r.EndByte {
			t.Errorf("chunk %+v: want a summary and valid ranges", r.Chunk)
		}
		if r.EmbedKey != nil {
			t.Errorf("chunk %s has an embed key without an embedder", r.Symbol)
		}
	}
	if diff := cmp.Diff([]string{"Cart", "Item", "(*Cart).Total", "(*Cart).Add"}, syms); diff != "" {
		t.Errorf("cart/cart.go symbols (-want +got):\n%s", diff)
	}
	for word, want := range map[string][]string{
		"ApplyCoupon":    {"cart/discount.go"},
		"export_orders":  {"tools/export.py"},
		"submitCheckout": {"web/checkout.js"},
		"accountants":    {"tools/export.py"},
		"checkout":       {"README.md", "web/checkout.js"},
		"PAYMENT_KEY":    nil, // the secret is not indexed
	} {
		if diff := cmp.Diff(want, found(t, db, word)); diff != "" {
			t.Errorf("files with %q (-want +got):\n%s", word, diff)
		}
	}
}

// TestRunShebang: a script whose name names no language is chunked as
// the language its shebang line (or Emacs mode line) names, so its
// functions are definitions; a file without one stays text.
func TestRunShebang(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := txtar.Parse([]byte(`-- bin/deploy --
#!/usr/bin/env bash
set -euo pipefail

# deploy_release uploads the built archive and restarts the service.
deploy_release() {
  scp "$1" host:/srv/
  ssh host systemctl restart app
}

deploy_release "$@"
-- tools/report --
#!/usr/bin/python3
def summarize_orders(orders):
    return sum(o.total for o in orders)
-- lib/hook-functions --
# -*- shell-script -*-
# copy_exec copies a binary and the libraries it loads into the image.
copy_exec() {
  cp "$1" "$DESTDIR/$1"
}
-- NOTES --
deploy_release is called by bin/deploy.
`))
	if err := txtar.Write(a, root); err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	run(t, db, root, nil)
	for path, want := range map[string]struct{ lang, symbol string }{
		"bin/deploy":         {"bash", "deploy_release"},
		"tools/report":       {"python", "summarize_orders"},
		"lib/hook-functions": {"bash", "copy_exec"},
		"NOTES":              {"text", ""},
	} {
		rows, err := db.FileChunks(t.Context(), path)
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s: %d chunks, %v", path, len(rows), err)
		}
		var syms []string
		for _, r := range rows {
			if r.Language != want.lang {
				t.Errorf("%s: language %q, want %q", path, r.Language, want.lang)
			}
			if r.Symbol != "" {
				syms = append(syms, r.Symbol)
			}
		}
		if want.symbol != "" && !slices.Contains(syms, want.symbol) {
			t.Errorf("%s: symbols %q, want %s among them", path, syms, want.symbol)
		}
	}
}

func TestRunIncremental(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	run(t, db, root, nil)
	all := len(fixtureFiles)

	t.Log("no change: nothing is read or written")
	before := allChunkIDs(t, db)
	st := run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all, Unchanged: all}, countsOf(st)); diff != "" {
		t.Errorf("unchanged run (-want +got):\n%s", diff)
	}
	if st.Chunks != 0 {
		t.Errorf("unchanged run wrote %d chunks", st.Chunks)
	}
	if diff := cmp.Diff(before, allChunkIDs(t, db)); diff != "" {
		t.Errorf("unchanged run rewrote chunks (-before +after):\n%s", diff)
	}

	t.Log("new mtime, same content: touched, not re-chunked")
	p := filepath.Join(root, "cart", "cart.go")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	st = run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all, Unchanged: all - 1, Touched: 1}, countsOf(st)); diff != "" {
		t.Errorf("touch run (-want +got):\n%s", diff)
	}
	if st.Chunks != 0 {
		t.Errorf("touch run wrote %d chunks", st.Chunks)
	}
	if diff := cmp.Diff(before, allChunkIDs(t, db)); diff != "" {
		t.Errorf("touch run rewrote chunks (-before +after):\n%s", diff)
	}
	states, err := db.FileStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := states["cart/cart.go"].ModTime; got != later.UnixNano() {
		t.Errorf("stored mtime = %d, want the new %d", got, later.UnixNano())
	}
	st = run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all, Unchanged: all}, countsOf(st)); diff != "" {
		t.Errorf("run after the touch (-want +got):\n%s", diff)
	}

	t.Log("edit: re-chunked, old words gone, new words found")
	writeFile(t, root, "cart/discount.go", `package cart

// ApplyVoucher takes a flat amount off a total, never going below zero.
func ApplyVoucher(total, amount int) int {
	return max(total-amount, 0)
}
`)
	st = run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all, Unchanged: all - 1, Changed: 1}, countsOf(st)); diff != "" {
		t.Errorf("edit run (-want +got):\n%s", diff)
	}
	if st.Chunks != len(chunkIDs(t, db, "cart/discount.go")) {
		t.Errorf("edit run wrote %d chunks, want those of the edited file only", st.Chunks)
	}
	if got := found(t, db, "ApplyCoupon"); len(got) != 0 {
		t.Errorf("old symbol ApplyCoupon still found in %v", got)
	}
	if diff := cmp.Diff([]string{"cart/discount.go"}, found(t, db, "ApplyVoucher")); diff != "" {
		t.Errorf("new symbol ApplyVoucher (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before["cart/cart.go"], chunkIDs(t, db, "cart/cart.go")); diff != "" {
		t.Errorf("an unedited file was rewritten (-before +after):\n%s", diff)
	}

	t.Log("new file: added")
	writeFile(t, root, "cart/tax.go", "package cart\n\n// VAT returns the value-added tax on cents.\nfunc VAT(cents int) int { return cents / 5 }\n")
	st = run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all + 1, Unchanged: all, Added: 1}, countsOf(st)); diff != "" {
		t.Errorf("add run (-want +got):\n%s", diff)
	}

	t.Log("delete: removed from the index")
	if err := os.Remove(filepath.Join(root, "tools", "export.py")); err != nil {
		t.Fatal(err)
	}
	st = run(t, db, root, nil)
	if diff := cmp.Diff(counts{Discovered: all, Unchanged: all, Deleted: 1}, countsOf(st)); diff != "" {
		t.Errorf("delete run (-want +got):\n%s", diff)
	}
	if slices.Contains(storedPaths(t, db), "tools/export.py") {
		t.Error("deleted file still stored")
	}
	if got := found(t, db, "export_orders"); len(got) != 0 {
		t.Errorf("deleted file's words still found in %v", got)
	}
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, p := range storedPaths(t, db) {
		n += len(chunkIDs(t, db, p))
	}
	if c.Files != all || c.Chunks != n {
		t.Errorf("count = %+v; want %d files and %d chunks (no orphans)", c, all, n)
	}
}

// TestRunBecomesSkipped: a stored file that is now skipped, by content or
// by discovery, leaves the index and is reported as a skip.
func TestRunBecomesSkipped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		path   string
		change func(t *testing.T, root, path string)
		reason discover.Reason
		added  int // files the change adds
	}{
		{"binary", "cart/discount.go", func(t *testing.T, root, path string) {
			writeFile(t, root, path, "package cart\x00\x01\x02 binary now\n")
		}, discover.ReasonBinary, 0},
		{"generated", "cart/discount.go", func(t *testing.T, root, path string) {
			writeFile(t, root, path, "// Code generated by stringer. DO NOT EDIT.\n\npackage cart\n")
		}, discover.ReasonGenerated, 0},
		{"too large", "web/checkout.js", func(t *testing.T, root, path string) {
			writeFile(t, root, path, strings.Repeat("// a comment line that makes the file large\n", 200))
		}, discover.ReasonTooLarge, 0},
		{"ignored", "tools/export.py", func(t *testing.T, root, path string) {
			writeFile(t, root, ".ctxignore", "tools/\n")
		}, discover.ReasonCtxignore, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := repo(t)
			db := openDB(t)
			opts := &Options{Discover: &discover.Options{MaxFileBytes: 4096}}
			run(t, db, root, opts)
			c.change(t, root, c.path)
			st := run(t, db, root, opts)
			if st.Deleted != 1 || st.Added != c.added || st.Changed != 0 {
				t.Errorf("stats = %+v, want 1 deleted, %d added, none changed", countsOf(st), c.added)
			}
			var reasons []discover.Reason
			for _, s := range st.Skips {
				if s.Path == c.path || strings.HasPrefix(c.path, s.Path+"/") {
					reasons = append(reasons, s.Reason)
				}
			}
			if diff := cmp.Diff([]discover.Reason{c.reason}, reasons); diff != "" {
				t.Errorf("skips of %s (-want +got):\n%s", c.path, diff)
			}
			if slices.Contains(storedPaths(t, db), c.path) {
				t.Errorf("%s still stored", c.path)
			}
			if n := len(chunkIDs(t, db, c.path)); n != 0 {
				t.Errorf("%s still has %d chunks", c.path, n)
			}
			// The skip is stable: the next run changes nothing.
			st = run(t, db, root, opts)
			if st.Deleted+st.Added+st.Changed+st.Touched != 0 {
				t.Errorf("next run = %+v, want no changes", countsOf(st))
			}
		})
	}
}

// TestRunNewSkippedFile: a new file skipped by content is not counted as a
// deletion.
func TestRunNewSkippedFile(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	writeFile(t, root, "data/blob.txt", "\x00\x01\x02\x03")
	st := run(t, db, root, nil)
	if st.Deleted != 0 || st.Added != len(fixtureFiles) {
		t.Errorf("stats = %+v, want %d added and none deleted", countsOf(st), len(fixtureFiles))
	}
	if i := slices.IndexFunc(st.Skips, func(s discover.Skip) bool { return s.Path == "data/blob.txt" }); i < 0 || st.Skips[i].Reason != discover.ReasonBinary {
		t.Errorf("skips = %v, want data/blob.txt as binary", st.Skips)
	}
	if !slices.IsSortedFunc(st.Skips, func(a, b discover.Skip) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("skips not sorted by path: %v", st.Skips)
	}
}

// hookEmbedder is an embedtest.Fake that calls hook before embedding a
// batch, to change the tree in the middle of a run.
type hookEmbedder struct {
	*embedtest.Fake
	hook func(texts []string)
}

func (h *hookEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	h.hook(texts)
	return h.Fake.Embed(ctx, texts, kind)
}

// TestRunFileDeletedDuringScan deletes a file after the walk listed it and
// before it is read: with one worker, files are read in path order, and
// the embedder call for README.md (the first file) happens in between.
func TestRunFileDeletedDuringScan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		indexed bool // the victim was indexed by an earlier run
	}{
		{"new file", false},
		{"indexed file", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := repo(t)
			db := openDB(t)
			const victim = "web/checkout.js"
			if c.indexed {
				run(t, db, root, &Options{Embedder: embedtest.New(8)})
				// Make both README.md and the victim need a new read.
				writeFile(t, root, "README.md", "# shop\n\nNow with gift cards.\n")
				writeFile(t, root, victim, "export function submitCheckout(cart) { return false; }\n")
			}
			var once sync.Once
			emb := &hookEmbedder{Fake: embedtest.New(8), hook: func(texts []string) {
				if strings.HasPrefix(texts[0], "README.md") {
					once.Do(func() {
						if err := os.Remove(filepath.Join(root, filepath.FromSlash(victim))); err != nil {
							t.Error(err)
						}
					})
				}
			}}
			st := run(t, db, root, &Options{Embedder: emb, Workers: 1})
			i := slices.IndexFunc(st.Skips, func(s discover.Skip) bool { return s.Path == victim })
			if i < 0 {
				t.Fatalf("skips = %v, want %s", st.Skips, victim)
			}
			if s := st.Skips[i]; s.Reason != discover.ReasonUnreadable || !strings.Contains(s.Detail, "deleted") {
				t.Errorf("skip = %+v, want unreadable, deleted during the scan", s)
			}
			if slices.Contains(storedPaths(t, db), victim) {
				t.Errorf("%s still stored", victim)
			}
			wantDeleted := 0
			if c.indexed {
				wantDeleted = 1
			}
			if st.Deleted != wantDeleted {
				t.Errorf("Deleted = %d, want %d", st.Deleted, wantDeleted)
			}
		})
	}
}

func TestRunUnreadableFile(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	run(t, db, root, nil)
	p := filepath.Join(root, "cart", "discount.go")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o644) })
	if f, err := os.Open(p); err == nil {
		f.Close()
		t.Skip("a file with mode 000 is still readable (running as root?)")
	}
	st := run(t, db, root, nil)
	if st.Deleted != 1 {
		t.Errorf("stats = %+v, want the unreadable file deleted from the index", countsOf(st))
	}
	i := slices.IndexFunc(st.Skips, func(s discover.Skip) bool { return s.Path == "cart/discount.go" })
	if i < 0 || st.Skips[i].Reason != discover.ReasonUnreadable {
		t.Errorf("skips = %v, want cart/discount.go unreadable", st.Skips)
	}
}

func TestRunInvalidUTF8(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	// Latin-1 bytes in comments and strings, a truncated sequence at the end.
	src := "package cart\n\n// Caf\xe9 returns the name of the caf\xe9 \xff\xfe.\nfunc Caf\xc3() string {\n\treturn \"cr\xe8me br\xfbl\xe9e\"\n}\n\xe2\x82"
	writeFile(t, root, "cart/latin1.go", src)
	writeFile(t, root, "notes.txt", "na\xefve r\xe9sum\xe9 of the \x80\x81 shop\n")
	st := run(t, db, root, nil)
	if st.Added != len(fixtureFiles)+2 {
		t.Errorf("Added = %d, want %d (skips: %v)", st.Added, len(fixtureFiles)+2, st.Skips)
	}
	for _, p := range []string{"cart/latin1.go", "notes.txt"} {
		rows, err := db.FileChunks(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Errorf("%s: no chunks", p)
		}
		for _, r := range rows {
			if r.EndByte > len(src) && p == "cart/latin1.go" {
				t.Errorf("%s: chunk ends at %d past the file's %d bytes", p, r.EndByte, len(src))
			}
			for _, s := range []string{r.Summary, r.Symbol, r.Breadcrumb} {
				if !utf8.ValidString(s) {
					t.Errorf("%s: invalid UTF-8 stored: %q", p, s)
				}
			}
		}
	}
	if got := found(t, db, "shop"); !slices.Contains(got, "notes.txt") {
		t.Errorf("files with \"shop\" = %v, want notes.txt among them", got)
	}
}

func TestRunEmbeddings(t *testing.T) {
	t.Parallel()
	const dims = 32
	root := repo(t)
	db := openDB(t)
	fake := embedtest.New(dims)
	opts := &Options{Embedder: fake, EmbedBatch: 4}

	st := run(t, db, root, opts)
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded == 0 || st.Embedded != fake.Texts() {
		t.Errorf("Embedded = %d, fake saw %d texts; want equal and positive", st.Embedded, fake.Texts())
	}
	if c.Vectors != st.Embedded {
		t.Errorf("%d vectors stored for %d embedded texts", c.Vectors, st.Embedded)
	}
	if fake.Calls() < (st.Embedded+3)/4 {
		t.Errorf("%d calls for %d texts in batches of 4", fake.Calls(), st.Embedded)
	}
	// Every chunk has a vector of the model's dimensions.
	vecs := map[int64][]float32{}
	_, err = db.Vectors(t.Context(), func(store.Version, int) error { return nil }, func(id int64, blob []byte) error {
		v, err := embed.DecodeVector(blob)
		if err != nil {
			return err
		}
		if len(v) != dims {
			t.Errorf("chunk %d: %d dimensions, want %d", id, len(v), dims)
		}
		vecs[id] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != c.Chunks {
		t.Errorf("%d chunks have vectors, want all %d", len(vecs), c.Chunks)
	}

	t.Log("unchanged: nothing embedded")
	calls, texts := fake.Calls(), fake.Texts()
	st = run(t, db, root, opts)
	if st.Embedded != 0 || fake.Texts() != texts || fake.Calls() != calls {
		t.Errorf("unchanged run embedded %d texts in %d calls", fake.Texts()-texts, fake.Calls()-calls)
	}

	t.Log("edit one method: only its text is embedded")
	cart := filepath.Join(root, "cart", "cart.go")
	old, err := os.ReadFile(cart)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(old), "sum += it.Cents * it.Quantity", "sum += it.Quantity * it.Cents // same total", 1)
	if edited == string(old) {
		t.Fatal("fixture changed: the edit did not apply")
	}
	writeFile(t, root, "cart/cart.go", edited)
	texts = fake.Texts()
	st = run(t, db, root, opts)
	if st.Changed != 1 || st.Embedded != 1 || fake.Texts()-texts != 1 {
		t.Errorf("edit run: Changed %d, Embedded %d, fake texts +%d; want 1, 1, 1", st.Changed, st.Embedded, fake.Texts()-texts)
	}

	t.Log("revert: every text was seen before, nothing embedded")
	writeFile(t, root, "cart/cart.go", string(old))
	texts = fake.Texts()
	st = run(t, db, root, opts)
	if st.Changed != 1 || st.Embedded != 0 || fake.Texts() != texts {
		t.Errorf("revert run: Changed %d, Embedded %d, fake texts +%d; want 1, 0, 0", st.Changed, st.Embedded, fake.Texts()-texts)
	}

	t.Log("a new index of the same tree reuses nothing, but an unchanged re-run embeds nothing")
	db2 := openDB(t)
	texts = fake.Texts()
	st = run(t, db2, root, opts)
	if st.Embedded == 0 || fake.Texts()-texts != st.Embedded {
		t.Errorf("fresh store: Embedded %d, fake texts +%d", st.Embedded, fake.Texts()-texts)
	}
}

func TestRunEmbedderError(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	db := openDB(t)
	fake := embedtest.New(8)
	fake.SetErr(embed.ErrRateLimited)
	_, err := Run(t.Context(), db, root, &Options{Embedder: fake, Workers: 1})
	if !errors.Is(err, embed.ErrRateLimited) {
		t.Fatalf("Run with a failing embedder: %v, want embed.ErrRateLimited", err)
	}
	// Nothing half-written: the file failed as a whole.
	if paths := storedPaths(t, db); len(paths) != 0 {
		t.Errorf("stored %v after the embedder failed", paths)
	}
	// Once the embedder recovers, the next run indexes the file.
	fake.SetErr(nil)
	if st := run(t, db, root, &Options{Embedder: fake}); st.Added != 1 {
		t.Errorf("run after recovery: %+v, want 1 added", countsOf(st))
	}
}

// TestRunEmbedderErrorManyFiles: an embedder that fails on every call must
// end the run with its error when more files are queued than there are
// workers.
func TestRunEmbedderErrorManyFiles(t *testing.T) {
	t.Parallel()
	root := repo(t)
	db := openDB(t)
	fake := embedtest.New(8)
	fake.SetErr(embed.ErrRateLimited)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := Run(ctx, db, root, &Options{Embedder: fake, Workers: 1})
	if !errors.Is(err, embed.ErrRateLimited) {
		t.Fatalf("Run with a failing embedder: %v, want embed.ErrRateLimited", err)
	}
}

func TestRunCanceled(t *testing.T) {
	t.Parallel()
	t.Run("before the run", func(t *testing.T) {
		t.Parallel()
		root := repo(t)
		db := openDB(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := Run(ctx, db, root, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Run with a canceled context: %v, want context.Canceled", err)
		}
	})
	t.Run("during the run", func(t *testing.T) {
		t.Parallel()
		root := repo(t)
		for i := range 50 {
			writeFile(t, root, fmt.Sprintf("gen/f%02d.go", i), "package gen\n\nfunc F() int { return 1 }\n")
		}
		db := openDB(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		st, err := Run(ctx, db, root, &Options{Workers: 1, Progress: func(done, _ int) {
			if done == 2 {
				cancel()
			}
		}})
		if err != context.Canceled {
			t.Errorf("Run canceled during the run = %v, %v; want nil, context.Canceled itself", st, err)
		}
		// Files are written whole: each stored file has its chunks.
		for _, p := range storedPaths(t, db) {
			if len(chunkIDs(t, db, p)) == 0 {
				t.Errorf("%s stored without chunks", p)
			}
		}
		// The next run finishes the job, lookup indexes included (the
		// canceled cold run dropped them).
		st = run(t, db, root, nil)
		if got := len(storedPaths(t, db)); got != st.Discovered {
			t.Errorf("after a full run %d files stored, want %d", got, st.Discovered)
		}
		if n, err := db.BuildLookupIndexes(t.Context()); err != nil || n != 0 {
			t.Errorf("after a full run, %d lookup indexes were missing (%v)", n, err)
		}
	})
}

func TestRunMissingRoot(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	if _, err := Run(t.Context(), db, filepath.Join(t.TempDir(), "nope"), nil); err == nil {
		t.Error("Run on a missing root: no error")
	}
}

func TestRunEmptyRoot(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	st := run(t, db, t.TempDir(), nil)
	if diff := cmp.Diff(counts{}, countsOf(st)); diff != "" || st.Chunks != 0 {
		t.Errorf("empty root (-want +got):\n%s", diff)
	}
}

// TestRunWhileMerging checks that WhileMerging sees the run's committed
// content (every chunk, the final content version) and that Run returns
// only after it does.
func TestRunWhileMerging(t *testing.T) {
	root := repo(t)
	db := openDB(t)
	var phases []string
	var (
		chunks  int
		ver     store.Version
		done    bool
		inMerge bool
	)
	st := run(t, db, root, &Options{
		Phase: func(ph Phase) {
			if ph.Name == PhaseMerge {
				inMerge = !ph.End
			}
			phases = append(phases, ph.Name)
		},
		WhileMerging: func(ctx context.Context) {
			if !inMerge {
				t.Error("WhileMerging ran outside the merge phase")
			}
			var err error
			if chunks, err = db.ChunkCount(ctx); err != nil {
				t.Error(err)
			}
			if ver, err = db.Version(ctx); err != nil {
				t.Error(err)
			}
			time.Sleep(20 * time.Millisecond) // Run must wait for it
			done = true
		},
	})
	if !done {
		t.Fatal("Run returned before WhileMerging did")
	}
	if chunks != st.Chunks || chunks == 0 {
		t.Errorf("WhileMerging saw %d chunks, the run wrote %d", chunks, st.Chunks)
	}
	after, err := db.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ver != after {
		t.Errorf("WhileMerging saw content version %+v, the run left %+v", ver, after)
	}
	if !slices.Contains(phases, PhaseMerge) {
		t.Errorf("no merge phase reported: %v", phases)
	}
}
