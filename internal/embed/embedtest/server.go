package embedtest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

// Server is an embedding service on a local port for tests of the remote
// providers: it speaks the OpenAI embeddings API (POST /v1/embeddings) or
// Ollama's (POST /api/embed), answers with the vectors of a [Fake], can be
// made to fail the way real services do ([Server.SetReply]), and counts
// every request it receives.
type Server struct {
	*httptest.Server
	proto    string // "openai" or "ollama"
	vecs     *Fake
	requests atomic.Int64
	done     chan struct{} // closed at cleanup: hung requests return

	mu    sync.Mutex // guards reply
	reply Reply
}

// Reply is how a [Server] answers; the zero Reply embeds.
type Reply struct {
	// Status, when not 0, is the error status every request gets, with
	// Message in the protocol's error body and RetryAfter (if set) as the
	// Retry-After header.
	Status     int
	RetryAfter string
	Message    string
	// Hang holds every request until the client gives up.
	Hang bool
}

// NewServer starts a Server speaking proto ("openai" or "ollama") whose
// vectors have dims float32s; it is closed when tb ends.
func NewServer(tb testing.TB, proto string, dims int) *Server {
	tb.Helper()
	s := &Server{proto: proto, vecs: New(dims), done: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(func() {
		close(s.done)
		s.Close()
	})
	return s
}

// BaseURL is the provider setting (CTX_EMBED_URL) that reaches s.
func (s *Server) BaseURL() string {
	if s.proto == "openai" {
		return s.URL + "/v1"
	}
	return s.URL
}

// SetReply makes every later request answered as r says.
func (s *Server) SetReply(r Reply) {
	s.mu.Lock()
	s.reply = r
	s.mu.Unlock()
}

// Requests reports how many requests s has received since it started or
// since the last [Server.ResetRequests].
func (s *Server) Requests() int64 { return s.requests.Load() }

// ResetRequests sets the request count to 0.
func (s *Server) ResetRequests() { s.requests.Store(0) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	reply := s.reply
	s.mu.Unlock()
	want := "/v1/embeddings"
	if s.proto == "ollama" {
		want = "/api/embed"
	}
	if r.Method != http.MethodPost || r.URL.Path != want {
		http.Error(w, `{"error": "not found"}`, http.StatusNotFound)
		return
	}
	switch {
	case reply.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	case reply.Status != 0:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		var body any = map[string]any{"error": map[string]string{"message": reply.Message}}
		if s.proto == "ollama" {
			body = map[string]string{"error": reply.Message}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		json.NewEncoder(w).Encode(body)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
		return
	}
	vecs, _ := s.vecs.Embed(r.Context(), req.Input, embed.Document)
	w.Header().Set("Content-Type", "application/json")
	if s.proto == "ollama" {
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
		return
	}
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
}

// ClosedURL returns an http URL of a local port nothing listens on: a
// provider pointed there has its connections refused.
func ClosedURL(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
