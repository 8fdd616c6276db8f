package weaviatetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// skipRecorder is a testing.TB that records a skip instead of skipping the
// running test. Methods other than Helper, Skip and Skipf panic.
type skipRecorder struct {
	testing.TB
	msg string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skip(args ...any) {
	r.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// skipOf runs f on a skipRecorder in a goroutine of its own (a skip ends
// the goroutine, as it ends a test) and reports whether f skipped, and why.
func skipOf(f func(testing.TB)) (msg string, skipped bool) {
	r := &skipRecorder{}
	done := make(chan struct{})
	returned := false
	go func() {
		defer close(done)
		f(r)
		returned = true
	}()
	<-done
	return r.msg, !returned
}

// TestSkipWithoutURL: with CTX_WEAVIATE_URL unset, URL and StartCluster
// skip, naming the command that starts a server, and start nothing.
func TestSkipWithoutURL(t *testing.T) {
	t.Setenv("CTX_WEAVIATE_URL", "")
	tests := []struct {
		name string
		f    func(testing.TB)
	}{
		{"URL", func(t testing.TB) { URL(t) }},
		{"StartCluster", func(t testing.TB) { StartCluster(t, 3) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, skipped := skipOf(tt.f)
			if !skipped {
				t.Fatalf("%s returned; want a skip", tt.name)
			}
			if msg != skipMessage {
				t.Errorf("skip message = %q, want %q", msg, skipMessage)
			}
		})
	}
}

// TestURL: URL returns CTX_WEAVIATE_URL without a trailing slash.
func TestURL(t *testing.T) {
	tests := []struct{ env, want string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv("CTX_WEAVIATE_URL", tt.env)
			if got := URL(t); got != tt.want {
				t.Errorf("URL() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseURL: the URL comes from the last non-empty line of the script's
// stdout, and any other last line is an error.
func TestParseURL(t *testing.T) {
	tests := []struct {
		name, stdout, want string
		wantErr            bool
	}{
		{name: "only line", stdout: "CTX_WEAVIATE_URL=http://127.0.0.1:24060\n", want: "http://127.0.0.1:24060"},
		{name: "after other lines", stdout: "building\nCTX_WEAVIATE_URL=http://127.0.0.1:1\n\n", want: "http://127.0.0.1:1"},
		{name: "no newline", stdout: "CTX_WEAVIATE_URL=http://127.0.0.1:2", want: "http://127.0.0.1:2"},
		{name: "empty", stdout: "", wantErr: true},
		{name: "not last", stdout: "CTX_WEAVIATE_URL=http://127.0.0.1:3\ndone\n", wantErr: true},
		{name: "empty url", stdout: "CTX_WEAVIATE_URL=\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseURL([]byte(tt.stdout))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseURL(%q) error = %v, want error %t", tt.stdout, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseURL(%q) = %q, want %q", tt.stdout, got, tt.want)
			}
		})
	}
}

// TestModuleRoot: the root is the nearest directory with a go.mod, found
// from the directory itself or any below it.
func TestModuleRoot(t *testing.T) {
	root := t.TempDir()
	inner := filepath.Join(root, "internal", "x")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, inner} {
		got, err := moduleRoot(dir)
		if err != nil {
			t.Fatalf("moduleRoot(%s): %v", dir, err)
		}
		if got != root {
			t.Errorf("moduleRoot(%s) = %s, want %s", dir, got, root)
		}
	}
	// This package's own module root holds the script StartCluster runs.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(got, "scripts", "weaviate.sh")); err != nil {
		t.Errorf("module root %s has no scripts/weaviate.sh: %v", got, err)
	}
}

// TestStartCluster starts a private 3-node cluster, stops node2 and checks
// that node0 still answers and sees node2 go. It needs a Weaviate-capable
// machine (CTX_WEAVIATE_URL set) and takes about 15 s.
func TestStartCluster(t *testing.T) {
	c := StartCluster(t, 3)
	if diff := cmp.Diff(map[string]string{"node0": "HEALTHY", "node1": "HEALTHY", "node2": "HEALTHY"}, nodeStatus(t, c.URL)); diff != "" {
		t.Fatalf("nodes after start (-want +got):\n%s", diff)
	}
	c.StopNode(t, 2)
	if code := get(t, c.URL+"/v1/.well-known/ready", nil); code != http.StatusOK {
		t.Errorf("node0 ready = %d after node2 stopped, want 200", code)
	}
	// node0 notices node2 leave within a few seconds.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := nodeStatus(t, c.URL)
		if st["node2"] != "HEALTHY" && st["node0"] == "HEALTHY" && st["node1"] == "HEALTHY" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes 30 s after node2 stopped: %v, want node0 and node1 HEALTHY and node2 not", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nodeStatus returns each node's status ("HEALTHY", ...) by name from
// GET /v1/nodes.
func nodeStatus(t *testing.T, base string) map[string]string {
	t.Helper()
	var body struct {
		Nodes []struct{ Name, Status string }
	}
	if code := get(t, base+"/v1/nodes", &body); code != http.StatusOK {
		t.Fatalf("GET /v1/nodes = %d", code)
	}
	st := make(map[string]string, len(body.Nodes))
	for _, n := range body.Nodes {
		st[n.Name] = n.Status
	}
	return st
}

// get sends GET url and decodes a 200 JSON answer into v when v is not nil.
// It returns the status code.
func get(t *testing.T, url string, v any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: decoding: %v", url, err)
		}
	}
	return resp.StatusCode
}
