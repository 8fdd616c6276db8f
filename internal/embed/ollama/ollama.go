// Package ollama is an [embed.Provider] backed by a local or remote Ollama
// server's POST /api/embed endpoint, which embeds a list of inputs in one
// request and returns one vector per input, in order.
//
// Texts are sent in batches of [Options].BatchSize with "truncate": true,
// so a chunk longer than the model's context window is embedded from its
// beginning instead of failing its whole batch. Returned vectors are
// checked against the model's dimensions and normalised to unit length.
// 429 and 5xx answers are retried with backoff (see [Options]); Ollama's
// error messages, such as `model "x" not found, try pulling it first`,
// appear in the returned errors.
package ollama

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/httpjson"
)

var _ embed.Provider = (*Client)(nil)

const (
	// DefaultBaseURL is where a local Ollama listens by default.
	DefaultBaseURL = "http://127.0.0.1:11434"
	// DefaultBatchSize is the number of texts per request when
	// [Options].BatchSize is 0.
	DefaultBatchSize = 32
)

// Options configures a [Client]. Only Model is required.
type Options struct {
	// BaseURL is the server's root URL, without /api; empty means
	// [DefaultBaseURL]. A trailing slash is ignored.
	BaseURL string
	// Model is the Ollama model name, e.g. "nomic-embed-text" or
	// "mxbai-embed-large:335m". Required.
	Model string
	// Dims is the expected vector length. 0 means the client learns it from
	// the first successful response and enforces it from then on; until
	// then [Client.Model] reports 0 dimensions. It is not sent to the
	// server.
	Dims int
	// BatchSize is the most texts sent in one request; 0 means
	// [DefaultBatchSize].
	BatchSize int
	// QueryPrefix and DocumentPrefix are prepended to each text of an
	// [embed.Query] or [embed.Document] batch, for models trained with
	// task instructions (nomic-embed-text: "search_query: " and
	// "search_document: "). Empty means none. Changing them changes the
	// vectors without changing the model identity, so an index must be
	// rebuilt when they change.
	QueryPrefix    string
	DocumentPrefix string
	// KeepAlive is sent as "keep_alive", how long Ollama keeps the model
	// loaded after the request (a Go-style duration such as "10m", or "-1"
	// for ever); empty leaves the server's default (5m).
	KeepAlive string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each attempt, including loading the model on the
	// first request; 0 means 2 minutes, negative means no bound.
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried: 0 means
	// 4, negative means none.
	MaxRetries int
	// Backoff is the first wait between retries when the server sends no
	// Retry-After; it doubles per retry, with jitter. 0 means 500ms.
	Backoff time.Duration
	// MaxBackoff caps every wait, including Retry-After; 0 means 30s.
	MaxBackoff time.Duration
	// Logger receives a record per retry; nil discards them.
	Logger *slog.Logger
}

// Client embeds texts with an Ollama server. It is safe for concurrent use.
type Client struct {
	endpoint  string
	name      string
	batch     int
	prefix    embed.Prefixes
	keepAlive string
	dims      embed.DimsChecker
	http      *httpjson.Client
}

// New returns a Client for opts. It returns an error when Model is empty,
// BaseURL is not an absolute http or https URL, or Dims or BatchSize is
// negative. It does not contact the server.
func New(opts Options) (*Client, error) {
	if opts.Model == "" {
		return nil, errors.New("ollama: no model name")
	}
	if opts.Dims < 0 {
		return nil, fmt.Errorf("ollama: negative dimensions %d", opts.Dims)
	}
	if opts.BatchSize < 0 {
		return nil, fmt.Errorf("ollama: negative batch size %d", opts.BatchSize)
	}
	endpoint, err := httpjson.Endpoint(cmp.Or(opts.BaseURL, DefaultBaseURL), "/api/embed")
	if err != nil {
		return nil, fmt.Errorf("ollama: %v", err)
	}
	c := &Client{
		endpoint:  endpoint,
		name:      opts.Model,
		batch:     cmp.Or(opts.BatchSize, DefaultBatchSize),
		prefix:    embed.Prefixes{Query: opts.QueryPrefix, Document: opts.DocumentPrefix},
		keepAlive: opts.KeepAlive,
		http: &httpjson.Client{
			HTTP:         opts.HTTPClient,
			MaxRetries:   opts.MaxRetries,
			Backoff:      opts.Backoff,
			MaxBackoff:   opts.MaxBackoff,
			Timeout:      opts.Timeout,
			Logger:       opts.Logger,
			ErrorMessage: errorMessage,
			RateLimited:  embed.ErrRateLimited,
		},
	}
	c.dims.Set(opts.Dims)
	return c, nil
}

// Model reports {Provider: "ollama", Name: Options.Model, Dims: d}, where d
// is Options.Dims, or the learned length once a response has been checked
// (0 before that).
func (c *Client) Model() embed.Model {
	return embed.Model{Provider: "ollama", Name: c.name, Dims: c.dims.Dims()}
}

// AssumeDims fixes the vector length to n when it is neither configured
// nor learned yet, so [Client.Model] reports it without a request; every
// later response is held to it (a vector of another length fails with
// [embed.ErrDimension]). It is for callers that know the length from an
// index built with this model.
func (c *Client) AssumeDims(n int) { c.dims.Assume(n) }

// Embed returns one unit-length vector per text, in order, sending
// requests of at most Options.BatchSize texts one after another. Empty
// texts yields no request and an empty result.
//
// Errors: [embed.ErrRateLimited] when the server still answers 429 after
// the retries; [embed.ErrDimension] when a vector's length differs from
// the configured or learned dimensions (or is 0); ctx.Err() (matchable
// with errors.Is) when ctx ends, also during a backoff wait; otherwise an
// error quoting the HTTP status and Ollama's message, or the transport or
// decoding failure.
func (c *Client) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	input := c.prefix.Apply(texts, kind)
	out, err := embed.InBatches(input, c.batch, c.name, func(batch []string) ([][]float32, error) {
		return c.embedBatch(ctx, batch)
	})
	if err != nil {
		return nil, fmt.Errorf("ollama: %w", err)
	}
	return out, nil
}

// embedRequest is the body of POST /api/embed.
type embedRequest struct {
	Model     string   `json:"model"`
	Input     []string `json:"input"`
	Truncate  bool     `json:"truncate"`
	KeepAlive string   `json:"keep_alive,omitempty"`
}

// embedResponse is the part of a /api/embed answer that ctx reads; the
// server also reports durations and prompt_eval_count.
type embedResponse struct {
	Model      string      `json:"model"`
	Embeddings [][]float32 `json:"embeddings"`
}

// embedBatch makes one request for input, whose prefixes are applied.
func (c *Client) embedBatch(ctx context.Context, input []string) ([][]float32, error) {
	req := embedRequest{Model: c.name, Input: input, Truncate: true, KeepAlive: c.keepAlive}
	var resp embedResponse
	if err := c.http.Post(ctx, c.endpoint, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(input) {
		return nil, fmt.Errorf("server returned %d embeddings for %d inputs", len(resp.Embeddings), len(input))
	}
	for i, v := range resp.Embeddings {
		if err := c.dims.Check(v); err != nil {
			return nil, fmt.Errorf("embedding %d: %w", i, err)
		}
		embed.Normalize(v)
	}
	return resp.Embeddings, nil
}

// errorMessage extracts Ollama's {"error": "..."} message.
func errorMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Error
}
