package llm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/llm"
)

func TestRequestValidate(t *testing.T) {
	t.Parallel()
	user := []llm.Message{{Role: "user", Content: "hi"}}
	tests := []struct {
		name    string
		req     llm.Request
		wantErr bool
	}{
		{"ok", llm.Request{Messages: user}, false},
		{"conversation", llm.Request{Messages: []llm.Message{{"user", "a"}, {"assistant", "b"}, {"user", "c"}}}, false},
		{"no messages", llm.Request{System: "s"}, true},
		{"system role in messages", llm.Request{Messages: []llm.Message{{"system", "s"}}}, true},
		{"negative cap", llm.Request{Messages: user, MaxTokens: -5}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.req.Validate(); (err != nil) != tc.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestOutputCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts, req int
		want      int
	}{
		{"defaults", 0, 0, 1024},
		{"options", 300, 0, 300},
		{"request wins", 300, 50, 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := llm.Options{MaxTokens: tc.opts}.OutputCap(llm.Request{MaxTokens: tc.req})
			if got != tc.want {
				t.Errorf("OutputCap = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestHTTPJSON(t *testing.T) {
	t.Parallel()
	c := llm.Options{}.HTTPJSON(nil, nil)
	if c.Timeout != 60*time.Second {
		t.Errorf("default Timeout = %v, want 60s", c.Timeout)
	}
	if !errors.Is(c.RateLimited, llm.ErrRateLimited) {
		t.Errorf("RateLimited = %v, want llm.ErrRateLimited", c.RateLimited)
	}
	if c := (llm.Options{Timeout: time.Second}).HTTPJSON(nil, nil); c.Timeout != time.Second {
		t.Errorf("Timeout = %v, want 1s", c.Timeout)
	}
}
