package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestCacheDirError: a cache directory ctx cannot use is an error that
// names it and the settings that move it, not a suggestion to rebuild:
// at start when the engine reads from it (the built-in model looks for
// the repository's adapted model there), else from each tool.
func TestCacheDirError(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.CacheDir = filepath.Join(file, "cache") // a path through a file: no one can create it
	names := func(what, text string) {
		t.Helper()
		if !strings.Contains(text, cfg.CacheDir) || !strings.Contains(text, "--cache-dir") || !strings.Contains(text, "CTX_CACHE_DIR") || strings.Contains(text, "--rebuild") {
			t.Errorf("%s: %q; want the cache directory and its settings", what, text)
		}
	}
	if _, err := mcpserver.New(mcpserver.Options{Root: fixture(t), Config: cfg}); err == nil {
		t.Error("New with the built-in model: no error")
	} else {
		names("New", err.Error())
	}

	cfg.Embed.Provider = "none"
	srv, err := mcpserver.New(mcpserver.Options{Root: fixture(t), Config: cfg, AutoIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	text, isErr := call(t, connect(t, srv), "codebase_retrieval", map[string]any{"information_request": "retry"}, nil)
	if !isErr {
		t.Errorf("codebase_retrieval: no error: %q", text)
	}
	names("codebase_retrieval", text)
}
