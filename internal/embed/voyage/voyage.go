// Package voyage is an [embed.Provider] for Voyage AI's embeddings API,
// POST {BaseURL}/embeddings with {"input", "model", "input_type",
// "truncation": true} and, when asked, "output_dimension".
//
// Voyage embeds queries and documents differently: an [embed.Query] batch
// is sent with "input_type": "query" and an [embed.Document] batch with
// "document", so no instruction prefixes are needed. Texts go in requests
// of at most [MaxBatchSize] texts and [Options].MaxBatchBytes bytes (the
// API bounds both the list and its total tokens), one after another.
// Results are put in input order by their "index", checked against the
// model's dimensions and normalised to unit length. 429 and 5xx answers
// are retried with backoff (see [Options]); Voyage's {"detail"} message
// appears in the returned errors.
//
// The API key comes from [Options]; this package never reads the
// environment (internal/config does).
package voyage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/httpjson"
)

var _ embed.Provider = (*Client)(nil)

const (
	// ProviderName is the provider in the model identity.
	ProviderName = "voyage"
	// DefaultBaseURL is Voyage's API root.
	DefaultBaseURL = "https://api.voyageai.com/v1"
	// DefaultModel is Voyage's code retrieval model (1024 dimensions unless
	// output_dimension asks for 256, 512 or 2048).
	DefaultModel = "voyage-code-3"
	// MaxBatchSize is the most texts per request, and the default.
	MaxBatchSize = 128
	// DefaultMaxBatchBytes bounds the bytes of text per request: Voyage
	// accepts 120K tokens per request for voyage-code-3 (more for its
	// smaller models), and code runs about 3 bytes a token, so 256 KiB
	// stays below the limit with room for dense code.
	DefaultMaxBatchBytes = 256 << 10
)

// Options configures a [Client]; the zero value uses [DefaultModel] at
// [DefaultBaseURL], without a key (which Voyage refuses).
type Options struct {
	// BaseURL is the API root that /embeddings is appended to; empty means
	// [DefaultBaseURL]. A trailing slash is ignored.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>".
	APIKey string
	// Model is the model name; empty means [DefaultModel].
	Model string
	// Dims is the expected vector length. 0 means the client learns it from
	// the first successful response and enforces it from then on; until
	// then [Client.Model] reports 0 dimensions.
	Dims int
	// SendDims sends Dims as "output_dimension", asking a model with
	// flexible dimensions (voyage-code-3, voyage-3.5, voyage-3-large) for
	// vectors of that length. It requires Dims > 0.
	SendDims bool
	// BatchSize is the most texts in one request; 0 means, and larger
	// values are held to, [MaxBatchSize].
	BatchSize int
	// MaxBatchBytes is the most bytes of text in one request (a longer
	// text goes alone, and Voyage truncates it); 0 means
	// [DefaultMaxBatchBytes].
	MaxBatchBytes int
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each attempt; 0 means 2 minutes, negative means no
	// bound.
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried: 0 means
	// 4, negative means none. Backoff is the first wait when the service
	// sends no Retry-After (0: 500ms), doubling per retry with jitter;
	// MaxBackoff caps every wait (0: 30s).
	MaxRetries          int
	Backoff, MaxBackoff time.Duration
	// Logger receives a record per retry; nil discards them.
	Logger *slog.Logger
}

// Client embeds texts with Voyage AI. It is safe for concurrent use.
type Client struct {
	endpoint string
	name     string
	batch    int
	bytes    int
	sendDims bool
	dims     embed.DimsChecker
	tokens   atomic.Int64 // usage.total_tokens summed over all answers
	http     *httpjson.Client
}

// New returns a Client for opts. It returns an error when BaseURL is not
// an absolute http or https URL, Dims, BatchSize or MaxBatchBytes is
// negative, or SendDims is set without Dims. It does not contact the
// service.
func New(opts Options) (*Client, error) {
	if opts.Dims < 0 || opts.BatchSize < 0 || opts.MaxBatchBytes < 0 {
		return nil, errors.New("voyage: negative dimensions, batch size or batch bytes")
	}
	if opts.SendDims && opts.Dims == 0 {
		return nil, errors.New("voyage: SendDims needs Dims")
	}
	endpoint, err := httpjson.Endpoint(cmp.Or(opts.BaseURL, DefaultBaseURL), "/embeddings")
	if err != nil {
		return nil, fmt.Errorf("voyage: %v", err)
	}
	header := http.Header{}
	if opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+opts.APIKey)
	}
	c := &Client{
		endpoint: endpoint,
		name:     cmp.Or(opts.Model, DefaultModel),
		batch:    min(cmp.Or(opts.BatchSize, MaxBatchSize), MaxBatchSize),
		bytes:    cmp.Or(opts.MaxBatchBytes, DefaultMaxBatchBytes),
		sendDims: opts.SendDims,
		http: &httpjson.Client{
			HTTP:         opts.HTTPClient,
			Header:       header,
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

// Model reports {Provider: "voyage", Name: the model, Dims: d}, where d is
// Options.Dims, or the learned length once a response has been checked
// (0 before that).
func (c *Client) Model() embed.Model {
	return embed.Model{Provider: ProviderName, Name: c.name, Dims: c.dims.Dims()}
}

// AssumeDims fixes the vector length to n when it is neither configured
// nor learned yet, so [Client.Model] reports it without a request; every
// later response is held to it.
func (c *Client) AssumeDims(n int) { c.dims.Assume(n) }

// Tokens returns the tokens Voyage reported embedding (usage.total_tokens)
// over all of c's requests so far; Voyage bills by them.
func (c *Client) Tokens() int64 { return c.tokens.Load() }

// Embed returns one unit-length vector per text, in order, sending
// requests one after another. Empty texts yields no request and an empty
// result.
//
// Errors: [embed.ErrRateLimited] when Voyage still answers 429 after the
// retries; [embed.ErrDimension] when a vector's length differs from the
// configured or learned dimensions (or is 0); ctx.Err() (matchable with
// errors.Is) when ctx ends; otherwise an error quoting the HTTP status and
// Voyage's message, or the transport or decoding failure. Each names the
// range of texts and the model: "voyage: embedding texts 128-255 with
// voyage-code-3: ...".
func (c *Client) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); {
		end := c.batchEnd(texts, start)
		vecs, err := c.embedBatch(ctx, texts[start:end], kind)
		if err != nil {
			return nil, fmt.Errorf("voyage: embedding texts %d-%d with %s: %w", start, end-1, c.name, err)
		}
		out = append(out, vecs...)
		start = end
	}
	return out, nil
}

// batchEnd returns the end of the batch that starts at texts[start]: at
// most c.batch texts and c.bytes bytes, and at least one text.
func (c *Client) batchEnd(texts []string, start int) int {
	end, size := start, 0
	for end < len(texts) && end-start < c.batch {
		size += len(texts[end])
		if size > c.bytes && end > start {
			break
		}
		end++
	}
	return end
}

// embedRequest is the body of POST /embeddings.
type embedRequest struct {
	Input           []string `json:"input"`
	Model           string   `json:"model"`
	InputType       string   `json:"input_type,omitempty"`
	Truncation      bool     `json:"truncation"`
	OutputDimension int      `json:"output_dimension,omitempty"`
}

// embedResponse is the part of an answer ctx reads; Voyage also sends
// "object": "list" and per-item "object": "embedding".
type embedResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		TotalTokens int64 `json:"total_tokens"`
	} `json:"usage"`
}

// inputTypes maps an input kind to Voyage's input_type; another kind is
// sent without one (Voyage then embeds the text as is).
var inputTypes = map[embed.InputKind]string{embed.Query: "query", embed.Document: "document"}

// embedBatch makes one request for input.
func (c *Client) embedBatch(ctx context.Context, input []string, kind embed.InputKind) ([][]float32, error) {
	req := embedRequest{Input: input, Model: c.name, InputType: inputTypes[kind], Truncation: true}
	if c.sendDims {
		req.OutputDimension = c.dims.Dims()
	}
	var resp embedResponse
	if err := c.http.Post(ctx, c.endpoint, req, &resp); err != nil {
		return nil, err
	}
	c.tokens.Add(resp.Usage.TotalTokens)
	if len(resp.Data) != len(input) {
		return nil, fmt.Errorf("service returned %d embeddings for %d inputs", len(resp.Data), len(input))
	}
	// Place every vector before checking any length, so that a malformed
	// answer does not teach the client its dimensions.
	out := make([][]float32, len(input))
	placed := make([]bool, len(input))
	for pos, d := range resp.Data {
		if d.Index == nil {
			return nil, fmt.Errorf("embedding %d has no index", pos)
		}
		i := *d.Index
		if i < 0 || i >= len(out) {
			return nil, fmt.Errorf("embedding index %d out of range for %d inputs", i, len(input))
		}
		if placed[i] {
			return nil, fmt.Errorf("embedding index %d repeated", i)
		}
		placed[i] = true
		out[i] = d.Embedding
	}
	for i, v := range out {
		if err := c.dims.Check(v); err != nil {
			return nil, fmt.Errorf("embedding %d: %w", i, err)
		}
		embed.Normalize(v)
	}
	return out, nil
}

// errorMessage extracts Voyage's {"detail": "..."}; a gateway in front
// of it may send {"message": "..."} or {"error": "..."} instead.
func errorMessage(body []byte) string {
	var e struct {
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{e.Detail, e.Error} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	if e.Message != "" {
		return e.Message
	}
	// A detail that is not a string (a list of validation errors) is
	// quoted as JSON.
	return string(e.Detail)
}
