package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/engine"
	idx "github.com/ctx-dev/ctx/internal/index"
)

// TestSymlinkedSources indexes a package whose Sources/Name/ folder links
// to a file elsewhere in the repository: the link's path is found, its
// code reads back through the link, and a chunk is looked up by it. Links
// that leave the repository, once they are most of the files, make
// Status report it.
func TestSymlinkedSources(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	writeFile(t, outside, "far.go", "package far\n")
	writeFile(t, root, "shared/util.go", "package shared\n\n// GrizzlyTotal sums the bears.\nfunc GrizzlyTotal() int { return 1 }\n")
	writeFile(t, root, "Sources/Name/own.go", "package name\n")
	link := func(name, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	link("Sources/Name/util.go", "../../shared/util.go")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})

	resp := find(t, e, engine.FindRequest{Query: "GrizzlyTotal", Limit: 10})
	paths := hitPaths(resp)
	if !slices.Contains(paths, "Sources/Name/util.go") || !slices.Contains(paths, "shared/util.go") {
		t.Fatalf("Find: paths %v, want the link's and the target's", paths)
	}
	for _, h := range resp.Results {
		if h.Path == "Sources/Name/util.go" && !strings.Contains(e.Code(h), "func GrizzlyTotal") {
			t.Errorf("Code(%s) = %q, want the target's code", h.Path, e.Code(h))
		}
	}
	h, err := e.ChunkAt(t.Context(), "Sources/Name/util.go", 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Code, "GrizzlyTotal") {
		t.Errorf("ChunkAt code = %q", h.Code)
	}
	if st := status(t, e); st.SkippedMost != nil {
		t.Errorf("SkippedMost = %+v, want nil", st.SkippedMost)
	}

	for _, n := range []string{"a.go", "b.go", "c.go", "d.go"} {
		link("far-"+n, filepath.Join(outside, "far.go"))
	}
	st := status(t, e)
	want := &engine.SkippedMost{Skipped: 4, Candidates: 7, Reasons: []engine.SkipReason{{
		Reason: "symlink", Count: 4,
		Fix: "only links to files inside the repository are followed: move the files in, or link files rather than directories",
	}}}
	if diff := cmp.Diff(want, st.SkippedMost); diff != "" {
		t.Errorf("SkippedMost (-want +got):\n%s", diff)
	}
}

func TestSkippedMostOf(t *testing.T) {
	t.Parallel()
	reasons := map[discover.Reason]int{discover.ReasonTooLarge: 2, discover.ReasonBinary: 2, discover.ReasonSecret: 1, discover.ReasonGitignore: 1}
	tests := []struct {
		name       string
		sh         idx.SkipShare
		want, warn string // warn: "" means no report
	}{
		{"none", idx.SkipShare{}, "", ""},
		{"half", idx.SkipShare{Candidates: 4, Skipped: 2, Reasons: map[discover.Reason]int{discover.ReasonBinary: 2}}, "", ""},
		{"most", idx.SkipShare{Candidates: 10, Skipped: 6, Reasons: reasons},
			"skipped 6 of 10 files (60%): 2 binary, 2 too-large, 1 gitignore and 1 more reason",
			"skipped 6 of 10 files (60%): 2 binary, 2 too-large, 1 gitignore and 1 more reason; fix: binary: nothing to change (not text); too-large: raise CTX_MAX_FILE_BYTES; gitignore: edit the .gitignore that matches (ctx follows git's ignore rules)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sm := engine.SkippedMostOf(tt.sh)
			if tt.want == "" {
				if sm != nil {
					t.Errorf("SkippedMostOf = %+v, want nil", sm)
				}
				return
			}
			if sm == nil {
				t.Fatal("SkippedMostOf = nil")
			}
			if got := sm.Problem(); got != tt.want {
				t.Errorf("Problem() = %q, want %q", got, tt.want)
			}
			if got := sm.String(); got != tt.warn {
				t.Errorf("String() = %q, want %q", got, tt.warn)
			}
		})
	}
}
