package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ctxExe is the test binary under the name ctx, which TestMain runs as
// the ctx command.
func ctxExe(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "ctx")
	if err := os.Symlink(self, exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

// mcpProc is a `ctx mcp` process: lines go to its stdin, and its stdout
// lines come out of out.
type mcpProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    chan string
	stderr bytes.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit error, once done is closed
}

func startMCP(t *testing.T) *mcpProc {
	t.Helper()
	repo := t.TempDir()
	src := "package retry\n\n// Backoff doubles the delay after each failed attempt.\nfunc Backoff(n int) int { return 1 << n }\n"
	if err := os.WriteFile(filepath.Join(repo, "retry.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &mcpProc{out: make(chan string, 64), done: make(chan struct{})}
	p.cmd = exec.Command(ctxExe(t), "mcp", "--repo", repo, "--no-auto-index")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CTX_") {
			env = append(env, kv)
		}
	}
	home := t.TempDir()
	p.cmd.Env = append(env, "CTX_CACHE_DIR="+t.TempDir(), "HOME="+home, "XDG_CACHE_HOME="+home+"/.cache", "XDG_CONFIG_HOME="+home+"/.config", "CTX_LOG_LEVEL=error")
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait only after stdout has been read to its end, as exec requires.
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.out <- sc.Text()
		}
		close(p.out)
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		go func() {
			for range p.out {
			}
		}()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
			t.Errorf("ctx mcp did not exit within 10s of stdin closing\n%s", p.stderr.Bytes())
		}
	})
	return p
}

func (p *mcpProc) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			t.Fatalf("writing to ctx mcp: %v\n%s", err, p.stderr.Bytes())
		}
	}
}

type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// next reads the process's next stdout line as a JSON-RPC response.
func (p *mcpProc) next(t *testing.T) rpcReply {
	t.Helper()
	select {
	case l, ok := <-p.out:
		if !ok {
			t.Fatalf("ctx mcp closed stdout\n%s", p.stderr.Bytes())
		}
		var r rpcReply
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.JSONRPC != "2.0" || len(r.ID) == 0 {
			t.Fatalf("ctx mcp wrote %q: not a JSON-RPC response (%v)", l, err)
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("no reply from ctx mcp within 30s\n%s", p.stderr.Bytes())
	}
	panic("unreachable")
}

// TestMCPStdioMalformedLines runs `ctx mcp` as a process and sends each
// kind of malformed line followed by a valid tools/list: each malformed
// line gets its JSON-RPC error reply, every tools/list is answered, and a
// call in flight when stdin closes is answered before the process exits
// with status 0.
func TestMCPStdioMalformedLines(t *testing.T) {
	t.Parallel()
	p := startMCP(t)
	p.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := p.next(t); string(r.ID) != "0" || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	for i, tc := range []struct {
		name, line string
		code       int64
		id         string
	}{
		{"bad json", `{bad json`, -32700, "null"},
		{"invalid utf-8", "\xff\xfe{\"jsonrpc\":\"2.0\"}", -32700, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"old","method":"tools/list"}`, -32600, `"old"`},
		{"object id", `{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list"}`, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600, "null"},
		{"empty array", `[]`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, -32600, "null"},
		{"deeply nested", `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`, -32600, `"deep"`},
		{"bare number", `12`, -32600, "null"},
		{"empty object", `{}`, -32600, "null"},
		{"too long", `{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}`, -32600, "null"},
	} {
		id := fmt.Sprint(100 + i)
		p.send(t, tc.line, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
		if r := p.next(t); r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: reply id %s error %+v, want code %d with id %s", tc.name, r.ID, r.Error, tc.code, tc.id)
		}
		if r := p.next(t); string(r.ID) != id || r.Error != nil || !strings.Contains(string(r.Result), `"codebase_retrieval"`) {
			t.Errorf("%s: the tools/list after it got id %s error %+v", tc.name, r.ID, r.Error)
		}
	}

	// Calls, a malformed line right behind them, then the end of stdin:
	// every one is answered and the process exits cleanly.
	const last = 50
	for i := range last {
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"last-%d","method":"tools/call","params":{"name":"list_files","arguments":{}}}`, i))
	}
	p.send(t, `{bad json`)
	p.stdin.Close()
	got := map[string]rpcReply{}
	for range last + 1 {
		r := p.next(t)
		got[string(r.ID)] = r
	}
	for i := range last {
		if r, ok := got[fmt.Sprintf(`"last-%d"`, i)]; !ok || r.Error != nil || len(r.Result) == 0 {
			t.Errorf("call last-%d in flight at the end of stdin got %+v", i, r)
		}
	}
	if r, ok := got["null"]; !ok || r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("the malformed last line got %+v", r)
	}
	if l, ok := <-p.out; ok {
		t.Errorf("ctx mcp wrote %q after the last reply", l)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("ctx mcp exited with %v after stdin closed\n%s", p.err, p.stderr.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("ctx mcp did not exit after stdin closed\n%s", p.stderr.Bytes())
	}
}

// TestServeBlankToken: `ctx serve` refuses a token that is only
// whitespace, from --token or CTX_MCP_TOKEN, as a usage error (exit 2),
// whatever the address, instead of serving.
func TestServeBlankToken(t *testing.T) {
	t.Parallel()
	exe := ctxExe(t)
	repo := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		env  string
	}{
		{"flag, loopback", []string{"--token", "   "}, ""},
		{"flag, any address", []string{"--token", " \t ", "--http", "0.0.0.0:0"}, ""},
		{"environment, loopback", nil, "CTX_MCP_TOKEN=   "},
		{"environment, any address", []string{"--http", "0.0.0.0:0"}, "CTX_MCP_TOKEN=\t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			args := append([]string{"serve", "--repo", repo, "--http", "127.0.0.1:0"}, tc.args...)
			cmd := exec.CommandContext(ctx, exe, args...)
			cmd.Env = append(os.Environ(), "CTX_CACHE_DIR="+t.TempDir(), "CTX_MCP_TOKEN=")
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("ctx %s served with a blank token:\n%s", strings.Join(args, " "), out)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !bytes.Contains(out, []byte("blank")) {
				t.Errorf("ctx %s: %v, want exit status 2 and a message about the blank token:\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
}
