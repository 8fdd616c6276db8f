package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestCacheDirErrors: a cache directory ctx cannot use fails index runs,
// queries and status with [engine.ErrCacheDir], naming the directory and
// the settings that move it, whether it is the lock file, the directory
// or the database file that cannot be opened.
func TestCacheDirErrors(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, what string, err error, dir string) {
		t.Helper()
		if !errors.Is(err, engine.ErrCacheDir) {
			t.Errorf("%s: %v, want ErrCacheDir", what, err)
			return
		}
		for _, want := range []string{dir, "--cache-dir", "CTX_CACHE_DIR"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not name %s", what, err, want)
			}
		}
	}
	t.Run("under a regular file", func(t *testing.T) {
		t.Parallel()
		// Permission bits do not stop root; a path through a file stops
		// everyone (ENOTDIR).
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(t)
		cfg.CacheDir = filepath.Join(file, "cache")
		e := open(t, cfg, repo(t), nil)
		_, err := e.Index(t.Context(), engine.IndexOptions{})
		check(t, "Index", err, cfg.CacheDir)
		_, err = e.Status(t.Context())
		check(t, "Status", err, cfg.CacheDir)
		_, err = e.Find(t.Context(), engine.FindRequest{Query: "retry", Limit: 5})
		check(t, "Find", err, cfg.CacheDir)
		// A server's engine keeps a handle, opened another way.
		kept, err := engine.Open(cfg, e.Root(), &engine.Options{KeepOpen: true})
		if err != nil {
			t.Fatal(err)
		}
		defer kept.Close()
		_, err = kept.Find(t.Context(), engine.FindRequest{Query: "retry", Limit: 5})
		check(t, "Find (kept open)", err, cfg.CacheDir)
	})
	t.Run("database SQLite cannot open", func(t *testing.T) {
		t.Parallel()
		// A directory where the database file should be: the lock opens,
		// SQLite does not (unable to open database file (14)).
		cfg := testConfig(t)
		e := open(t, cfg, repo(t), nil)
		if err := os.MkdirAll(e.DBPath(), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := e.Index(t.Context(), engine.IndexOptions{})
		check(t, "Index", err, cfg.CacheDir)
		_, err = e.Status(t.Context())
		check(t, "Status", err, cfg.CacheDir)
	})
	t.Run("not writable", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() == 0 {
			t.Skip("root writes through permission bits; the subtests above stand in for it")
		}
		cfg := testConfig(t)
		if err := os.Chmod(cfg.CacheDir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(cfg.CacheDir, 0o755) })
		e := open(t, cfg, repo(t), nil)
		_, err := e.Index(t.Context(), engine.IndexOptions{})
		check(t, "Index", err, cfg.CacheDir)
	})
}
