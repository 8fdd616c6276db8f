package config_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

// TestDocTable: README's settings table is the one the table of settings
// renders; `go generate ./internal/config` rewrites it.
func TestDocTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := config.UpdateDoc(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("README's settings table is out of date; run `go generate ./internal/config` (-want +got):\n%s", d)
	}
}
