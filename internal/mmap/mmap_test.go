package mmap

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssFileKB is this process's resident file-backed memory (RssFile in
// /proc/self/status), in KiB; ok is false where there is none to read.
func rssFileKB(t *testing.T) (int, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n, err == nil
		}
	}
	return 0, false
}

// TestRelease: the pages of a mapped file that were read leave the
// resident set on Release, and reading them again gives the same bytes.
func TestRelease(t *testing.T) {
	const size = 32 << 20
	want := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	b, unmap, err := Map(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	before, ok := rssFileKB(t)
	if !ok || runtime.GOOS != "linux" {
		// Elsewhere only the bytes are checked.
		Release(b)
		if !bytes.Equal(b, want) {
			t.Fatal("bytes differ after Release")
		}
		return
	}
	sum := 0
	for i := 0; i < len(b); i += 4096 {
		sum += int(b[i])
	}
	read, _ := rssFileKB(t)
	Release(b)
	released, _ := rssFileKB(t)
	if read-before < 24<<10 || read-released < 24<<10 {
		t.Errorf("RssFile %d KiB before reading, %d after, %d after Release; want the 32 MiB read to come and go", before, read, released)
	}
	if !bytes.Equal(b, want) {
		t.Error("bytes differ after Release")
	}
	if sum == 0 {
		t.Error("read nothing")
	}
}
