// Package weaviatetest gives tests a real Weaviate server on loopback, run
// by scripts/weaviate.sh.
//
// Tests that need Weaviate call [URL] for the shared server whose address is
// in CTX_WEAVIATE_URL, or [StartCluster] for a private one they may break
// (stop a node of). Both skip the test when CTX_WEAVIATE_URL is unset, so a
// plain `go test ./...` never builds or starts Weaviate; CI sets it after
// starting a 3-node cluster with
//
//	scripts/weaviate.sh start --nodes 3
package weaviatetest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
)

// skipMessage is why a test skips on a machine without Weaviate, naming the
// command that starts one.
const skipMessage = "CTX_WEAVIATE_URL not set: start a server with scripts/weaviate.sh start --nodes 3 and export the URL it prints"

// urlPrefix starts the last line scripts/weaviate.sh start prints.
const urlPrefix = "CTX_WEAVIATE_URL="

// URL returns the shared server's base URL from CTX_WEAVIATE_URL, without a
// trailing slash, such as "http://127.0.0.1:24060". It skips the test when
// the variable is unset. Tests share this server, so each should use
// collection names of its own.
func URL(t testing.TB) string {
	t.Helper()
	u := config.Weaviate().URL
	if u == "" {
		t.Skip(skipMessage)
	}
	return strings.TrimRight(u, "/")
}

// Cluster is a private Weaviate cluster that [StartCluster] started for one
// test and stops when the test ends.
type Cluster struct {
	// URL is node0's base URL, such as "http://127.0.0.1:24060". It stops
	// answering if node0 is stopped with [Cluster.StopNode].
	URL string
	// Nodes is how many nodes the cluster started with: 1 or 3.
	Nodes int

	script string // path of scripts/weaviate.sh
	dir    string // the script's --dir: pids, ports, data and logs
}

// StartCluster starts a private cluster of nodes nodes (1 or 3) on loopback
// with scripts/weaviate.sh, in a directory of its own, and waits until every
// node is ready; it takes about 10 s (minutes more if the server is not
// built yet). The cluster is stopped and its data removed when the test
// ends. It skips the test when CTX_WEAVIATE_URL is unset (see [URL]): the
// variable is the sign that this machine can run Weaviate.
func StartCluster(t testing.TB, nodes int) *Cluster {
	t.Helper()
	URL(t)
	if nodes != 1 && nodes != 3 {
		t.Fatalf("StartCluster: nodes = %d, want 1 or 3", nodes)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("StartCluster: %v", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		t.Fatalf("StartCluster: %v", err)
	}
	c := &Cluster{
		Nodes:  nodes,
		script: filepath.Join(root, "scripts", "weaviate.sh"),
		dir:    t.TempDir(),
	}
	// Registered after t.TempDir, so it runs before the directory is
	// removed; it also stops the nodes of a start that failed half-way.
	t.Cleanup(func() {
		if out, err := exec.Command(c.script, "stop", "--dir", c.dir).CombinedOutput(); err != nil {
			t.Errorf("stopping the Weaviate cluster in %s: %v\n%s", c.dir, err, out)
		}
	})
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), c.script, "start", "--nodes", strconv.Itoa(nodes), "--dir", c.dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s start --nodes %d: %v\n%s", c.script, nodes, err, stderr.Bytes())
	}
	c.URL, err = parseURL(out)
	if err != nil {
		t.Fatalf("%s start --nodes %d: %v\n%s", c.script, nodes, err, stderr.Bytes())
	}
	return c
}

// StopNode stops node i (0-based; node0 serves [Cluster.URL]) and waits
// until its process has exited, leaving the other nodes running.
func (c *Cluster) StopNode(t testing.TB, i int) {
	t.Helper()
	if i < 0 || i >= c.Nodes {
		t.Fatalf("StopNode(%d): the cluster has nodes 0 to %d", i, c.Nodes-1)
	}
	out, err := exec.CommandContext(t.Context(), c.script, "stop-node", strconv.Itoa(i), "--dir", c.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("stopping node%d: %v\n%s", i, err, out)
	}
}

// parseURL returns the URL from the last non-empty line of the output of
// scripts/weaviate.sh start, "CTX_WEAVIATE_URL=http://127.0.0.1:PORT".
func parseURL(stdout []byte) (string, error) {
	var last string
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	u, ok := strings.CutPrefix(last, urlPrefix)
	if !ok || u == "" {
		return "", fmt.Errorf("last line of output %q does not start with %s", last, urlPrefix)
	}
	return u, nil
}

// moduleRoot returns the nearest directory at or above dir that holds a
// go.mod, which for ctx's packages is the module root. The error says when
// there is none.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("looking for go.mod: %w", err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		d = parent
	}
}
