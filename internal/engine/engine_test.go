package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/store"
)

// fixtureFiles are the indexable files of testdata/repo.txtar.
var fixtureFiles = []string{"README.md", "client/retry.go", "config/config.go", "go.mod", "scripts/settings.py", "web/render.js"}

// repo extracts testdata/repo.txtar into a new temporary directory.
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
	return dir
}

// testConfig is the default configuration with a private cache directory
// and a home directory that no test indexes.
func testConfig(t *testing.T) config.Config {
	t.Helper()
	return config.Config{
		CacheDir:     t.TempDir(),
		Home:         t.TempDir(),
		MaxFileBytes: 1 << 20,
		Embed:        config.Embed{Provider: "none", BatchSize: 64},
		LogLevel:     "warn",
	}
}

func open(t *testing.T, cfg config.Config, root string, emb embed.Provider) *engine.Engine {
	t.Helper()
	e, err := engine.Open(cfg, root, &engine.Options{Embedder: emb})
	if err != nil {
		t.Fatalf("Open(%s): %v", root, err)
	}
	return e
}

func index(t *testing.T, e *engine.Engine, opts engine.IndexOptions) *engine.IndexReport {
	t.Helper()
	rep, err := e.Index(t.Context(), opts)
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	return rep
}

func find(t *testing.T, e *engine.Engine, req engine.FindRequest) *engine.FindResponse {
	t.Helper()
	resp, err := e.Find(t.Context(), req)
	if err != nil {
		t.Fatalf("Find(%q): %v", req.Query, err)
	}
	return resp
}

func status(t *testing.T, e *engine.Engine) *engine.Status {
	t.Helper()
	st, err := e.Status(t.Context())
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	return st
}

func hitPaths(resp *engine.FindResponse) []string {
	var out []string
	for _, h := range resp.Results {
		out = append(out, h.Path)
	}
	return out
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

// setMeta changes stored metadata behind the engine's back.
func setMeta(t *testing.T, e *engine.Engine, kv map[string]string) {
	t.Helper()
	db, err := store.Open(t.Context(), e.DBPath(), &store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMeta(t.Context(), kv); err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	root := repo(t)
	file := filepath.Join(root, "go.mod")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}

	for _, bad := range []string{filepath.Join(root, "missing"), file} {
		if _, err := engine.Open(testConfig(t), bad, nil); err == nil {
			t.Errorf("Open(%s): no error", bad)
		}
	}
	cfg := testConfig(t)
	cfg.Embed.Provider = "carrier-pigeon"
	if _, err := engine.Open(cfg, root, nil); err == nil {
		t.Error("Open with an unknown embedding provider: no error")
	}

	cfg = testConfig(t)
	e, err := engine.Open(cfg, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Root() != real {
		t.Errorf("Root() = %s, want the symlink-resolved %s", e.Root(), real)
	}
	if !strings.HasPrefix(e.DBPath(), cfg.CacheDir+string(filepath.Separator)) {
		t.Errorf("DBPath() = %s, want it under the cache dir %s", e.DBPath(), cfg.CacheDir)
	}
	if _, err := os.Stat(e.DBPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created the database (stat: %v)", err)
	}
	// The same root through another path shares the index.
	if e2 := open(t, cfg, root, nil); e2.DBPath() != e.DBPath() {
		t.Errorf("DBPath through a symlink %s != %s", e.DBPath(), e2.DBPath())
	}
}

func TestIdentityMismatch(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	want := status(t, e).Identity
	if want.Hash == "" || want.Model != "none" || want.Schema != store.SchemaVersion {
		t.Errorf("identity = %+v", want)
	}

	setMeta(t, e, map[string]string{store.MetaIdentity: "0123456789abcdef"})

	_, err := e.Find(t.Context(), engine.FindRequest{Query: "ParseConfig"})
	if !errors.Is(err, engine.ErrStale) {
		t.Errorf("Find on a stale index: %v, want ErrStale", err)
	}
	// AutoIndex does not paper over a stale index either.
	if _, err := e.Find(t.Context(), engine.FindRequest{Query: "ParseConfig", AutoIndex: true}); !errors.Is(err, engine.ErrStale) {
		t.Errorf("AutoIndex Find on a stale index: %v, want ErrStale", err)
	}
	st := status(t, e)
	if !st.Stale || st.StoredIdentity != "0123456789abcdef" || st.Identity != want {
		t.Errorf("status: Stale %v, stored %q, identity %+v; want stale with the old and new identities", st.Stale, st.StoredIdentity, st.Identity)
	}

	rep := index(t, e, engine.IndexOptions{})
	if !rep.Rebuilt || rep.Stats.Added != len(fixtureFiles) {
		t.Errorf("Index on a stale index: Rebuilt %v, Added %d; want a rebuild of all %d files", rep.Rebuilt, rep.Stats.Added, len(fixtureFiles))
	}
	if st := status(t, e); st.Stale || st.StoredIdentity != want.Hash {
		t.Errorf("status after the rebuild: Stale %v, stored %q", st.Stale, st.StoredIdentity)
	}
	if resp := find(t, e, engine.FindRequest{Query: "ParseConfig"}); len(resp.Results) == 0 {
		t.Error("no results after the rebuild")
	}
}

// TestModelChange: an index built with one embedding model is stale for
// an engine with another, and Index rebuilds it with the new vectors.
func TestModelChange(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	e16 := open(t, cfg, root, embedtest.New(16))
	index(t, e16, engine.IndexOptions{})
	if resp := find(t, e16, engine.FindRequest{Query: "render an html template"}); len(resp.Results) == 0 || resp.Results[0].Path != "web/render.js" {
		t.Errorf("hybrid results = %v, want web/render.js first", hitPaths(resp))
	}

	fake32 := embedtest.New(32)
	e32 := open(t, cfg, root, fake32)
	if _, err := e32.Find(t.Context(), engine.FindRequest{Query: "render"}); !errors.Is(err, engine.ErrStale) {
		t.Errorf("Find with another model: %v, want ErrStale", err)
	}
	if st := status(t, e32); !st.Stale {
		t.Error("Status with another model: not stale")
	}
	if st := status(t, e16); st.Stale {
		t.Error("Status with the index's own model: stale")
	}
	rep := index(t, e32, engine.IndexOptions{})
	if !rep.Rebuilt || rep.Stats.Embedded == 0 {
		t.Errorf("Index with another model: Rebuilt %v, Embedded %d", rep.Rebuilt, rep.Stats.Embedded)
	}
	resp := find(t, e32, engine.FindRequest{Query: "render an html template"})
	if len(resp.Results) == 0 {
		t.Fatal("no results after the rebuild")
	}
	if _, ok := resp.Results[0].Channels["dense"]; !ok {
		t.Errorf("first hit channels = %v, want a dense hit", resp.Results[0].Channels)
	}
	if st := status(t, e32); st.Stale || st.Vectors == 0 || !strings.Contains(st.Semantic, "fake/hash@32") {
		t.Errorf("status after the rebuild: Stale %v, Vectors %d, Semantic %q", st.Stale, st.Vectors, st.Semantic)
	}
}

// lazyDims is a provider that, like ollama or openai configured with Dims
// 0, reports 0 dimensions until its first Embed call.
type lazyDims struct {
	*embedtest.Fake
	learned atomic.Bool
}

func (p *lazyDims) Model() embed.Model {
	m := p.Fake.Model()
	if !p.learned.Load() {
		m.Dims = 0
	}
	return m
}

func (p *lazyDims) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	p.learned.Store(true)
	return p.Fake.Embed(ctx, texts, kind)
}

// AssumeDims takes the length from an index built with the model, as
// ollama and openai do.
func (p *lazyDims) AssumeDims(n int) {
	if n == p.Fake.Model().Dims {
		p.learned.Store(true)
	}
}

// TestLazyDimensions: a provider that learns its dimensions from its first
// response gets the same identity in every process.
func TestLazyDimensions(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	index(t, open(t, cfg, root, &lazyDims{Fake: embedtest.New(16)}), engine.IndexOptions{})

	// A new process: Find takes the dimensions from the index before
	// checking.
	if resp := find(t, open(t, cfg, root, &lazyDims{Fake: embedtest.New(16)}), engine.FindRequest{Query: "ParseConfig"}); len(resp.Results) == 0 {
		t.Error("no results")
	}
	if rep := index(t, open(t, cfg, root, &lazyDims{Fake: embedtest.New(16)}), engine.IndexOptions{}); rep.Rebuilt {
		t.Error("Index in a new process rebuilt the index")
	}
}

// TestStatusLazyDimensions: Status in a new process must not call an index
// built with a lazily-sized provider stale.
func TestStatusLazyDimensions(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	index(t, open(t, cfg, root, &lazyDims{Fake: embedtest.New(16)}), engine.IndexOptions{})
	p := &lazyDims{Fake: embedtest.New(16)}
	if st := status(t, open(t, cfg, root, p)); st.Stale {
		t.Errorf("Status in a new process: stale (identity %+v, stored %q)", st.Identity, st.StoredIdentity)
	}
	// The length comes from the index: status never calls the provider.
	if n := p.Calls(); n != 0 {
		t.Errorf("Status called the provider %d times, want 0", n)
	}
}
