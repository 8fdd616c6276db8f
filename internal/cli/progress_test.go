package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/engine"
)

func TestIndexPhases(t *testing.T) {
	t.Parallel()
	run := func(show bool) string {
		var buf bytes.Buffer
		report, finish := indexPhases(&buf, show, "no index yet; indexing first")
		report(engine.Phase{Name: "discover", Unit: "files"})
		report(engine.Phase{Name: "discover", Done: 3, Total: 3, Unit: "files", End: true})
		report(engine.Phase{Name: "chunk+embed", Total: 3, Unit: "files"})
		report(engine.Phase{Name: "chunk+embed", Done: 3, Total: 3, Unit: "files", End: true})
		finish()
		return buf.String()
	}
	// Without a terminal: the note, and no phase lines for a run this
	// short (phasePrinter).
	if out := run(false); out != "no index yet; indexing first\n" {
		t.Errorf("without a terminal: %q, want the note alone", out)
	}
	out := run(true)
	if n := strings.Count(out, "no index yet; indexing first"); n != 1 {
		t.Errorf("on a terminal the note is printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "chunk+embed") {
		t.Errorf("on a terminal no bar names the chunk+embed phase:\n%s", out)
	}
}

// TestFirstIndexNote: a root without an index database is indexed "first";
// one whose database exists but whose run did not finish (a killed
// `ctx find`) says so, rather than that there is no index.
func TestFirstIndexNote(t *testing.T) {
	cfg := config.Default()
	cfg.CacheDir = t.TempDir()
	root := t.TempDir()
	e, err := engine.Open(cfg, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if note := firstIndexNote(e); !strings.HasPrefix(note, "no index for "+e.Root()+" yet") {
		t.Errorf("without a database: %q", note)
	}
	if err := os.WriteFile(e.DBPath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if note := firstIndexNote(e); !strings.HasPrefix(note, "the last index run of "+e.Root()+" did not finish") {
		t.Errorf("with an unfinished database: %q", note)
	}
}
