// Command ctx is a codebase context engine for AI coding agents: it indexes
// a repository and answers questions with the files and line ranges that
// matter.
package main

import (
	"os"

	"github.com/ctx-dev/ctx/internal/cli"
)

func main() { os.Exit(cli.Main()) }
