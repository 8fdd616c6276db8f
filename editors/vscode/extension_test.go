package vscode_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExtension builds ctx and runs the extension's tests (`npm test`:
// tsc, then node --test over out/test) with CTX_BIN naming it. They run
// the extension's process calls, JSON parsing, location mapping and error
// display against that binary on the fixture repository
// test/testdata/repo, and extension.ts under a stand-in for the vscode
// module.
//
// It needs node and npm on PATH and the extension's dev dependencies
// installed with `npm ci --prefix editors/vscode`; without them it skips,
// saying what to run, unless CTX_REQUIRE_E2E is set (CI sets it), when it
// fails instead, so a broken install cannot pass as a skip.
func TestExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctx and runs node")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipWithoutE2E(t, "%s is not on PATH (%v): install Node.js 20+, then run npm ci --prefix editors/vscode", tool, err)
		}
	}
	root := moduleRoot(t)
	ext := filepath.Join(root, "editors", "vscode")
	for _, dep := range []string{"typescript", "@types/vscode", "@types/node"} {
		if _, err := os.Stat(filepath.Join(ext, "node_modules", dep, "package.json")); err != nil {
			skipWithoutE2E(t, "the extension's dev dependencies are not installed (no node_modules/%s): run npm ci --prefix editors/vscode", dep)
		}
	}

	bin := filepath.Join(t.TempDir(), "ctx")
	args := append(append([]string{"build"}, raceFlag()...), "-o", bin, "./cmd/ctx")
	build := exec.CommandContext(t.Context(), "go", args...)
	build.Dir = root
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "test")
	cmd.Dir = ext
	cmd.Env = append(hermeticEnv(), "CTX_BIN="+bin)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start = time.Now()
	err := cmd.Run()
	if err != nil {
		t.Fatalf("npm test in editors/vscode: %v\n%s", err, out.Bytes())
	}
	// A run that found no tests must not pass.
	tests, fail := count(out.Bytes(), "tests"), count(out.Bytes(), "fail")
	if tests <= 0 || fail != 0 {
		t.Fatalf("npm test in editors/vscode ran %d tests, %d failed\n%s", tests, fail, out.Bytes())
	}
	t.Logf("npm test: %d tests passed in %v", tests, time.Since(start).Round(time.Millisecond))
}

// count reads node --test's summary line "ℹ NAME N"; -1 when absent.
func count(out []byte, name string) int {
	m := regexp.MustCompile(`(?m)^ℹ ` + name + ` (\d+)$`).FindSubmatch(out)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// requireE2E names the variable that turns the skips of
// [skipWithoutE2E] into failures.
const requireE2E = "CTX_REQUIRE_E2E"

// skipWithoutE2E skips a test that needs node and the extension's dev
// dependencies, with a message that says what is missing and what to run,
// unless CTX_REQUIRE_E2E is set to a true value: then the test fails.
func skipWithoutE2E(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if on, _ := strconv.ParseBool(os.Getenv(requireE2E)); on {
		t.Fatalf("%s (%s is set: failing instead of skipping)", msg, requireE2E)
	}
	t.Skip(msg)
}

// raceFlag is ["-race"] when the test binary was built with -race: ctx
// then runs under the race detector too, and the build reuses the packages
// `go test -race ./...` compiled.
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

// hermeticEnv is the environment without CTX_* settings, so a developer's
// configuration cannot change what the tests see; the tests set their own
// CTX_CACHE_DIR.
func hermeticEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CTX_") {
			env = append(env, kv)
		}
	}
	return env
}

// moduleRoot walks up from the test's directory to the directory of
// go.mod.
func moduleRoot(t *testing.T) string {
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
