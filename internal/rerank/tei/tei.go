// Package tei is a [rerank.Reranker] for Hugging Face
// text-embeddings-inference (TEI) serving a cross-encoder, POST
// {URL}/rerank with {"query", "texts", "truncate": true}, answered with
// [{"index", "score"}]. It registers it as "tei".
//
// TEI refuses requests of more texts than its --max-client-batch-size
// (default 32), so documents go in batches of [BatchSize], sent
// concurrently; a cross-encoder scores each (query, document) pair on its
// own, so scores of different batches compare. TEI answers for every
// text: an answer with another count, or an index out of range or given
// twice, is an error. Errors quote TEI's {"error", "error_type"}.
package tei

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/rerank"
)

var _ rerank.Reranker = (*Client)(nil)

const (
	// BatchSize is the most texts per request: TEI's default
	// --max-client-batch-size.
	BatchSize = 32
	// parallel is how many batches are in flight at once; TEI queues and
	// batches them itself, so a few suffice.
	parallel = 4
	// defaultModel names the model when [rerank.Options].Model is empty:
	// a TEI server serves one model, chosen when it starts.
	defaultModel = "tei"
)

func init() {
	rerank.Register("tei", func(o rerank.Options) (rerank.Reranker, error) { return New(o) })
}

// Client reranks with a TEI server. It is safe for concurrent use.
type Client struct {
	endpoint string
	model    string
	maxDoc   int
	http     *httpjson.Client
}

// New returns a Client for the server at o.URL (required: TEI has no
// public default). o.Model only names the model in [Client.Model]; o.APIKey
// is sent as a bearer token for servers started with --api-key. It does
// not contact the server.
func New(o rerank.Options) (*Client, error) {
	if o.URL == "" {
		return nil, errors.New("no server URL (TEI has no default)")
	}
	endpoint, err := httpjson.Endpoint(o.URL, "/rerank")
	if err != nil {
		return nil, err
	}
	return &Client{
		endpoint: endpoint,
		model:    cmp.Or(o.Model, defaultModel),
		maxDoc:   o.DocBytes(),
		http:     o.JSONClient(errorMessage),
	}, nil
}

// Model returns Options.Model, or "tei" when it was empty.
func (c *Client) Model() string { return c.model }

// request is the body of POST /rerank.
type request struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

// rank is one element of TEI's answer; it also sends "text" when asked.
type rank struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// Rerank implements [rerank.Reranker]: the documents, each cut to
// Options.MaxDocBytes, go in batches of [BatchSize]. No documents means no
// request. Usage counts the batches answered (TEI reports no tokens).
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]rerank.Result, rerank.Usage, error) {
	if len(docs) == 0 {
		return []rerank.Result{}, rerank.Usage{}, nil
	}
	texts := rerank.TruncateAll(docs, c.maxDoc)
	nb := (len(texts) + BatchSize - 1) / BatchSize
	scored := make([][]rerank.Result, nb) // by batch; filled by index
	answered := make([]bool, nb)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for b := range nb {
		start := b * BatchSize
		end := min(start+BatchSize, len(texts))
		g.Go(func() error {
			var resp []rank
			err := c.http.Post(gctx, c.endpoint, request{Query: query, Texts: texts[start:end], Truncate: true}, &resp)
			if err != nil {
				return fmt.Errorf("documents %d-%d: %w", start, end-1, err)
			}
			answered[b] = true
			got, err := collect(end-start, resp)
			if err != nil {
				return fmt.Errorf("documents %d-%d: %v", start, end-1, err)
			}
			for i := range got {
				got[i].Index += start
			}
			scored[b] = got
			return nil
		})
	}
	err := g.Wait()
	var usage rerank.Usage
	for _, ok := range answered {
		if ok {
			usage.Requests++
		}
	}
	if err != nil {
		return nil, usage, fmt.Errorf("reranking %d documents with %s: %w", len(docs), c.model, err)
	}
	var all []rerank.Result
	for _, s := range scored {
		all = append(all, s...)
	}
	out, err := rerank.Complete(len(docs), all, false)
	if err != nil {
		return nil, usage, fmt.Errorf("reranking %d documents with %s: %v", len(docs), c.model, err)
	}
	return out, usage, nil
}

// collect checks TEI's answer for n texts: exactly n ranks, each with an
// index and a score (indices are checked by [rerank.Complete]).
func collect(n int, ranks []rank) ([]rerank.Result, error) {
	if len(ranks) != n {
		return nil, fmt.Errorf("server returned %d scores for %d texts", len(ranks), n)
	}
	got := make([]rerank.Result, n)
	for i, r := range ranks {
		if r.Index == nil || r.Score == nil {
			return nil, fmt.Errorf("score %d has no index or score", i)
		}
		got[i] = rerank.Result{Index: *r.Index, Score: *r.Score}
	}
	// Check indices now, within the batch, before they are shifted.
	if _, err := rerank.Complete(n, got, false); err != nil {
		return nil, err
	}
	return got, nil
}

// errorMessage extracts TEI's {"error": "...", "error_type": "..."} as
// "message (error_type)".
func errorMessage(body []byte) string {
	var e struct {
		Error     string `json:"error"`
		ErrorType string `json:"error_type"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	if e.ErrorType != "" {
		return fmt.Sprintf("%s (%s)", e.Error, e.ErrorType)
	}
	return e.Error
}
