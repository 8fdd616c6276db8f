package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestDeps: imports are stored with their file and resolved against the
// repository at the end of the run; importers follow edits.
func TestDeps(t *testing.T) {
	t.Parallel()
	e, root := lookupRepo(t)
	d, err := e.Deps(t.Context(), "cmd/main.go")
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Dependency{
		{Path: "cmd/main.go", Line: 4, Spec: "example.com/app/client", Target: "client", Internal: true},
		{Path: "cmd/main.go", Line: 5, Spec: "example.com/app/config", Target: "config", Internal: true},
	}
	if !slices.Equal(d.Imports, want) {
		t.Errorf("imports of cmd/main.go = %+v, want %+v", d.Imports, want)
	}
	d, err = e.Deps(t.Context(), "config/config.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Importers) != 1 || d.Importers[0].Path != "cmd/main.go" {
		t.Errorf("importers of config/config.go = %+v", d.Importers)
	}
	if len(d.Imports) != 2 || d.Imports[0].Spec != "encoding/json" || d.Imports[0].Internal {
		t.Errorf("imports of config/config.go = %+v, want encoding/json and os, external", d.Imports)
	}
	st := status(t, e)
	if st.Imports.Internal != 2 || st.Imports.Resolved != 2 || st.Imports.Total < 5 {
		t.Errorf("status imports = %+v", st.Imports)
	}

	// A new importer appears after the next run; a deleted package's
	// importers stop resolving.
	writeFile(t, root, "web/server.py", "from .util import render\nimport os\n")
	writeFile(t, root, "web/util.py", "def render():\n    pass\n")
	index(t, e, engine.IndexOptions{})
	d, err = e.Deps(t.Context(), "web/util.py")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Importers) != 1 || d.Importers[0].Path != "web/server.py" || d.Importers[0].Spec != ".util" {
		t.Errorf("importers of web/util.py = %+v", d.Importers)
	}
	if err := os.Remove(filepath.Join(root, "client", "retry.go")); err != nil {
		t.Fatal(err)
	}
	index(t, e, engine.IndexOptions{})
	d, err = e.Deps(t.Context(), "cmd/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if im := d.Imports[0]; im.Spec != "example.com/app/client" || im.Target != "" || !im.Internal {
		t.Errorf("import of a deleted package = %+v, want internal and unresolved", im)
	}
	if _, err := e.Deps(t.Context(), "no/such.go"); err == nil {
		t.Errorf("Deps of a file the index lacks succeeded")
	}
}
