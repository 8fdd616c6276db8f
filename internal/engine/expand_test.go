package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

func expansions(hits []engine.Hit) []string {
	var out []string
	for _, h := range hits {
		for _, b := range h.Boosts {
			if strings.HasPrefix(b, "expanded: ") {
				out = append(out, h.Path+" "+h.Symbol+" ("+strings.TrimPrefix(b, "expanded: ")+")")
			}
		}
	}
	return out
}

// TestExpand: method seeds bring their type's definition, seeds bring the
// definitions they call through imports, and a who-calls query brings
// the callers; pieces come after the seeds, below them, without repeats.
func TestExpand(t *testing.T) {
	t.Parallel()
	e, root := lookupRepo(t)
	writeFile(t, root, "store/store.go", `package store

// Store keeps values by key.
type Store struct {
	m map[string]string
}

// Get returns the value kept under key.
func (s *Store) Get(key string) string {
	return s.m[key]
}
`)
	index(t, e, engine.IndexOptions{})
	all := engine.ExpandOptions{Seeds: 3, Headers: true, Callees: true, MaxCallees: 4, Callers: true, MaxCallers: 3}

	resp := find(t, e, engine.FindRequest{Query: "Get returns the value kept under key", Limit: 1, Expand: all, Full: true})
	if got := expansions(resp.Results); !slices.Contains(got, "store/store.go Store (definition of Store)") {
		t.Errorf("method seed expansions = %v, want the Store type", got)
	}

	resp = find(t, e, engine.FindRequest{Query: "func main", Limit: 1, Expand: all, Full: true})
	if resp.Results[0].Symbol != "main" {
		t.Fatalf("seed %s, want main", resp.Results[0].Symbol)
	}
	got := expansions(resp.Results)
	for _, want := range []string{"client/retry.go Retry (called by main)", "config/config.go ParseConfig (called by main)"} {
		if !slices.Contains(got, want) {
			t.Errorf("main's expansions = %v, lack %s", got, want)
		}
	}
	for i, h := range resp.Results {
		if i > 0 && len(expansions([]engine.Hit{h})) > 0 && h.Score > resp.Results[0].Score {
			t.Errorf("expanded %s scores above the seed", h.Path)
		}
		if h.Code == "" {
			t.Errorf("%s:%d has no code", h.Path, h.StartLine)
		}
	}

	resp = find(t, e, engine.FindRequest{Query: "who calls Retry", Limit: 1, Expand: all})
	if resp.Results[0].Symbol != "Retry" {
		t.Fatalf("seed %s, want Retry", resp.Results[0].Symbol)
	}
	if !slices.Contains(expansions(resp.Results), "cmd/main.go main (calls Retry)") {
		t.Errorf("who-calls expansions = %v, want main", expansions(resp.Results))
	}

	// A small seed brings its neighbours in the file.
	writeFile(t, root, "store/more.go", "package store\n\n// Open opens a store.\nfunc Open() *Store { return &Store{} }\n\n// Close closes it.\nfunc Close(s *Store) {}\n\n// Flush writes pending values.\nfunc Flush(s *Store) {}\n")
	index(t, e, engine.IndexOptions{})
	resp = find(t, e, engine.FindRequest{Query: "Close closes it", Limit: 1, Expand: engine.ExpandOptions{Seeds: 1, Neighbours: true}})
	if resp.Results[0].Symbol != "Close" {
		t.Fatalf("seed %s, want Close", resp.Results[0].Symbol)
	}
	want := []string{"store/more.go Open (next to Close)", "store/more.go Flush (next to Close)"}
	if got := expansions(resp.Results); !slices.Equal(got, want) {
		t.Errorf("neighbours of Close = %v, want %v", got, want)
	}

	// A method's call of a helper in its own file brings the helper: a
	// Python file imports nothing of its own.
	writeFile(t, root, "tokens/token.py", `import time


class Token:
    def open_sealed(self, token, ttl=None):
        """Open a sealed token, refusing one older than ttl seconds."""
        stamp, body = self._split_token(token)
        return self._check_age(body, stamp, ttl)

    def _split_token(self, token):
        return token[:8], token[8:]

    def _check_age(self, body, stamp, ttl):
        if ttl is not None and stamp + ttl < time.time():
            raise ValueError("too old")
        return body
`)
	index(t, e, engine.IndexOptions{})
	resp = find(t, e, engine.FindRequest{Query: "open a sealed token", Limit: 1, Expand: all})
	if resp.Results[0].Symbol != "Token.open_sealed" {
		t.Fatalf("seed %s, want Token.open_sealed", resp.Results[0].Symbol)
	}
	got = expansions(resp.Results)
	for _, want := range []string{"tokens/token.py Token._split_token (called by Token.open_sealed)", "tokens/token.py Token._check_age (called by Token.open_sealed)"} {
		if !slices.Contains(got, want) {
			t.Errorf("open_sealed's expansions = %v, lack %s", got, want)
		}
	}

	// No expansion without seeds.
	resp = find(t, e, engine.FindRequest{Query: "who calls Retry", Limit: 1})
	if len(resp.Results) != 1 {
		t.Errorf("without Expand: %d results", len(resp.Results))
	}
}
