// Package rerank is the optional reranking stage of a query: after
// fusion and ranking, a cross-encoder served by a remote or local service
// scores the top results against the query, and the search reorders them
// by that score.
//
// Input: a query and the texts of the candidate results. Output: one
// [Result] per text, sorted by the model's score, and the [Usage] the
// service billed. Providers register a [Factory] under a name (package
// rerank/api: "cohere", "jina", "voyage"; package rerank/tei: "tei"), and
// [New] or [FromConfig] builds one; importing rerank/providers links them
// all.
//
// Invariants: a Reranker returns exactly one Result per document, each
// index once; documents longer than [Options].MaxDocBytes are cut at a
// UTF-8 boundary before they leave the machine; no documents means no
// request. Settings come from internal/config; this package never reads
// the environment.
package rerank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/registry"
)

// Result is one reranked document: Index into the docs given, Score from
// the model (higher is more relevant; scale is the provider's).
type Result struct {
	Index int
	Score float64
}

// Usage is what the provider billed, as reported: Tokens (Jina, Voyage
// usage.total_tokens; TEI none) and SearchUnits (Cohere
// meta.billed_units.search_units). Requests counts HTTP requests made
// (≥1) that the service answered with results; retried attempts that got
// a 429 or 5xx are not counted, as they are not billed.
type Usage struct {
	Tokens, SearchUnits, Requests int
}

// Add returns the sum of u and v, field by field.
func (u Usage) Add(v Usage) Usage {
	return Usage{Tokens: u.Tokens + v.Tokens, SearchUnits: u.SearchUnits + v.SearchUnits, Requests: u.Requests + v.Requests}
}

// Reranker scores documents against a query.
type Reranker interface {
	// Rerank returns one Result per doc, sorted by Score descending (ties:
	// lower Index first). docs may be long; the client truncates each doc
	// to MaxDocBytes (Options) at a UTF-8 boundary before sending.
	// Errors: [ErrRateLimited] (wrapped) when the service still answers
	// 429 after the retries; the context's error (wrapped) when ctx ends;
	// otherwise an error quoting the HTTP status and the service's
	// message, or describing a malformed answer. Usage holds what was
	// billed, also alongside an error.
	Rerank(ctx context.Context, query string, docs []string) ([]Result, Usage, error)
	// Model returns the name of the model that scores, e.g. "rerank-v3.5".
	Model() string
}

// ErrRateLimited is wrapped by the error of a request the service still
// refused with 429 Too Many Requests after the retries.
var ErrRateLimited = errors.New("reranker rate limit")

// MissingScore is the Score of a document the service left out of its
// answer (API providers may return fewer results than documents): lower
// than any real score, so such documents come last in their original
// order, yet finite, so it survives JSON encoding.
const MissingScore = -math.MaxFloat64

// Defaults applied to zero [Options] fields.
const (
	// DefaultTimeout bounds one attempt when [Options].Timeout is 0.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxDocBytes is [Options].MaxDocBytes when 0: 8 KiB is about
	// 2,000 tokens of code, past the 512-token window many cross-encoders
	// read and within the documented per-document limits of the hosted
	// services, while keeping a 50-document request under half a MB.
	DefaultMaxDocBytes = 8 << 10
)

// Options configures a Reranker. Zero fields take the provider's or the
// package's defaults.
type Options struct {
	// URL is the API root that /rerank is appended to; Model the model
	// name; APIKey is sent as "Authorization: Bearer <APIKey>" when set.
	// Empty URL or Model means the provider's default.
	URL, Model, APIKey string
	// Timeout bounds each attempt; 0 means [DefaultTimeout] (30s). The
	// caller bounds the whole call (retries included) with ctx's deadline.
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried: 0
	// means [httpjson.DefaultMaxRetries], negative means none. Backoff is
	// the first wait when the service sends no Retry-After (0: 500ms);
	// MaxBackoff caps every wait (0: 30s).
	MaxRetries          int
	Backoff, MaxBackoff time.Duration
	// MaxDocBytes is the most bytes of a document sent; longer ones are
	// cut at a UTF-8 boundary. 0 means [DefaultMaxDocBytes] (8 KiB).
	MaxDocBytes int
	// HTTPClient sends the requests (nil: http.DefaultClient); Logger gets
	// a record per retry (nil: discarded).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// check reports negative limits, which are programmer or configuration
// errors.
func (o Options) check() error {
	if o.Timeout < 0 || o.MaxDocBytes < 0 || o.Backoff < 0 || o.MaxBackoff < 0 {
		return errors.New("negative timeout, backoff or document size")
	}
	return nil
}

// DocBytes returns the document size limit in bytes: MaxDocBytes, or
// [DefaultMaxDocBytes] when it is 0.
func (o Options) DocBytes() int { return cmp.Or(o.MaxDocBytes, DefaultMaxDocBytes) }

// JSONClient returns the HTTP client a provider posts with: o's retry
// policy and timeout (0: [DefaultTimeout]), o.APIKey as a bearer token,
// [ErrRateLimited] for a 429 that outlasts the retries, and message to
// extract the service's text from an error body (nil: the body is quoted).
func (o Options) JSONClient(message func(body []byte) string) *httpjson.Client {
	header := http.Header{}
	if o.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.APIKey)
	}
	return &httpjson.Client{
		HTTP:         o.HTTPClient,
		Header:       header,
		MaxRetries:   o.MaxRetries,
		Backoff:      o.Backoff,
		MaxBackoff:   o.MaxBackoff,
		Timeout:      cmp.Or(o.Timeout, DefaultTimeout),
		Logger:       o.Logger,
		ErrorMessage: message,
		RateLimited:  ErrRateLimited,
	}
}

// Truncate returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence; s itself when it fits or n <= 0.
func Truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	cut := n
	// A continuation byte at the cut means the cut splits a sequence; back
	// up to its start (at most 3 bytes for valid UTF-8).
	for cut > 0 && cut > n-utf8.UTFMax+1 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// TruncateAll returns docs with each cut to n bytes by [Truncate], in a new
// slice when any is cut and docs itself otherwise.
func TruncateAll(docs []string, n int) []string {
	var out []string
	for i, d := range docs {
		t := Truncate(d, n)
		if len(t) == len(d) {
			if out != nil {
				out[i] = d
			}
			continue
		}
		if out == nil {
			out = slices.Clone(docs)
		}
		out[i] = t
	}
	if out == nil {
		return docs
	}
	return out
}

// Complete checks a service's results for n documents and returns them
// sorted (Score descending, then Index ascending). Errors: an index out
// of [0, n) or given twice; with fill false, fewer results than
// documents. With fill true, documents without a result are added with
// [MissingScore], so they come last in their original order.
func Complete(n int, got []Result, fill bool) ([]Result, error) {
	seen := make([]bool, n)
	out := make([]Result, 0, n)
	for _, r := range got {
		if r.Index < 0 || r.Index >= n {
			return nil, fmt.Errorf("result index %d out of range for %d documents", r.Index, n)
		}
		if seen[r.Index] {
			return nil, fmt.Errorf("result index %d repeated", r.Index)
		}
		seen[r.Index] = true
		out = append(out, r)
	}
	if len(out) < n {
		if !fill {
			return nil, fmt.Errorf("service returned %d results for %d documents", len(out), n)
		}
		for i, ok := range seen {
			if !ok {
				out = append(out, Result{Index: i, Score: MissingScore})
			}
		}
	}
	slices.SortFunc(out, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return out, nil
}

// Factory builds a Reranker from options whose empty URL and Model mean
// the provider's defaults.
type Factory func(Options) (Reranker, error)

// providers holds the registered factories.
var providers = registry.New[Factory]("reranker", "internal/rerank/providers")

// Register makes a provider available to [New] under name. It is meant
// for init functions and panics when name is empty, f is nil or name is
// already registered: those are programmer errors.
func Register(name string, f Factory) { providers.Register(name, f) }

// New builds the reranker registered as name. Errors: name is not
// registered (the providers package is not linked, or a typo); o has a
// negative limit; or the provider's own (such as a URL that is not http
// or https).
func New(name string, o Options) (Reranker, error) {
	f, err := providers.Get(name)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("reranker %s: %v", name, err)
	}
	r, err := f(o)
	if err != nil {
		return nil, fmt.Errorf("reranker %s: %w", name, err)
	}
	return r, nil
}

// Names returns the registered provider names, sorted.
func Names() []string { return providers.Names() }

// FromConfig builds the configured reranker; (nil, nil) when c.Provider is
// "" (off). c.Timeout bounds each attempt; callers also bound the whole
// call with a context deadline of c.Timeout so that a search never waits
// on retries past it.
func FromConfig(c config.Rerank) (Reranker, error) {
	if c.Provider == "" {
		return nil, nil
	}
	return New(c.Provider, Options{URL: c.URL, Model: c.Model, APIKey: c.APIKey, Timeout: c.Timeout})
}
