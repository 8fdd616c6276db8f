// Command ctx-mine mines (natural language → code) training pairs for
// ctx's code-embedding model; see internal/mine/README.md.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ctx-dev/ctx/internal/mine"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := mine.Main(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
