// Package e2etest holds what the end-to-end tests share that drive a built
// ctx binary from another program (the MCP TypeScript SDK client in
// internal/mcpserver, the VS Code extension's tests in editors/vscode):
// building ctx the way the running test was built, an environment free of
// the developer's CTX_* settings, the module root, and the skip that CI
// turns into a failure.
package e2etest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireVar names the variable that turns [Skip]'s skips into failures;
// `.ci/run` sets it, so a broken npm install cannot pass as a skip.
const RequireVar = "CTX_REQUIRE_E2E"

// Skip skips a test that needs node or npm packages, with a message that
// says what is missing and what to run, unless [RequireVar] is set to a
// true value: then the test fails.
func Skip(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if on, _ := strconv.ParseBool(os.Getenv(RequireVar)); on {
		t.Fatalf("%s (%s is set: failing instead of skipping)", msg, RequireVar)
	}
	t.Skip(msg)
}

// BuildCtx builds ./cmd/ctx of the module at root into a temporary
// directory of t and returns the binary's path. When the test binary was
// built with -race, so is ctx: the processes under test then run under the
// race detector too, and the build reuses the packages `go test -race
// ./...` compiled (a cold non-race build takes about a minute).
func BuildCtx(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ctx")
	args := append(append([]string{"build"}, raceFlag()...), "-o", bin, "./cmd/ctx")
	build := exec.CommandContext(t.Context(), "go", args...)
	build.Dir = root
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return bin
}

// raceFlag is ["-race"] when the test binary was built with -race.
func raceFlag() []string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return []string{"-race"}
			}
		}
	}
	return nil
}

// HermeticEnv returns the environment without CTX_* settings, so the
// developer's provider, cache or excludes cannot change what the
// processes under test do; tests add their own (CTX_CACHE_DIR, CTX_BIN).
func HermeticEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CTX_") {
			env = append(env, kv)
		}
	}
	return env
}

// ModuleRoot walks up from the test's directory to the directory of
// go.mod.
func ModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
