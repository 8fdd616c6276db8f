package mcpserver

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTP paths served by [Server.Handler].
const (
	PathMCP     = "/mcp"     // streamable HTTP transport
	PathSSE     = "/sse"     // SSE transport (2024-11-05 clients)
	PathHealthz = "/healthz" // the process is up
	PathReadyz  = "/readyz"  // the root's index can answer queries
	PathTools   = "/tools"   // the offered tools, for debugging
)

// HTTPOptions configures [Server.Handler].
type HTTPOptions struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every path except /healthz.
	Token string
}

// Handler serves the MCP transports and the debugging endpoints:
//
//	POST/GET/DELETE /mcp  streamable HTTP (sessions, SSE streams for
//	                      server messages)
//	GET /sse, POST /sse?sessionid=…  the older SSE transport
//	GET /healthz          200 "ok" while the process runs
//	GET /readyz           200 when the root's index answers queries, else
//	                      503 with the reason and its fix
//	GET /tools            the tools as tools/list gives them (JSON)
//
// Both transports reject requests whose Host header is not loopback when
// they arrive on a loopback address (DNS rebinding protection).
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	mux := http.NewServeMux()
	mux.Handle(PathMCP, mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: s.log}))
	mux.Handle(PathSSE, mcp.NewSSEHandler(getServer, nil))
	mux.HandleFunc("GET "+PathHealthz, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET "+PathReadyz, func(w http.ResponseWriter, r *http.Request) {
		if err := s.ready(r); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("GET "+PathTools, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"tools": s.Tools()})
	})
	if opts.Token == "" {
		return mux
	}
	want := []byte("Bearer " + opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != PathHealthz && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ctx"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// ready checks that the root's index can answer a query now.
func (s *Server) ready(r *http.Request) error {
	e, err := s.engine(s.root)
	if err != nil {
		return err
	}
	if _, _, err := e.Files(r.Context(), "", nil, 1); err != nil {
		if j := s.job(s.root); j != nil && !j.isFinished() {
			return fmt.Errorf("indexing %s: %s", s.root, j.describe())
		}
		return s.explainNoStart(err)
	}
	return nil
}

// explainNoStart is [Server.explain] without starting an index run.
func (s *Server) explainNoStart(err error) error {
	if isNotIndexed(err) {
		return fmt.Errorf("%s is not indexed; run `ctx index --repo %s`", s.root, s.root)
	}
	e, _ := s.engine(s.root)
	return s.explain(e, err)
}

// ErrNeedToken is returned by [CheckBind] for a non-loopback address
// without a token.
var ErrNeedToken = errors.New("a non-loopback address needs --token (or CTX_MCP_TOKEN)")

// CheckBind validates a listen address: loopback addresses are always
// allowed; any other needs a bearer token.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", addr, err)
	}
	if isLoopback(host) || token != "" {
		return nil
	}
	return fmt.Errorf("%w: refusing to serve %s without authentication", ErrNeedToken, addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
