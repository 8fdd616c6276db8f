package cli_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-dev/ctx/internal/cli"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ctx": func() { os.Exit(cli.Main()) },
	})
}

// TestScript runs the CLI scripts in testdata/script: each extracts a small
// repository, runs ctx against it with its own cache directory, and
// compares the output with golden files.
func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"cmpjson": cmpJSON,
			"sleep":   sleep,
			"mode":    fileMode,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("CTX_CACHE_DIR", env.WorkDir+"/.cache")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/.xdg")
			return nil
		},
	})
}

// cmpJSON compares stdout, parsed as JSON with its timing fields
// (stats.search_ms, duration_ms) zeroed, to a golden JSON file:
// "cmpjson stdout want.json".
func cmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "stdout" {
		ts.Fatalf("usage: cmpjson stdout FILE")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	zeroTimings(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		ts.Fatalf("encoding: %v", err)
	}
	got := b.String()
	want := ts.ReadFile(args[1])
	if got == want {
		return
	}
	if *update {
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(got), 0o644))
		ts.Logf("updated %s (copy it back into the .txtar archive)", args[1])
		return
	}
	ts.Fatalf("stdout differs from %s:\n--- got\n%s--- want\n%s", args[1], got, want)
}

// sleep waits: "sleep 2s", for a background ctx watch to act.
func sleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// fileMode checks a file's permission bits: "mode FILE 0600".
func fileMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mode FILE PERM")
	}
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	got := fmt.Sprintf("%04o", fi.Mode().Perm())
	if (got == args[1]) == neg {
		ts.Fatalf("%s has mode %s, want %s%s", args[0], got, map[bool]string{true: "not "}[neg], args[1])
	}
}

func zeroTimings(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch k {
			case "search_ms", "duration_ms":
				x[k] = 0
			default:
				zeroTimings(val)
			}
		}
	case []any:
		for _, e := range x {
			zeroTimings(e)
		}
	}
}
