// Package ctxproc holds what the benchmark, evaluation and soak scripts
// share to run ctx: finding the module and building or locating the ctx
// binary, a free loopback port for `ctx serve`, waiting until it answers,
// and reading its resident memory.
package ctxproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// CopyTree copies the regular files of a tree and returns their count;
// it stops when ctx is done.
func CopyTree(ctx context.Context, from, to string) (int, error) {
	n := 0
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		n++
		return out.Close()
	})
	return n, err
}

// GoRoot is `go env GOROOT`, else the GOROOT this program was built with.
func GoRoot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return runtime.GOROOT()
}

// ModuleRoot is the directory of `go env GOMOD` (this repository when a
// script runs inside it), else the current directory.
func ModuleRoot() string {
	if out, err := exec.Command("go", "env", "GOMOD").Output(); err == nil {
		if m := strings.TrimSpace(string(out)); m != "" && m != os.DevNull {
			return filepath.Dir(m)
		}
	}
	return "."
}

// BuildCtx builds ./cmd/ctx of the module at root into the file out.
// The error carries the compiler's output.
func BuildCtx(root, out string) error {
	build := exec.Command("go", "build", "-o", out, "./cmd/ctx")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/ctx: %v\n%s", err, b)
	}
	return nil
}

// Binary returns the absolute path of the ctx binary at path, or an
// error that says how to build it when there is none.
func Binary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("ctx binary %s: %v (build it with: go build -o bin/ctx ./cmd/ctx)", path, err)
	}
	return abs, nil
}

// QueryLines returns the queries of a text file: one a line, blank lines
// and # comments left out.
func QueryLines(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}
