package mine

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExcludeListMirrorsBenchmark checks that the embedded list is the
// benchmark's, when the benchmark checkout is beside the repository.
func TestExcludeListMirrorsBenchmark(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../shared/bench/EXCLUDE.txt")
	if err != nil {
		t.Skipf("benchmark list not available: %v", err)
	}
	if diff := cmp.Diff(string(b), excludeText); diff != "" {
		t.Errorf("exclude.txt differs from ../shared/bench/EXCLUDE.txt (-bench +embedded):\n%s", diff)
	}
}

// TestEmbeddedListParses checks the structure of the embedded list: every
// GitHub line and registry name is parsed, none is lost.
func TestEmbeddedListParses(t *testing.T) {
	t.Parallel()
	e := DefaultExclusions()
	var repos, goMods, debs, npms int
	for _, line := range strings.Split(excludeText, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "go:"):
			goMods += len(strings.Fields(line)) - 1
		case strings.HasPrefix(line, "debian:"):
			debs += len(strings.Fields(line)) - 1
		case strings.HasPrefix(line, "npm:"):
			npms += len(strings.Fields(line)) - 1
		default:
			repos++
		}
	}
	got := []int{len(e.repos), len(e.goMods), len(e.debian), len(e.npm)}
	if diff := cmp.Diff([]int{repos, goMods, debs, npms}, got); diff != "" {
		t.Errorf("parsed counts (repos, go, debian, npm) (-want +got):\n%s", diff)
	}
	if repos < 70 || goMods < 3 || debs < 30 || npms < 6 {
		t.Errorf("list looks truncated: %d repos, %d go, %d debian, %d npm", repos, goMods, debs, npms)
	}
}

func TestParseExclusionsErrors(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"just-a-name", "a/b/c", "pip: requests", "own er/name"} {
		if _, err := ParseExclusions(text); err == nil {
			t.Errorf("ParseExclusions(%q) = nil error", text)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	e := DefaultExclusions()
	tests := []struct {
		name string
		root Root
		want bool
	}{
		// Go modules: listed under go:, listed as GitHub repos, case, /vN, escaping, submodules.
		{"go listed", Root{Kind: KindGoModule, ID: "github.com/spf13/cobra@v1.10.2"}, true},
		{"go listed no version", Root{Kind: KindGoModule, ID: "github.com/spf13/cobra"}, true},
		{"go upper case", Root{Kind: KindGoModule, ID: "github.com/Spf13/Cobra@v1.0.0"}, true},
		{"go cache escaped", Root{Kind: KindGoModule, ID: "github.com/!spf13/!cobra@v1.0.0"}, true},
		{"go v5 suffix", Root{Kind: KindGoModule, ID: "github.com/go-chi/chi/v5@v5.0.12"}, true},
		{"go v2 of listed", Root{Kind: KindGoModule, ID: "github.com/gin-gonic/gin/v2@v2.0.0"}, true},
		{"go submodule", Root{Kind: KindGoModule, ID: "github.com/gin-gonic/gin/ginS@v0.0.0-2020"}, true},
		{"go repo only on github list", Root{Kind: KindGoModule, ID: "github.com/tokio-rs/axum@v0.1.0"}, true},
		{"go repo listed mixed case", Root{Kind: KindGoModule, ID: "github.com/minishlab/MODEL2VEC@v1.0.0"}, true},
		{"go repo listed cache escaped", Root{Kind: KindGoModule, ID: "github.com/!minish!lab/model2vec@v1.0.0"}, true},
		{"go v3 of github-listed", Root{Kind: KindGoModule, ID: "github.com/nlohmann/json/v3@v3.11.0"}, true},
		{"go similar prefix", Root{Kind: KindGoModule, ID: "github.com/go-chi/chi-extra@v1.0.0"}, false},
		{"go similar owner", Root{Kind: KindGoModule, ID: "github.com/spf13/pflag@v1.0.9"}, false},
		{"go other", Root{Kind: KindGoModule, ID: "github.com/google/uuid@v1.6.0"}, false},
		{"go x", Root{Kind: KindGoModule, ID: "golang.org/x/tools@v0.52.0"}, false},
		{"go fork", Root{Kind: KindGoModule, ID: "github.com/someone/cobra@v1.0.0"}, false},

		// Go std is never excluded by a Debian directory name.
		{"std fmt", Root{Kind: KindGoStd, ID: "go/std/fmt", Dir: "/usr/local/go/src/fmt"}, false},
		{"std net", Root{Kind: KindGoStd, ID: "go/std/net", Dir: "/usr/local/go/src/net"}, false},

		// Debian: package names, python3-X → dist-packages/X, the explicit table, headers.
		{"deb package", Root{Kind: KindDebian, ID: "debian/python3/requests", Package: "python3-requests", Dir: "/x/requests"}, true},
		{"deb requests dir", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/requests"}, true},
		{"deb sklearn dir", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/sklearn"}, true},
		{"deb _pytest dir", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/_pytest"}, true},
		{"deb pytest dir", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/pytest"}, true},
		{"deb mpl_toolkits", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/mpl_toolkits"}, true},
		{"deb Django case", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/Django"}, true},
		{"deb pylint", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/pylint"}, true},
		{"deb pylint package", Root{Kind: KindDebian, ID: "d", Package: "pylint", Dir: "/x/y"}, true},
		{"deb package upper", Root{Kind: KindDebian, ID: "d", Package: "Python3-Flask", Dir: "/x/y"}, true},
		{"deb nlohmann header", Root{Kind: KindDebian, ID: "debian/include/nlohmann", Dir: "/usr/include/nlohmann"}, true},
		{"deb curl header", Root{Kind: KindDebian, ID: "d", Dir: "/usr/include/x86_64-linux-gnu/curl"}, true},
		{"deb fmt header", Root{Kind: KindDebian, ID: "d", Dir: "/usr/include/fmt"}, true},
		{"deb uv header", Root{Kind: KindDebian, ID: "d", Dir: "/usr/include/uv"}, true},
		{"deb cargo tokio versioned", Root{Kind: KindDebian, ID: "d", Dir: "/usr/share/cargo/registry/tokio-1.38.0"}, true},
		{"deb ruby rack", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/ruby/vendor_ruby/rack"}, true},
		{"deb monolog", Root{Kind: KindDebian, ID: "d", Dir: "/usr/share/php/Monolog"}, true},
		{"deb yaml", Root{Kind: KindDebian, ID: "d", Package: "python3-yaml", Dir: "/usr/lib/python3/dist-packages/yaml"}, false},
		{"deb requests_toolbelt", Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/python3/dist-packages/requests_toolbelt"}, false},
		{"deb GL header", Root{Kind: KindDebian, ID: "d", Dir: "/usr/include/GL"}, false},

		// npm: names, scopes, case, node_modules paths, declared repository.
		{"npm axios", Root{Kind: KindNPM, ID: "npm/axios", Package: "axios"}, true},
		{"npm Express case", Root{Kind: KindNPM, ID: "npm/Express", Package: "Express"}, true},
		{"npm path", Root{Kind: KindNPM, ID: "x", Package: "/usr/lib/node_modules/zod"}, true},
		{"npm scoped listed", Root{Kind: KindNPM, ID: "npm/@trpc/server", Package: "@trpc/server"}, true},
		{"npm same scope", Root{Kind: KindNPM, ID: "npm/@trpc/client", Package: "@trpc/client"}, true},
		{"npm repo field", Root{Kind: KindNPM, ID: "npm/axios-fork", Package: "axios-fork", Repo: "git+https://github.com/axios/axios.git"}, true},
		{"npm repo ssh", Root{Kind: KindNPM, ID: "npm/r", Package: "r", Repo: "git@github.com:ReduxJS/Redux.git"}, true},
		{"npm other", Root{Kind: KindNPM, ID: "npm/semver", Package: "semver", Repo: "https://github.com/npm/node-semver"}, false},
		{"npm other scope", Root{Kind: KindNPM, ID: "npm/@types/node", Package: "@types/node"}, false},
		{"npm prefix", Root{Kind: KindNPM, ID: "npm/zodiac", Package: "zodiac"}, false},

		// Any kind: a GitHub owner/name in the ID or repository.
		{"dir github id", Root{Kind: KindDir, ID: "github.com/psf/requests", Dir: "/src/requests"}, true},
		{"dir github url", Root{Kind: KindDir, ID: "mine", Repo: "https://github.com/Django/Django"}, true},
		{"dir other", Root{Kind: KindDir, ID: "github.com/psf/black", Dir: "/src/black"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			why, got := e.Check(tt.root)
			if got != tt.want {
				t.Errorf("Check(%+v) = %v (%q), want %v", tt.root, got, why, tt.want)
			}
			if got && why == "" {
				t.Errorf("Check(%+v) excluded without a reason", tt.root)
			}
		})
	}
}

// TestCheckEveryListedName checks that each name on the embedded list
// excludes its own source, whatever the case.
func TestCheckEveryListedName(t *testing.T) {
	t.Parallel()
	e := DefaultExclusions()
	for _, line := range strings.Split(excludeText, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		reg, names, ok := strings.Cut(line, ":")
		if !ok || strings.Contains(reg, "/") {
			for _, id := range []string{"github.com/" + line + "@v1.0.0", "github.com/" + strings.ToUpper(line) + "/v2@v2.1.0"} {
				if _, ex := e.Check(Root{Kind: KindGoModule, ID: id}); !ex {
					t.Errorf("Go module %s not excluded", id)
				}
			}
			if !e.Repo(line) || !e.Repo("https://github.com/"+line+".git") {
				t.Errorf("repository %s not recognised", line)
			}
			continue
		}
		for _, n := range strings.Fields(names) {
			var r Root
			switch reg {
			case "go":
				r = Root{Kind: KindGoModule, ID: strings.ToUpper(n) + "@v1.2.3"}
			case "debian":
				r = Root{Kind: KindDebian, ID: "d", Package: n}
				for _, d := range DebianDirs(n) {
					if _, ex := e.Check(Root{Kind: KindDebian, ID: "d", Dir: "/usr/lib/x/" + d}); !ex {
						t.Errorf("Debian %s directory %s not excluded", n, d)
					}
				}
			case "npm":
				r = Root{Kind: KindNPM, ID: "npm/" + n, Package: strings.ToUpper(n)}
			}
			if _, ex := e.Check(r); !ex {
				t.Errorf("%s %s not excluded", reg, n)
			}
		}
	}
}

func TestDebianDirs(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"python3-requests":      {"requests"},
		"python3-sklearn":       {"sklearn"},
		"python3-pytest":        {"pytest", "_pytest"},
		"python3-matplotlib":    {"matplotlib", "mpl_toolkits", "pylab"},
		"python3-typing-extras": {"typing_extras"},
		"pylint":                {"pylint"},
		"ruby-rack":             {"rack"},
		"librust-tokio-dev":     {"tokio"},
		"librust-foo-bar-dev":   {"foo-bar"},
		"elixir-ecto":           {"ecto"},
		"libuv1-dev":            {"uv", "uv.h"},
		"nlohmann-json3-dev":    {"nlohmann"},
		"something":             {"something"},
	}
	for pkg, want := range tests {
		if diff := cmp.Diff(want, DebianDirs(pkg)); diff != "" {
			t.Errorf("DebianDirs(%q) (-want +got):\n%s", pkg, diff)
		}
	}
}

func TestZeroExclusionsExcludeNothing(t *testing.T) {
	t.Parallel()
	var e Exclusions
	if why, ex := e.Check(Root{Kind: KindGoModule, ID: "github.com/spf13/cobra@v1.0.0"}); ex {
		t.Errorf("zero Exclusions excluded cobra: %s", why)
	}
}
