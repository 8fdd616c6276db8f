package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/cli"
)

// TestMain makes the test binary behave as ctx when re-executed with
// CTX_TEST_RUN_MAIN=1, so tests can start real ctx processes without a
// separate build.
func TestMain(m *testing.M) {
	if os.Getenv("CTX_TEST_RUN_MAIN") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// ctxCmd returns a command running this test binary as ctx.
func ctxCmd(t *testing.T, cache string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CTX_TEST_RUN_MAIN=1", "CTX_CACHE_DIR="+cache)
	return cmd
}

// TestMCPStdioProcess starts `ctx mcp` as a real process and talks to it
// with the Go SDK's client over its stdin and stdout: initialize, list
// tools, call codebase_retrieval and get_symbol_definition.
func TestMCPStdioProcess(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/q\n\ngo 1.22\n",
		"queue/queue.go": `package queue

// Queue is a FIFO of jobs guarded by a mutex.
type Queue struct{ jobs []string }

// Push appends a job at the back of the queue.
func (q *Queue) Push(job string) { q.jobs = append(q.jobs, job) }

// Pop removes and returns the job at the front, or "" when empty.
func (q *Queue) Pop() string {
	if len(q.jobs) == 0 {
		return ""
	}
	j := q.jobs[0]
	q.jobs = q.jobs[1:]
	return j
}
`,
		"main.go": "package main\n\nimport \"example.com/q/queue\"\n\nfunc main() {\n\tq := &queue.Queue{}\n\tq.Push(\"a\")\n\tprintln(q.Pop())\n}\n",
	}
	for name, src := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	if out, err := ctxCmd(t, cache, "index", "--repo", repo).CombinedOutput(); err != nil {
		t.Fatalf("ctx index: %v\n%s", err, out)
	}

	cmd := ctxCmd(t, cache, "mcp", "--repo", repo)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "process-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to ctx mcp: %v\nstderr: %s", err, stderr.String())
	}
	defer cs.Close()
	if info := cs.InitializeResult(); info.ServerInfo.Name != "ctx" || !strings.Contains(info.Instructions, "codebase_retrieval") {
		t.Errorf("initialize: server %+v, instructions %q", info.ServerInfo, info.Instructions)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": "remove the job at the front of the queue"}})
	if err != nil || res.IsError {
		t.Fatalf("codebase_retrieval: %v %+v", err, res)
	}
	var out struct {
		Segments []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			Code      string `json:"code"`
		} `json:"segments"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || len(out.Segments) == 0 {
		t.Fatalf("codebase_retrieval output %s: %v", b, err)
	}
	if s := out.Segments[0]; s.Path != "queue/queue.go" || !strings.Contains(s.Code, "func (q *Queue) Pop()") {
		t.Errorf("first segment %s:%d, want queue/queue.go with Pop:\n%s", s.Path, s.StartLine, s.Code)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "## queue/queue.go:") {
		t.Errorf("markdown lacks the segment heading:\n%s", text)
	}

	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_symbol_definition", Arguments: map[string]any{"symbol": "Queue.Push"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "queue/queue.go:6") {
		t.Errorf("get_symbol_definition(Queue.Push): %v %+v", err, res)
	}
	// Malformed arguments are a tool or protocol error, and the process
	// keeps serving.
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": 42}}); err == nil && !res.IsError {
		t.Errorf("a number as information_request was accepted")
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("the server stopped answering after a bad call: %v", err)
	}
}

// TestMCPSeveralProcesses: three `ctx mcp` processes serve one repository
// while `ctx index` processes re-index it after edits; no call fails and
// none waits for an index run (each call has a deadline far below an
// index run's length would be if it blocked on the lock).
func TestMCPSeveralProcesses(t *testing.T) {
	repo := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/s\n\ngo 1.22\n")
	write("store/store.go", "package store\n\n// Get returns the value saved under key.\nfunc Get(key string) string { return key }\n")
	cache := t.TempDir()
	if out, err := ctxCmd(t, cache, "index", "--repo", repo).CombinedOutput(); err != nil {
		t.Fatalf("ctx index: %v\n%s", err, out)
	}
	var sessions []*mcp.ClientSession
	for i := range 3 {
		cmd := ctxCmd(t, cache, "mcp", "--repo", repo)
		client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("p%d", i), Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	stop := make(chan struct{})
	indexErr := make(chan error, 1)
	var runs atomic.Int64
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				indexErr <- nil
				return
			default:
			}
			write(fmt.Sprintf("store/gen%d.go", i%3), fmt.Sprintf("package store\n\n// Put%d saves a value under key.\nfunc Put%d(key string) {}\n", i, i))
			if out, err := ctxCmd(t, cache, "index", "--repo", repo).CombinedOutput(); err != nil {
				indexErr <- fmt.Errorf("ctx index: %v\n%s", err, out)
				return
			}
			runs.Add(1)
		}
	}()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i, cs := range sessions {
		for w := range 3 {
			wg.Go(func() {
				for c := range 20 {
					ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": "return the value saved under a key"}})
					cancel()
					if err == nil && res.IsError {
						err = fmt.Errorf("isError: %s", res.Content[0].(*mcp.TextContent).Text)
					}
					if err != nil {
						if failed.Add(1) == 1 {
							t.Errorf("process %d worker %d call %d: %v", i, w, c, err)
						}
					}
				}
			})
		}
	}
	wg.Wait()
	close(stop)
	if err := <-indexErr; err != nil {
		t.Error(err)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of 180 calls failed", n)
	}
	if runs.Load() == 0 {
		t.Errorf("no index run finished while the servers answered")
	}
	t.Logf("180 calls over 3 server processes, %d index runs meanwhile", runs.Load())
}
