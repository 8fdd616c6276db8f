package mcpserver

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionIdle is how long a streamable HTTP session may go without
// a request before the server closes it (see [HTTPOptions.SessionIdle]).
const DefaultSessionIdle = 10 * time.Minute

// DefaultMaxSessions caps the streamable HTTP sessions open at once (see
// [HTTPOptions.MaxSessions]). An open session costs the server about
// 15 KB; a thousand is more than the agents of one machine or team open
// within the idle time, and bounds what clients that never close their
// sessions can hold.
const DefaultMaxSessions = 1000

// sessionLimiter caps the streamable HTTP sessions open at once. A POST
// without a session id (a new session) over the cap closes the session
// that has gone longest without a request and has none in progress,
// which is what the MCP specification has a server do to a session it
// no longer keeps: the client's next request on it gets 404 and the
// client starts a new session. When every session has a request in
// progress, the new one is refused with 503 and a JSON-RPC error, which
// clients treat as transient.
//
// Only POSTs count as use, as for the SDK's idle timeout: a client's
// standing GET stream does not keep its session from being idle.
type sessionLimiter struct {
	max    int
	server *mcp.Server

	mu      sync.Mutex             // guards open and opening
	open    map[string]*sessionUse // sessions initialized through this handler, by id
	opening int                    // new-session requests in progress
}

type sessionUse struct {
	last time.Time // when a request on it last began or ended
	busy int       // requests on it in progress
}

func newSessionLimiter(server *mcp.Server, max int) *sessionLimiter {
	return &sessionLimiter{max: max, server: server, open: map[string]*sessionUse{}}
}

// begin and end bracket a POST on an existing session.
func (l *sessionLimiter) begin(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.open[id]; u != nil {
		u.busy++
		u.last = time.Now()
	}
}

func (l *sessionLimiter) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.open[id]; u != nil {
		u.busy--
		u.last = time.Now()
	}
}

// reserve makes room for a new session: it reports false when the cap
// is reached and no session is idle. Each true must be followed by
// opened.
func (l *sessionLimiter) reserve() bool {
	l.mu.Lock()
	if len(l.open)+l.opening < l.max {
		l.opening++
		l.mu.Unlock()
		return true
	}
	// Forget the sessions that have ended (idle timeout, DELETE, a
	// failed initialize) before choosing one to close.
	live := map[string]*mcp.ServerSession{}
	for ss := range l.server.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range l.open {
		if live[id] == nil {
			delete(l.open, id)
		}
	}
	if len(l.open)+l.opening < l.max {
		l.opening++
		l.mu.Unlock()
		return true
	}
	var victim string
	var oldest time.Time
	for id, u := range l.open {
		if u.busy == 0 && (victim == "" || u.last.Before(oldest)) {
			victim, oldest = id, u.last
		}
	}
	if victim == "" {
		l.mu.Unlock()
		return false
	}
	delete(l.open, victim)
	l.opening++
	l.mu.Unlock()
	live[victim].Close()
	return true
}

// opened ends a reservation: id is the session the request opened, or
// "" when it opened none.
func (l *sessionLimiter) opened(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opening--
	if id != "" {
		l.open[id] = &sessionUse{last: time.Now()}
	}
}

// sessionHeader is the header that carries a streamable HTTP session's
// id.
const sessionHeader = "Mcp-Session-Id"

// serve passes a checked POST to next under the cap. initialize says
// whether the message is an initialize request, the one that opens a
// session.
func (l *sessionLimiter) serve(w http.ResponseWriter, r *http.Request, initialize bool, reject func(), next http.Handler) {
	if id := r.Header.Get(sessionHeader); id != "" {
		l.begin(id)
		defer l.end(id)
		next.ServeHTTP(w, r)
		return
	}
	if !initialize {
		// The SDK answers it in a session of its own that it closes at
		// once.
		next.ServeHTTP(w, r)
		return
	}
	if !l.reserve() {
		reject()
		return
	}
	var id string
	defer func() { l.opened(id) }()
	next.ServeHTTP(w, r)
	id = w.Header().Get(sessionHeader)
}
