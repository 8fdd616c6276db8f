// Command config-docs rewrites the settings table in README.md from the
// table of settings in internal/config, between the marker lines
// config.DocBegin and config.DocEnd. `go generate ./internal/config` runs
// it; TestDocTable in internal/config fails when README is out of date.
//
//	go run ./scripts/config-docs -readme README.md
package main

import (
	"flag"
	"log"
	"os"

	"github.com/ctx-dev/ctx/internal/config"
)

func main() {
	readme := flag.String("readme", "README.md", "the README to update")
	flag.Parse()
	log.SetFlags(0)
	b, err := os.ReadFile(*readme)
	if err != nil {
		log.Fatal(err)
	}
	out, err := config.UpdateDoc(string(b))
	if err != nil {
		log.Fatalf("%s: %v", *readme, err)
	}
	if out == string(b) {
		return
	}
	if err := os.WriteFile(*readme, []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
}
