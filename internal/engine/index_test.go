package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/engine"
)

func TestRebuildOption(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil)
	index(t, e, engine.IndexOptions{})
	rep := index(t, e, engine.IndexOptions{Rebuild: true})
	if !rep.Rebuilt || rep.Stats.Added != len(fixtureFiles) || rep.Stats.Unchanged != 0 {
		t.Errorf("Index with Rebuild: Rebuilt %v, Added %d, Unchanged %d", rep.Rebuilt, rep.Stats.Added, rep.Stats.Unchanged)
	}
}

func TestUnsafeRoot(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Home = root
	e := open(t, cfg, root, nil)
	if _, err := e.Index(t.Context(), engine.IndexOptions{}); !errors.Is(err, discover.ErrUnsafeRoot) {
		t.Errorf("Index of the home directory: %v, want discover.ErrUnsafeRoot", err)
	}
	if _, err := e.Find(t.Context(), engine.FindRequest{Query: "x", AutoIndex: true}); !errors.Is(err, discover.ErrUnsafeRoot) {
		t.Errorf("AutoIndex Find in the home directory: %v, want discover.ErrUnsafeRoot", err)
	}
	if _, err := os.Stat(e.DBPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Index created the database (stat: %v)", err)
	}
	// A subdirectory of home is fine, and so is home with Force.
	if _, err := open(t, cfg, filepath.Join(root, "config"), nil).Index(t.Context(), engine.IndexOptions{}); err != nil {
		t.Errorf("Index of a subdirectory of home: %v", err)
	}
	cfg.Force = true
	if _, err := open(t, cfg, root, nil).Index(t.Context(), engine.IndexOptions{}); err != nil {
		t.Errorf("Index of home with Force: %v", err)
	}
}

func TestIndexCanceled(t *testing.T) {
	t.Parallel()
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		e := open(t, testConfig(t), repo(t), nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := e.Index(ctx, engine.IndexOptions{}); err == nil {
			t.Error("Index with a canceled context: no error")
		}
	})
	t.Run("during", func(t *testing.T) {
		t.Parallel()
		root := repo(t)
		for i := range 40 {
			writeFile(t, root, fmt.Sprintf("gen/f%02d.go", i), "package gen\n\nfunc F() int { return 1 }\n")
		}
		e := open(t, testConfig(t), root, nil)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, err := e.Index(ctx, engine.IndexOptions{Progress: func(done, _ int) {
			if done == 1 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Index canceled during the run: %v, want context.Canceled", err)
		}
		// The interrupted index is not an index of another build: the
		// next Index completes it and Find answers.
		rep := index(t, e, engine.IndexOptions{})
		if rep.Rebuilt {
			t.Error("Index after an interrupted run rebuilt the index")
		}
		if resp := find(t, e, engine.FindRequest{Query: "ParseConfig"}); len(resp.Results) == 0 {
			t.Error("no results after completing the index")
		}
	})
}

func TestEmptyIndex(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"empty directory":    nil,
		"only skipped files": {".env": "TOKEN=x\n", "go.sum": "example.com/x v1.0.0 h1:abc=\n", "img/a.png": "png"},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for p, c := range files {
				writeFile(t, root, p, c)
			}
			e := open(t, testConfig(t), root, nil)
			rep := index(t, e, engine.IndexOptions{})
			if rep.Stats.Added != 0 || len(rep.Stats.Skips) != len(files) {
				t.Errorf("Index: Added %d, skips %v", rep.Stats.Added, rep.Stats.Skips)
			}
			if _, err := e.Find(t.Context(), engine.FindRequest{Query: "anything"}); !errors.Is(err, engine.ErrEmptyIndex) {
				t.Errorf("Find on an empty index: %v, want ErrEmptyIndex", err)
			}
			if st := status(t, e); st.Files != 0 || st.Chunks != 0 || st.Stale {
				t.Errorf("status = %+v, want no files, not stale", st)
			}
		})
	}
}
