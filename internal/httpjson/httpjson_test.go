package httpjson

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var errProviderLimit = errors.New("provider rate limit")

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		wantOK bool
	}{
		{"absent", nil, 0, false},
		{"zero seconds", map[string]string{"Retry-After": "0"}, 0, true},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"seconds with space", map[string]string{"Retry-After": " 2 "}, 2 * time.Second, true},
		{"negative seconds", map[string]string{"Retry-After": "-3"}, 0, false},
		{"huge seconds are clamped", map[string]string{"Retry-After": "99999999999999"}, 24 * time.Hour, true},
		{"http date", map[string]string{"Retry-After": "Sat, 01 Mar 2025 12:00:05 GMT"}, 5 * time.Second, true},
		{"http date in the past", map[string]string{"Retry-After": "Sat, 01 Mar 2025 11:00:00 GMT"}, 0, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{"bad milliseconds fall back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "1"}, time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, now)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tc.header, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestWait(t *testing.T) {
	t.Parallel()
	c := &Client{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	now := time.Now()
	tests := []struct {
		name     string
		attempt  int
		header   http.Header
		min, max time.Duration
	}{
		{"first retry", 0, nil, 50 * time.Millisecond, 100 * time.Millisecond},
		{"second retry doubles", 1, nil, 100 * time.Millisecond, 200 * time.Millisecond},
		{"fourth retry", 3, nil, 400 * time.Millisecond, 800 * time.Millisecond},
		{"capped", 10, nil, 500 * time.Millisecond, time.Second},
		{"no overflow", 200, nil, 500 * time.Millisecond, time.Second},
		{"retry-after wins", 0, http.Header{"Retry-After": {"0"}}, 0, 0},
		{"retry-after capped", 0, http.Header{"Retry-After": {"120"}}, time.Second, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for range 50 {
				if d := c.wait(tc.attempt, tc.header, now); d < tc.min || d > tc.max {
					t.Fatalf("wait(%d) = %v, want within [%v, %v]", tc.attempt, d, tc.min, tc.max)
				}
			}
		})
	}
}

func TestPost(t *testing.T) {
	t.Parallel()
	type reply struct {
		status int
		body   string
	}
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name         string
		client       Client
		replies      []reply // the last one repeats
		want         map[string]int
		wantErr      error
		wantErrText  string
		wantRequests int
	}{
		{
			name:         "ok",
			replies:      []reply{{200, `{"n": 1}`}},
			want:         map[string]int{"n": 1},
			wantRequests: 1,
		},
		{
			name:         "503 then ok",
			client:       Client{Backoff: time.Millisecond},
			replies:      []reply{{503, "busy"}, {200, `{"n": 2}`}},
			want:         map[string]int{"n": 2},
			wantRequests: 2,
		},
		{
			name:         "no retries when negative",
			client:       Client{MaxRetries: -1},
			replies:      []reply{{429, "slow down"}},
			wantErr:      ErrRateLimited,
			wantErrText:  "HTTP 429 Too Many Requests: slow down",
			wantRequests: 1,
		},
		{
			name:         "provider's own rate-limit sentinel",
			client:       Client{MaxRetries: -1, RateLimited: errProviderLimit},
			replies:      []reply{{429, "slow down"}},
			wantErr:      errProviderLimit,
			wantErrText:  "HTTP 429 Too Many Requests: slow down",
			wantRequests: 1,
		},
		{
			name:         "5xx exhausted is not a rate limit",
			client:       Client{MaxRetries: 2, Backoff: time.Millisecond},
			replies:      []reply{{502, "<html>\n bad   gateway\n</html>"}},
			wantErrText:  "HTTP 502 Bad Gateway after 3 attempts: <html> bad gateway </html>",
			wantRequests: 3,
		},
		{
			name:         "long error body is truncated",
			replies:      []reply{{400, long}},
			wantErrText:  "HTTP 400 Bad Request: " + long[:maxMessageBytes] + "…",
			wantRequests: 1,
		},
		{
			name:         "error message extractor",
			client:       Client{ErrorMessage: func(b []byte) string { return "extracted" }},
			replies:      []reply{{401, `{"whatever": true}`}},
			wantErrText:  "HTTP 401 Unauthorized: extracted",
			wantRequests: 1,
		},
		{
			name:         "malformed success body",
			replies:      []reply{{200, `{"n": `}},
			wantErrText:  "decoding response: unexpected end of JSON input",
			wantRequests: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				rep := tc.replies[min(i, len(tc.replies)-1)]
				if got := r.Header.Get("X-Test"); got != "yes" {
					t.Errorf("X-Test header = %q, want %q", got, "yes")
				}
				if got := r.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("Content-Type = %q, want application/json", got)
				}
				w.WriteHeader(rep.status)
				w.Write([]byte(rep.body))
			}))
			defer srv.Close()
			c := tc.client
			c.HTTP = srv.Client()
			c.Header = http.Header{"X-Test": {"yes"}}
			var got map[string]int
			err := c.Post(t.Context(), srv.URL, map[string]string{"q": "x"}, &got)
			if tc.wantErrText != "" || tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Post succeeded, want error %q", tc.wantErrText)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("Post error %q is not %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("Post error %q does not contain %q", err, tc.wantErrText)
				}
			} else if err != nil {
				t.Fatalf("Post: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded body mismatch (-want +got):\n%s", diff)
			}
			if got := int(n.Load()); got != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", got, tc.wantRequests)
			}
		})
	}
}

// TestPostDeadlineCutsRetries: when the wait before the next retry would
// pass the context's deadline, Post returns the service's answer at once
// (still matchable as a rate limit) instead of sleeping into the deadline.
func TestPostDeadlineCutsRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		status      int
		retryAfter  string
		wantErr     error
		wantErrText string
	}{
		{"429 with Retry-After", 429, "30", ErrRateLimited, "HTTP 429 Too Many Requests: slow down; not retried: the next attempt (in 30s) would pass the deadline"},
		{"503 with backoff", 503, "", nil, "HTTP 503 Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte("slow down"))
			}))
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), Backoff: 10 * time.Second}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			start := time.Now()
			err := c.Post(ctx, srv.URL, struct{}{}, new(struct{}))
			if err == nil || !strings.Contains(err.Error(), tc.wantErrText) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Post = %v, want an error with %q, not a deadline", err, tc.wantErrText)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("Post error %q is not %v", err, tc.wantErr)
			}
			if el := time.Since(start); el > time.Second {
				t.Errorf("Post took %s, want an answer before the deadline without waiting", el)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("server saw %d requests, want 1", got)
			}
		})
	}
}

func TestPostTransportErrorNotRetried(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	c := &Client{Backoff: time.Hour}
	start := time.Now()
	err := c.Post(t.Context(), url, struct{}{}, new(struct{}))
	if err == nil || !strings.Contains(err.Error(), "sending request") {
		t.Fatalf("Post to a closed server = %v, want a sending error", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("Post took %v: transport errors must not be retried", time.Since(start))
	}
}

func TestEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		base    string
		want    string
		wantErr bool
	}{
		{"plain", "http://127.0.0.1:11434", "http://127.0.0.1:11434/api/embed", false},
		{"trailing slashes", "https://api.example.com/v1//", "https://api.example.com/v1/api/embed", false},
		{"no scheme", "localhost:11434", "", true},
		{"other scheme", "ftp://host", "", true},
		{"no host", "http:///v1", "", true},
		{"empty", "", "", true},
		{"unparsable", "http://[::1", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Endpoint(tc.base, "/api/embed")
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "is not an http(s) URL") {
					t.Errorf("Endpoint(%q) = %q, %v; want an http(s) URL error", tc.base, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Endpoint(%q) = %q, %v; want %q", tc.base, got, err, tc.want)
			}
		})
	}
}
