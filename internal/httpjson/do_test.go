package httpjson

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls = append(calls, r.Method+" "+string(body)+" "+r.Header.Get("Content-Type"))
		switch {
		case r.Method == http.MethodDelete && len(calls) == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodPut:
			io.WriteString(w, `{"ok":true}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `gone`)
		}
	}))
	defer srv.Close()
	c := &Client{Backoff: time.Millisecond}
	if err := c.Do(t.Context(), http.MethodDelete, srv.URL, nil, nil); err != nil {
		t.Errorf("DELETE after a 503: %v", err)
	}
	var out struct{ OK bool }
	if err := c.Do(t.Context(), http.MethodPut, srv.URL, map[string]int{"a": 1}, &out); err != nil || !out.OK {
		t.Errorf("PUT = %+v, %v", out, err)
	}
	err := c.Do(t.Context(), http.MethodGet, srv.URL, nil, &out)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || se.Message != "gone" || err.Error() != "HTTP 404 Not Found: gone" {
		t.Errorf("GET = %v, want a 404 StatusError", err)
	}
	want := []string{"DELETE  ", "DELETE  ", `PUT {"a":1} application/json`, "GET  "}
	if len(calls) != len(want) {
		t.Fatalf("calls = %q", calls)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d = %q, want %q", i, calls[i], want[i])
		}
	}
}
