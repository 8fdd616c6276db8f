// Command ctx-train trains ctx's static code-embedding model on pairs
// mined by ctx-mine; see internal/train.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ctx-dev/ctx/internal/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := train.Main(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
