package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/atomicfile"
)

// TestWriteFunc: a stream that fails leaves the old file and no temporary
// file; one that succeeds replaces it with the mode asked for.
func TestWriteFunc(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "archive.tar.gz")
	if err := atomicfile.Write(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	err := atomicfile.WriteFunc(p, 0o644, func(w io.Writer) error {
		if _, err := w.Write(make([]byte, 3<<20)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteFunc = %v, want the stream's error", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old content", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want the file alone (no temporary left)", len(ents))
	}
	if err := atomicfile.WriteFunc(p, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if b, _ := os.ReadFile(p); err != nil || string(b) != "new" || fi.Mode().Perm() != 0o644 {
		t.Errorf("after WriteFunc: %q, mode %v, %v", b, fi.Mode().Perm(), err)
	}
}
