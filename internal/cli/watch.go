package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

type watchOptions struct {
	deps     *Deps
	path     string
	debounce time.Duration
}

func newWatchCmd(deps *Deps, runF func(context.Context, *watchOptions) error) *cobra.Command {
	opts := &watchOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "watch [PATH]",
		Short: "Keep the index of a repository fresh as its files change",
		Long: `Watch PATH (default: --repo, else the enclosing git work tree, else the current directory)
in the foreground and update its index after each burst of changes, logging each run on
stderr. The first run compares the whole tree (and builds the index when there is none);
later runs read only the paths that changed. Changes under ignored directories (.git,
node_modules, what .gitignore and .ctxignore exclude) start no run.

A burst of events (a checkout, a rebase, a formatter run) becomes one run: the watcher waits
for --debounce without events (default 300ms, CTX_WATCH_DEBOUNCE) and at most 2 s. When the
kernel's watch limit (fs.inotify.max_user_watches) is reached it compares the whole tree every
2 s instead and says so here and in ctx status. ctx mcp and ctx serve watch the same way by
default (--no-watch turns it off); run one watcher per repository. Stop with Ctrl-C.`,
		Example: `  ctx watch
  ctx watch ~/src/project --debounce 1s`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			if opts.debounce < 0 {
				return flagError{fmt.Errorf("--debounce must not be negative")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWatch(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.debounce, "debounce", 0, "quiet time after the last change before a run (default 300ms, CTX_WATCH_DEBOUNCE)")
	cmd.Flags().BoolVar(&deps.force, "force", false, "allow watching / or the home directory itself")
	return cmd
}

func runWatch(ctx context.Context, opts *watchOptions) error {
	d := opts.deps
	if opts.path != "" {
		d.repo = opts.path
	}
	if opts.debounce > 0 {
		d.watchDebounce = opts.debounce
	}
	e, err := d.engineWith(engine.Options{KeepOpen: true})
	if err != nil {
		return err
	}
	defer e.Close()
	out := d.IO.ErrOut
	ready := make(chan struct{})
	go func() {
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
		mode := "file events"
		if ws := e.WatchState(); ws != nil && ws.Mode != "events" {
			mode = ws.Mode + ": " + ws.Reason
		}
		fmt.Fprintf(out, "%s watching %s (%s); Ctrl-C stops\n", stamp(), e.Root(), mode)
	}()
	err = e.Watch(ctx, &engine.WatchOptions{
		Ready: ready,
		OnRun: func(r engine.WatchRun) {
			fmt.Fprintf(out, "%s %s\n", stamp(), r)
		},
	})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(out, "%s stopped\n", stamp())
		return nil
	}
	return err
}

// stamp is the local time for log lines.
func stamp() string { return time.Now().Format("15:04:05.000") }
