package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/e2etest"
	"github.com/rogpeppe/go-internal/txtar"
)

// defaultToolNames is the default tool set, as GET /tools lists it.
var defaultToolNames = []string{"codebase_retrieval", "get_symbol_definition", "find_references", "symbol_graph", "list_files", "index_status"}

// TestTypeScriptClient runs the official TypeScript SDK client
// (e2e/mcp/client.mjs, npm @modelcontextprotocol/sdk) against a built ctx
// binary over stdio (`ctx mcp`) and streamable HTTP (`ctx serve`), on the
// fixture e2e/mcp/testdata/repo.txtar indexed with the built-in model;
// the HTTP server offers every tool (--tools all), the stdio one the
// default set.
// The client checks initialize, tools/list, codebase_retrieval (answer,
// paging), get_symbol_definition and the repo_path guard; see its header.
//
// It needs node on PATH and the SDK installed with `npm ci --prefix
// e2e/mcp`; without either it skips, saying what to run, unless
// CTX_REQUIRE_E2E is set (CI sets it), when it fails instead, so a broken
// install cannot pass as a skip.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctx and runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		e2etest.Skip(t, "node is not on PATH (%v): install Node.js 18+, then run npm ci --prefix e2e/mcp", err)
	}
	root := e2etest.ModuleRoot(t)
	e2e := filepath.Join(root, "e2e", "mcp")
	if _, err := os.Stat(filepath.Join(e2e, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		e2etest.Skip(t, "the MCP TypeScript SDK is not installed in e2e/mcp/node_modules: run npm ci --prefix e2e/mcp")
	}

	tmp := t.TempDir()
	bin := e2etest.BuildCtx(t, root)

	a, err := txtar.ParseFile(filepath.Join(e2e, "testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(tmp, "repo")
	if err := txtar.Write(a, repo); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(tmp, "cache")
	env := e2etest.HermeticEnv()
	index := exec.CommandContext(t.Context(), bin, "index", "--repo", repo, "--cache-dir", cache)
	index.Env = env
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("ctx index: %v\n%s", err, out)
	}

	client := filepath.Join(e2e, "client.mjs")
	t.Run("stdio", func(t *testing.T) {
		runClient(t, node, e2e, env, client, "stdio", bin, repo, cache)
	})
	t.Run("http", func(t *testing.T) {
		const token = "e2e-token"
		// --tools all: the SDK client parses every tool's schemas in
		// tools/list and rejects the whole list over one it cannot read.
		base := startServe(t, env, bin, "--repo", repo, "--cache-dir", cache, "--token", token, "--tools", "all")
		get := func(path string, auth bool) (int, []byte) {
			t.Helper()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if auth {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			return resp.StatusCode, b.Bytes()
		}
		if code, body := get("/readyz", true); code != http.StatusOK {
			t.Errorf("GET /readyz = %d %s, want 200", code, body)
		}
		if code, _ := get("/readyz", false); code != http.StatusUnauthorized {
			t.Errorf("GET /readyz without the token = %d, want 401", code)
		}
		code, body := get("/tools", true)
		if code != http.StatusOK {
			t.Fatalf("GET /tools = %d %s, want 200", code, body)
		}
		var tools struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &tools); err != nil {
			t.Fatalf("GET /tools: %v\n%s", err, body)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
		}
		for _, want := range defaultToolNames {
			if !slices.Contains(names, want) {
				t.Errorf("GET /tools lacks %s; got %v", want, names)
			}
		}
		runClient(t, node, e2e, append(env, "CTX_MCP_TOKEN="+token), client, "http", base+"/mcp", repo, cache)
	})
}

// runClient runs client.mjs and fails with its stderr unless it exits 0
// with a JSON summary for the transport.
func runClient(t *testing.T, node, dir string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s\nstdout:\n%s", strings.Join(args, " "), err, stderr.Bytes(), stdout.Bytes())
	}
	var sum struct {
		Transport string  `json:"transport"`
		ElapsedMS float64 `json:"elapsed_ms"`
		Retrieval struct {
			Hit      string  `json:"hit"`
			ServerMS float64 `json:"server_ms"`
		} `json:"retrieval"`
		Paging struct {
			Pages int `json:"pages"`
		} `json:"paging"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("client summary is not JSON: %v\n%s", err, stdout.Bytes())
	}
	if want := args[1]; sum.Transport != want {
		t.Errorf("summary transport = %q, want %q", sum.Transport, want)
	}
	t.Logf("%s: ok in %v (client %.0f ms): %s found in %.1f ms in the server, %d pages",
		sum.Transport, time.Since(start).Round(time.Millisecond), sum.ElapsedMS, sum.Retrieval.Hit, sum.Retrieval.ServerMS, sum.Paging.Pages)
	// Under stdio the server's stderr is the client's; a race-detector
	// report there would otherwise pass unseen.
	if bytes.Contains(stderr.Bytes(), []byte("DATA RACE")) {
		t.Errorf("the server reported a data race:\n%s", stderr.Bytes())
	} else if stderr.Len() > 0 {
		t.Logf("client stderr:\n%s", stderr.Bytes())
	}
}

// startServe runs `ctx serve` on a free loopback port until the test
// ends, and returns its base URL once /healthz answers. At cleanup it
// interrupts the server and requires a clean exit.
func startServe(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	// serve takes a fixed address: take a free port from the kernel and
	// hand it over (another process could grab it in between; unlikely on
	// loopback, and the failure would name the address).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	logPath := filepath.Join(t.TempDir(), "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--http", addr}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	serverLog := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if log := serverLog(); err != nil || strings.Contains(log, "DATA RACE") {
				t.Errorf("ctx serve exited with %v after an interrupt\n%s", err, log)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("ctx serve did not exit within 10s of an interrupt\n%s", serverLog())
		}
	})

	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("ctx serve --http %s exited before serving: %v\n%s", addr, err, serverLog())
		default:
		}
		if err := healthy(t.Context(), base); err == nil {
			return base
		} else if time.Now().After(deadline) {
			t.Fatalf("ctx serve --http %s: /healthz not ready after 30s: %v\n%s", addr, err, serverLog())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func healthy(ctx context.Context, base string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /healthz = %d", resp.StatusCode)
	}
	return nil
}
