// Package weaviate is a small client for the parts of Weaviate's REST and
// GraphQL API (server v1.35) that ctx uses to keep chunks in a Weaviate
// collection with its own vectors (vectorizer "none"): schema and tenants,
// batch writes and deletes, single objects, and GraphQL Get (BM25,
// nearVector, where filters) and Aggregate counts.
//
// Requests go through [httpjson.Client], so 429 and 5xx answers are
// retried (honouring Retry-After) and 4xx answers, 422 included, are not.
// Errors name the operation and the class; an HTTP failure keeps the
// status and Weaviate's message (its error bodies look like
// {"error":[{"message":"..."}]}) and can be matched with errors.As as a
// *[httpjson.StatusError]. GraphQL "errors" become a *[GraphQLError].
//
// Every string put into GraphQL text is escaped by [quote]; class,
// property and operator names are checked against GraphQL's name syntax
// instead, since they cannot be quoted.
package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/httpjson"
)

// Consistency levels for [Client.ConsistencyLevel].
const (
	ConsistencyOne    = "ONE"
	ConsistencyQuorum = "QUORUM"
	ConsistencyAll    = "ALL"
)

// Client talks to one Weaviate server (or cluster node). Set its exported
// fields before first use; it is then safe for concurrent use.
type Client struct {
	// ConsistencyLevel is sent with writes (batch, object put/delete) and
	// object reads, and with GraphQL Get on classes whose replication
	// factor is above 1 (Weaviate 1.35 rejects the argument on other
	// classes, and Aggregate never accepts it). "" leaves the server's
	// default (QUORUM); otherwise [ConsistencyOne], [ConsistencyQuorum]
	// or [ConsistencyAll].
	ConsistencyLevel string
	// HTTP sends the requests with the shared retry policy; New sets its
	// Authorization header and Weaviate's error-message extraction.
	HTTP *httpjson.Client
	// Logger receives one debug record per Get ("weaviate get": class,
	// search (bm25, nearVector, where or all), limit, hits, and dur, the
	// wall time from send to decoded answer; never the query's text),
	// so one search's time can be split per request; nil discards them.
	Logger *slog.Logger

	base string

	mu         sync.Mutex      // guards replicated
	replicated map[string]bool // class name → replication factor > 1, as last seen
}

// New returns a client for the server at baseURL (such as
// "http://127.0.0.1:8080", without /v1), sending apiKey as a Bearer
// token when it is not "". It returns an error when baseURL is not an
// absolute http(s) URL.
func New(baseURL, apiKey string) (*Client, error) {
	base, err := httpjson.Endpoint(baseURL, "")
	if err != nil {
		return nil, fmt.Errorf("weaviate: %v", err)
	}
	h := &httpjson.Client{Header: http.Header{}, ErrorMessage: errorMessage}
	if apiKey != "" {
		h.Header.Set("Authorization", "Bearer "+apiKey)
	}
	return &Client{HTTP: h, base: base, replicated: map[string]bool{}}, nil
}

// errorMessage extracts the messages of a Weaviate error body,
// {"error":[{"message":"..."}]}, joined with "; ", or "" when the body
// has another shape. GraphQL-style bodies ({"errors":[...]}) are read too.
func errorMessage(body []byte) string {
	var e struct {
		Error  []struct{ Message string } `json:"error"`
		Errors []struct{ Message string } `json:"errors"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	var msgs []string
	for _, m := range append(e.Error, e.Errors...) {
		if m.Message != "" {
			msgs = append(msgs, m.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

// endpoint returns the URL of path (already escaped) under the server,
// with query parameters q whose empty values are left out.
func (c *Client) endpoint(path string, q ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(q); i += 2 {
		if q[i+1] != "" {
			v.Set(q[i], q[i+1])
		}
	}
	u := c.base + path
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

// do sends one request with the shared retry policy.
func (c *Client) do(ctx context.Context, method, u string, in, out any) error {
	return c.HTTP.Do(ctx, method, u, in, out)
}

// isStatus reports whether err is a final HTTP answer with the status.
func isStatus(err error, status int) bool {
	var se *httpjson.StatusError
	return errors.As(err, &se) && se.Status == status
}

// Ready returns nil when the server answers GET /v1/.well-known/ready
// with 2xx (it answers 503 while starting), and an error otherwise.
func (c *Client) Ready(ctx context.Context) error {
	if err := c.do(ctx, http.MethodGet, c.endpoint("/v1/.well-known/ready"), nil, nil); err != nil {
		return fmt.Errorf("weaviate ready: %w", err)
	}
	return nil
}

// Node is one cluster member as GET /v1/nodes reports it: its name, its
// status ("HEALTHY", "UNHEALTHY", "UNAVAILABLE", ...) and how many shards
// it holds.
type Node struct {
	Name, Status string
	Shards       int
}

// ShardObjects returns the object count of shard (a tenant's name, for a
// multi-tenant class) of class on each node that reports holding it and is
// HEALTHY: one figure per replica, none when no such node answers (GET
// /v1/nodes/{class}?output=verbose). A node counts the objects it has
// flushed from memory to disk segments; writes still in its memtables
// (flushed after PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS, 60 s by
// default) are not counted yet. Errors: the request's.
func (c *Client) ShardObjects(ctx context.Context, class, shard string) ([]int, error) {
	var resp struct {
		Nodes []struct {
			Status string `json:"status"`
			Shards []struct {
				Class       string `json:"class"`
				Name        string `json:"name"`
				ObjectCount int    `json:"objectCount"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if err := c.do(ctx, http.MethodGet, c.endpoint("/v1/nodes/"+url.PathEscape(class), "output", "verbose"), nil, &resp); err != nil {
		return nil, fmt.Errorf("weaviate nodes of %s: %w", class, err)
	}
	var out []int
	for _, n := range resp.Nodes {
		if n.Status != "HEALTHY" {
			continue
		}
		for _, s := range n.Shards {
			if s.Class == class && s.Name == shard {
				out = append(out, s.ObjectCount)
			}
		}
	}
	return out, nil
}

// Nodes lists the cluster's nodes (one for a single server).
func (c *Client) Nodes(ctx context.Context) ([]Node, error) {
	var resp struct {
		Nodes []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Stats  *struct {
				ShardCount int `json:"shardCount"`
			} `json:"stats"`
			Shards []json.RawMessage `json:"shards"`
		} `json:"nodes"`
	}
	if err := c.do(ctx, http.MethodGet, c.endpoint("/v1/nodes", "output", "verbose"), nil, &resp); err != nil {
		return nil, fmt.Errorf("weaviate nodes: %w", err)
	}
	nodes := make([]Node, len(resp.Nodes))
	for i, n := range resp.Nodes {
		nodes[i] = Node{Name: n.Name, Status: n.Status, Shards: len(n.Shards)}
		if n.Stats != nil && n.Stats.ShardCount > nodes[i].Shards {
			nodes[i].Shards = n.Stats.ShardCount
		}
	}
	return nodes, nil
}
