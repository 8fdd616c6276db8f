package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

// TestKeptAnswersAsOneShot: a kept engine, which answers chunk rows from
// the chunk table it holds per committed state, gives the answers a
// one-shot engine reads from the database, with and without expansion,
// before and after an index run that adds, changes and deletes files.
func TestKeptAnswersAsOneShot(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 1)}
	indexer := open(t, cfg, root, nil)
	index(t, indexer, engine.IndexOptions{})
	server := openKept(t, cfg, root)
	queries := []string{"retry", "backoff retry", "Retry", "load config", "render", "Load", "settings", "render page template"}
	compare := func(stage string) {
		t.Helper()
		for _, q := range queries {
			for _, ex := range []engine.ExpandOptions{{}, engine.BalancedExpansion, engine.DeepExpansion} {
				req := engine.FindRequest{Query: q, Limit: 10, Expand: ex}
				want := find(t, open(t, cfg, root, nil), req)
				got := find(t, server, req)
				opts := cmp.Options{cmpopts.IgnoreUnexported(engine.Hit{}), cmpopts.IgnoreFields(engine.FindStats{}, "SearchMS")}
				if diff := cmp.Diff(want.Results, got.Results, opts); diff != "" {
					t.Errorf("%s: %q (expand %d seeds): kept engine's results differ (-one-shot +kept):\n%s", stage, q, ex.Seeds, diff)
				}
				if diff := cmp.Diff(want.Stats, got.Stats, opts); diff != "" {
					t.Errorf("%s: %q: kept engine's stats differ (-one-shot +kept):\n%s", stage, q, diff)
				}
			}
		}
	}
	compare("first index")

	writeFile(t, root, "client/backoff.go", "package client\n\n// Retry retries with backoff.\nfunc Retry() {}\n\n// Load loads the retry settings.\nfunc Load() {}\n")
	writeFile(t, root, "config/config.go", "package config\n\n// Load reads the config file and renders it.\nfunc Load() error { return Retry() }\n")
	if err := os.Remove(filepath.Join(root, "web", "render.js")); err != nil {
		t.Fatal(err)
	}
	index(t, indexer, engine.IndexOptions{})
	compare("after an incremental run")

	index(t, indexer, engine.IndexOptions{Rebuild: true})
	compare("after a rebuild")
}
