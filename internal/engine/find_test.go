package engine_test

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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/engine"
)

func TestIndexThenFind(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)

	rep := index(t, e, engine.IndexOptions{})
	if rep.Rebuilt || rep.Stats.Added != len(fixtureFiles) || rep.Generation < 1 {
		t.Errorf("first Index: Rebuilt %v, Added %d, Generation %d; want false, %d, ≥ 1", rep.Rebuilt, rep.Stats.Added, rep.Generation, len(fixtureFiles))
	}
	gen := rep.Generation

	resp := find(t, e, engine.FindRequest{Query: "ParseConfig", Limit: 3})
	if resp.Query != "ParseConfig" || resp.Indexed != nil {
		t.Errorf("response query %q, Indexed %v", resp.Query, resp.Indexed)
	}
	if len(resp.Results) == 0 || len(resp.Results) > 3 {
		t.Fatalf("results = %v, want 1 to 3", hitPaths(resp))
	}
	h := resp.Results[0]
	want := engine.Hit{Path: "config/config.go", StartLine: 8, EndLine: 20, Language: "go", Kind: "function", Symbol: "ParseConfig"}
	got := engine.Hit{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Language: h.Language, Kind: h.Kind, Symbol: h.Symbol}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(engine.Hit{}, "StartByte", "EndByte"), cmpopts.IgnoreUnexported(engine.Hit{})); diff != "" {
		t.Errorf("first hit (-want +got):\n%s", diff)
	}
	if h.Score <= 0 || h.Summary == "" || h.Code != "" || h.Stale {
		t.Errorf("first hit = %+v: want a positive score, a summary, no code, not stale", h)
	}
	if st := resp.Stats; !st.Fresh || st.IndexGeneration != gen || st.QueryKind != "symbol" || st.FilesConsidered == 0 {
		t.Errorf("stats = %+v, want fresh at generation %d, symbol query", st, gen)
	}
	if len(resp.Raw) != len(resp.Results) {
		t.Errorf("%d raw results for %d hits", len(resp.Raw), len(resp.Results))
	}

	// Filters pass through.
	resp = find(t, e, engine.FindRequest{Query: "load settings file", Languages: []string{"python"}})
	if len(resp.Results) == 0 || slices.ContainsFunc(resp.Results, func(h engine.Hit) bool { return h.Language != "python" }) {
		t.Errorf("python-only results = %v", hitPaths(resp))
	}
	resp = find(t, e, engine.FindRequest{Query: "retries backoff settings", PathGlobs: []string{"client/**"}})
	if len(resp.Results) == 0 || slices.ContainsFunc(resp.Results, func(h engine.Hit) bool { return !strings.HasPrefix(h.Path, "client/") }) {
		t.Errorf("client/** results = %v", hitPaths(resp))
	}
	// No results is not an error.
	if resp := find(t, e, engine.FindRequest{Query: "zzzqqqxxx"}); resp.Results == nil || len(resp.Results) != 0 {
		t.Errorf("nonsense query: results %#v, want empty and non-nil", resp.Results)
	}

	// An Index with nothing to do keeps the generation; a change bumps it.
	if rep := index(t, e, engine.IndexOptions{}); rep.Generation != gen || rep.Stats.Unchanged != len(fixtureFiles) {
		t.Errorf("second Index: generation %d (want %d), %d unchanged", rep.Generation, gen, rep.Stats.Unchanged)
	}
	writeFile(t, root, "client/http.go", "package client\n\n// Get fetches a URL.\nfunc Get(url string) {}\n")
	if rep := index(t, e, engine.IndexOptions{}); rep.Generation <= gen || rep.Stats.Added != 1 {
		t.Errorf("Index after adding a file: generation %d (want > %d), %d added", rep.Generation, gen, rep.Stats.Added)
	}
}

func TestFindNotIndexed(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil)
	if _, err := e.Find(t.Context(), engine.FindRequest{Query: "ParseConfig"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Find before Index: %v, want ErrNotIndexed", err)
	}
	if _, err := e.Status(t.Context()); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Status before Index: %v, want ErrNotIndexed", err)
	}
	if _, err := os.Stat(e.DBPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Find or Status created the database (stat: %v)", err)
	}
}

func TestFindAutoIndex(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil)
	var mu sync.Mutex
	var ended []string
	resp := find(t, e, engine.FindRequest{Query: "exponential backoff", AutoIndex: true, Phase: func(ph engine.Phase) {
		if ph.End {
			mu.Lock()
			ended = append(ended, ph.Name)
			mu.Unlock()
		}
	}})
	if resp.Indexed == nil || resp.Indexed.Stats.Added != len(fixtureFiles) {
		t.Fatalf("Indexed = %+v, want a report of %d added files", resp.Indexed, len(fixtureFiles))
	}
	if want := []string{"discover", "chunk+embed", "resolve", "merge"}; !slices.Equal(ended, want) {
		t.Errorf("phases of the automatic index run: %q, want %q", ended, want)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "client/retry.go" {
		t.Errorf("results = %v, want client/retry.go first", hitPaths(resp))
	}
	// The next call finds the index and does not index again.
	if resp := find(t, e, engine.FindRequest{Query: "exponential backoff", AutoIndex: true}); resp.Indexed != nil {
		t.Errorf("second AutoIndex Find indexed again: %+v", resp.Indexed)
	}
}

// lines returns lines start..end (1-based, inclusive) of a file, with
// their newlines.
func lines(t *testing.T, root, rel string, start, end int) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.SplitAfter(string(src), "\n")
	return strings.Join(ls[start-1:min(end, len(ls))], "")
}

func TestFindFull(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	resp := find(t, e, engine.FindRequest{Query: "settings configuration", Full: true, Limit: 10})
	if len(resp.Results) == 0 {
		t.Fatal("no results")
	}
	for _, h := range resp.Results {
		if want := lines(t, root, h.Path, h.StartLine, h.EndLine); h.Code != want {
			t.Errorf("%s:%d-%d code = %q, want %q", h.Path, h.StartLine, h.EndLine, h.Code, want)
		}
	}
	first := resp.Results[0]
	if first.Path == "config/config.go" && !strings.Contains(first.Code, "func ParseConfig(") {
		t.Errorf("ParseConfig hit code = %q", first.Code)
	}
	// Code fetches the same text later, for a hit found without Full.
	bare := find(t, e, engine.FindRequest{Query: "settings configuration", Limit: 10})
	for i, h := range bare.Results {
		if got := e.Code(h); h.Code != "" || got != resp.Results[i].Code {
			t.Errorf("Code(%s:%d) = %q, want %q", h.Path, h.StartLine, got, resp.Results[i].Code)
		}
	}
}

func TestFindAfterEdit(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})

	// Two lines inserted above ParseConfig: the indexed byte range is now
	// wrong, so the code comes from the current file by line range.
	p := filepath.Join(root, "config", "config.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "// ParseConfig reads", "// Two new lines\n// shift everything.\n\n// ParseConfig reads", 1)
	writeFile(t, root, "config/config.go", edited)

	resp := find(t, e, engine.FindRequest{Query: "ParseConfig", Full: true, Limit: 10})
	if resp.Stats.Fresh {
		t.Error("Stats.Fresh after editing a result's file")
	}
	// The plain output shows Stats.Notes, not each hit's flag: the note
	// names the changed file and the fix.
	if notes := strings.Join(resp.Stats.Notes(), "\n"); !strings.Contains(notes, "config/config.go") || !strings.Contains(notes, "ctx index") {
		t.Errorf("notes %q: want the changed file and `ctx index`", notes)
	}
	var sawStale, sawFresh bool
	for _, h := range resp.Results {
		if h.Stale != (h.Path == "config/config.go") {
			t.Errorf("%s: Stale = %v", h.Path, h.Stale)
		}
		sawStale = sawStale || h.Stale
		sawFresh = sawFresh || !h.Stale
		if want := lines(t, root, h.Path, h.StartLine, h.EndLine); h.Code != want {
			t.Errorf("%s:%d-%d code = %q, want the current lines %q", h.Path, h.StartLine, h.EndLine, h.Code, want)
		}
	}
	if !sawStale || !sawFresh {
		t.Errorf("results %v: want hits from the edited file and from others", hitPaths(resp))
	}

	// Deleting the file also marks its hits stale, with no code.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	resp = find(t, e, engine.FindRequest{Query: "ParseConfig", Full: true})
	for _, h := range resp.Results {
		if h.Path == "config/config.go" && (!h.Stale || h.Code != "") {
			t.Errorf("hit of a deleted file: Stale %v, code %q", h.Stale, h.Code)
		}
	}

	// Index brings it back to fresh.
	index(t, e, engine.IndexOptions{})
	if resp := find(t, e, engine.FindRequest{Query: "ParseConfig"}); !resp.Stats.Fresh {
		t.Error("not fresh after re-indexing")
	}
}

// TestFindAfterInterruptedIndex: an index whose first run was interrupted
// has files but no identity yet. Find with AutoIndex should finish it (as
// Index does, without a rebuild) instead of calling it the index of
// another build.
func TestFindAfterInterruptedIndex(t *testing.T) {
	t.Parallel()
	root := repo(t)
	for i := range 40 {
		writeFile(t, root, fmt.Sprintf("gen/f%02d.go", i), "package gen\n\nfunc F() int { return 1 }\n")
	}
	e := open(t, testConfig(t), root, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := e.Find(ctx, engine.FindRequest{Query: "ParseConfig", AutoIndex: true, Phase: func(ph engine.Phase) {
		if ph.Name == "chunk+embed" && ph.Done == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Find canceled while auto-indexing: %v, want context.Canceled", err)
	}
	if st := status(t, e); st.Stale {
		t.Errorf("Status of an interrupted index: Stale (stored identity %q)", st.StoredIdentity)
	}
	resp, err := e.Find(t.Context(), engine.FindRequest{Query: "ParseConfig", AutoIndex: true})
	if err != nil {
		t.Fatalf("AutoIndex Find after an interrupted index: %v", err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "config/config.go" {
		t.Errorf("results = %v, want config/config.go first", hitPaths(resp))
	}
}
