package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestReadBackRefusesEscapedLink: a file link indexed while its target
// was inside the repository, then pointed outside, is not read back: the
// code of its results is empty rather than the outside file's.
func TestReadBackRefusesEscapedLink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "pkg/real.go", "package pkg\n\n// Lambdaquokka is linked.\nfunc Lambdaquokka() {}\n")
	link := filepath.Join(root, "Sources", "real.go")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "pkg", "real.go"), link); err != nil {
		t.Fatal(err)
	}
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	resp := find(t, e, engine.FindRequest{Query: "Lambdaquokka", Limit: 5, Full: true})
	var linked *engine.Hit
	for i := range resp.Results {
		if resp.Results[i].Path == "Sources/real.go" {
			linked = &resp.Results[i]
		}
	}
	if linked == nil || !strings.Contains(linked.Code, "Lambdaquokka") {
		t.Fatalf("the link's result before retargeting: %+v", linked)
	}

	outside := filepath.Join(t.TempDir(), "secret.go")
	if err := os.WriteFile(outside, []byte("package pkg\n\n// TOPSECRET outside the repository.\nfunc Lambdaquokka() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	resp = find(t, e, engine.FindRequest{Query: "Lambdaquokka", Limit: 5, Full: true})
	for _, h := range resp.Results {
		if strings.Contains(h.Code, "TOPSECRET") {
			t.Errorf("%s: code read through a link that now leaves the repository:\n%s", h.Path, h.Code)
		}
	}
	if c := e.Code(*linked); strings.Contains(c, "TOPSECRET") {
		t.Errorf("Code read through a link that now leaves the repository:\n%s", c)
	}
}
