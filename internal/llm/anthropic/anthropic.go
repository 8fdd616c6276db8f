// Package anthropic is an [llm.Client] for Anthropic's Messages API, POST
// {URL}/messages. Its init registers the "anthropic" provider
// ([DefaultURL], [DefaultModel]) with [llm.Register]; build clients with
// [llm.New] or [llm.FromConfig].
//
// Requests send the key as x-api-key and pin anthropic-version to
// [APIVersion]. The system prompt is the top-level "system" field;
// [llm.Request].JSON has no counterpart in this API and is ignored (the
// prompt asks for JSON). An answer's text is its "text" content blocks
// joined. A streaming request sets "stream": true and reads the
// server-sent events message_start (input tokens), content_block_delta
// (text_delta), message_delta (stop reason, output tokens), message_stop
// and error; ping and unknown events are skipped. 529 "overloaded"
// answers are retried like other 5xx.
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/llm/internal/sse"
)

var _ llm.Client = (*Client)(nil)

const (
	// DefaultURL is Anthropic's API root.
	DefaultURL = "https://api.anthropic.com/v1"
	// DefaultModel is the model used when [llm.Options].Model is empty.
	DefaultModel = "claude-3-5-haiku-latest"
	// APIVersion is the anthropic-version header every request carries:
	// the Messages API's wire format as this package reads it.
	APIVersion = "2023-06-01"
)

func init() {
	llm.Register("anthropic", func(o llm.Options) (llm.Client, error) { return newClient(o) })
}

// Client sends requests to the Messages API. It is safe for concurrent
// use.
type Client struct {
	endpoint string
	model    string
	opts     llm.Options
	http     *httpjson.Client
}

func newClient(o llm.Options) (*Client, error) {
	endpoint, err := httpjson.Endpoint(cmp.Or(o.URL, DefaultURL), "/messages")
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	header.Set("anthropic-version", APIVersion)
	if o.APIKey != "" {
		header.Set("x-api-key", o.APIKey)
	}
	return &Client{
		endpoint: endpoint,
		model:    cmp.Or(o.Model, DefaultModel),
		opts:     o,
		http:     o.HTTPJSON(header, errorMessage),
	}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.model }

// Chat sends req and returns the answer, streaming it through req.Stream
// when that is set. Errors (prefixed "anthropic: ") wrap
// [llm.ErrRateLimited] for a 429 that outlasted the retries or a
// rate_limit_error event in a stream, and ctx.Err() when ctx ends; others
// quote the HTTP status and the API's error type and message, or say that
// the answer was malformed, cut short or had no text.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := req.Validate(); err != nil {
		return llm.Response{}, fmt.Errorf("anthropic: %v", err)
	}
	body := c.request(req)
	var (
		resp llm.Response
		err  error
	)
	if req.Stream != nil {
		resp, err = c.stream(ctx, body, req.Stream)
	} else {
		resp, err = c.complete(ctx, body)
	}
	if err != nil {
		return resp, fmt.Errorf("anthropic: %w", err)
	}
	return resp, nil
}

// messagesRequest is the body of POST /messages.
type messagesRequest struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    string    `json:"system,omitempty"`
	Messages  []message `json:"messages"`
	Stream    bool      `json:"stream,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (c *Client) request(req llm.Request) messagesRequest {
	out := messagesRequest{
		Model:     c.model,
		MaxTokens: c.opts.OutputCap(req),
		System:    req.System,
		Messages:  make([]message, len(req.Messages)),
		Stream:    req.Stream != nil,
	}
	for i, m := range req.Messages {
		out.Messages[i] = message{Role: m.Role, Content: m.Content}
	}
	return out
}

// usage is the token count of an answer, or the part of it an event
// carries (message_delta reports cumulative output tokens).
type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// apiError is the "error" object of an error body or an error event.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e apiError) String() string {
	msg := cmp.Or(e.Message, "no message")
	if e.Type == "" {
		return msg
	}
	return fmt.Sprintf("%s (%s)", msg, e.Type)
}

// err describes e, wrapping [llm.ErrRateLimited] for rate_limit_error.
func (e apiError) err() error {
	if e.Type == "rate_limit_error" {
		return fmt.Errorf("%w: %s", llm.ErrRateLimited, e)
	}
	return errors.New(e.String())
}

// messagesResponse is the part of a non-streaming answer ctx reads.
type messagesResponse struct {
	Type    string `json:"type"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string    `json:"stop_reason"`
	Usage      usage     `json:"usage"`
	Error      *apiError `json:"error"`
}

func (c *Client) complete(ctx context.Context, body messagesRequest) (llm.Response, error) {
	var r messagesResponse
	if err := c.http.Post(ctx, c.endpoint, body, &r); err != nil {
		return llm.Response{}, err
	}
	if r.Type == "error" && r.Error != nil {
		return llm.Response{}, r.Error.err()
	}
	resp := llm.Response{
		Model:      cmp.Or(r.Model, c.model),
		StopReason: r.StopReason,
		Usage:      llm.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens},
	}
	var text strings.Builder
	blocks := 0
	for _, b := range r.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
			blocks++
		}
	}
	resp.Text = text.String()
	if blocks == 0 {
		return resp, fmt.Errorf("empty completion: no text blocks in the answer (stop reason %q)", resp.StopReason)
	}
	if resp.Text == "" {
		return resp, fmt.Errorf("empty completion (stop reason %q)", resp.StopReason)
	}
	return resp, nil
}

// event is one server-sent event of a streaming answer; which fields are
// set depends on Type.
type event struct {
	Type    string `json:"type"`
	Message *struct {
		Model string `json:"model"`
		Usage usage  `json:"usage"`
	} `json:"message"` // message_start
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content_block"` // content_block_start
	Delta *struct {
		Type       string `json:"type"`        // content_block_delta: text_delta, input_json_delta, …
		Text       string `json:"text"`        // text_delta
		StopReason string `json:"stop_reason"` // message_delta
	} `json:"delta"`
	Usage *usage    `json:"usage"` // message_delta
	Error *apiError `json:"error"` // error
}

func (c *Client) stream(ctx context.Context, body messagesRequest, emit func(string)) (llm.Response, error) {
	rc, err := c.http.PostStream(ctx, c.endpoint, body)
	if err != nil {
		return llm.Response{}, err
	}
	defer rc.Close()
	resp := llm.Response{Model: c.model}
	var text strings.Builder
	add := func(s string) {
		if s != "" {
			text.WriteString(s)
			emit(s)
		}
	}
	stopped, blocks := false, 0
	events := sse.NewReader(rc, 0)
	for !stopped {
		ev, err := events.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			resp.Text = text.String()
			if ctxErr := ctx.Err(); ctxErr != nil {
				return resp, fmt.Errorf("reading stream: %w", ctxErr)
			}
			return resp, fmt.Errorf("reading stream: %v", err)
		}
		var e event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			resp.Text = text.String()
			return resp, fmt.Errorf("decoding %s event: %v", cmp.Or(ev.Type, "stream"), err)
		}
		switch cmp.Or(e.Type, ev.Type) {
		case "message_start":
			if e.Message != nil {
				resp.Model = cmp.Or(e.Message.Model, resp.Model)
				resp.Usage.InputTokens = e.Message.Usage.InputTokens
				resp.Usage.OutputTokens = e.Message.Usage.OutputTokens
			}
		case "content_block_start":
			if e.ContentBlock != nil && e.ContentBlock.Type == "text" {
				blocks++
				add(e.ContentBlock.Text)
			}
		case "content_block_delta":
			if e.Delta != nil && e.Delta.Type == "text_delta" {
				add(e.Delta.Text)
			}
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != "" {
				resp.StopReason = e.Delta.StopReason
			}
			if e.Usage != nil {
				// Counts here are cumulative; input tokens only appear in
				// newer API versions.
				resp.Usage.OutputTokens = e.Usage.OutputTokens
				if e.Usage.InputTokens > 0 {
					resp.Usage.InputTokens = e.Usage.InputTokens
				}
			}
		case "message_stop":
			stopped = true
		case "error":
			resp.Text = text.String()
			if e.Error == nil {
				return resp, errors.New("error event in stream without details")
			}
			return resp, fmt.Errorf("error in stream: %w", e.Error.err())
		}
	}
	resp.Text = text.String()
	if !stopped {
		return resp, errors.New("stream ended before message_stop")
	}
	if blocks == 0 {
		return resp, fmt.Errorf("empty completion: no text blocks in the answer (stop reason %q)", resp.StopReason)
	}
	if resp.Text == "" {
		return resp, fmt.Errorf("empty completion (stop reason %q)", resp.StopReason)
	}
	return resp, nil
}

// errorMessage extracts "message (type)" from an error body
// {"type": "error", "error": {"type", "message"}}.
func errorMessage(body []byte) string {
	var e struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil || e.Error.Message == "" {
		return ""
	}
	return e.Error.String()
}
