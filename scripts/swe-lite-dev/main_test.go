package main

import (
	"slices"
	"testing"
)

// TestGoldFiles checks that the gold files are the "+++ b/" paths of a
// patch, in order and once each, without a deleted file's /dev/null.
func TestGoldFiles(t *testing.T) {
	patch := "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/b.py b/b.py\n--- a/b.py\n+++ /dev/null\n" +
		"diff --git a/c.py b/c.py\r\n--- a/c.py\r\n+++ b/c.py\r\n+++ b/c.py\n" +
		"--- a/src/a.py\n+++ b/src/a.py\n"
	got := goldFiles(patch)
	if want := []string{"src/a.py", "c.py"}; !slices.Equal(got, want) {
		t.Errorf("goldFiles = %q, want %q", got, want)
	}
}
