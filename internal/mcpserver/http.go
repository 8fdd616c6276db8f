package mcpserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	// SessionIdle closes a streamable HTTP session that has had no
	// request for this long, and frees what it holds: 0 means
	// [DefaultSessionIdle], a negative value keeps sessions until the
	// client closes them.
	SessionIdle time.Duration
	// MaxSessions caps the streamable HTTP sessions open at once: 0 means
	// [DefaultMaxSessions], a negative value sets no cap. Over the cap a
	// new session closes the one idle longest (its client gets 404 and
	// starts again), or is refused with 503 when none is idle.
	MaxSessions int
	// MaxBodyBytes bounds a POST to /mcp: 0 means
	// [DefaultMaxMessageBytes].
	MaxBodyBytes int64
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
// A POST to /mcp whose body is not one JSON-RPC 2.0 message gets a
// JSON-RPC error (application/json) as stdio does (see checkMessage):
// 400 with -32700 or -32600, or 413 with -32600 past MaxBodyBytes.
//
// Without a token, every path answers only requests whose Host header is
// a loopback name or address when they arrive on a loopback address, so
// a web page cannot reach the server through a DNS name rebound to
// 127.0.0.1 (the SDK does the same for /mcp and /sse whatever the token).
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	if opts.SessionIdle == 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxMessageBytes
	}
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	streamable := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:              s.log,
		SessionTimeout:      max(opts.SessionIdle, 0),
		MaxRequestBodyBytes: opts.MaxBodyBytes,
	})
	var sessions *sessionLimiter
	if opts.MaxSessions > 0 {
		sessions = newSessionLimiter(s.mcp, opts.MaxSessions)
	}
	mux := http.NewServeMux()
	mux.Handle(PathMCP, checkedMCP(streamable, opts.MaxBodyBytes, sessions))
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
		return loopbackHostOnly(mux)
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

// checkedMCP serves the streamable transport after checking each POST:
// its body must be one JSON-RPC 2.0 message of at most maxBody bytes,
// else the reply is a JSON-RPC error, and a new session must fit under
// the cap of sessions (nil: no cap).
func checkedMCP(next http.Handler, maxBody int64, sessions *sessionLimiter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeRejection(w, http.StatusRequestEntityTooLarge, invalidRequest(nil, "the body is longer than %d bytes", tooBig.Limit))
			} else {
				writeRejection(w, http.StatusBadRequest, parseError("reading the body: %v", err))
			}
			return
		}
		msg, rej := checkMessage(body)
		if rej != nil {
			writeRejection(w, http.StatusBadRequest, rej)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if sessions == nil {
			next.ServeHTTP(w, r)
			return
		}
		req, _ := msg.(*jsonrpc.Request)
		initialize := req != nil && req.Method == "initialize"
		sessions.serve(w, r, initialize, func() {
			rej := &rejection{code: codeServerBusy, msg: fmt.Sprintf("the server has %d sessions open (its --max-sessions) and all are busy; retry shortly, and close the sessions you no longer use (DELETE %s)", sessions.max, PathMCP)}
			if req != nil && req.ID.IsValid() {
				rej.id, _ = json.Marshal(req.ID.Raw())
			}
			w.Header().Set("Retry-After", "1")
			writeRejection(w, http.StatusServiceUnavailable, rej)
		}, next)
	})
}

// writeRejection writes a JSON-RPC error response with an HTTP status.
func writeRejection(w http.ResponseWriter, status int, rej *rejection) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(rej.reply(), '\n'))
}

// loopbackHostOnly refuses, with 403, a request that arrives on a
// loopback address with a Host header that is not a loopback name or
// address: a page in a browser that rebinds its own DNS name to
// 127.0.0.1 sends its own name.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && loopbackAddr(local.String()) && !loopbackAddr(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not a loopback name; a server on a loopback address without --token answers only requests for localhost, 127.0.0.1 or [::1]", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackAddr reports whether a host or host:port names a loopback
// interface.
func loopbackAddr(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return host != "" && isLoopback(host)
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

// ErrBadToken is returned by [CheckBind] for a token that is only
// whitespace, or has whitespace around it: HTTP strips that from the
// header a client sends, so no request could ever match it.
var ErrBadToken = errors.New("the token is blank or has leading or trailing whitespace")

// CheckBind validates a listen address and its token: loopback addresses
// are always allowed; any other needs a token. A token that is set must
// be usable whatever the address.
func CheckBind(addr, token string) error {
	if token != "" && strings.TrimSpace(token) != token {
		return fmt.Errorf("--token (or CTX_MCP_TOKEN): %w", ErrBadToken)
	}
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
