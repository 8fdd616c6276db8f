// Package mcpserver serves ctx's retrieval to coding agents over the Model
// Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): stdio for `ctx mcp`,
// streamable HTTP and SSE for `ctx serve`.
//
// Whatever a client sends, the server answers and goes on: a stdio line
// or a POST body that is not one JSON-RPC 2.0 message gets a JSON-RPC
// error reply ([StdioTransport], [Server.Handler]), and streamable HTTP
// sessions are closed when idle and capped in number, so clients that
// never close theirs cannot grow the process without bound.
//
// Every tool answers from the engine's last committed index state, so
// calls never wait for an index run. A missing, stale or broken index is
// an isError result that names the command (or tool) that fixes it, never
// an empty list; only protocol faults are JSON-RPC errors.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/store"
)

// ToolSet names which tools a server offers.
type ToolSet string

const (
	// ToolsDefault is the small set agents choose well from.
	ToolsDefault ToolSet = "default"
	// ToolsAll adds indexing control and the specialised searches.
	ToolsAll ToolSet = "all"
)

// Options configures [New].
type Options struct {
	// Root is the server's root: the default repository, and the
	// directory every repo_path must stay inside.
	Root   string
	Config config.Config
	Tools  ToolSet
	// Version is reported to clients in the initialize result.
	Version string
	// Logger receives server records; nil discards them.
	Logger *slog.Logger
	// Embedder overrides the configured embedding provider (tests).
	Embedder embed.Provider
	// AutoIndex starts a background index run when a tool is called on a
	// repository that has none (default true through [New]'s callers;
	// tests turn it off to see the error).
	AutoIndex bool
}

// Server is one MCP server over one root. It is safe for concurrent use:
// the SDK runs tool calls in parallel.
type Server struct {
	opts Options
	root string // absolute, symlink-resolved
	log  *slog.Logger
	mcp  *mcp.Server
	// tools lists the registered tools in registration order, for
	// GET /tools.
	tools []*mcp.Tool

	mu      sync.Mutex
	engines map[string]*engine.Engine // by repository root
	jobs    map[string]*indexJob      // by repository root
	// refused holds, by repository root, why ctx would not index it on
	// its own (engine.ErrTooManyFiles), as a watcher or a background run
	// found; tools then say so instead of starting runs.
	refused map[string]error
	closed  bool
	// watchers are the running watchers by repository root: the server
	// root's, and those of workspace members a tool searched while the
	// server watches (watchCtx, set by Watch, is their parent).
	watchers map[string]*watcher
	watchCtx context.Context
	// pages keeps codebase_retrieval answers for calls the engine
	// answers from its query cache.
	pages *lru.Cache[string, *cachedPage]
}

// Watch keeps the server root's index fresh while the server runs
// ([engine.Engine.Watch]): a file an agent saves is searchable by its next
// call, answers say fresh only when every edit made before them is
// indexed, and a repository without an index is indexed at once. It
// returns at once; [Server.Close] stops the watcher. A root ctx refuses
// to index (the home directory, /) is not watched (logged). Once it is
// called, each workspace member a tool searches gets a watcher of its own.
func (s *Server) Watch(ctx context.Context) {
	s.mu.Lock()
	if s.watchCtx == nil {
		s.watchCtx = ctx
	}
	s.mu.Unlock()
	s.watch(ctx, s.root)
}

// watcher is one running watcher: cancel stops it, done is closed when it
// has stopped.
type watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// watchMember starts a watcher for a workspace member's root when the
// server watches (Watch was called), so each member keeps its own index
// fresh as the server root's is.
func (s *Server) watchMember(root string) {
	s.mu.Lock()
	ctx := s.watchCtx
	s.mu.Unlock()
	if ctx != nil {
		s.watch(ctx, root)
	}
}

// watch starts root's watcher unless one runs.
func (s *Server) watch(ctx context.Context, root string) {
	e, err := s.engine(root)
	if err != nil {
		s.log.Warn("not watching", "root", root, "err", err)
		return
	}
	cfg := e.Config()
	if err := discover.CheckRoot(root, cfg.Home, cfg.Force); err != nil {
		s.log.Warn("not watching", "root", root, "err", err)
		return
	}
	if !s.opts.AutoIndex && !s.hasIndex(root) {
		// The watcher's first run would build the index the server was
		// told not to build on its own.
		s.log.Info("not watching a repository without an index (--no-auto-index)", "root", root)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	if s.closed || s.watchers[root] != nil {
		s.mu.Unlock()
		cancel()
		return
	}
	if s.watchers == nil {
		s.watchers = map[string]*watcher{}
	}
	s.watchers[root] = w
	s.mu.Unlock()
	go func() {
		defer close(w.done)
		// What the engine keeps per index state is read beside the
		// watcher's first pass, so the first query does not wait for it.
		prefetched := make(chan struct{})
		go func() {
			defer close(prefetched)
			e.Prefetch(ctx)
		}()
		defer func() { <-prefetched }()
		err := e.Watch(ctx, &engine.WatchOptions{OnRun: func(r engine.WatchRun) {
			if r.Err != nil {
				s.log.Warn("watcher's index run", "root", root, "err", r.Err)
				return
			}
			s.log.Info("watcher's index run", "root", root, "run", r.String())
		}})
		if errors.Is(err, engine.ErrTooManyFiles) {
			// Not watched: tools say why and what to do ([Server.explain]).
			s.log.Warn("not watching", "root", root, "err", err)
			s.mu.Lock()
			if s.watchers[root] == w {
				delete(s.watchers, root)
			}
			s.mu.Unlock()
			s.setRefused(root, err)
			return
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("the watcher stopped; answers check file times instead", "root", root, "err", err)
		}
	}()
}

// watching reports whether this server's watcher keeps root's index
// fresh.
func (s *Server) watching(root string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watchers[root] != nil
}

// New builds a server for opts.Root (which must be an existing
// directory) with the tools of opts.Tools. Errors: a bad root, an
// embedding provider that cannot be configured.
func New(opts Options) (*Server, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", opts.Root, err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("server root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("server root %s: not a directory", root)
	}
	if opts.Tools == "" {
		opts.Tools = ToolsDefault
	}
	if opts.Tools != ToolsDefault && opts.Tools != ToolsAll {
		return nil, fmt.Errorf("unknown tool set %q (want default or all)", opts.Tools)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, root: root, log: opts.Logger, engines: map[string]*engine.Engine{}, jobs: map[string]*indexJob{}, refused: map[string]error{}}
	s.pages, _ = lru.New[string, *cachedPage](engine.QueryCacheSize)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	// Open the root's engine now, so a misconfigured provider fails at
	// start rather than on the first call.
	if _, err := s.engine(root); err != nil {
		return nil, err
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "ctx", Title: "ctx codebase context", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: serverInstructions,
		Logger:       s.log,
	})
	s.mcp.AddReceivingMiddleware(failures)
	s.addDefaultTools()
	if opts.Tools == ToolsAll {
		s.addAllTools()
	}
	return s, nil
}

// serverInstructions is sent to clients at initialize; clients that show
// it to the model learn when to reach for ctx.
const serverInstructions = `ctx indexes this repository (BM25 + embeddings + symbol and path signals) and returns the exact files and line ranges that answer a question, packed to a token budget.
Prefer codebase_retrieval over grep or reading whole files for any question about where or how something is done ("where is auth handled", "how are retries configured", an error message, an issue text).
Use get_symbol_definition, find_references and symbol_graph for a named symbol. Use grep only for exact string literals.
If a tool says the index is missing or stale, call index_status and follow its fix.`

// MCP returns the SDK server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Root returns the server's root directory.
func (s *Server) Root() string { return s.root }

// Tools returns the offered tools in registration order.
func (s *Server) Tools() []*mcp.Tool { return slices.Clone(s.tools) }

// Close stops the watcher and background index runs and releases open
// indexes.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	jobs := make([]*indexJob, 0, len(s.jobs))
	for _, j := range s.jobs {
		jobs = append(jobs, j)
	}
	engines := s.engines
	s.engines = map[string]*engine.Engine{}
	watchers := s.watchers
	s.watchers = nil
	s.mu.Unlock()
	for _, w := range watchers {
		w.cancel()
	}
	for _, w := range watchers {
		<-w.done
	}
	for _, j := range jobs {
		j.cancel()
		<-j.done
	}
	for _, e := range engines {
		e.Close()
	}
	return nil
}

// engine returns the kept-open engine of a repository root.
func (s *Server) engine(root string) (*engine.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.engines[root]; ok {
		return e, nil
	}
	e, err := engine.Open(s.opts.Config, root, &engine.Options{Logger: s.log, Embedder: s.opts.Embedder, KeepOpen: true})
	if err != nil {
		return nil, err
	}
	s.engines[root] = e
	return e, nil
}

// errOutsideRoot is a repo_path that leaves the server's root; it is a
// discover.ErrOutsideRoot (the error table's outside_root).
var errOutsideRoot error = outsideRoot{}

type outsideRoot struct{}

func (outsideRoot) Error() string        { return "outside the server root" }
func (outsideRoot) Is(target error) bool { return target == discover.ErrOutsideRoot }

// resolveRepo turns a tool's repo_path into a repository root: "" is
// the server root; a relative path is taken from the server root; the
// result (symlinks resolved) must be the server root or inside it, and
// an existing directory.
func (s *Server) resolveRepo(repoPath string) (string, error) {
	if repoPath == "" {
		return s.root, nil
	}
	p := repoPath
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.root, p)
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	} else if errors.Is(err, os.ErrNotExist) {
		return "", engine.Errorf(engine.ErrNotFound, "repo_path %q does not exist", repoPath)
	} else {
		return "", fmt.Errorf("repo_path %q: %v", repoPath, err)
	}
	if !within(s.root, p) {
		return "", fmt.Errorf("repo_path %q is %w %s; pass a directory inside it, or start the server at a root that contains it", repoPath, errOutsideRoot, s.root)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("repo_path %q: %v", repoPath, err)
	}
	if !fi.IsDir() {
		return "", badArg("repo_path %q is not a directory", repoPath)
	}
	return p, nil
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// repoEngine resolves repo_path to the engine of the repository that
// holds it (see [Server.repoScope]), ignoring any scope.
func (s *Server) repoEngine(repoPath string) (*engine.Engine, error) {
	e, _, err := s.repoScope(repoPath)
	return e, err
}

// repoScope resolves repo_path to the engine that answers for it and a
// scope: the slash path of repo_path inside that engine's root ("" for
// the whole repository). A directory with its own index, or the top of
// its own git work tree, is a repository of its own; any other directory
// inside the server root is a scope of the repository that contains it
// (its git work tree when that is inside the server root, else the
// server root), so narrowing a search to a folder reuses the existing
// index instead of starting a second one.
func (s *Server) repoScope(repoPath string) (*engine.Engine, string, error) {
	p, err := s.resolveRepo(repoPath)
	if err != nil {
		return nil, "", err
	}
	if p == s.root || s.hasIndex(p) || isGitTop(p) {
		e, err := s.engine(p)
		return e, "", err
	}
	top, err := discover.FindRoot(p)
	if err != nil || top == p || !within(s.root, top) {
		top = s.root
	}
	rel, err := filepath.Rel(top, p)
	if err != nil {
		return nil, "", err
	}
	e, err := s.engine(top)
	return e, filepath.ToSlash(rel), err
}

func (s *Server) hasIndex(root string) bool {
	_, err := os.Stat(store.PathFor(s.opts.Config.CacheDir, root))
	return err == nil
}

func isGitTop(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// scopeGlobs confines globs relative to a scope directory to it, as
// globs relative to the repository root: "" scope returns globs as they
// are; no globs become "scope/**"; a glob without a slash matches base
// names anywhere below the scope.
func scopeGlobs(scope string, globs []string) []string {
	if scope == "" {
		return globs
	}
	if len(globs) == 0 {
		return []string{scope + "/**"}
	}
	out := make([]string, len(globs))
	for i, g := range globs {
		if strings.Contains(g, "/") {
			out[i] = scope + "/" + strings.TrimPrefix(g, "/")
		} else {
			out[i] = scope + "/**/" + g
		}
	}
	return out
}

// inScope reports whether a slash path relative to the repository root
// lies in scope ("" is everything).
func inScope(scope, p string) bool {
	return scope == "" || p == scope || strings.HasPrefix(p, scope+"/")
}

// explain turns an engine error into the message a tool returns: what is
// wrong and what fixes it. A repository with no index gets a background
// index run (when AutoIndex is on), and the message says so. The message
// is reworded for an agent, but the error keeps err's class (its code in
// the tool result: [toolFailure]) unless a background run now builds the
// index, which makes it "indexing".
func (s *Server) explain(e *engine.Engine, err error) error {
	indexFix := s.reindexFix(e.Root())
	switch {
	case errors.Is(err, engine.ErrNotIndexed) && s.refusal(e.Root()) != nil:
		return s.refusal(e.Root())
	case errors.Is(err, engine.ErrNotIndexed) && s.watching(e.Root()):
		// The watcher's first run is building the index: a second run
		// would only wait for it.
		return reword(engine.Errorf(engine.ErrIndexing, "%w", err), fmt.Sprintf("%v; this server's watcher is building the index now: retry in a moment (index_status shows how far it is)", err),
			"retry in a moment; index_status shows how far the index run is")
	case errors.Is(err, engine.ErrNotIndexed):
		if s.opts.AutoIndex {
			j := s.startIndex(e, false)
			// A root ctx will not index on its own is known before the
			// run writes anything: say so now rather than "started".
			j.waitChecked()
			if r := s.refusal(e.Root()); r != nil {
				return r
			}
			follow := "Call index_status to follow it"
			if s.offers("get_indexing_status") {
				follow = "Call get_indexing_status or index_status to follow it"
			}
			return reword(engine.Errorf(engine.ErrIndexing, "%w", err), fmt.Sprintf("%s is not indexed yet; ctx started indexing it in the background (%s). %s, and retry this call when it is done (typically seconds to a minute). To index by hand: ctx index --repo %s", e.Root(), j.describe(), follow, e.Root()),
				"retry when the background index run is done (index_status shows how far it is), or "+indexFix)
		}
		return reword(err, fmt.Sprintf("%s is not indexed; run `%s`", e.Root(), indexFix), indexFix)
	case errors.Is(err, engine.ErrStale):
		return reword(err, fmt.Sprintf("the index of %s was built by another ctx build or embedding model and cannot be searched; run `%s` to rebuild it", e.Root(), indexFix), indexFix)
	case errors.Is(err, engine.ErrEmptyIndex):
		return reword(err, fmt.Sprintf("the index of %s holds no code: nothing under it was indexable; see index_status for what was skipped and why", e.Root()), "index_status (what was skipped and why)")
	case errors.Is(err, engine.ErrTimeout):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("canceled: %w", err)
	case errors.Is(err, engine.ErrCacheDir):
		// It names the directory and the settings that move it; a
		// rebuild would fail the same way.
		return err
	}
	if engine.Classify(err).Code != engine.CodeInternal {
		return err
	}
	return fmt.Errorf("%w; if the index is damaged, rebuild it with `ctx index --rebuild --repo %s`", err, e.Root())
}

// reworded is an error with an agent's message that keeps the class,
// fix and progress of the error it rewords ([engine.Classify]).
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// reword returns err with msg as its text and fix as its fix.
func reword(err error, msg, fix string) error {
	return engine.WithFix(&reworded{msg: msg, err: err}, fix)
}

// badArg is an invalid-argument error (the error table's
// invalid_argument) with the message format gives.
func badArg(format string, args ...any) error {
	return engine.Errorf(engine.ErrInvalidArgument, format, args...)
}

// offers reports whether the server offers the tool called name (its
// messages name only tools the client can call).
func (s *Server) offers(name string) bool {
	return slices.ContainsFunc(s.tools, func(t *mcp.Tool) bool { return t.Name == name })
}

// reindexFix is the command that (re)builds root's index, and the tool
// that does it when the server offers one.
func (s *Server) reindexFix(root string) string {
	fix := "ctx index --repo " + root
	if s.offers("index_codebase") {
		fix += " (or call index_codebase)"
	}
	return fix
}

// setRefused records why ctx will not index root on its own (err is
// engine.ErrTooManyFiles), or forgets it (err nil).
func (s *Server) setRefused(root string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.refused, root)
		return
	}
	s.refused[root] = err
}

// refusal returns the tool error for a root ctx will not index on its
// own, nil when it has not been refused: what was found and the fixes
// that a client of the server can apply.
func (s *Server) refusal(root string) error {
	s.mu.Lock()
	err := s.refused[root]
	s.mu.Unlock()
	var tm *engine.TooManyFilesError
	if !errors.As(err, &tm) {
		return err
	}
	return fmt.Errorf("%s has no index, and ctx does not index it on its own: it is not inside a git work tree and holds more than %d files to index (the count stopped at %d; CTX_NON_REPO_MAX_FILES sets the limit). Start the server inside the repository you meant (or pass --repo DIR), pass a repo_path inside a repository, or index this directory once by hand: ctx index --force --repo %s",
		tm.Root, tm.Max, tm.Found, tm.Root)
}

// since formats a duration in ms with one decimal.
func since(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}
