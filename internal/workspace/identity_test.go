package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIdentity builds a tree of projects and checks the names each root
// is known by: its base name unless generic, and each project directory
// from it up to the version-control root, not beyond.
func TestIdentity(t *testing.T) {
	top := t.TempDir()
	mk := func(rel string, files ...string) string {
		d := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(d, f)
			if f == ".git" {
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	mk("outer", "package.json") // above the repository: not its name
	mk("outer/ktor", ".git", "settings.gradle.kts")
	mk("outer/ktor/ktor-client", "build.gradle.kts")
	mk("outer/ktor/ktor-client/ktor-client-core", "build.gradle.kts")
	ktor := mk("outer/ktor/ktor-client/ktor-client-core/common/src")
	mk("phoenix", "mix.exs")
	phoenix := mk("phoenix/lib")
	mk("sinatra", "sinatra.gemspec")
	sinatra := mk("sinatra/lib")
	fmtInc := mk("fmtlib/include/fmt")
	mk("fmtlib", "CMakeLists.txt")
	plain := mk("x/notes")

	for _, tc := range []struct {
		root string
		want []string
	}{
		{ktor, []string{"ktor-client-core", "ktor-client", "ktor"}},
		{phoenix, []string{"phoenix"}},
		{sinatra, []string{"sinatra"}},
		{fmtInc, []string{"fmt", "fmtlib"}},
		{plain, []string{"notes"}},
	} {
		if got := Identity(tc.root); !slices.Equal(got, tc.want) {
			t.Errorf("Identity(%s) = %q, want %q", tc.root, got, tc.want)
		}
	}
}
