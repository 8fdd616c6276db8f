package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestCheckFirstIndex: a first index of a tree outside any git work tree
// over NonRepoMaxFiles files is refused by Index and Watch, writing
// nothing; inside a work tree, with Force, with a limit of 0, or once an
// index exists, it is not.
func TestCheckFirstIndex(t *testing.T) {
	t.Parallel()
	max := len(fixtureFiles) - 1
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		root := repo(t) // a temporary directory: no .git above it
		cfg := testConfig(t)
		cfg.NonRepoMaxFiles = max
		e := open(t, cfg, root, nil)
		if e.WorkTree() != "" {
			t.Skipf("the temporary directory %s is inside a git work tree (%s)", root, e.WorkTree())
		}
		err := e.CheckFirstIndex(t.Context())
		var tm *engine.TooManyFilesError
		if !errors.As(err, &tm) || !errors.Is(err, engine.ErrTooManyFiles) || tm.Found != max+1 || tm.Max != max || tm.Root != e.Root() {
			t.Fatalf("CheckFirstIndex = %v, want a TooManyFilesError of %d over %d", err, max+1, max)
		}
		if _, err := e.Index(t.Context(), engine.IndexOptions{}); !errors.Is(err, engine.ErrTooManyFiles) {
			t.Errorf("Index = %v, want ErrTooManyFiles", err)
		}
		if err := e.Watch(t.Context(), nil); !errors.Is(err, engine.ErrTooManyFiles) {
			t.Errorf("Watch = %v, want ErrTooManyFiles", err)
		}
		if e.HasIndex() {
			t.Errorf("a refused run left an index at %s", e.DBPath())
		}

		// Force builds it; then the limit no longer applies.
		cfg.Force = true
		index(t, open(t, cfg, root, nil), engine.IndexOptions{})
		cfg.Force = false
		e = open(t, cfg, root, nil)
		if err := e.CheckFirstIndex(t.Context()); err != nil {
			t.Errorf("with an index: %v", err)
		}
		index(t, e, engine.IndexOptions{})
	})
	for _, tc := range []struct {
		name  string
		setup func(root string) error
		limit int
	}{
		{"inside a work tree", func(root string) error { return os.Mkdir(filepath.Join(root, ".git"), 0o755) }, max},
		{"limit 0", nil, 0},
		{"at the limit", nil, len(fixtureFiles)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := repo(t)
			if tc.setup != nil {
				if err := tc.setup(root); err != nil {
					t.Fatal(err)
				}
			}
			cfg := testConfig(t)
			cfg.NonRepoMaxFiles = tc.limit
			e := open(t, cfg, root, nil)
			if err := e.CheckFirstIndex(t.Context()); err != nil {
				t.Fatal(err)
			}
			index(t, e, engine.IndexOptions{})
		})
	}
}
