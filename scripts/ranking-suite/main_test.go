package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from this run")

func TestRankOf(t *testing.T) {
	paths := []string{"a.go", "a.go", "b.go", "c.go", "b.go", "d.go"}
	for _, c := range []struct {
		targets []string
		limit   int
		want    int
	}{
		{[]string{"a.go"}, 10, 1},
		{[]string{"c.go"}, 10, 3}, // distinct files: a, b, c
		{[]string{"d.go", "c.go"}, 10, 3},
		{[]string{"d.go"}, 3, 0}, // past the limit
		{[]string{"e.go"}, 10, 0},
	} {
		if got := rankOf(paths, c.targets, c.limit); got != c.want {
			t.Errorf("rankOf(%v, %d) = %d, want %d", c.targets, c.limit, got, c.want)
		}
	}
}

func TestScore(t *testing.T) {
	s := score([]outcome{{Rank: 1}, {Rank: 2}, {Rank: 6}, {Rank: 0}})
	if s.Top1 != 1 || s.Top5 != 2 || s.Found != 3 || s.Recall1 != 0.25 || s.Recall5 != 0.5 {
		t.Errorf("score = %+v", s)
	}
	if want := (1 + 0.5 + 1.0/6) / 4; s.MRR < want-1e-9 || s.MRR > want+1e-9 {
		t.Errorf("MRR = %v, want %v", s.MRR, want)
	}
	if v := goldenVersion(golden(nil, "go1.2.3")); v != "go1.2.3" {
		t.Errorf("goldenVersion = %q", v)
	}
}

// TestRankingGolden builds ctx, indexes the suite's corpora with the
// built-in model (about 30 s) and compares the suite's stats and ranks
// with testdata/golden.txt (skipped when e2e/mcp's packages are not
// installed). The golden file names the Go release it
// was written with: on another release the source differs, so a
// difference is logged, not failed.
func TestRankingGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the Go standard library; skipped with -short")
	}
	root := ctxproc.ModuleRoot()
	bin := filepath.Join(t.TempDir(), "ctx")
	if err := ctxproc.BuildCtx(root, bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTX_CACHE_DIR", t.TempDir())
	// The default: the built-in model.
	t.Setenv("CTX_EMBED_PROVIDER", "")
	os.Unsetenv("CTX_EMBED_PROVIDER")
	qs, err := allQueries(root)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices.DeleteFunc(slices.Clone(qs), func(q question) bool { return q.Corpus != "goroot" })); n < 40 {
		t.Fatalf("%d questions over the Go standard library, want at least 40", n)
	}
	goroot := filepath.Join(ctxproc.GoRoot(), "src")
	if m := missingCorpus(qs, goroot, root); m != "" {
		t.Skip(m)
	}
	outs, err := suite(context.Background(), bin, corpusDirs(goroot, root), qs, true)
	if err != nil {
		t.Fatal(err)
	}
	questions, off := split(outs)
	if n, share := lowShare(questions); share > maxQuestionsLow {
		t.Errorf("%d of %d questions graded low confidence (%.3f), more than %.2f", n, len(questions), share, maxQuestionsLow)
	}
	if n, share := lowShare(off); share < minOffTopicLow {
		t.Errorf("%d of %d off-topic queries graded low confidence (%.3f), fewer than %.2f", n, len(off), share, minOffTopicLow)
	}
	got := golden(outs, runtime.Version())
	file := filepath.Join(suiteDir(root), "testdata", "golden.txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeFile(file, got); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s:\n%s", file, got)
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (write it with: go test ./scripts/ranking-suite -run TestRankingGolden -update)", err)
	}
	want := string(b)
	if got == want {
		return
	}
	diff := lineDiff(want, got)
	if v := goldenVersion(want); v != runtime.Version() {
		t.Skipf("golden.txt was written with %s, this is %s: the corpus differs; the ranks moved:\n%s", v, runtime.Version(), diff)
	}
	t.Errorf("ranking changed (-golden +now); if intended, rewrite with -update and commit the diff:\n%s", diff)
}

// lineDiff lists the lines of want missing from got (-) and of got
// missing from want (+), in order.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	in := func(ls []string) map[string]int {
		m := map[string]int{}
		for _, l := range ls {
			m[l]++
		}
		return m
	}
	wm, gm := in(w), in(g)
	var b strings.Builder
	for _, l := range w {
		if gm[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if wm[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
