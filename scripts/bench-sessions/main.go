// Command bench-sessions measures what unclosed streamable HTTP sessions
// cost a `ctx serve` process: it starts the server on a free loopback
// port, opens sessions the way a client that never says goodbye does
// (POST initialize, then POST notifications/initialized, never DELETE),
// and reads the server's resident memory (VmRSS from /proc, Linux) before
// the first session and after each step.
//
//	go build -o bin/ctx ./cmd/ctx
//	go run ./scripts/bench-sessions -ctx bin/ctx -sessions 10000
//
// Flags after "--" go to `ctx serve` (for example -- --max-sessions 0 to
// see the cost without a cap). The repository (-repo, default: a new
// empty directory) need not be indexed: sessions do not touch the index.
// The server gets a private cache directory, so the run leaves nothing
// behind.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

func main() {
	ctxBin := flag.String("ctx", "ctx", "ctx binary")
	repo := flag.String("repo", "", "repository to serve (default: a new empty directory)")
	sessions := flag.Int("sessions", 10000, "sessions to open and leave open")
	steps := flag.Int("steps", 5, "RSS readings while opening them")
	workers := flag.Int("workers", 8, "concurrent clients")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "bench-sessions-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if *repo == "" {
		*repo = tmp + "/repo"
		if err := os.Mkdir(*repo, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	addr, err := ctxproc.FreeAddr()
	if err != nil {
		log.Fatal(err)
	}
	args := append([]string{"serve", "--http", addr, "--repo", *repo, "--no-auto-index"}, flag.Args()...)
	cmd := exec.Command(*ctxBin, args...)
	cmd.Env = append(os.Environ(), "CTX_CACHE_DIR="+tmp+"/cache", "CTX_LOG_LEVEL=error")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	base := "http://" + addr
	if err := ctxproc.WaitHealthy(base, nil, 30*time.Second); err != nil {
		log.Fatal(err)
	}
	pid := cmd.Process.Pid
	fmt.Printf("ctx %s\n", strings.Join(args, " "))
	time.Sleep(500 * time.Millisecond)
	fmt.Printf("%6d sessions: %s\n", 0, rss(pid))

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}, Timeout: 30 * time.Second}
	var opened, failed atomic.Int64
	var firstErr sync.Once
	start := time.Now()
	per := max(*sessions / *steps, 1)
	for done := 0; done < *sessions; {
		n := min(per, *sessions-done)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range *workers {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					if err := openSession(hc, base+"/mcp"); err != nil {
						failed.Add(1)
						firstErr.Do(func() { log.Printf("opening a session: %v", err) })
						continue
					}
					opened.Add(1)
				}
			})
		}
		wg.Wait()
		done += n
		fmt.Printf("%6d sessions: %s\n", done, rss(pid))
	}
	fmt.Printf("opened %d sessions (%d failed) in %v\n", opened.Load(), failed.Load(), time.Since(start).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	fmt.Printf("2s later:        %s\n", rss(pid))
	// The server must still take new sessions and answer on them.
	if err := openSession(hc, base+"/mcp"); err != nil {
		fmt.Printf("a new session after the run: %v\n", err)
	} else {
		fmt.Println("a new session after the run: ok")
	}
}

// openSession initializes a session and leaves it open.
func openSession(hc *http.Client, url string) error {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-sessions","version":"1"}}}`
	resp, err := post(hc, url, "", init)
	if err != nil {
		return err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || id == "" {
		return fmt.Errorf("initialize: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if !bytes.Contains(body, []byte(`"serverInfo"`)) {
		return fmt.Errorf("initialize: no result: %s", body)
	}
	resp, err = post(hc, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: %s", resp.Status)
	}
	return nil
}

func post(hc *http.Client, url, session, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	return hc.Do(req)
}

// rss is a process's VmRSS and its anonymous part, in MB.
func rss(pid int) string {
	kb, err := ctxproc.MemKB(pid)
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return fmt.Sprintf("VmRSS %d MB (anonymous %d MB)", kb["VmRSS"]/1024, kb["RssAnon"]/1024)
}
