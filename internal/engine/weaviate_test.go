package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/weaviate"
	"github.com/ctx-dev/ctx/internal/weaviatetest"
)

// weaviateConfig is cfg with the weaviate backend at url, collections
// under a prefix of this test's own (deleted when it ends).
func weaviateConfig(t *testing.T, cfg config.Config, url string) config.Config {
	t.Helper()
	prefix := fmt.Sprintf("T%d", time.Now().UnixNano())
	cfg.Backend = config.Backend{Name: "weaviate", Weaviate: config.WeaviateServer{URL: url}, Prefix: prefix, Replicas: 1}
	c, err := weaviate.New(url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, cl := range []string{"Chunk", "File", "Index", "Terms"} {
			_ = c.DeleteClass(context.Background(), prefix+cl)
		}
	})
	return cfg
}

// TestWeaviateBackend: an index synced into Weaviate answers as the local
// store does, updates replace only changed files, deletes remove them,
// and another identity is refused.
func TestWeaviateBackend(t *testing.T) {
	url := weaviatetest.URL(t)
	root := repo(t)
	local := model2vecConfig(t, writeTinyModel(t, 1))
	remote := weaviateConfig(t, local, url)
	remote.CacheDir = t.TempDir()

	el, er := open(t, local, root, nil), open(t, remote, root, nil)
	index(t, el, engine.IndexOptions{})
	rep := index(t, er, engine.IndexOptions{})
	if rep.Weaviate == nil || rep.Weaviate.Written != len(fixtureFiles) || rep.Weaviate.Objects == 0 {
		t.Fatalf("first sync = %+v, want %d files written", rep.Weaviate, len(fixtureFiles))
	}
	// The sync returns once the server counts what it wrote: its BM25
	// ranks by that count, which lags the writes until a flush.
	wc, err := weaviate.New(url, "")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := wc.ShardObjects(t.Context(), remote.Backend.Prefix+"Chunk", er.Tenant())
	if err != nil || len(counts) != 1 || counts[0] != rep.Weaviate.Objects || rep.Weaviate.Unsettled != "" {
		t.Errorf("right after the first sync the server counts %v (err %v) of %d chunk objects; unsettled %q", counts, err, rep.Weaviate.Objects, rep.Weaviate.Unsettled)
	}

	for _, q := range []string{"retry with backoff", "render the page template", "Config", "load settings from the environment"} {
		lr := find(t, el, engine.FindRequest{Query: q, Limit: 5})
		rr := find(t, er, engine.FindRequest{Query: q, Limit: 5})
		if len(rr.Results) == 0 {
			t.Errorf("%q: no results from weaviate", q)
			continue
		}
		if lr.Results[0].Path != rr.Results[0].Path {
			t.Errorf("%q: top local %v, weaviate %v", q, hitKeys(lr.Results), hitKeys(rr.Results))
		}
		if !rr.Stats.Fresh || rr.Stats.Degraded != "" {
			t.Errorf("%q: stats %+v", q, rr.Stats)
		}
	}

	// Another machine's checkout of the same repository (its own file
	// times, no local index) reads the same tenant and finds it fresh;
	// an edit there makes that file stale.
	clone := t.TempDir()
	if err := os.CopyFS(clone, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	cloneCfg := remote
	cloneCfg.CacheDir, cloneCfg.Backend.Tenant = t.TempDir(), er.Tenant()
	ec := open(t, cloneCfg, clone, nil)
	if st := status(t, ec); !st.NoLocalIndex || st.Backend == nil || st.Backend.Synced == nil || st.Backend.Synced.Files != len(fixtureFiles) {
		t.Errorf("status of a clone without a local index = %+v", st)
	}
	time.Sleep(10 * time.Millisecond) // a later mtime for the edit below
	cr := find(t, ec, engine.FindRequest{Query: "retry with backoff", Limit: 5})
	if len(cr.Results) == 0 || !cr.Stats.Fresh || cr.Results[0].Stale {
		t.Errorf("a clone reading the tenant: fresh %v, %v", cr.Stats.Fresh, hitKeys(cr.Results))
	}
	writeFile(t, clone, cr.Results[0].Path, "package client\n")
	cr = find(t, ec, engine.FindRequest{Query: "retry with backoff", Limit: 5})
	if cr.Stats.Fresh || !cr.Results[0].Stale {
		t.Errorf("an edit in the clone: fresh %v, top stale %v, want not fresh and stale", cr.Stats.Fresh, cr.Results[0].Stale)
	}

	// Nothing changed: nothing written.
	rep = index(t, er, engine.IndexOptions{})
	if rep.Weaviate.Written != 0 || rep.Weaviate.Deleted != 0 {
		t.Errorf("no-change sync = %+v, want nothing written", rep.Weaviate)
	}
	// A second engine (a server on another machine) that has searched the
	// tenant before: its next search must see the sync below, not the
	// tenant as its last search read it.
	es := open(t, remote, root, nil)
	find(t, es, engine.FindRequest{Query: "retry with backoff", Limit: 3})
	// One file changed, one deleted.
	writeFile(t, root, "client/retry.go", "package client\n\n// Jitter spreads reconnect attempts of a websocket over time.\nfunc Jitter() int { return 7 }\n")
	if err := os.Remove(filepath.Join(root, "web", "render.js")); err != nil {
		t.Fatal(err)
	}
	rep = index(t, er, engine.IndexOptions{})
	if rep.Weaviate.Written != 1 || rep.Weaviate.Deleted != 1 {
		t.Errorf("update sync = %+v, want 1 written, 1 deleted", rep.Weaviate)
	}
	rr := find(t, er, engine.FindRequest{Query: "websocket reconnect jitter", Limit: 3})
	if len(rr.Results) == 0 || rr.Results[0].Path != "client/retry.go" || rr.Results[0].Symbol != "Jitter" {
		t.Errorf("after the update: %v", hitKeys(rr.Results))
	}
	rr = find(t, er, engine.FindRequest{Query: "render the page template", Limit: 10})
	if slices.Contains(hitPaths(rr), "web/render.js") {
		t.Errorf("a deleted file still answers: %v", hitKeys(rr.Results))
	}
	rr = find(t, es, engine.FindRequest{Query: "websocket reconnect jitter", Limit: 3})
	if len(rr.Results) == 0 || rr.Results[0].Path != "client/retry.go" || rr.Results[0].Symbol != "Jitter" || rr.Stats.IndexGeneration != rep.Generation {
		t.Errorf("another engine after the update: generation %d (sync %d), %v", rr.Stats.IndexGeneration, rep.Generation, hitKeys(rr.Results))
	}

	// Another embedding model: refused by queries, rebuilt by index.
	other := remote
	other.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 2)}
	other.CacheDir = t.TempDir()
	eo := open(t, other, root, nil)
	if _, err := eo.Find(t.Context(), engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrStale) {
		t.Errorf("find by another model: err = %v, want ErrStale", err)
	}
	rep = index(t, eo, engine.IndexOptions{})
	if !rep.Weaviate.Rebuilt {
		t.Errorf("sync by another model = %+v, want a rebuild", rep.Weaviate)
	}
	if _, err := er.Find(t.Context(), engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrStale) {
		t.Errorf("find by the first model after the rebuild: err = %v, want ErrStale", err)
	}
}

// TestWeaviateTenants: two repositories in one cluster are two tenants
// that never see each other's chunks, and a repository never synced is
// not indexed, with the fix.
func TestWeaviateTenants(t *testing.T) {
	url := weaviatetest.URL(t)
	cfg := weaviateConfig(t, testConfig(t), url)
	api, web := writeTxtar(t, wsAPI), writeTxtar(t, wsWeb)
	ea, ew := open(t, cfg, api, nil), open(t, cfg, web, nil)
	if ea.Tenant() == ew.Tenant() {
		t.Fatalf("two repositories share tenant %s", ea.Tenant())
	}
	if _, err := ea.Find(t.Context(), engine.FindRequest{Query: "bucket"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("find before any sync: err = %v, want ErrNotIndexed", err)
	}
	index(t, ea, engine.IndexOptions{})
	index(t, ew, engine.IndexOptions{})
	for _, tc := range []struct {
		e     *engine.Engine
		query string
		want  string
	}{
		{ea, "token bucket rate limiter", "limit/bucket.go"},
		{ew, "mustache template", "src/render.js"},
	} {
		resp := find(t, tc.e, engine.FindRequest{Query: tc.query, Limit: 10})
		if len(resp.Results) == 0 || resp.Results[0].Path != tc.want {
			t.Errorf("%q: %v, want %s first", tc.query, hitKeys(resp.Results), tc.want)
		}
		for _, h := range resp.Results {
			if _, err := os.Stat(filepath.Join(tc.e.Root(), h.Path)); err != nil {
				t.Errorf("%q: result %s is not in this repository", tc.query, h.Path)
			}
		}
	}
}

// TestWeaviateNodeDown: an index replicated twice over a 3-node cluster
// keeps answering, with the same top result, when one node stops.
func TestWeaviateNodeDown(t *testing.T) {
	cl := weaviatetest.StartCluster(t, 3)
	cfg := weaviateConfig(t, model2vecConfig(t, writeTinyModel(t, 1)), cl.URL)
	cfg.Backend.Replicas = 2
	root := repo(t)
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})
	queries := []string{"retry with backoff", "render the page template", "Config"}
	before := map[string]string{}
	for _, q := range queries {
		resp := find(t, e, engine.FindRequest{Query: q, Limit: 5})
		if len(resp.Results) == 0 {
			t.Fatalf("%q: no results with every node up", q)
		}
		before[q] = resp.Results[0].Path
	}
	cl.StopNode(t, 2)
	for _, q := range queries {
		resp, err := e.Find(t.Context(), engine.FindRequest{Query: q, Limit: 5})
		if err != nil {
			t.Fatalf("%q with a node down: %v", q, err)
		}
		if len(resp.Results) == 0 || resp.Results[0].Path != before[q] {
			t.Errorf("%q with a node down: %v, want %s first", q, hitKeys(resp.Results), before[q])
		}
	}
}

// TestWeaviateConcurrentRepos: two processes' worth of engines indexing
// different repositories into one fresh set of collections at the same
// moment both succeed (the collections are created once between them),
// and each answers from its own tenant.
func TestWeaviateConcurrentRepos(t *testing.T) {
	url := weaviatetest.URL(t)
	cfg := weaviateConfig(t, testConfig(t), url)
	a, b := cfg, cfg
	a.CacheDir, b.CacheDir = t.TempDir(), t.TempDir()
	ea, eb := open(t, a, writeTxtar(t, wsAPI), nil), open(t, b, writeTxtar(t, wsWeb), nil)
	errs := make(chan error, 2)
	for _, e := range []*engine.Engine{ea, eb} {
		go func() {
			_, err := e.Index(t.Context(), engine.IndexOptions{})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent index: %v", err)
		}
	}
	if r := find(t, ea, engine.FindRequest{Query: "token bucket", Limit: 3}); len(r.Results) == 0 || r.Results[0].Path != "limit/bucket.go" {
		t.Errorf("api: %v", hitKeys(r.Results))
	}
	if r := find(t, eb, engine.FindRequest{Query: "mustache template", Limit: 3}); len(r.Results) == 0 || r.Results[0].Path != "src/render.js" {
		t.Errorf("web: %v", hitKeys(r.Results))
	}
}

// TestWeaviateDeclaredNames: a symbol query for a name declared inside a
// chunk (an interface's method, a const group's later entry) finds that
// chunk through Weaviate as it does in the local store.
func TestWeaviateDeclaredNames(t *testing.T) {
	url := weaviatetest.URL(t)
	root := repo(t)
	writeFile(t, root, "client/policy.go", `package client

import "time"

// Policy decides how long to wait before the next attempt.
type Policy interface {
	// Next returns the wait before attempt n.
	Next(n int) time.Duration
	// Done reports whether to stop.
	Done(n int) bool
}

// Kind names a backoff shape.
type Kind int

const (
	Constant Kind = iota
	Linear
	Exponential
)
`)
	local := model2vecConfig(t, writeTinyModel(t, 1))
	remote := weaviateConfig(t, local, url)
	remote.CacheDir = t.TempDir()
	el, er := open(t, local, root, nil), open(t, remote, root, nil)
	index(t, el, engine.IndexOptions{})
	index(t, er, engine.IndexOptions{})
	for _, c := range []struct {
		query string
		line  int // the declaration's line
	}{
		{"client.Policy.Next", 8},
		{"client.Policy.Done", 10},
		{"client.Linear", 18},
	} {
		for name, e := range map[string]*engine.Engine{"local": el, "weaviate": er} {
			r := find(t, e, engine.FindRequest{Query: c.query, Limit: 5, Explain: true})
			if len(r.Results) == 0 {
				t.Errorf("%s %s: no results", name, c.query)
				continue
			}
			h := r.Results[0]
			if h.Path != "client/policy.go" || h.StartLine > c.line || h.EndLine < c.line {
				t.Errorf("%s %s: first result %s:%d-%d, want the chunk of client/policy.go holding line %d", name, c.query, h.Path, h.StartLine, h.EndLine, c.line)
			}
			// Found as the definition, not only by its words.
			if !slices.Contains(h.Boosts, "definition (qualified)") {
				t.Errorf("%s %s: first result's boosts %v, want the qualified definition", name, c.query, h.Boosts)
			}
		}
	}
}
