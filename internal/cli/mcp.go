package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/mcpserver"
	"github.com/ctx-dev/ctx/internal/version"
)

type mcpOptions struct {
	deps        *Deps
	tools       string
	noAutoIndex bool
	noWatch     bool
	// serve only
	addr        string
	token       string
	sessionIdle time.Duration
	maxSessions int
}

func newMCPCmd(deps *Deps) *cobra.Command {
	opts := &mcpOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve ctx to an agent as an MCP server over stdio",
		Long: `Run a Model Context Protocol server on stdin/stdout for the repository (--repo, else the
enclosing git work tree, else the current directory). This is the command agent clients launch;
"ctx setup <client>" writes their configuration. Logs go to stderr.

Tools (default set): codebase_retrieval, get_symbol_definition, find_references, symbol_graph,
list_files, index_status. --tools all adds index_codebase, get_indexing_status, clear_index,
search_code, semantic_code_search, search_tests_for, search_config_for, search_callers_for,
search_importers_for, change_history_for_path, expand_query, info_request, memory_store,
memory_find, context_search and context_answer (which needs CTX_LLM_PROVIDER).

The server watches the repository (as ctx watch does; --no-watch turns it off): a file saved
is indexed within moments, a call made after a save waits up to 1 s (CTX_FRESH_WAIT) for it to
be indexed, and an answer says fresh only when every edit made before it is in the index. A
repository without an index is indexed at start; calls answer from the last committed index
while a run is in progress.

Each stdin line is one JSON-RPC 2.0 message of at most 4 MiB. A line that is not one gets a
JSON-RPC error reply (-32700 parse error, or -32600 invalid request) and the server reads on.
When stdin closes, the calls already read are answered before ctx exits.`,
		Example: `  ctx mcp
  ctx mcp --repo ~/src/project --tools all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.resolve(cmd); err != nil {
				return err
			}
			return runMCP(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, opts)
	return cmd
}

func newServeCmd(deps *Deps) *cobra.Command {
	opts := &mcpOptions{deps: deps}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve ctx over HTTP: streamable HTTP and SSE MCP transports",
		Long: `Run the MCP server over HTTP for the repository:
  /mcp      streamable HTTP transport
  /sse      SSE transport (older clients)
  /healthz  200 while the process runs
  /readyz   200 when the index can answer, else 503 with the fix
  /tools    the offered tools as JSON

It binds to loopback by default (server.http). --token (or $CTX_MCP_TOKEN, or the token
"ctx auth set mcp" stored) requires
"Authorization: Bearer <token>" on every path but /healthz, and is required to bind any
other address; a token that is blank or has whitespace around it is refused. Without a token,
every path answers only requests whose Host header is localhost, 127.0.0.1 or [::1] (DNS
rebinding protection).

A streamable HTTP session with no request for --session-idle is closed. At most
--max-sessions are open at once: a new session over the cap closes the one idle longest
(its client gets 404 and starts a new session), or gets 503 with a JSON-RPC error when every
session has a request in progress. A POST body that is not one JSON-RPC 2.0 message, or is
larger than 4 MiB, gets a JSON-RPC error (-32700 or -32600).`,
		Example: `  ctx serve --http 127.0.0.1:8765
  CTX_MCP_TOKEN=secret ctx serve --http 0.0.0.0:8765 --tools all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.resolve(cmd); err != nil {
				return err
			}
			if err := mcpserver.CheckBind(opts.addr, opts.token); err != nil {
				return flagError{err}
			}
			if opts.sessionIdle < 0 || opts.maxSessions < 0 {
				return flagError{fmt.Errorf("--session-idle and --max-sessions must not be negative")}
			}
			return runServe(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, opts)
	cmd.Flags().StringVar(&opts.addr, "http", "", "address to listen on (default: server.http, 127.0.0.1:8765)")
	cmd.Flags().StringVar(&opts.token, "token", "", "bearer token clients must send (default: $CTX_MCP_TOKEN, else the key `ctx auth set mcp` stored)")
	cmd.Flags().DurationVar(&opts.sessionIdle, "session-idle", mcpserver.DefaultSessionIdle, "close a streamable HTTP session after this long without a request (0: never)")
	cmd.Flags().IntVar(&opts.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "most streamable HTTP sessions open at once (0: no cap)")
	return cmd
}

func addServerFlags(cmd *cobra.Command, opts *mcpOptions) {
	cmd.Flags().StringVar(&opts.tools, "tools", "", "tool set: default or all (default: server.tools, default)")
	cmd.Flags().BoolVar(&opts.noAutoIndex, "no-auto-index", false, "do not start indexing an unindexed repository on the first call")
	cmd.Flags().BoolVar(&opts.noWatch, "no-watch", false, "do not watch the repository (default: server.watch, true): answers then check file times, and changes wait for ctx index")
}

// resolve fills the options that settings give defaults to (server.http,
// server.tools, server.watch, server.token) from the flags given, else
// the configuration.
func (o *mcpOptions) resolve(cmd *cobra.Command) error {
	d := o.deps
	f := cmd.Flags()
	if f.Changed("http") {
		d.flags = append(d.flags, config.Flag{Key: "server.http", Name: "--http", Value: o.addr})
	}
	if f.Changed("tools") {
		d.flags = append(d.flags, config.Flag{Key: "server.tools", Name: "--tools", Value: o.tools})
	}
	if o.noWatch {
		d.flags = append(d.flags, config.Flag{Key: "server.watch", Name: "--no-watch", Value: "false"})
	}
	if o.token != "" {
		d.flags = append(d.flags, config.Flag{Key: "server.token", Name: "--token", Value: o.token})
	}
	cfg, err := d.config()
	if err != nil {
		return err
	}
	o.addr, o.tools, o.noWatch, o.token = cfg.Server.HTTP, cfg.Server.Tools, !cfg.Server.Watch, cfg.MCPToken
	return nil
}

// newServer builds the MCP server for the command's repository.
func (o *mcpOptions) newServer() (*mcpserver.Server, error) {
	d := o.deps
	cfg, err := d.config()
	if err != nil {
		return nil, err
	}
	root, err := d.root()
	if err != nil {
		return nil, err
	}
	return mcpserver.New(mcpserver.Options{
		Root: root, Config: cfg, Tools: mcpserver.ToolSet(o.tools), Version: version.Get().Version,
		Logger: d.logger(cfg), AutoIndex: !o.noAutoIndex,
	})
}

func runMCP(ctx context.Context, opts *mcpOptions) error {
	s, err := opts.newServer()
	if err != nil {
		return err
	}
	defer s.Close()
	if !opts.noWatch {
		s.Watch(ctx)
	}
	// A malformed line gets a JSON-RPC error reply and the server reads
	// on; the end of stdin waits for the replies of the calls in flight.
	return s.RunStdio(ctx, opts.deps.IO.In, opts.deps.IO.Out)
}

func runServe(ctx context.Context, opts *mcpOptions) error {
	s, err := opts.newServer()
	if err != nil {
		return err
	}
	defer s.Close()
	if !opts.noWatch {
		s.Watch(ctx)
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return err
	}
	hopts := mcpserver.HTTPOptions{Token: opts.token, SessionIdle: opts.sessionIdle, MaxSessions: opts.maxSessions}
	// The flags say "0" for none; HTTPOptions says so with a negative
	// value (its zero value means the default).
	if hopts.SessionIdle == 0 {
		hopts.SessionIdle = -1
	}
	if hopts.MaxSessions == 0 {
		hopts.MaxSessions = -1
	}
	srv := &http.Server{Handler: s.Handler(hopts), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(opts.deps.IO.ErrOut, "ctx: serving %s on http://%s%s (SSE: %s, health: %s)\n", s.Root(), ln.Addr(), mcpserver.PathMCP, mcpserver.PathSSE, mcpserver.PathHealthz)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	}
}
