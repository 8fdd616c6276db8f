// Command bench-mcp measures ctx's MCP server as an agent sees it: it
// starts `ctx mcp` as a real process, connects with the Go SDK client over
// stdio, calls codebase_retrieval with each query of a file for several
// rounds, and reports the server-side time of each call (the tool's
// stats.server_ms) and the client round trip, as p50/p95 over all calls
// after a warm-up round, plus the server's resident memory (VmRSS) when
// idle before and after the calls.
//
//	go run ./scripts/bench-mcp -ctx bin/ctx -repo $(go env GOROOT)/src \
//	    -queries scripts/goroot-queries.txt -rounds 4
//
// With -uncached each measured round starts a new server, warmed by one
// call of a query outside the set, so no measured call is answered from
// the server's query cache (a repeated request is otherwise).
//
// The repository must already be indexed (`ctx index`), so the first
// index run is not measured. Environment variables (CTX_CACHE_DIR,
// CTX_EMBED_PROVIDER, …) pass through to the server.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

func main() {
	ctxBin := flag.String("ctx", "ctx", "ctx binary")
	repo := flag.String("repo", "", "indexed repository")
	queries := flag.String("queries", "scripts/goroot-queries.txt", "one query per line")
	rounds := flag.Int("rounds", 4, "measured rounds over the queries (after one warm-up round)")
	mode := flag.String("mode", "balanced", "codebase_retrieval mode")
	uncached := flag.Bool("uncached", false, "start a new server for each round, warmed by a query outside the set, so no call is answered from the query cache")
	flag.Parse()
	if *repo == "" {
		log.Fatal("-repo is required")
	}
	qs, err := readLines(*queries)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	connect := func() (*exec.Cmd, *mcp.ClientSession) {
		cmd := exec.Command(*ctxBin, "mcp", "--repo", *repo, "--no-auto-index")
		cmd.Stderr = os.Stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "bench-mcp", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			log.Fatalf("starting ctx mcp: %v", err)
		}
		return cmd, cs
	}
	cmd, cs := connect()
	defer func() { cs.Close() }()
	time.Sleep(500 * time.Millisecond)
	rssStart := rss(cmd.Process.Pid)

	var server, trip []float64
	var tokens []int
	cached := 0
	for round := 0; round <= *rounds; round++ {
		if *uncached && round > 0 {
			cs.Close()
			cmd, cs = connect()
			// Warm-up outside the set: vectors, tokenizer, page cache.
			warm := map[string]any{"information_request": "bench-mcp warm-up call", "mode": *mode}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: warm}); err != nil {
				log.Fatalf("warm-up: %v", err)
			}
		}
		for _, q := range qs {
			t0 := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "codebase_retrieval", Arguments: map[string]any{"information_request": q, "mode": *mode}})
			rt := float64(time.Since(t0).Microseconds()) / 1000
			if err != nil {
				log.Fatalf("%q: %v", q, err)
			}
			if res.IsError {
				log.Fatalf("%q: %v", q, res.Content[0].(*mcp.TextContent).Text)
			}
			var out struct {
				Tokens int `json:"tokens"`
				Stats  struct {
					ServerMS float64 `json:"server_ms"`
					Cached   bool    `json:"cached"`
				} `json:"stats"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil {
				log.Fatal(err)
			}
			if round == 0 {
				continue // warm-up: page cache, vectors, tokenizer
			}
			server = append(server, out.Stats.ServerMS)
			if out.Stats.Cached {
				cached++
			}
			trip = append(trip, rt)
			tokens = append(tokens, out.Tokens)
		}
	}
	time.Sleep(2 * time.Second)
	rssIdle := rss(cmd.Process.Pid)
	fmt.Printf("calls: %d (%d queries x %d rounds, after 1 warm-up round), mode %s\n", len(server), len(qs), *rounds, *mode)
	fmt.Printf("answered from the query cache: %d\n", cached)
	fmt.Printf("server_ms: p50 %.1f  p95 %.1f  max %.1f\n", pct(server, 50), pct(server, 95), pct(server, 100))
	fmt.Printf("round trip ms: p50 %.1f  p95 %.1f\n", pct(trip, 50), pct(trip, 95))
	slices.Sort(tokens)
	fmt.Printf("tokens per call: p50 %d  max %d\n", tokens[len(tokens)/2], tokens[len(tokens)-1])
	fmt.Printf("server RSS idle at start: %s\n", rssStart)
	fmt.Printf("server RSS idle after the calls: %s\n", rssIdle)
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// pct is the p-th percentile (nearest rank) of xs.
func pct(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// rss is a process's resident set size: the total (VmRSS) and its
// anonymous (heap) and file-backed (binary, mmap'd index and vectors)
// parts, in MB.
func rss(pid int) string {
	kb, err := ctxproc.MemKB(pid)
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return fmt.Sprintf("%d MB (anonymous %d MB, file %d MB)", kb["VmRSS"]/1024, kb["RssAnon"]/1024, kb["RssFile"]/1024)
}
