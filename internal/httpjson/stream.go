package httpjson

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// errStalled is the cancellation cause of an attempt whose server went
// quiet for longer than [Client.Timeout].
var errStalled = errors.New("stream stalled")

// PostStream marshals in as JSON, posts it to url with "Accept:
// text/event-stream", and returns the body of the 2xx answer unread, for
// the caller to read (as server-sent events, say) and close. Non-2xx
// answers are retried exactly as [Client.Post] retries them, before any
// of a body is handed over; their bodies are read only up to a bound, to
// quote in the error.
//
// [Client.Timeout] does not bound the whole stream, which may
// legitimately run for minutes: it bounds the wait for the response
// headers and then each wait for more of the body. A server that sends
// nothing for that long fails the pending Read with an error saying so
// ("no data for 1m0s"); a slow consumer between reads is not counted.
// Once ctx ends, Read returns ctx.Err() (matchable with errors.Is).
// Closing the body releases the connection and the timer.
func (c *Client) PostStream(ctx context.Context, url string, in any) (io.ReadCloser, error) {
	payload, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %v", err)
	}
	var stream io.ReadCloser
	err = c.retry(ctx, func() (attemptResult, error) {
		res, body, err := c.open(ctx, url, payload)
		stream = body
		return res, err
	})
	if err != nil {
		return nil, err
	}
	return stream, nil
}

// open makes one streaming attempt. On a 2xx answer it returns the body,
// wrapped to enforce the idle timeout; otherwise it reads the start of
// the error body, closes the response and returns a nil body.
func (c *Client) open(ctx context.Context, url string, payload []byte) (attemptResult, io.ReadCloser, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	actx, cancel := context.WithCancelCause(ctx)
	s := &streamBody{parent: ctx, attempt: actx, cancel: cancel, timeout: timeout}
	if timeout > 0 {
		s.timer = time.AfterFunc(timeout, func() { cancel(errStalled) })
	}
	req, err := c.newRequest(actx, http.MethodPost, url, payload, "text/event-stream")
	if err != nil {
		s.release()
		return attemptResult{}, nil, err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		err = s.explain(err, "no response within")
		s.release()
		return attemptResult{}, nil, err
	}
	res := attemptResult{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		s.release()
		if err != nil {
			return attemptResult{}, nil, fmt.Errorf("reading response: %v", s.explain(err, "no data for"))
		}
		res.errBody = body
		return res, nil, nil
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.body = resp.Body
	return res, s, nil
}

// streamBody is a 2xx stream whose every Read must make progress within
// timeout.
type streamBody struct {
	body    io.ReadCloser
	parent  context.Context // the caller's
	attempt context.Context // parent, also cancelled with errStalled by timer
	cancel  context.CancelCauseFunc
	timer   *time.Timer // nil when there is no timeout
	timeout time.Duration
	once    sync.Once // guards release
}

// Read reads from the body with the idle timer running.
func (s *streamBody) Read(p []byte) (int, error) {
	if s.timer != nil {
		s.timer.Reset(s.timeout)
	}
	n, err := s.body.Read(p)
	if s.timer != nil {
		s.timer.Stop()
	}
	if err != nil && err != io.EOF {
		err = s.explain(err, "no data for")
	}
	return n, err
}

// Close closes the body and releases the timer and the attempt's context.
func (s *streamBody) Close() error {
	err := s.body.Close()
	s.release()
	return err
}

func (s *streamBody) release() {
	s.once.Do(func() {
		if s.timer != nil {
			s.timer.Stop()
		}
		s.cancel(nil)
	})
}

// explain turns an error caused by cancellation into the reason for it:
// the caller's context error as is, or a stall of the timeout's length.
func (s *streamBody) explain(err error, stalled string) error {
	if perr := s.parent.Err(); perr != nil {
		return perr
	}
	if context.Cause(s.attempt) == errStalled {
		return fmt.Errorf("%s %s", stalled, s.timeout)
	}
	return err
}
