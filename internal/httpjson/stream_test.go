package httpjson

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPostStream: a stream is handed over after the retries, read whole,
// and its requests say they accept server-sent events.
func TestPostStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		client       Client
		statuses     []int // the last one repeats; 200 streams "a", "b"
		retryAfter   string
		want         string
		wantErr      error
		wantErrText  string
		wantRequests int
	}{
		{name: "ok", statuses: []int{200}, want: "data: a\n\ndata: b\n\n", wantRequests: 1},
		{name: "429 then ok", client: Client{MaxBackoff: 50 * time.Millisecond}, retryAfter: "1", statuses: []int{429, 200}, want: "data: a\n\ndata: b\n\n", wantRequests: 2},
		{name: "503 then ok", client: Client{Backoff: time.Millisecond}, statuses: []int{503, 200}, want: "data: a\n\ndata: b\n\n", wantRequests: 2},
		{name: "429 exhausted", client: Client{MaxRetries: -1}, statuses: []int{429}, wantErr: ErrRateLimited, wantErrText: "HTTP 429 Too Many Requests: oops", wantRequests: 1},
		{name: "401 not retried", statuses: []int{401}, wantErrText: "HTTP 401 Unauthorized: oops", wantRequests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if got := r.Header.Get("Accept"); got != "text/event-stream" {
					t.Errorf("Accept = %q, want text/event-stream", got)
				}
				status := tc.statuses[min(i, len(tc.statuses)-1)]
				if status != 200 {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(status)
					io.WriteString(w, "oops")
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				for _, d := range []string{"a", "b"} {
					io.WriteString(w, "data: "+d+"\n\n")
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			c := tc.client
			c.HTTP = srv.Client()
			start := time.Now()
			body, err := c.PostStream(t.Context(), srv.URL, map[string]bool{"stream": true})
			if tc.wantErrText != "" {
				if err == nil {
					body.Close()
					t.Fatalf("PostStream succeeded, want error %q", tc.wantErrText)
				}
				if !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("PostStream error %q does not contain %q", err, tc.wantErrText)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("PostStream error %q is not %v", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("PostStream: %v", err)
				}
				got, err := io.ReadAll(body)
				body.Close()
				if err != nil || string(got) != tc.want {
					t.Errorf("stream = %q, %v; want %q", got, err, tc.want)
				}
			}
			if got := int(n.Load()); got != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", got, tc.wantRequests)
			}
			if tc.retryAfter != "" && time.Since(start) > 5*time.Second {
				t.Errorf("PostStream took %v: Retry-After must be capped by MaxBackoff", time.Since(start))
			}
		})
	}
}

// TestPostStreamTimeout: Timeout bounds the wait for headers and each
// silence in the stream, not the stream's length. The steady stream's
// gaps are a tenth of the timeout, so only a stall of the whole timeout
// on a loaded machine (not a slow tick) could fail it.
func TestPostStreamTimeout(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	tests := []struct {
		name        string
		handler     func(w http.ResponseWriter, r *http.Request)
		wantOpenErr string
		want        string
		wantReadErr string
	}{
		{
			name: "no headers",
			handler: func(w http.ResponseWriter, r *http.Request) {
				<-r.Context().Done()
			},
			wantOpenErr: "sending request: no response within 1s",
		},
		{
			name: "stalls mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "data: a\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
			want:        "data: a\n\n",
			wantReadErr: "no data for 1s",
		},
		{
			name: "long but steady stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				for range 15 { // 15 × 100ms is 1.5 times the timeout
					io.WriteString(w, "x")
					w.(http.Flusher).Flush()
					time.Sleep(timeout / 10)
				}
			},
			want: "xxxxxxxxxxxxxxx",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// With the body read, the server notices the client
				// hanging up and cancels r.Context().
				io.Copy(io.Discard, r.Body)
				tc.handler(w, r)
			}))
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), Timeout: timeout}
			body, err := c.PostStream(t.Context(), srv.URL, struct{}{})
			if tc.wantOpenErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantOpenErr) {
					t.Fatalf("PostStream = %v, want error %q", err, tc.wantOpenErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("PostStream: %v", err)
			}
			defer body.Close()
			got, err := io.ReadAll(body)
			if string(got) != tc.want {
				t.Errorf("stream = %q, want %q", got, tc.want)
			}
			if tc.wantReadErr == "" && err != nil {
				t.Errorf("reading stream: %v", err)
			}
			if tc.wantReadErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantReadErr)) {
				t.Errorf("reading stream = %v, want error %q", err, tc.wantReadErr)
			}
		})
	}
}

// TestPostStreamCancel: cancelling the caller's context ends a pending
// Read at once with the context's error.
func TestPostStreamCancel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "data: a\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	c := &Client{HTTP: srv.Client(), Timeout: time.Minute}
	body, err := c.PostStream(ctx, srv.URL, struct{}{})
	if err != nil {
		t.Fatalf("PostStream: %v", err)
	}
	defer body.Close()
	buf := make([]byte, 64)
	if _, err := body.Read(buf); err != nil {
		t.Fatalf("first Read: %v", err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = io.ReadAll(body)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Read took %v after cancel", el)
	}
}
