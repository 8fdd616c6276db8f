package vscode_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/e2etest"
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
			e2etest.Skip(t, "%s is not on PATH (%v): install Node.js 20+, then run npm ci --prefix editors/vscode", tool, err)
		}
	}
	root := e2etest.ModuleRoot(t)
	ext := filepath.Join(root, "editors", "vscode")
	for _, dep := range []string{"typescript", "@types/vscode", "@types/node"} {
		if _, err := os.Stat(filepath.Join(ext, "node_modules", dep, "package.json")); err != nil {
			e2etest.Skip(t, "the extension's dev dependencies are not installed (no node_modules/%s): run npm ci --prefix editors/vscode", dep)
		}
	}

	bin := e2etest.BuildCtx(t, root)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "test")
	cmd.Dir = ext
	cmd.Env = append(e2etest.HermeticEnv(), "CTX_BIN="+bin)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
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
