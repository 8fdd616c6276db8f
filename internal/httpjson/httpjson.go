// Package httpjson sends JSON requests to remote services (embedding
// providers, rerankers, LLMs) with the retry policy they all share:
//
//   - 429 Too Many Requests and 5xx answers are retried with exponential
//     backoff (with jitter), or after the server's Retry-After when it gives
//     one, every wait capped at [Client.MaxBackoff];
//   - a 429 that outlasts the retries wraps [Client.RateLimited] (default
//     [ErrRateLimited]);
//   - other 4xx answers are not retried, and their message is put in the
//     error text;
//   - transport errors (connection refused, per-attempt timeout) are not
//     retried: a local server that is not running will not start while we
//     wait, and a remote one that drops connections is better reported
//     than hammered;
//   - cancellation of the caller's context ends a wait at once, and the
//     returned error then matches ctx.Err() with errors.Is;
//   - a wait that would pass the caller's context deadline is not
//     started: the last answer is reported at once (a query with a short
//     deadline learns "HTTP 429" rather than "deadline exceeded").
//
// [Client.Post] decodes a whole JSON answer; [Client.PostStream] hands a
// streaming answer (server-sent events) to the caller once its status is
// 2xx, with the same retries before that point.
//
// Errors hide HTTP internals (%v) and wrap only causes callers may branch
// on: the rate-limit sentinel, [ErrUnavailable] and context errors.
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrRateLimited is the default sentinel a 429 that outlasts the retries
// wraps; providers set [Client.RateLimited] to their own (embedding
// providers use embed.ErrRateLimited).
var ErrRateLimited = errors.New("rate limited")

// ErrUnavailable is matched by the errors that say the service could not
// answer: a transport error (connection refused, a per-attempt timeout)
// and a 5xx or 429 answer after the retries. Other 4xx answers (a request
// the service refused) do not match it.
var ErrUnavailable = errors.New("service unavailable")

// unavailable is a transport error's text that matches [ErrUnavailable].
type unavailable struct{ text string }

func (e *unavailable) Error() string { return e.text }
func (e *unavailable) Unwrap() error { return ErrUnavailable }

// Defaults applied by [Client] to zero fields.
const (
	DefaultMaxRetries = 4
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	DefaultTimeout    = 2 * time.Minute
)

const (
	// maxResponseBytes bounds a successful response: 256 inputs of 4096
	// dims at about 20 bytes a number is 21 MB, so this leaves ample room
	// while keeping a broken server from exhausting memory.
	maxResponseBytes = 256 << 20
	// maxErrorBytes bounds how much of an error response is read.
	maxErrorBytes = 64 << 10
	// maxMessageBytes bounds the service message quoted in an error.
	maxMessageBytes = 512
)

// Client posts JSON with retries. Zero fields take the defaults above; a
// Client is safe for concurrent use once its fields are set.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient. Its own
	// Timeout, if any, applies on top of [Client.Timeout].
	HTTP *http.Client
	// Header holds headers added to every request, such as Authorization.
	Header http.Header
	// MaxRetries is how many times a 429 or 5xx answer is retried after the
	// first attempt: 0 means [DefaultMaxRetries], negative means none.
	MaxRetries int
	// Backoff is the wait before the first retry when the server sends no
	// Retry-After; it doubles with each retry, and each wait is drawn
	// between half and all of it. 0 means [DefaultBackoff].
	Backoff time.Duration
	// MaxBackoff caps every wait, including one asked for by Retry-After.
	// 0 means [DefaultMaxBackoff].
	MaxBackoff time.Duration
	// Timeout bounds each attempt, from sending the request to reading the
	// whole response (for [Client.PostStream]: to the response headers,
	// then each wait for more of the stream). 0 means [DefaultTimeout];
	// negative means none.
	Timeout time.Duration
	// Logger receives a record for each retry; nil discards them.
	Logger *slog.Logger
	// ErrorMessage extracts the service's message from the body of an
	// error response. When it is nil or returns "", the body itself (with
	// space collapsed) is quoted.
	ErrorMessage func(body []byte) string
	// RateLimited is the sentinel wrapped by the error of a 429 that
	// outlasts the retries; nil means [ErrRateLimited].
	RateLimited error
}

// Endpoint returns the URL of path under the API root base, with base's
// trailing slashes dropped: Endpoint("http://host:11434/", "/api/embed")
// is "http://host:11434/api/embed". It returns an error when base is not
// an absolute http or https URL with a host, so that a typo in the
// configuration is reported when a provider is built rather than on its
// first request.
func Endpoint(base, path string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q is not an http(s) URL", base)
	}
	return strings.TrimRight(base, "/") + path, nil
}

// Post marshals in as JSON, posts it to url, and unmarshals a 2xx response
// body into out, retrying as the package comment describes.
func (c *Client) Post(ctx context.Context, url string, in, out any) error {
	payload, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encoding request: %v", err)
	}
	var body []byte
	err = c.retry(ctx, func() (attemptResult, error) {
		b, status, header, err := c.do(ctx, http.MethodPost, url, payload)
		body = b
		return attemptResult{status: status, header: header, errBody: b}, err
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decoding response: %v", err)
	}
	return nil
}

// Do is [Client.Post] for any method: it sends in as a JSON body (none
// when in is nil), retries as the package comment describes, and
// unmarshals a 2xx body into out unless out is nil or the body is empty
// (204 No Content). A final non-2xx answer comes back as a *[StatusError]
// (matched with errors.As), so callers can tell 404 from other failures.
func (c *Client) Do(ctx context.Context, method, url string, in, out any) error {
	var payload []byte
	if in != nil {
		var err error
		if payload, err = json.Marshal(in); err != nil {
			return fmt.Errorf("encoding request: %v", err)
		}
	}
	var body []byte
	err := c.retry(ctx, func() (attemptResult, error) {
		b, status, header, err := c.do(ctx, method, url, payload)
		body = b
		return attemptResult{status: status, header: header, errBody: b}, err
	})
	if err != nil {
		return err
	}
	if out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decoding response: %v", err)
	}
	return nil
}

// StatusError is a final non-2xx answer: its status code and the
// service's message (as [Client.ErrorMessage] extracts it, or the body).
// Its text is "HTTP 404 Not Found: message". For 429 it unwraps to the
// rate-limit sentinel; for 429 and 5xx it matches [ErrUnavailable].
type StatusError struct {
	Status  int
	Message string
	text    string
	limited error
}

func (e *StatusError) Error() string {
	if e.limited != nil {
		return e.limited.Error() + ": " + e.text
	}
	return e.text
}

func (e *StatusError) Unwrap() []error {
	var out []error
	if e.limited != nil {
		out = append(out, e.limited)
	}
	if e.Status == http.StatusTooManyRequests || e.Status >= 500 {
		out = append(out, ErrUnavailable)
	}
	return out
}

// attemptResult is what one attempt tells the retry loop: the status, the
// headers (for Retry-After) and, for a non-2xx answer, the start of the
// body to quote.
type attemptResult struct {
	status  int
	header  http.Header
	errBody []byte
}

// retry calls attempt until it reports a 2xx status (retry returns nil),
// a transport error, a status that is not retried, or the retries run
// out, waiting between attempts as the package comment describes.
func (c *Client) retry(ctx context.Context, attempt func() (attemptResult, error)) error {
	retries := c.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	retries = max(retries, 0)
	for n := 0; ; n++ {
		res, err := attempt()
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return fmt.Errorf("sending request: %w", ctxErr)
			}
			return fmt.Errorf("sending request: %w", &unavailable{err.Error()})
		}
		status, body := res.status, res.errBody
		if status >= 200 && status < 300 {
			return nil
		}
		retryable := status == http.StatusTooManyRequests || status >= 500
		if !retryable || n >= retries {
			return c.statusError(status, body, n+1, retryable)
		}
		wait := c.wait(n, res.header, time.Now())
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// The wait would outlast the caller's deadline: report the
			// service's answer now instead of sleeping into a timeout
			// that would hide it.
			return fmt.Errorf("%w; not retried: the next attempt (in %s) would pass the deadline", c.statusError(status, body, n+1, true), wait.Round(time.Millisecond))
		}
		if c.Logger != nil {
			c.Logger.LogAttrs(ctx, slog.LevelInfo, "request will be retried",
				slog.Int("status", status), slog.Int("attempt", n+1), slog.Duration("wait", wait))
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("waiting to retry after HTTP %d: %w", status, err)
		}
	}
}

// newRequest builds one attempt's POST with the client's headers.
func (c *Client) newRequest(ctx context.Context, method, url string, payload []byte, accept string) (*http.Request, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	return req, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// do makes one attempt and returns the response body, which it has read
// whole (up to a bound) so the per-attempt timeout covers the transfer.
func (c *Client) do(ctx context.Context, method, url string, payload []byte) ([]byte, int, http.Header, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := c.newRequest(ctx, method, url, payload, "application/json")
	if err != nil {
		return nil, 0, nil, err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, 0, nil, err
	}
	defer resp.Body.Close()
	limit := int64(maxErrorBytes)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		limit = maxResponseBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, 0, nil, fmt.Errorf("reading response: %w", err)
	}
	if int64(len(body)) > limit {
		if limit == maxResponseBytes {
			return nil, 0, nil, fmt.Errorf("response larger than %d bytes", limit)
		}
		body = body[:limit] // an error body: its start is enough to quote
	}
	return body, resp.StatusCode, resp.Header, nil
}

// statusError describes a final non-2xx answer as a *[StatusError].
func (c *Client) statusError(status int, body []byte, attempts int, retried bool) error {
	msg := ""
	if c.ErrorMessage != nil {
		msg = c.ErrorMessage(body)
	}
	if msg == "" {
		msg = strings.Join(strings.Fields(string(body)), " ")
	}
	if len(msg) > maxMessageBytes {
		msg = strings.ToValidUTF8(msg[:maxMessageBytes], "") + "…"
	}
	text := strings.TrimSpace(fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))) // 529 has no standard text
	if retried && attempts > 1 {
		text += fmt.Sprintf(" after %d attempts", attempts)
	}
	if msg != "" {
		text += ": " + msg
	}
	e := &StatusError{Status: status, Message: msg, text: text}
	if status == http.StatusTooManyRequests {
		e.limited = c.RateLimited
		if e.limited == nil {
			e.limited = ErrRateLimited
		}
	}
	return e
}

// wait returns how long to wait before retry number attempt+1: the
// server's Retry-After if it sent one, else exponential backoff with
// jitter; capped at MaxBackoff either way.
func (c *Client) wait(attempt int, h http.Header, now time.Time) time.Duration {
	ceiling := c.MaxBackoff
	if ceiling <= 0 {
		ceiling = DefaultMaxBackoff
	}
	if d, ok := RetryAfter(h, now); ok {
		return min(d, ceiling)
	}
	d := c.Backoff
	if d <= 0 {
		d = DefaultBackoff
	}
	for range attempt {
		if d >= ceiling/2 {
			d = ceiling
			break
		}
		d *= 2
	}
	d = min(d, ceiling)
	// Equal jitter: clients that were throttled together spread out.
	half := d / 2
	return half + rand.N(d-half+1)
}

// RetryAfter reads how long the server asked the client to wait: the
// Retry-After header as delay-seconds or an HTTP date (RFC 9110 section
// 10.2.3), or the millisecond Retry-After-Ms header that OpenAI-style
// services send, which takes precedence. A date in the past means no wait.
// ok is false when neither header is present and valid.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second) // avoid overflow; the caller caps anyway
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx is done, whichever is first, and returns
// ctx.Err() in the second case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
