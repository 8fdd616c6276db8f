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

// TestIdentityPackages: an npm package unpacked into a directory named
// "package" is known by its manifest's name, and a Go module by its path's
// last element that is not a major version.
func TestIdentityPackages(t *testing.T) {
	top := t.TempDir()
	npm := filepath.Join(top, "npm", "package")
	gomod := filepath.Join(top, "mods", "router")
	for d, f := range map[string]string{
		npm:   `{"name": "@acme/yargs-lite", "version": "1.0.0"}`,
		gomod: "module github.com/go-chi/chi/v5\n\ngo 1.22\n",
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		name := "package.json"
		if d == gomod {
			name = "go.mod"
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := Identity(npm); !slices.Equal(got, []string{"yargs-lite"}) {
		t.Errorf("Identity(npm package) = %q, want [yargs-lite]", got)
	}
	if got := Identity(gomod); !slices.Equal(got, []string{"router", "chi"}) {
		t.Errorf("Identity(go module) = %q, want [router chi]", got)
	}
}
