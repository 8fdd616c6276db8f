//go:build unix

package discover

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWalkSpecial(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a.go --
package a
`)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	want := "file a.go go\nskip pipe special: named pipe\n"
	if diff := cmp.Diff(want, walkOne(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWalkUnreadable makes a directory and a file unreadable with chmod. The
// superuser reads them anyway, so the test is skipped when reading still
// works; TestWalkHooks covers the same reason through the walker's hooks.
func TestWalkUnreadable(t *testing.T) {
	t.Parallel()
	dir := tree(t, `
-- a.go --
package a
-- locked/b.go --
package b
-- private.go --
package private
`)
	locked, private := filepath.Join(dir, "locked"), filepath.Join(dir, "private.go")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if err := os.Chmod(private, 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if _, err := os.ReadDir(locked); err == nil {
			t.Skip("running as root: chmod 000 does not stop reading")
		}
	}
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("chmod 000 does not stop reading on this system")
	}
	want := "file a.go go\nskip locked/ unreadable: permission denied\nskip private.go unreadable: permission denied\n"
	if diff := cmp.Diff(want, walkOne(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
