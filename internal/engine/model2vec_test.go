package engine_test

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed/static"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
)

// writeTinyModel writes a 16-dimensional model2vec model into a new
// temporary directory named tiny and returns its path. Its vocabulary is
// the BERT special tokens plus every lower-cased word and punctuation
// character of testdata/repo.txtar, so every fixture word embeds; seed
// picks the random matrix, so different seeds mean different weights.
func writeTinyModel(t *testing.T, seed uint64) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			vocab = append(vocab, s)
		}
	}
	var word strings.Builder
	for _, r := range strings.ToLower(string(b)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word.WriteRune(r)
			continue
		}
		add(word.String())
		word.Reset()
		if !unicode.IsSpace(r) {
			add(string(r))
		}
	}
	add(word.String())

	r := rand.New(rand.NewPCG(seed, 1))
	m := static.Matrix{Rows: len(vocab), Dims: 16, F32: make([]float32, len(vocab)*16)}
	for i := range m.F32 {
		m.F32[i] = float32(r.NormFloat64())
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := static.WriteModel2Vec(dir, vocab, m, nil); err != nil {
		t.Fatalf("WriteModel2Vec: %v", err)
	}
	return dir
}

// model2vecConfig is testConfig with the model2vec provider over dir.
func model2vecConfig(t *testing.T, dir string) config.Config {
	t.Helper()
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: dir}
	return cfg
}

// TestModel2Vec: with CTX_EMBED_PROVIDER=model2vec the engine loads the
// model directory, indexes with dense vectors and finds through them;
// other weights in the directory make the index stale, and Index
// rebuilds it.
func TestModel2Vec(t *testing.T) {
	t.Parallel()
	root := repo(t)
	dir := writeTinyModel(t, 1)
	cfg := model2vecConfig(t, dir)
	e := open(t, cfg, root, nil)

	rep := index(t, e, engine.IndexOptions{})
	if rep.Stats.Embedded == 0 {
		t.Fatalf("Index embedded nothing: %+v", rep.Stats)
	}
	resp := find(t, e, engine.FindRequest{Query: "retry with exponential backoff", Limit: 30})
	if len(resp.Results) == 0 {
		t.Fatal("no results")
	}
	rawDense := slices.ContainsFunc(resp.Raw, func(r search.Result) bool {
		_, ok := r.Channels["dense"]
		return ok
	})
	hitDense := slices.ContainsFunc(resp.Results, func(h engine.Hit) bool {
		_, ok := h.Channels["dense"]
		return ok
	})
	if !rawDense || !hitDense {
		t.Errorf("no result has a dense channel: %v", hitPaths(resp))
	}
	st := status(t, e)
	if !strings.HasPrefix(st.Semantic, "hybrid: model2vec/") || st.Stale || st.Vectors == 0 {
		t.Errorf("status: Semantic %q, Stale %v, Vectors %d; want hybrid: model2vec/…, fresh, vectors", st.Semantic, st.Stale, st.Vectors)
	}
	before := st.Semantic

	// The same directory with other weights: a new checksum.
	other := writeTinyModel(t, 2)
	for _, name := range []string{"model.safetensors", "tokenizer.json", "config.json"} {
		b, err := os.ReadFile(filepath.Join(other, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e2 := open(t, cfg, root, nil)
	st = status(t, e2)
	if !st.Stale || st.Semantic == before {
		t.Errorf("status with other weights: Stale %v, Semantic %q (was %q); want stale, a new model", st.Stale, st.Semantic, before)
	}
	if _, err := e2.Find(t.Context(), engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrStale) {
		t.Errorf("Find with other weights: %v, want ErrStale", err)
	}
	rep = index(t, e2, engine.IndexOptions{})
	if !rep.Rebuilt || rep.Stats.Embedded == 0 {
		t.Errorf("Index with other weights: Rebuilt %v, Embedded %d; want a rebuild", rep.Rebuilt, rep.Stats.Embedded)
	}
	if st := status(t, e2); st.Stale || st.Vectors == 0 {
		t.Errorf("status after the rebuild: Stale %v, Vectors %d", st.Stale, st.Vectors)
	}
	if resp := find(t, e2, engine.FindRequest{Query: "retry with exponential backoff"}); len(resp.Results) == 0 {
		t.Error("no results after the rebuild")
	}
}

// TestModel2VecErrors: a missing or broken model directory fails Open
// with an error naming the directory.
func TestModel2VecErrors(t *testing.T) {
	t.Parallel()
	root := repo(t)
	broken := writeTinyModel(t, 1)
	if err := os.WriteFile(filepath.Join(broken, "model.safetensors"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), broken} {
		_, err := engine.Open(model2vecConfig(t, dir), root, nil)
		if err == nil || !strings.Contains(err.Error(), "loading model2vec model "+dir) {
			t.Errorf("Open with model %s: %v, want an error naming it", dir, err)
		}
	}
	_, err := engine.Open(model2vecConfig(t, filepath.Join(t.TempDir(), "missing")), root, nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open with a missing model: %v, want fs.ErrNotExist", err)
	}
}

// TestVectorFileCache: an index run writes the derived vector file beside
// the database; a find after a run that left it stale (a watcher's run of
// some paths) writes it again, from the rows it holds (the run folded
// them) and the new ones, later finds read it, an index run that changes
// the index rewrites it for the new generation, and a file the committed
// run did not stamp is never read.
func TestVectorFileCache(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 1)}
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})
	vec := e.DBPath() + ".vec"
	mtime := func() time.Time {
		t.Helper()
		fi, err := os.Stat(vec)
		if err != nil {
			t.Fatalf("vector file: %v", err)
		}
		return fi.ModTime()
	}
	m0 := mtime()
	first := find(t, e, engine.FindRequest{Query: "retry with exponential backoff", Limit: 30})
	if !mtime().Equal(m0) {
		t.Errorf("the first find after an index run rewrote the vector file")
	}
	writeFile(t, root, "extra/z.go", "package extra\n\n// Z is the last letter.\nconst Z = 26\n")
	index(t, e, engine.IndexOptions{Paths: []string{"extra/z.go"}})
	second := find(t, e, engine.FindRequest{Query: "retry with exponential backoff", Limit: 30})
	if mtime().Equal(m0) {
		t.Errorf("a find after a run of some paths did not write the vector file again")
	}
	m1 := mtime()
	third := find(t, e, engine.FindRequest{Query: "retry with exponential backoff", Limit: 30})
	if !mtime().Equal(m1) {
		t.Errorf("a find with a current vector file rewrote it")
	}
	notZ := func(r *engine.FindResponse) []string {
		return slices.DeleteFunc(hitPaths(r), func(p string) bool { return p == "extra/z.go" })
	}
	for _, r := range []*engine.FindResponse{second, third} {
		if d := cmp.Diff(hitPaths(first), notZ(r)); d != "" {
			t.Errorf("find from a rebuilt vector file differs (-first +later):\n%s", d)
		}
	}

	// The file carries the committed run's stamp beside the model: one
	// of the right generation and model alone (as a run that died before
	// committing would leave) does not pass for it.
	st := status(t, e)
	model := strings.TrimPrefix(st.Semantic, "hybrid: ")
	if _, err := search.ReadVectorFile(vec, model, 16, st.Generation); !errors.Is(err, search.ErrStaleVectorFile) {
		t.Errorf("reading the vector file without its stamp: %v, want ErrStaleVectorFile", err)
	}

	writeFile(t, root, "extra/more.go", "package extra\n\n// Backoff waits longer after each retry.\nfunc Backoff() {}\n")
	index(t, e, engine.IndexOptions{})
	m2 := mtime()
	if m2.Equal(m1) {
		t.Errorf("an index run that changed files did not rewrite the vector file")
	}
	resp := find(t, e, engine.FindRequest{Query: "backoff retry", Limit: 20})
	if !slices.Contains(hitPaths(resp), "extra/more.go") {
		t.Errorf("after re-indexing, results %v lack the new file", hitPaths(resp))
	}
	if !mtime().Equal(m2) {
		t.Errorf("the first find after a re-index rewrote the vector file")
	}
}
