// Command workspace-own measures a workspace search on a per-repository
// benchmark: it runs `ctx find --workspace NAME --json --limit N QUERY`
// in the current directory and prints the answer with every result of
// another member marked so that it matches no target (its path becomes
// "other:<member>/<path>#other"), while the results of the member rooted
// at the current directory keep their paths. Scored by the semble
// evaluator (../shared/bench/eval.py, which runs the command in each
// repository's search root), other members' results count as misses:
//
//	ctx workspace add semble <the 12 search roots>
//	go build -o /tmp/workspace-own ./scripts/workspace-own
//	python3 eval.py semble --repos repos.json --annotations annotations \
//	  --checkouts CHECKOUTS --cmd '/tmp/workspace-own -workspace semble {query}'
//
// A directory that is no member's root marks every result.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// answer is the part of ctx find's JSON this command reads; results keep
// every field they came with.
type answer struct {
	Results []map[string]any `json:"results"`
	Stats   struct {
		Members []struct {
			Repo string `json:"repo"`
			Root string `json:"root"`
		} `json:"members"`
	} `json:"stats"`
}

func main() {
	bin := flag.String("ctx", "ctx", "the ctx binary")
	ws := flag.String("workspace", "", "the workspace to search (required)")
	limit := flag.Int("limit", 10, "results asked for")
	flag.Parse()
	if *ws == "" || flag.NArg() != 1 {
		log.Fatal("usage: workspace-own -workspace NAME [-ctx BIN] [-limit N] QUERY")
	}
	cwd, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(*bin, "find", "--workspace", *ws, "--json", "--limit", strconv.Itoa(*limit), flag.Arg(0))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("ctx find: %v", err)
	}
	marked, err := markOthers(out, cwd)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", marked)
}

// markOthers returns ctx find's JSON answer with the results of every
// member not rooted at dir given paths no target can match.
func markOthers(data []byte, dir string) ([]byte, error) {
	var a answer
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&a); err != nil {
		return nil, fmt.Errorf("reading ctx find's answer: %w", err)
	}
	own := ""
	for _, m := range a.Stats.Members {
		if sameDir(m.Root, dir) {
			own = m.Repo
		}
	}
	for _, r := range a.Results {
		if repo, _ := r["repo"].(string); repo != own || own == "" {
			path, _ := r["path"].(string)
			r["path"] = "other:" + repo + "/" + path + "#other"
		}
	}
	return json.Marshal(map[string]any{"results": a.Results})
}

// sameDir reports whether a and b name one directory, symlinks resolved.
func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
