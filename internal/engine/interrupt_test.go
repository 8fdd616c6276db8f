package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
)

// manyFiles writes n Go files, each defining one function, under root/pkg.
func manyFiles(t *testing.T, root string, n int, marker string) {
	t.Helper()
	dir := filepath.Join(root, "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		src := fmt.Sprintf("package pkg\n\n// Handler%d answers %s requests number %d.\nfunc Handler%d() string { return %q }\n", i, marker, i, i, marker)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("h%03d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// An index run cancelled after some batches committed leaves an index
// that says it is incomplete, whose dense channel already holds what was
// written (the vector file is not trusted past its content version), and
// that the next run completes.
func TestInterruptedRunIsReportedAndCompleted(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 600, "alpha")
	cfg := testConfig(t)
	e := open(t, cfg, root, embedtest.New(32))
	index(t, e, engine.IndexOptions{})
	// The vector file is written and trusted by this query.
	find(t, e, engine.FindRequest{Query: "alpha requests", Channels: []string{"dense"}, Limit: 5})

	manyFiles(t, root, 600, "zebraquokka")
	ctx, cancel := context.WithCancel(t.Context())
	_, err := e.Index(ctx, engine.IndexOptions{Progress: func(done, total int) {
		if done == total-1 {
			cancel() // with all but the last file processed
		}
	}})
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Index cancelled mid-run: %v, want it cancelled", err)
	}

	st := status(t, e)
	if !st.Incomplete || st.Indexing {
		t.Errorf("status after an interrupted run: incomplete %v, indexing %v; want incomplete", st.Incomplete, st.Indexing)
	}
	resp := find(t, e, engine.FindRequest{Query: "zebraquokka", Channels: []string{"dense"}, Limit: 50})
	if resp.Stats.Fresh || resp.Stats.IndexState != "interrupted" {
		t.Errorf("answer after an interrupted run: fresh %v, index_state %q; want false, interrupted", resp.Stats.Fresh, resp.Stats.IndexState)
	}
	committed := 0
	for _, h := range resp.Results {
		if strings.Contains(h.Summary, "Handler") {
			committed++
		}
	}
	if committed == 0 {
		t.Errorf("the dense channel finds none of the files the interrupted run committed: %+v", resp.Results)
	}

	rep := index(t, e, engine.IndexOptions{})
	if !rep.Resumed || rep.Stats.Imports == nil {
		t.Errorf("the run after an interrupted one: resumed %v, imports %v; want it to finish the run (resolve imports)", rep.Resumed, rep.Stats.Imports)
	}
	st = status(t, e)
	if st.Incomplete || st.Changed+st.Added+st.Deleted != 0 {
		t.Errorf("status after completing: incomplete %v, %d changed, %d added, %d deleted", st.Incomplete, st.Changed, st.Added, st.Deleted)
	}
	resp = find(t, e, engine.FindRequest{Query: "zebraquokka", Channels: []string{"dense"}, Limit: 5})
	if !resp.Stats.Fresh || resp.Stats.IndexState != "" {
		t.Errorf("answer after completing: fresh %v, index_state %q", resp.Stats.Fresh, resp.Stats.IndexState)
	}
}

// A first index run that is interrupted leaves "not finished" answers, and
// the next run resolves the imports the first one never reached.
func TestInterruptedFirstRunResolvesImports(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 400, "alpha")
	cfg := testConfig(t)
	e := open(t, cfg, root, nil)
	ctx, cancel := context.WithCancel(t.Context())
	_, err := e.Index(ctx, engine.IndexOptions{Progress: func(done, total int) {
		if done == total-1 {
			cancel()
		}
	}})
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Index cancelled mid-run: %v, want it cancelled", err)
	}
	if st := status(t, e); !st.Incomplete {
		t.Errorf("status after an interrupted first run: incomplete false")
	}
	if _, err := e.Find(t.Context(), engine.FindRequest{Query: "alpha"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Find after an interrupted first run: %v, want ErrNotIndexed naming ctx index", err)
	}
	index(t, e, engine.IndexOptions{})
	if st := status(t, e); st.Incomplete || st.Imports.Total == 0 {
		t.Errorf("status after completing the first run: incomplete %v, imports %+v; want the imports counted", st.Incomplete, st.Imports)
	}
}

// A rebuild is written beside the live index: a kept (server) engine and a
// one-shot (CLI) engine both answer from the old index while it runs, and
// from the new one, at a later generation, after the swap.
func TestRebuildKeepsAnswering(t *testing.T) {
	t.Parallel()
	root := repo(t)
	manyFiles(t, root, 300, "alpha")
	cfg := testConfig(t)
	emb := embedtest.New(32)
	e := open(t, cfg, root, emb)
	rep := index(t, e, engine.IndexOptions{})
	server, err := engine.Open(cfg, root, &engine.Options{Embedder: emb, KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cli := open(t, cfg, root, emb)
	find(t, server, engine.FindRequest{Query: "alpha requests"})

	calls := 0
	rep2, err := e.Index(t.Context(), engine.IndexOptions{Rebuild: true, Progress: func(done, total int) {
		if done%50 != 0 {
			return
		}
		for _, q := range []*engine.Engine{server, cli} {
			calls++
			resp, err := q.Find(t.Context(), engine.FindRequest{Query: "alpha requests", Limit: 3})
			if err != nil {
				t.Errorf("Find during a rebuild (%d of %d files): %v", done, total, err)
				continue
			}
			if len(resp.Results) == 0 || resp.Stats.IndexGeneration != rep.Generation {
				t.Errorf("Find during a rebuild: %d results at generation %d, want the old index's (generation %d)",
					len(resp.Results), resp.Stats.IndexGeneration, rep.Generation)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || !rep2.Rebuilt || rep2.Generation <= rep.Generation {
		t.Fatalf("rebuild: %d calls during it, rebuilt %v, generation %d after %d", calls, rep2.Rebuilt, rep2.Generation, rep.Generation)
	}
	for _, q := range []*engine.Engine{server, cli} {
		resp := find(t, q, engine.FindRequest{Query: "alpha requests", Channels: []string{"dense"}, Limit: 3})
		if len(resp.Results) == 0 || resp.Stats.IndexGeneration != rep2.Generation || !resp.Stats.Fresh {
			t.Errorf("Find after the rebuild: %d results at generation %d (fresh %v), want generation %d",
				len(resp.Results), resp.Stats.IndexGeneration, resp.Stats.Fresh, rep2.Generation)
		}
	}
	if _, err := os.Stat(e.DBPath() + ".next"); !os.IsNotExist(err) {
		t.Errorf("the rebuilt index's file is left beside the index: %v", err)
	}
}
