// Package ctxproc holds what the benchmark and soak scripts share to run
// ctx as a server process: a free loopback port for `ctx serve`, waiting
// until it answers, and reading its resident memory.
package ctxproc

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// FreeAddr returns a loopback host:port that was free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// WaitHealthy polls base's /healthz until it answers 200 OK. It gives up
// after within, or when a value arrives on exited (the server's Wait; nil
// when the caller does not watch for it).
func WaitHealthy(base string, exited <-chan error, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("ctx serve exited before serving: %v", err)
		default:
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s/healthz not ready after %v: %v", base, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MemKB reads a process's resident memory from /proc (Linux), in kB, by
// field: VmRSS (the total) and its parts RssAnon (heap), RssFile
// (binary, mmap'd files) and RssShmem. A field the kernel does not
// report is absent.
func MemKB(pid int) (map[string]int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	kb := map[string]int{}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "VmRSS" || strings.HasPrefix(k, "Rss")) {
			kb[k], _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	return kb, nil
}
