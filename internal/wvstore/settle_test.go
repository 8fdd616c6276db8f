package wvstore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/weaviate"
)

// TestSettle: a sync's wait ends once every replica counts all but a
// tenth of the tenant's chunk objects (a count above them settles too),
// and otherwise ends with a note that says why: the wait timed out, the
// counts could not be read, or the caller gave up.
func TestSettle(t *testing.T) {
	defer func(timeout, poll time.Duration) { settleTimeout, settlePoll = timeout, poll }(settleTimeout, settlePoll)
	settleTimeout, settlePoll = 300*time.Millisecond, 5*time.Millisecond
	for _, tc := range []struct {
		name   string
		counts []string // the n-th poll's answer: the shard's objectCount on each of two nodes; the last repeats
		status int      // answer status (200 when 0)
		cancel bool
		want   string // "" or a word of the note
		polls  int    // at least this many polls (exactly, when want is "")
	}{
		{name: "counted at the third poll", counts: []string{"0,0", "50,95", "90,100"}, polls: 3},
		{name: "over-counted", counts: []string{"130,100"}, polls: 1},
		{name: "never counted", counts: []string{"0,100"}, want: "had not counted", polls: 5},
		{name: "nodes refused", status: http.StatusForbidden, want: "could not read", polls: 1},
		{name: "caller gave up", counts: []string{"0,0"}, cancel: true, want: "interrupted", polls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var polls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(polls.Add(1))
				if r.URL.Path != "/v1/nodes/XChunk" {
					http.NotFound(w, r)
					return
				}
				if tc.status != 0 {
					w.WriteHeader(tc.status)
					w.Write([]byte(`{"error":[{"message":"forbidden"}]}`))
					return
				}
				c := strings.Split(tc.counts[min(n, len(tc.counts))-1], ",")
				w.Write([]byte(`{"nodes":[{"status":"HEALTHY","shards":[{"class":"XChunk","name":"t","objectCount":` + c[0] + `}]},` +
					`{"status":"HEALTHY","shards":[{"class":"XChunk","name":"t","objectCount":` + c[1] + `}]}]}`))
			}))
			defer srv.Close()
			c, err := weaviate.New(srv.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			c.HTTP.MaxRetries = -1
			p := &Params{Client: c, Prefix: "X", Tenant: "t"}
			ctx := t.Context()
			if tc.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 30*time.Millisecond)
				defer cancel()
			}
			note := p.settle(ctx, 100)
			n := int(polls.Load())
			switch {
			case tc.want == "" && (note != "" || n != tc.polls):
				t.Errorf("settle = %q after %d polls, want settled after %d", note, n, tc.polls)
			case tc.want != "" && (!strings.Contains(note, tc.want) || n < tc.polls):
				t.Errorf("settle = %q after %d polls, want a note with %q", note, n, tc.want)
			}
		})
	}
}
