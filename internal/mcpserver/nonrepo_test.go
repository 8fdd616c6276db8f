package mcpserver_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestNonRepoRefused: a server on a directory outside any git work tree
// with more files than NonRepoMaxFiles does not index it on its own,
// neither on the first call nor through its watcher; tools say so with
// the fixes, and an index built by hand (--force) is then searched.
func TestNonRepoRefused(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{false, true} {
		name := "first call"
		if watch {
			name = "watcher"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := fixture(t) // a temporary directory: no .git above it
			cfg := testConfig(t)
			cfg.NonRepoMaxFiles = 2
			srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg, AutoIndex: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			if watch {
				srv.Watch(t.Context())
			}
			cs := connect(t, srv)
			refused := regexp.MustCompile(`^` + regexp.QuoteMeta(root) + ` has no index, and ctx does not index it on its own: it is not inside a git work tree and holds more than 2 files to index \(the count stopped at 3; .*\)\. Start the server inside the repository you meant .*: ctx index --force --repo ` + regexp.QuoteMeta(root) + `$`)
			deadline := time.Now().Add(30 * time.Second)
			for {
				text, isErr := call(t, cs, "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
				if isErr && refused.MatchString(text) {
					break
				}
				// The watcher's check may not have ended yet.
				if !watch || !isErr || !strings.Contains(text, "watcher is building the index") || time.Now().After(deadline) {
					t.Fatalf("isError %v, %q; want the refusal", isErr, text)
				}
				time.Sleep(20 * time.Millisecond)
			}
			var st mcpserver.IndexStatusOutput
			mustCall(t, cs, "index_status", nil, &st)
			if st.Indexed || len(st.Health) != 1 || !strings.Contains(st.Health[0].Problem, "does not index it on its own") || !strings.Contains(st.Health[0].Fix, "ctx index --force --repo") {
				t.Errorf("index_status: %+v", st)
			}
			if eng, err := engine.Open(cfg, root, nil); err != nil || eng.HasIndex() {
				t.Errorf("the refused root has an index (%v)", err)
			}

			// Indexed by hand: searched as any other.
			cfg.Force = true
			index(t, cfg, root)
			mustCall(t, cs, "codebase_retrieval", map[string]any{"information_request": "exponential backoff"}, nil)
		})
	}
}
