// Package api is a [rerank.Reranker] for the hosted rerank APIs that share
// one request shape, POST {URL}/rerank with a model, a query and a list of
// document strings: Cohere (v2), Jina and Voyage. It registers them as
// "cohere", "jina" and "voyage".
//
// The three differ in details, which [Client] follows as each service
// documents them:
//
//	          request                               results   billed
//	cohere    top_n                                 results   meta.billed_units.search_units
//	jina      top_n, "return_documents": false      results   usage.total_tokens
//	voyage    top_k, "return_documents": false,     data      usage.total_tokens
//	          "truncation": true
//
// Every document is asked for (top_n or top_k is the number of
// documents). A service that still leaves some out has them appended
// with [rerank.MissingScore]; an index out of range or given twice, or an
// answer with no results, is an error.
package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/rerank"
)

var _ rerank.Reranker = (*Client)(nil)

// flavor is what sets one service apart.
type flavor struct {
	url, model string // defaults, from the provider's documentation
	topK       bool   // "top_k" (Voyage) rather than "top_n"
	noDocs     bool   // send "return_documents": false (default true at Jina)
	truncation bool   // send "truncation": true (Voyage)
	data       bool   // results are under "data" (Voyage) rather than "results"
}

// flavors are the services by name. Defaults: Cohere's v2 API and its
// current multilingual reranker; Jina's v1 API and multilingual v2
// reranker; Voyage's v1 API and rerank-2.
var flavors = map[string]flavor{
	"cohere": {url: "https://api.cohere.com/v2", model: "rerank-v3.5"},
	"jina":   {url: "https://api.jina.ai/v1", model: "jina-reranker-v2-base-multilingual", noDocs: true},
	"voyage": {url: "https://api.voyageai.com/v1", model: "rerank-2", topK: true, noDocs: true, truncation: true, data: true},
}

func init() {
	for name := range flavors {
		rerank.Register(name, func(o rerank.Options) (rerank.Reranker, error) { return New(name, o) })
	}
}

// Client reranks with one of the hosted services. It is safe for
// concurrent use.
type Client struct {
	fl       flavor
	endpoint string
	model    string
	maxDoc   int
	http     *httpjson.Client
}

// New returns a Client for provider ("cohere", "jina" or "voyage") with
// o's URL and Model, or the provider's defaults when empty. Errors: an
// unknown provider, or a URL that is not an absolute http(s) URL. It does
// not contact the service.
func New(provider string, o rerank.Options) (*Client, error) {
	fl, ok := flavors[provider]
	if !ok {
		return nil, fmt.Errorf("unknown rerank API %q", provider)
	}
	endpoint, err := httpjson.Endpoint(cmp.Or(o.URL, fl.url), "/rerank")
	if err != nil {
		return nil, err
	}
	return &Client{
		fl:       fl,
		endpoint: endpoint,
		model:    cmp.Or(o.Model, fl.model),
		maxDoc:   o.DocBytes(),
		http:     o.JSONClient(errorMessage),
	}, nil
}

// Model returns the model name sent with each request.
func (c *Client) Model() string { return c.model }

// request is the body of POST /rerank for all three services.
type request struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n,omitempty"`
	TopK            int      `json:"top_k,omitempty"`
	ReturnDocuments *bool    `json:"return_documents,omitempty"`
	Truncation      *bool    `json:"truncation,omitempty"`
}

// item is one scored document of an answer.
type item struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
}

// response is the part of an answer ctx reads; the services also send an
// id, the model and (when asked) the documents.
type response struct {
	Results []item `json:"results"` // Cohere, Jina
	Data    []item `json:"data"`    // Voyage
	Usage   struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"` // Jina, Voyage
	Meta struct {
		BilledUnits struct {
			SearchUnits float64 `json:"search_units"`
		} `json:"billed_units"`
	} `json:"meta"` // Cohere
}

// Rerank implements [rerank.Reranker]: one request with every document
// cut to Options.MaxDocBytes. No documents means no request.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]rerank.Result, rerank.Usage, error) {
	if len(docs) == 0 {
		return []rerank.Result{}, rerank.Usage{}, nil
	}
	req := request{Model: c.model, Query: query, Documents: rerank.TruncateAll(docs, c.maxDoc)}
	if c.fl.topK {
		req.TopK = len(docs)
	} else {
		req.TopN = len(docs)
	}
	if c.fl.noDocs {
		req.ReturnDocuments = new(false)
	}
	if c.fl.truncation {
		req.Truncation = new(true)
	}
	var resp response
	if err := c.http.Post(ctx, c.endpoint, req, &resp); err != nil {
		return nil, rerank.Usage{}, fmt.Errorf("reranking %d documents with %s: %w", len(docs), c.model, err)
	}
	usage := rerank.Usage{
		Tokens:      resp.Usage.TotalTokens,
		SearchUnits: int(math.Round(resp.Meta.BilledUnits.SearchUnits)),
		Requests:    1,
	}
	items := resp.Results
	if c.fl.data {
		items = resp.Data
	}
	results, err := collect(len(docs), items)
	if err != nil {
		return nil, usage, fmt.Errorf("reranking %d documents with %s: %v", len(docs), c.model, err)
	}
	return results, usage, nil
}

// collect checks the items of an answer for n documents and completes
// them (see [rerank.Complete]).
func collect(n int, items []item) ([]rerank.Result, error) {
	if len(items) == 0 {
		return nil, errors.New("service returned no results")
	}
	got := make([]rerank.Result, len(items))
	for i, it := range items {
		if it.Index == nil || it.RelevanceScore == nil {
			return nil, fmt.Errorf("result %d has no index or relevance_score", i)
		}
		got[i] = rerank.Result{Index: *it.Index, Score: *it.RelevanceScore}
	}
	return rerank.Complete(n, got, true)
}

// errorMessage extracts the message of an error body: Cohere sends
// {"message": "..."}; Jina and Voyage send {"detail": "..."}, or for a
// malformed request a list of {"loc", "msg", "type"}; gateways in front of
// them may send {"error": "..."} or {"error": {"message": "..."}}.
func errorMessage(body []byte) string {
	var e struct {
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	if e.Message != "" {
		return e.Message
	}
	var s string
	if json.Unmarshal(e.Detail, &s) == nil && s != "" {
		return s
	}
	var list []struct {
		Msg string `json:"msg"`
		Loc []any  `json:"loc"`
	}
	if json.Unmarshal(e.Detail, &list) == nil && len(list) > 0 {
		msgs := make([]string, 0, len(list))
		for _, d := range list {
			loc := make([]string, len(d.Loc))
			for i, l := range d.Loc {
				loc[i] = fmt.Sprint(l)
			}
			msgs = append(msgs, strings.TrimSpace(strings.Join(loc, ".")+" "+d.Msg))
		}
		return strings.Join(msgs, "; ")
	}
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil {
		return obj.Message
	}
	return ""
}
