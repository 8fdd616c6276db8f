package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/eval"
)

// extractTxtar writes the files of a txtar archive under a new temporary
// directory and returns it.
func extractTxtar(t *testing.T, archive string) string {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range a.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestEval runs ctx eval on a small Go and Python repository: the JSON
// report's shape, scores that make sense (each in [0, 1], ctx's default
// at least as good as grep, which the repository's guide misleads), the
// table, the HTML file, the held-out split and a lexical-only index.
func TestEval(t *testing.T) {
	root := extractTxtar(t, "testdata/eval/repo.txtar")
	flags := []string{"--repo", root, "--cache-dir", t.TempDir()}
	page := filepath.Join(t.TempDir(), "eval.html")

	stdout, stderr, code := run(t, "", append([]string{"eval", "--all", "--json", "--details", "--html", page}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx eval --all --json: exit %d: %s", code, stderr)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("ctx eval --json printed no report: %v\n%s", err, stdout)
	}
	if rep.Repository != root || rep.Split != "all" || rep.Seed != 1 || rep.IndexGeneration < 1 || !strings.HasPrefix(rep.Model, "builtin/") {
		t.Errorf("report facts: repository %q, split %q, seed %d, generation %d, model %q", rep.Repository, rep.Split, rep.Seed, rep.IndexGeneration, rep.Model)
	}
	if rep.Queries < 20 || rep.Queries != len(rep.Details) || rep.Queries != rep.ByKind["doc"]+rep.ByKind["name"]+rep.ByKind["comment"] {
		t.Errorf("%d queries, %d details, by kind %v: want at least 20, one detail each, every kind counted", rep.Queries, len(rep.Details), rep.ByKind)
	}
	var names []string
	for _, s := range rep.Systems {
		names = append(names, s.Name)
	}
	if d := cmp.Diff([]string{"default", "lexical", "dense", "grep"}, names); d != "" {
		t.Fatalf("systems (-want +got):\n%s", d)
	}
	inUnit := func(what string, m eval.Metrics) {
		for _, v := range []float64{m.Recall1, m.Recall5, m.Recall10, m.MRR, m.NDCG10} {
			if v < 0 || v > 1 {
				t.Errorf("%s: a metric out of [0, 1]: %+v", what, m)
			}
		}
		if m.Recall1 > m.Recall5 || m.Recall5 > m.Recall10 {
			t.Errorf("%s: recall falls with depth: %+v", what, m)
		}
	}
	bySystem := map[string]eval.System{}
	for _, s := range rep.Systems {
		bySystem[s.Name] = s
		inUnit(s.Name, s.Metrics)
		for k, m := range s.ByKind {
			inUnit(s.Name+" "+k, m)
		}
		if s.N != rep.Queries || s.Description == "" || s.LatencyP50MS < 0 || s.LatencyP95MS < s.LatencyP50MS {
			t.Errorf("%s: %d queries, description %q, p50 %v ms, p95 %v ms", s.Name, s.N, s.Description, s.LatencyP50MS, s.LatencyP95MS)
		}
	}
	def, grep := bySystem["default"], bySystem["grep"]
	t.Logf("NDCG@10: default %.3f, lexical %.3f, dense %.3f, grep %.3f", def.NDCG10, bySystem["lexical"].NDCG10, bySystem["dense"].NDCG10, grep.NDCG10)
	if def.NDCG10 < grep.NDCG10 || def.MRR < grep.MRR || def.NDCG10 < 0.8 {
		t.Errorf("default NDCG@10 %.3f, MRR %.3f against grep's %.3f, %.3f: want at least grep's, and NDCG@10 at least 0.8 on this small repository",
			def.NDCG10, def.MRR, grep.NDCG10, grep.MRR)
	}
	for _, d := range rep.Details {
		if _, err := os.Stat(filepath.Join(root, d.Path)); err != nil || d.StartLine < 1 || d.EndLine < d.StartLine {
			t.Errorf("query %q: target %s:%d-%d is not a file's lines", d.Text, d.Path, d.StartLine, d.EndLine)
		}
		if d.Kind == "doc" && d.Symbol != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(d.Symbol)+`\b`).MatchString(d.Text) {
			t.Errorf("doc query %q still names its definition %s", d.Text, d.Symbol)
		}
		for name, a := range d.Answers {
			if a.Rank < 0 || a.Rank > 10 || len(a.Files) > 10 || (a.Rank > 0 && a.Files[a.Rank-1] != d.Path) {
				t.Errorf("query %q, %s: rank %d of files %q", d.Text, name, a.Rank, a.Files)
			}
		}
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), root) {
		t.Errorf("--html wrote no report with a chart (%v)", err)
	}

	// The table: the facts, one aligned row per system, the kinds.
	stdout, stderr, code = run(t, "", append([]string{"eval", "--all", "--queries", "12"}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx eval --all: exit %d: %s", code, stderr)
	}
	for _, re := range []string{
		`(?m)^repository  ` + regexp.QuoteMeta(root) + ` \(9 files\)$`,
		`(?m)^queries     12 from every file: doc 4, name 4, comment 4; seed 1$`,
		`(?m)^system   Recall@1  Recall@5  Recall@10    MRR  NDCG@10    p50 ms    p95 ms$`,
		`(?m)^default +(\d\.\d{3} +){5}\d+\.\d +\d+\.\d$`,
		`(?m)^lexical +(\d\.\d{3} +){5}\d+\.\d +\d+\.\d$`,
		`(?m)^dense +(\d\.\d{3} +){5}\d+\.\d +\d+\.\d$`,
		`(?m)^grep +(\d\.\d{3} +){5}\d+\.\d +\d+\.\d$`,
		`(?m)^system   doc \(4\)  name \(4\)  comment \(4\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("the table lacks %s:\n%s", re, stdout)
		}
	}

	// By default only the held-out files are asked about: here text/wrap.py.
	stdout, stderr, code = run(t, "", append([]string{"eval", "--json", "--details"}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx eval --json: exit %d: %s", code, stderr)
	}
	rep = eval.Report{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Split != "heldout" || rep.Queries == 0 || slices.ContainsFunc(rep.Details, func(d eval.Detail) bool { return d.Path != "text/wrap.py" }) {
		t.Errorf("held-out run: split %q, %d queries, details %+v; want only text/wrap.py's", rep.Split, rep.Queries, rep.Details)
	}

	if _, stderr, code := run(t, "", append([]string{"eval", "--queries", "0"}, flags...)...); code != 2 || !strings.Contains(stderr, "--queries must be positive") {
		t.Errorf("--queries 0: exit %d, %q; want a usage error", code, stderr)
	}

	// Without an embedding model there is no dense system (and another
	// index: the model is part of its identity).
	t.Setenv("CTX_EMBED_PROVIDER", "none")
	stdout, stderr, code = run(t, "", "eval", "--all", "--json", "--queries", "9", "--repo", root, "--cache-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("lexical-only ctx eval: exit %d: %s", code, stderr)
	}
	rep = eval.Report{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, s := range rep.Systems {
		names = append(names, s.Name)
	}
	if d := cmp.Diff([]string{"default", "lexical", "grep"}, names); d != "" || rep.Model != "none" || rep.Queries != 9 {
		t.Errorf("lexical-only: model %q, %d queries, systems (-want +got):\n%s", rep.Model, rep.Queries, d)
	}
}
