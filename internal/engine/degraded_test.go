package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/search"
)

// TestRemoteProviderDown: with a remote embedding provider that refuses
// connections, answers 500 or 429, or hangs, find still answers, from the
// lexical channels, with Degraded naming the cause and no longer than the
// query timeout; and definitions, references, callees, hierarchy, symbols,
// files, chunks, deps and status answer without a single request reaching
// the provider (the vector length comes from the index).
func TestRemoteProviderDown(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"openai", "ollama"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			srv := embedtest.NewServer(t, proto, 16)
			root := repo(t)
			cfg := testConfig(t)
			cfg.Embed = config.Embed{Provider: proto, Model: "test-embed", BaseURL: srv.BaseURL(), BatchSize: 64, QueryTimeout: 1500 * time.Millisecond}
			e, err := engine.Open(cfg, root, nil)
			if err != nil {
				t.Fatal(err)
			}
			index(t, e, engine.IndexOptions{})
			const query = "retry with exponential backoff between attempts"

			// Healthy: the dense channel runs.
			healthy := find(t, open(t, cfg, root, nil), engine.FindRequest{Query: query})
			if healthy.Stats.Degraded != "" || !slices.ContainsFunc(healthy.Results, func(h engine.Hit) bool { _, ok := h.Channels["dense"]; return ok }) {
				t.Fatalf("healthy provider: degraded %q, results %v; want dense hits", healthy.Stats.Degraded, healthy.Results)
			}
			lexical := find(t, open(t, cfg, root, nil), engine.FindRequest{Query: query, Channels: search.LexicalChannels})

			for _, tc := range []struct {
				mode      string
				reply     embedtest.Reply
				wantCause string
				wantReqs  int64 // requests find makes
			}{
				{"refused", embedtest.Reply{}, "connection refused", 0},
				// Retry-After makes the client's retries deterministic:
				// one retry fits the query timeout (3.5 s for this case,
				// so a loaded machine has 1.5 s for the second answer),
				// a second does not.
				{"500", embedtest.Reply{Status: 500, RetryAfter: "2", Message: "model crashed"}, "HTTP 500 Internal Server Error after 2 attempts", 2},
				{"429", embedtest.Reply{Status: 429, RetryAfter: "30", Message: "rate limit reached"}, "HTTP 429 Too Many Requests: rate limit reached", 1},
				{"hang", embedtest.Reply{Hang: true}, "did not answer within 1.5s (CTX_EMBED_QUERY_TIMEOUT)", 1},
			} {
				t.Run(tc.mode, func(t *testing.T) {
					cfg := cfg
					if tc.mode == "refused" {
						cfg.Embed.BaseURL = embedtest.ClosedURL(t)
					}
					if tc.mode == "500" {
						cfg.Embed.QueryTimeout = 3500 * time.Millisecond
					}
					srv.SetReply(tc.reply)
					defer srv.SetReply(embedtest.Reply{})
					srv.ResetRequests()
					// A new engine is a new process: its provider does not
					// know the vector length yet.
					e := open(t, cfg, root, nil)
					lookups(t, e)
					if n := srv.Requests(); n != 0 {
						t.Errorf("lookups and status made %d requests to the embedding provider, want none", n)
					}

					start := time.Now()
					resp := find(t, e, engine.FindRequest{Query: query})
					took := time.Since(start)
					if !strings.HasPrefix(resp.Stats.Degraded, "dense channel unavailable: ") || !strings.Contains(resp.Stats.Degraded, tc.wantCause) {
						t.Errorf("Stats.Degraded = %q, want the dense channel unavailable because %q", resp.Stats.Degraded, tc.wantCause)
					}
					if got, want := hitKeys(resp.Results), hitKeys(lexical.Results); !slices.Equal(got, want) || len(got) == 0 {
						t.Errorf("degraded results = %v, want the lexical-only results %v", got, want)
					}
					notes := resp.Stats.Notes()
					if len(notes) != 1 || !strings.Contains(notes[0], "CTX_EMBED_PROVIDER") || !strings.Contains(notes[0], tc.wantCause) {
						t.Errorf("Notes() = %q, want one line with the cause and the fix", notes)
					}
					if n := srv.Requests(); n != tc.wantReqs {
						t.Errorf("find made %d requests, want %d", n, tc.wantReqs)
					}
					if took > 5*time.Second {
						t.Errorf("find took %s with the provider down", took)
					}

					// Asking for the dense channel alone has nothing to
					// fall back on: an error, not an empty answer.
					if _, err := e.Find(t.Context(), engine.FindRequest{Query: query, Channels: []string{"dense"}}); err == nil || !strings.Contains(err.Error(), "dense channel is unavailable") {
						t.Errorf("Find with only the dense channel = %v, want an error saying it is unavailable", err)
					}
				})
			}
		})
	}
}

// lookups runs every lookup and status on e, failing the test on an error.
func lookups(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := t.Context()
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	defs, err := e.Definitions(ctx, "ParseConfig", "", 5, true)
	check("Definitions", err)
	if len(defs) == 0 {
		t.Error("Definitions(ParseConfig): none")
	}
	_, err = e.References(ctx, engine.ReferenceQuery{Symbol: "Retry"})
	check("References", err)
	_, _, err = e.Callees(ctx, "ParseConfig", "", 0)
	check("Callees", err)
	_, err = e.Hierarchy(ctx, "Config", 0)
	check("Hierarchy", err)
	_, err = e.Symbols(ctx, nil, "", 0)
	check("Symbols", err)
	_, _, err = e.Files(ctx, "", nil, 0)
	check("Files", err)
	_, err = e.ChunkAt(ctx, "client/retry.go", 5)
	check("ChunkAt", err)
	_, err = e.Deps(ctx, "config/config.go")
	check("Deps", err)
	st, err := e.Status(ctx)
	check("Status", err)
	if err == nil && (st.Stale || !strings.Contains(st.Semantic, "@16")) {
		t.Errorf("Status: stale %v, semantic %q; want a current index of 16 dimensions", st.Stale, st.Semantic)
	}
}

func hitKeys(hs []engine.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine)
	}
	return out
}
