package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// goPackages copies real Go packages of the toolchain into a new
// repository: enough documented definitions to adapt a model on.
func goPackages(t *testing.T, pkgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, pkg := range pkgs {
		paths, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pkg, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Skipf("no Go sources for %s in GOROOT", pkg)
		}
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, pkg+"/"+filepath.Base(p), string(b))
		}
	}
	return dir
}

// TestAdapt checks ctx train's engine side on real code: the adapted
// model is trained from the built-in one, stored beside the index, used
// by engines opened afterwards (so the index is rebuilt with it), and
// removed again; a damaged model file is an error naming the fix.
func TestAdapt(t *testing.T) {
	t.Parallel()
	root := goPackages(t, "strings", "bufio", "bytes")
	cfg := testConfig(t)
	cfg.Embed.Provider = "builtin"
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})
	before := e.Identity().Model

	rep, err := e.Adapt(t.Context(), engine.AdaptOptions{Epochs: 1, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs < 64 || rep.HeldOut == 0 || rep.Files == 0 {
		t.Errorf("Adapt mined %d training and %d held-out pairs from %d files", rep.Pairs, rep.HeldOut, rep.Files)
	}
	if rep.Before.Dense <= 0 || rep.After.Dense <= 0 || !rep.Kept {
		t.Errorf("Adapt report %+v: want held-out scores and the model kept (forced)", rep)
	}
	if _, err := os.Stat(e.AdaptedModelPath()); err != nil {
		t.Fatalf("adapted model not stored: %v", err)
	}
	if !strings.HasPrefix(rep.Model, engine.AdaptedModelName+"@") || e.Identity().Model == before {
		t.Errorf("after Adapt the engine embeds with %s (report %s), before %s", e.Identity().Model, rep.Model, before)
	}
	if r := index(t, e, engine.IndexOptions{}); !r.Rebuilt {
		t.Error("the index was not rebuilt with the adapted model")
	}

	// A new engine on the repository picks the adapted model up; one
	// opened with NoAdapted does not.
	again := open(t, cfg, root, nil)
	if again.Identity().Model != e.Identity().Model {
		t.Errorf("reopened engine embeds with %s, want the adapted %s", again.Identity().Model, e.Identity().Model)
	}
	resp := find(t, again, engine.FindRequest{Query: "split a string around each instance of a separator"})
	if len(resp.Results) == 0 {
		t.Error("no results with the adapted model")
	}
	plain, err := engine.Open(cfg, root, &engine.Options{NoAdapted: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Identity().Model != before {
		t.Errorf("NoAdapted engine embeds with %s, want the built-in %s", plain.Identity().Model, before)
	}

	// A damaged file is an error that says what to run.
	if err := os.WriteFile(e.AdaptedModelPath(), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Open(cfg, root, nil); err == nil || !strings.Contains(err.Error(), "ctx train --remove") {
		t.Errorf("Open with a damaged adapted model: %v, want an error naming ctx train --remove", err)
	}

	removed, err := plain.RemoveAdapted()
	if err != nil || !removed {
		t.Fatalf("RemoveAdapted = %v, %v", removed, err)
	}
	if _, err := os.Stat(plain.AdaptedModelPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("adapted model still there: %v", err)
	}
	if open(t, cfg, root, nil).Identity().Model != before {
		t.Error("after RemoveAdapted a new engine does not use the built-in model")
	}
	if removed, err := plain.RemoveAdapted(); err != nil || removed {
		t.Errorf("second RemoveAdapted = %v, %v; want false, nil", removed, err)
	}
}

// TestAdaptRefuses checks the cases Adapt cannot serve: another embedding
// provider, and a repository with too little code to learn from.
func TestAdaptRefuses(t *testing.T) {
	t.Parallel()
	e := open(t, testConfig(t), repo(t), nil) // provider "none"
	if _, err := e.Adapt(t.Context(), engine.AdaptOptions{}); err == nil || !strings.Contains(err.Error(), "built-in model") {
		t.Errorf("Adapt without the built-in provider: %v", err)
	}
	cfg := testConfig(t)
	cfg.Embed.Provider = "builtin"
	e = open(t, cfg, repo(t), nil)
	if _, err := e.Adapt(t.Context(), engine.AdaptOptions{}); err == nil || !strings.Contains(err.Error(), "training pairs") {
		t.Errorf("Adapt on a tiny repository: %v", err)
	}
}
