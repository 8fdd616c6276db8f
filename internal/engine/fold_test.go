package engine_test

import (
	"database/sql"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/store"
)

// storedVectors returns the rows of e's embeddings table and its
// vector_base meta value, read with SQLite directly.
func storedVectors(t *testing.T, e *engine.Engine) (int, string) {
	t.Helper()
	db, err := sql.Open("sqlite", store.FileURI(e.DBPath())+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var base string
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM embeddings), coalesce((SELECT value FROM meta WHERE key = ?), '')`, store.MetaVectorBase).Scan(&n, &base); err != nil {
		t.Fatal(err)
	}
	return n, base
}

// denseAnswers returns e's answers to shareQueries from the dense channel
// alone, and checks that none was degraded.
func denseAnswers(t *testing.T, e *engine.Engine) map[string][]shareHit {
	t.Helper()
	out := map[string][]shareHit{}
	for _, q := range shareQueries {
		resp := find(t, e, engine.FindRequest{Query: q, Limit: 10, Channels: []string{"dense"}})
		if resp.Stats.Degraded != "" {
			t.Errorf("%q: degraded: %s", q, resp.Stats.Degraded)
		}
		for _, h := range resp.Results {
			out[q] = append(out[q], shareHit{h.Path, h.StartLine, h.EndLine, h.Score})
		}
	}
	return out
}

func localConfig(t *testing.T) config.Config {
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "model2vec", Model: writeTinyModel(t, 1)}
	return cfg
}

// TestFoldAtEachCrashPoint: an index run keeps every vector in SQLite
// until the vector file holding them is in place, then deletes them
// there (the fold); a run stopped before the fold commits, or after it
// and before the free pages are released, leaves an index that answers
// exactly as one that finished, and the next run completes the fold.
func TestFoldAtEachCrashPoint(t *testing.T) {
	for _, stage := range []string{"fold", "vacuum"} {
		t.Run(stage, func(t *testing.T) {
			root := repo(t)
			e := open(t, localConfig(t), root, nil)
			defer engine.SetImportFault(func(s string) error {
				if s == stage {
					return errors.New("crash at " + s)
				}
				return nil
			})()
			index(t, e, engine.IndexOptions{})
			n, base := storedVectors(t, e)
			switch stage {
			case "fold":
				if n == 0 || base != "" {
					t.Fatalf("stopped before the fold: %d stored vectors, base %q; want all stored, no base", n, base)
				}
			case "vacuum":
				if n != 0 || store.ParseVectorBase(base).FileID == 0 {
					t.Fatalf("stopped after the fold: %d stored vectors, base %q; want none stored and a base", n, base)
				}
			}
			got := denseAnswers(t, e)
			engine.SetImportFault(nil)
			index(t, e, engine.IndexOptions{})
			if n, base := storedVectors(t, e); n != 0 || base == "" {
				t.Errorf("after a finished run: %d stored vectors, base %q; want none stored and a base", n, base)
			}
			if diff := cmp.Diff(got, denseAnswers(t, e)); diff != "" {
				t.Errorf("dense answers changed with the fold (-before +after):\n%s", diff)
			}
		})
	}
}

// TestFoldedVectorsFollowChanges: after a fold, a changed file's
// unchanged chunks take their vectors from the vector file instead of
// being embedded again, a new file's vectors are found by a kept
// server that advances its vectors, and the next vector file holds them.
func TestFoldedVectorsFollowChanges(t *testing.T) {
	root := repo(t)
	cfg := localConfig(t)
	indexer := open(t, cfg, root, nil)
	index(t, indexer, engine.IndexOptions{})
	server := openKept(t, cfg, root)
	before := denseAnswers(t, server)

	writeFile(t, root, "extra/more.go", "package extra\n\n// Backoff waits longer after each retry.\nfunc Backoff() {}\n")
	b, err := os.ReadFile(root + "/client/retry.go")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "client/retry.go", string(b)+"\n// Giveup reports whether to stop.\nfunc Giveup() bool { return false }\n")
	rep := index(t, indexer, engine.IndexOptions{})
	if rep.Stats.Changed != 1 || rep.Stats.Added != 1 {
		t.Fatalf("run: %d changed, %d added; want 1 and 1", rep.Stats.Changed, rep.Stats.Added)
	}
	if rep.Stats.Embedded >= rep.Stats.Chunks {
		t.Errorf("embedded %d texts for %d new chunks: the changed file's unchanged chunks were embedded again", rep.Stats.Embedded, rep.Stats.Chunks)
	}
	if n, _ := storedVectors(t, indexer); n != 0 {
		t.Errorf("%d vectors stored after the run's fold, want 0", n)
	}
	resp := find(t, server, engine.FindRequest{Query: "backoff retry", Limit: 50, Channels: []string{"dense"}})
	if !slices.Contains(hitPaths(resp), "extra/more.go") || resp.Stats.Degraded != "" {
		t.Errorf("kept server after the fold: hits %v (degraded %q), want extra/more.go among them", hitPaths(resp), resp.Stats.Degraded)
	}
	if got := denseAnswers(t, open(t, cfg, root, nil)); len(got) != len(before) {
		t.Errorf("a new engine answers %d queries, want %d", len(got), len(before))
	}
}

// TestLostVectorFile: once vectors are folded, a deleted or damaged
// vector file is never silent: finds answer from the lexical channels
// with a note naming `ctx index`, status reports it, and `ctx index`
// embeds the lost chunks again, after which the answers are as before.
func TestLostVectorFile(t *testing.T) {
	for name, damage := range map[string]func(path string) error{
		"deleted":   os.Remove,
		"truncated": func(p string) error { return os.Truncate(p, 100) },
		"garbage":   func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("x", 4096)), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			root := repo(t)
			e := open(t, localConfig(t), root, nil)
			index(t, e, engine.IndexOptions{})
			want := denseAnswers(t, e)
			if err := damage(e.DBPath() + ".vec"); err != nil {
				t.Fatal(err)
			}
			resp := find(t, e, engine.FindRequest{Query: "retry with exponential backoff"})
			if !strings.Contains(resp.Stats.Degraded, "ctx index") || len(resp.Results) == 0 {
				t.Errorf("find with the vector file %s: degraded %q, %d results; want lexical results and a note naming ctx index", name, resp.Stats.Degraded, len(resp.Results))
			}
			if notes := strings.Join(resp.Stats.Notes(), "\n"); strings.Contains(notes, "CTX_EMBED_URL") {
				t.Errorf("find with the vector file %s: notes %q point at the embedding provider, not at ctx index", name, notes)
			}
			if st := status(t, e); st.VectorsLost == "" {
				t.Errorf("status with the vector file %s: no VectorsLost", name)
			}
			rep := index(t, e, engine.IndexOptions{})
			if rep.Stats.Embedded == 0 {
				t.Errorf("the repairing run embedded nothing")
			}
			if st := status(t, e); st.VectorsLost != "" {
				t.Errorf("status after the repair: VectorsLost %q", st.VectorsLost)
			}
			if diff := cmp.Diff(want, denseAnswers(t, e)); diff != "" {
				t.Errorf("dense answers after the repair (-before +after):\n%s", diff)
			}
		})
	}
}

// TestExportFoldedIndex: the archive of an index whose vectors are folded
// holds them all (it installs a working index where no vector file
// exists), and the import folds its own after writing its vector file.
func TestExportFoldedIndex(t *testing.T) {
	a := repo(t)
	cfg := localConfig(t)
	e := open(t, cfg, a, nil)
	index(t, e, engine.IndexOptions{})
	if n, _ := storedVectors(t, e); n != 0 {
		t.Fatalf("%d vectors stored after the index run, want all folded", n)
	}
	want := denseAnswers(t, e)
	var buf strings.Builder
	if _, err := e.ExportIndex(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	b := repo(t)
	cfg2 := cfg
	cfg2.CacheDir = t.TempDir()
	imp := open(t, cfg2, b, nil)
	rep, err := imp.ImportIndex(t.Context(), strings.NewReader(buf.String()), engine.ImportIndexOptions{Name: "a.tar.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 0 {
		t.Errorf("import embedded %d texts; the archive should hold every vector", rep.Embedded)
	}
	if n, base := storedVectors(t, imp); n != 0 || base == "" {
		t.Errorf("after the import: %d stored vectors, base %q; want folded", n, base)
	}
	if diff := cmp.Diff(want, denseAnswers(t, imp)); diff != "" {
		t.Errorf("imported index answers differently (-exported +imported):\n%s", diff)
	}
}
