package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/memory"
)

func addMemory(t *testing.T, e *engine.Engine, in engine.MemoryInput) engine.Memory {
	t.Helper()
	m, err := e.AddMemory(t.Context(), in)
	if err != nil {
		t.Fatalf("AddMemory(%q): %v", in.Text, err)
	}
	return m
}

func memoryTexts(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ms, err := e.ListMemories(t.Context(), engine.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// TestMemoriesSurviveIndexChanges: memories live in their own file, which
// no index run, rebuild, identity change or clear touches.
func TestMemoriesSurviveIndexChanges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := repo(t)
	cfg := testConfig(t)
	e := open(t, cfg, root, embedtest.New(16))

	// No index is needed to hold or find memories.
	if hits, err := e.FindMemories(ctx, engine.MemoryQuery{Text: "retry"}); err != nil || len(hits) != 0 {
		t.Fatalf("FindMemories with no memory file = %v, %v", hits, err)
	}
	if _, err := os.Stat(e.MemoryPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a search created the memory file: %v", err)
	}
	addMemory(t, e, engine.MemoryInput{Text: "Retries give up after five attempts.", Path: "client/retry.go", Tags: []string{"retry"}})
	addMemory(t, e, engine.MemoryInput{Text: "Config is read once at startup.", Kind: "pattern"})
	want := memoryTexts(t, e)
	if len(want) != 2 {
		t.Fatalf("memories = %v", want)
	}

	index(t, e, engine.IndexOptions{})
	index(t, e, engine.IndexOptions{Rebuild: true})
	if diff := cmp.Diff(want, memoryTexts(t, e)); diff != "" {
		t.Errorf("after a rebuild (-want +got):\n%s", diff)
	}
	// Another model: the index is rebuilt for it, the memories stay and
	// are re-embedded by the next search.
	e32 := open(t, cfg, root, embedtest.New(32))
	if rep := index(t, e32, engine.IndexOptions{}); !rep.Rebuilt {
		t.Errorf("index with another model did not rebuild")
	}
	hits, err := e32.FindMemories(ctx, engine.MemoryQuery{Text: "how many attempts before retries give up"})
	if err != nil || len(hits) == 0 || hits[0].Path != "client/retry.go" || hits[0].Channels["dense"].Rank != 1 {
		t.Errorf("FindMemories after a model change = %+v, %v", hits, err)
	}
	if err := e32.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e32.Find(ctx, engine.FindRequest{Query: "retry"}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("Find after Clear: %v", err)
	}
	if diff := cmp.Diff(want, memoryTexts(t, e32)); diff != "" {
		t.Errorf("after Clear (-want +got):\n%s", diff)
	}
}

func TestMemoryPaths(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want, wantErr string
	}{
		{path: filepath.Join(e.Root(), "client", "retry.go"), want: "client/retry.go"},
		{path: "client/../client/retry.go", wantErr: "leaves the repository root"},
		{path: "../elsewhere.go", wantErr: "leaves the repository root"},
		{path: filepath.Join(outside, "x.go"), wantErr: "outside the repository root"},
		{path: "escape/x", wantErr: "through a symlink"},
		{path: "not/yet/written.go", want: "not/yet/written.go"},
	} {
		m, err := e.AddMemory(t.Context(), engine.MemoryInput{Text: "about " + tc.path, Path: tc.path})
		switch {
		case tc.wantErr != "":
			if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("AddMemory(path %s) = %v, want ErrInvalid saying %q", tc.path, err, tc.wantErr)
			}
		case err != nil || m.Path != tc.want:
			t.Errorf("AddMemory(path %s) = %q, %v; want %q", tc.path, m.Path, err, tc.want)
		}
	}
	if err := e.RemoveMemory(t.Context(), 999); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("RemoveMemory(999) = %v, want ErrNotFound", err)
	}
}

// recorder is a provider that remembers the texts it was sent.
type recorder struct {
	*embedtest.Fake
	mu    sync.Mutex // guards texts
	texts []string
}

func (r *recorder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.Fake.Embed(ctx, texts, kind)
}

func (r *recorder) sent() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.texts, "\n")
}

// TestMemorySecretsRemote: memory texts are masked before a remote
// provider embeds them, and stored as written.
func TestMemorySecretsRemote(t *testing.T) {
	t.Parallel()
	const key = "ghp_" + "Zx8Kq2Lm5Np7Rs9Tv1Wy3Ab6Cd4Ef0Gh2Ij7"
	text := "The release bot pushes tags with " + key + "; rotate it every January."
	for _, tc := range []struct {
		provider string
		masked   bool
	}{{"openai", true}, {"ollama", true}, {"voyage", true}, {"builtin", false}, {"onnx", false}, {"model2vec", false}} {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t)
			cfg.Embed.Provider = tc.provider
			rec := &recorder{Fake: embedtest.New(16)}
			e := open(t, cfg, repo(t), rec)
			m := addMemory(t, e, engine.MemoryInput{Text: text})
			if engine.IsRemote(tc.provider) != tc.masked {
				t.Errorf("IsRemote(%q) = %v", tc.provider, !tc.masked)
			}
			if leaked := strings.Contains(rec.sent(), key); leaked == tc.masked {
				t.Errorf("key sent to %s: %v\n%s", tc.provider, leaked, rec.sent())
			}
			if got, _ := e.ListMemories(t.Context(), engine.MemoryFilter{}); len(got) != 1 || got[0].Text != text || m.Text != text {
				t.Errorf("stored %+v, want the text as written", got)
			}
		})
	}
}

func TestMemoryExportImport(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := open(t, testConfig(t), repo(t), embedtest.New(16))
	addMemory(t, src, engine.MemoryInput{Text: "one", Tags: []string{"a"}})
	addMemory(t, src, engine.MemoryInput{Text: "two", Kind: "snippet", Path: "go.mod", Priority: 5})
	var buf bytes.Buffer
	if n, err := src.ExportMemories(ctx, &buf); err != nil || n != 2 {
		t.Fatalf("ExportMemories = %d, %v", n, err)
	}
	dst := open(t, testConfig(t), repo(t), embedtest.New(16))
	in := buf.String() + "{broken\n"
	rep, err := dst.ImportMemories(ctx, strings.NewReader(in))
	if err != nil || rep.Added != 2 || rep.Skipped != 1 || len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0], "line 3: ") {
		t.Fatalf("ImportMemories = %+v, %v", rep, err)
	}
	if diff := cmp.Diff(memoryTexts(t, src), memoryTexts(t, dst)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestContextSearch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := open(t, testConfig(t), repo(t), embedtest.New(64))

	// Not indexed: the memories answer alone, saying why there is no code.
	addMemory(t, e, engine.MemoryInput{Text: "Retry backoff doubles the delay after each failed attempt; see client/retry.go.", Tags: []string{"retry"}})
	addMemory(t, e, engine.MemoryInput{Text: "Templates are rendered on the server.", Kind: "pattern"})
	resp, err := e.ContextSearch(ctx, engine.ContextRequest{Query: "retry backoff"})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].Source != "memory" || !errors.Is(resp.CodeErr, engine.ErrNotIndexed) || resp.Stats.CodeUnavailable == "" {
		t.Fatalf("ContextSearch before indexing = %+v, %v", resp, err)
	}
	if _, err := e.ContextSearch(ctx, engine.ContextRequest{Query: "retry backoff", NoMemories: true}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("ContextSearch without memories before indexing: %v, want ErrNotIndexed", err)
	}

	index(t, e, engine.IndexOptions{})
	resp, err = e.ContextSearch(ctx, engine.ContextRequest{Query: "retry backoff", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]int{}
	for i, it := range resp.Results {
		sources[it.Source]++
		if i > 0 && it.Score > resp.Results[i-1].Score {
			t.Errorf("item %d scores above item %d", i, i-1)
		}
	}
	if sources["code"] == 0 || sources["memory"] != 1 || len(resp.Results) > 5 || resp.Results[0].Source != "code" || resp.Results[1].Source != "memory" {
		t.Errorf("ContextSearch = %+v, want code and the retry memory interleaved", resp.Results)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, it := range raw.Results {
		switch it["source"] {
		case "code":
			if it["path"] == nil || it["start_line"] == nil || it["id"] != nil {
				t.Errorf("code item JSON %v", it)
			}
		case "memory":
			for _, k := range []string{"id", "kind", "text", "tags", "priority", "score"} {
				if _, ok := it[k]; !ok {
					t.Errorf("memory item JSON %v has no %s", it, k)
				}
			}
		default:
			t.Errorf("item JSON %v: source", it)
		}
	}
	var back engine.ContextResponse
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Results) != len(resp.Results) || back.Results[1].Memory == nil || back.Results[1].Memory.Text != resp.Results[1].Memory.Text {
		t.Errorf("JSON round trip = %+v", back.Results)
	}

	resp, err = e.ContextSearch(ctx, engine.ContextRequest{Query: "retry backoff", NoMemories: true})
	if err != nil || len(resp.Results) == 0 || resp.Stats.Memory != nil {
		t.Fatalf("ContextSearch without memories = %+v, %v", resp, err)
	}
	for _, it := range resp.Results {
		if it.Source != "code" {
			t.Errorf("NoMemories returned a %s item", it.Source)
		}
	}
}
