package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestStatusSourceBytes checks that status reports the indexed files'
// bytes (the fixture's indexable files) beside the index's own.
func TestStatusSourceBytes(t *testing.T) {
	t.Parallel()
	root := repo(t)
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	var want int64
	for _, p := range fixtureFiles {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		want += fi.Size()
	}
	st := status(t, e)
	if st.SourceBytes != want {
		t.Errorf("SourceBytes = %d, want %d (the sizes of %v)", st.SourceBytes, want, fixtureFiles)
	}
	if st.IndexBytes <= st.SourceBytes {
		t.Errorf("IndexBytes = %d, want more than the %d source bytes of a tiny fixture (the database alone is larger)", st.IndexBytes, st.SourceBytes)
	}
}
