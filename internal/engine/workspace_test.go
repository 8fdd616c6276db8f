package engine_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx-dev/ctx/internal/engine"
)

const wsAPI = `
-- go.mod --
module example.com/api
-- limit/bucket.go --
package limit

// Bucket is a token bucket rate limiter: Take waits until a token is free.
type Bucket struct{ tokens, capacity int }

// Take removes one token from the bucket, refilling it first.
func (b *Bucket) Take() bool {
	if b.tokens == 0 {
		return false
	}
	b.tokens--
	return true
}
-- server/handler.go --
package server

// Handle serves one request after the rate limiter admits it.
func Handle(path string) string { return "ok " + path }
`

const wsWeb = `
-- package.json --
{"name": "web-ui"}
-- src/render.js --
// renderTemplate fills a mustache template with the view's fields.
export function renderTemplate(template, view) {
  return template.replace(/{{(\w+)}}/g, (_, k) => view[k] ?? "");
}
-- src/router.js --
// navigate pushes a route onto the browser history and renders its page.
export function navigate(route) {
  history.pushState({}, "", route);
}
`

// writeTxtar extracts an archive into a new temporary directory.
func writeTxtar(t *testing.T, data string) string {
	t.Helper()
	dir := t.TempDir()
	if err := txtar.Write(txtar.Parse([]byte(data)), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func workspaceMembers(t *testing.T) []engine.Member {
	t.Helper()
	cfg := testConfig(t)
	api, web := writeTxtar(t, wsAPI), writeTxtar(t, wsWeb)
	ea, ew := open(t, cfg, api, nil), open(t, cfg, web, nil)
	index(t, ea, engine.IndexOptions{})
	index(t, ew, engine.IndexOptions{})
	return []engine.Member{{Name: "api", Engine: ea}, {Name: "web", Engine: ew}}
}

func TestFindAcross(t *testing.T) {
	ms := workspaceMembers(t)
	for _, tc := range []struct {
		query, repo, path string
	}{
		{"token bucket rate limiter", "api", "limit/bucket.go"},
		{"fill a mustache template", "web", "src/render.js"},
		{"push a route onto the browser history", "web", "src/router.js"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			resp, err := engine.FindAcross(t.Context(), ms, engine.FindRequest{Query: tc.query, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) == 0 {
				t.Fatal("no results")
			}
			top := resp.Results[0]
			if top.Repo != tc.repo || top.Path != tc.path {
				t.Errorf("top = %s:%s, want %s:%s", top.Repo, top.Path, tc.repo, tc.path)
			}
			for _, h := range resp.Results {
				if h.Repo == "" {
					t.Errorf("%s has no repo", h.Path)
				}
			}
			if len(resp.Stats.Members) != 2 {
				t.Fatalf("members = %+v", resp.Stats.Members)
			}
			for _, m := range resp.Stats.Members {
				if m.Error != "" || !m.Fresh {
					t.Errorf("member %+v", m)
				}
				if m.Repo == tc.repo && m.Relevance != 1 {
					t.Errorf("member %s relevance %v, want 1 (it holds the query best)", m.Repo, m.Relevance)
				}
			}
			// The other member's results come after the answering one's.
			seenOther := false
			for _, h := range resp.Results {
				if h.Repo != tc.repo {
					seenOther = true
				} else if seenOther {
					t.Errorf("a %s result ranks below the other member's: %+v", tc.repo, resp.Results)
					break
				}
			}
		})
	}
}

func TestFindAcrossMemberNotIndexed(t *testing.T) {
	ms := workspaceMembers(t)
	cfg := testConfig(t)
	fresh := open(t, cfg, writeTxtar(t, wsWeb), nil)
	ms = append(ms, engine.Member{Name: "new", Engine: fresh})
	resp, err := engine.FindAcross(t.Context(), ms, engine.FindRequest{Query: "token bucket", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Repo != "api" {
		t.Fatalf("results = %+v", resp.Results)
	}
	last := resp.Stats.Members[2]
	if last.Repo != "new" || last.Error == "" {
		t.Errorf("unindexed member = %+v, want an error naming the fix", last)
	}

	// No member answering is the members' error, not an empty answer.
	_, err = engine.FindAcross(t.Context(), ms[2:], engine.FindRequest{Query: "token bucket"})
	if !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("err = %v, want ErrNotIndexed", err)
	}
}

func TestPackAcross(t *testing.T) {
	ms := workspaceMembers(t)
	resp, err := engine.FindAcross(t.Context(), ms, engine.FindRequest{Query: "template route rate limiter", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	engines := map[string]*engine.Engine{"api": ms[0].Engine, "web": ms[1].Engine}
	packed, used, _ := engine.PackAcross(engines, resp.Results, 4000, func(h engine.Hit) int { return len(h.Code) / 4 })
	if len(packed) == 0 || used == 0 {
		t.Fatalf("packed %d hits, %d tokens", len(packed), used)
	}
	repos := map[string]bool{}
	for _, h := range packed {
		repos[h.Repo] = true
		if h.Code == "" {
			t.Errorf("%s:%s has no code", h.Repo, h.Path)
		}
		if filepath.IsAbs(h.Path) {
			t.Errorf("path %s is absolute, want relative to its repo", h.Path)
		}
	}
	if !repos["api"] || !repos["web"] {
		t.Errorf("packed repos = %v, want both", repos)
	}
}

func TestFindAcrossRankDecay(t *testing.T) {
	ms := workspaceMembers(t)
	req := engine.FindRequest{Query: "token bucket rate limiter template route", Limit: 10}
	resp, err := engine.FindAcross(t.Context(), ms, req)
	if err != nil {
		t.Fatal(err)
	}
	rel := map[string]float64{}
	for _, m := range resp.Stats.Members {
		rel[m.Repo] = m.Relevance
	}
	// Each member's results keep its own order (a prefix of its own
	// answer) and its r-th one scores rel/√r.
	own := map[string][]engine.Hit{}
	for _, m := range ms {
		r, err := m.Engine.Find(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		own[m.Name] = r.Results
	}
	rank := map[string]int{}
	repos := map[string]bool{}
	for _, h := range resp.Results {
		repos[h.Repo] = true
		i := rank[h.Repo]
		rank[h.Repo]++
		if want := own[h.Repo]; i >= len(want) || want[i].Path != h.Path || want[i].StartLine != h.StartLine {
			t.Errorf("%s result %d is %s:%d, not the member's own %d-th", h.Repo, i+1, h.Path, h.StartLine, i+1)
		}
		want := rel[h.Repo] / math.Sqrt(float64(i+1))
		if math.Abs(h.Score-want) > 1e-3 {
			t.Errorf("%s:%s (its member's result %d, relevance %v) scores %v, want %v", h.Repo, h.Path, i+1, rel[h.Repo], h.Score, want)
		}
	}
	if !repos["api"] || !repos["web"] {
		t.Errorf("repos = %v, want both members to answer a query naming both", repos)
	}
}
