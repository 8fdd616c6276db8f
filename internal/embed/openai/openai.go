// Package openai is an [embed.Provider] for any service that speaks the
// OpenAI embeddings API, POST {BaseURL}/embeddings: OpenAI itself, Azure
// OpenAI-style gateways, vLLM, LM Studio, Hugging Face TEI, SiliconFlow,
// Jina and others.
//
// Texts are sent in batches of [Options].BatchSize with
// "encoding_format": "float". Results are put in input order by their
// "index" field (the API does not promise response order), checked against
// the model's dimensions and normalised to unit length. 429 and 5xx answers
// are retried with backoff (see [Options]); the service's error message,
// type and code appear in the returned errors.
//
// The API key comes from [Options]; this package never reads the
// environment (internal/config does).
package openai

import (
	"cmp"
	"context"
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
	// DefaultBaseURL is OpenAI's API root.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultBatchSize is the number of texts per request when
	// [Options].BatchSize is 0; OpenAI accepts up to 2048 inputs and
	// 300,000 tokens per request.
	DefaultBatchSize = 128
)

// Options configures a [Client]. Only Model is required; APIKey is required
// by OpenAI but not by most self-hosted servers.
type Options struct {
	// BaseURL is the API root that /embeddings is appended to, including
	// any version segment, e.g. "http://localhost:8000/v1"; empty means
	// [DefaultBaseURL]. A trailing slash is ignored.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>"; empty sends no
	// Authorization header.
	APIKey string
	// Header holds extra headers sent with every request, for example
	// "OpenAI-Organization" or a gateway's own key header.
	Header http.Header
	// Model is the model name, e.g. "text-embedding-3-small". Required.
	Model string
	// Dims is the expected vector length. 0 means the client learns it from
	// the first successful response and enforces it from then on; until
	// then [Client.Model] reports 0 dimensions.
	Dims int
	// SendDims sends Dims as the request's "dimensions" field, asking a
	// model that supports shortened vectors (OpenAI's text-embedding-3-*)
	// for vectors of that length. Leave it false for servers and models
	// that reject the field. It requires Dims > 0.
	SendDims bool
	// BatchSize is the most texts sent in one request; 0 means
	// [DefaultBatchSize].
	BatchSize int
	// QueryPrefix and DocumentPrefix are prepended to each text of an
	// [embed.Query] or [embed.Document] batch, for models trained with
	// task instructions (e5: "query: " and "passage: "). Empty means none.
	// Changing them changes the vectors without changing the model
	// identity, so an index must be rebuilt when they change.
	QueryPrefix    string
	DocumentPrefix string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each attempt; 0 means 2 minutes, negative means no
	// bound.
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried: 0 means
	// 4, negative means none.
	MaxRetries int
	// Backoff is the first wait between retries when the server sends no
	// Retry-After or Retry-After-Ms; it doubles per retry, with jitter. 0
	// means 500ms.
	Backoff time.Duration
	// MaxBackoff caps every wait, including Retry-After; 0 means 30s.
	MaxBackoff time.Duration
	// Logger receives a record per retry; nil discards them.
	Logger *slog.Logger
}

// Client embeds texts with an OpenAI-compatible service. It is safe for
// concurrent use.
type Client struct {
	endpoint string
	name     string
	batch    int
	sendDims bool
	prefix   embed.Prefixes
	dims     embed.DimsChecker
	http     *httpjson.Client
}

// New returns a Client for opts. It returns an error when Model is empty,
// BaseURL is not an absolute http or https URL, Dims or BatchSize is
// negative, or SendDims is set without Dims. It does not contact the
// service.
func New(opts Options) (*Client, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model name")
	}
	if opts.Dims < 0 {
		return nil, fmt.Errorf("openai: negative dimensions %d", opts.Dims)
	}
	if opts.SendDims && opts.Dims == 0 {
		return nil, errors.New("openai: SendDims needs Dims")
	}
	if opts.BatchSize < 0 {
		return nil, fmt.Errorf("openai: negative batch size %d", opts.BatchSize)
	}
	endpoint, err := httpjson.Endpoint(cmp.Or(opts.BaseURL, DefaultBaseURL), "/embeddings")
	if err != nil {
		return nil, fmt.Errorf("openai: %v", err)
	}
	header := opts.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+opts.APIKey)
	}
	c := &Client{
		endpoint: endpoint,
		name:     opts.Model,
		batch:    cmp.Or(opts.BatchSize, DefaultBatchSize),
		sendDims: opts.SendDims,
		prefix:   embed.Prefixes{Query: opts.QueryPrefix, Document: opts.DocumentPrefix},
		http: &httpjson.Client{
			HTTP:         opts.HTTPClient,
			Header:       header,
			MaxRetries:   opts.MaxRetries,
			Backoff:      opts.Backoff,
			MaxBackoff:   opts.MaxBackoff,
			Timeout:      opts.Timeout,
			Logger:       opts.Logger,
			ErrorMessage: httpjson.OpenAIErrorMessage,
			RateLimited:  embed.ErrRateLimited,
		},
	}
	c.dims.Set(opts.Dims)
	return c, nil
}

// Model reports {Provider: "openai", Name: Options.Model, Dims: d}, where d
// is Options.Dims, or the learned length once a response has been checked
// (0 before that).
func (c *Client) Model() embed.Model {
	return embed.Model{Provider: "openai", Name: c.name, Dims: c.dims.Dims()}
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
// Errors: [embed.ErrRateLimited] when the service still answers 429 after
// the retries; [embed.ErrDimension] when a vector's length differs from
// the configured or learned dimensions (or is 0); ctx.Err() (matchable
// with errors.Is) when ctx ends, also during a backoff wait; otherwise an
// error quoting the HTTP status and the service's message, or the
// transport or decoding failure.
func (c *Client) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	input := c.prefix.Apply(texts, kind)
	out, err := embed.InBatches(input, c.batch, c.name, func(batch []string) ([][]float32, error) {
		return c.embedBatch(ctx, batch)
	})
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return out, nil
}

// embedRequest is the body of POST /embeddings.
type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

// embedResponse is the part of an /embeddings answer that ctx reads; the
// service also sends "object" and "usage".
type embedResponse struct {
	Data []struct {
		// Index is the position of the input; some compatible servers
		// omit it and answer in input order.
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// embedBatch makes one request for input, whose prefixes are applied.
func (c *Client) embedBatch(ctx context.Context, input []string) ([][]float32, error) {
	req := embedRequest{Model: c.name, Input: input, EncodingFormat: "float"}
	if c.sendDims {
		req.Dimensions = c.dims.Dims()
	}
	var resp embedResponse
	if err := c.http.Post(ctx, c.endpoint, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != len(input) {
		return nil, fmt.Errorf("service returned %d embeddings for %d inputs", len(resp.Data), len(input))
	}
	out := make([][]float32, len(input))
	positional := len(resp.Data) > 0 && resp.Data[0].Index == nil
	for pos, d := range resp.Data {
		i := pos
		if (d.Index == nil) != positional {
			return nil, errors.New("service mixed embeddings with and without an index")
		}
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= len(out) {
			return nil, fmt.Errorf("embedding index %d out of range for %d inputs", i, len(input))
		}
		if out[i] != nil {
			return nil, fmt.Errorf("embedding index %d repeated", i)
		}
		if err := c.dims.Check(d.Embedding); err != nil {
			return nil, fmt.Errorf("embedding %d: %w", i, err)
		}
		embed.Normalize(d.Embedding)
		out[i] = d.Embedding
	}
	return out, nil
}
