// Package llm is the optional language-model layer: one [Client] contract
// for chat requests (query decomposition, result summaries, ctx answer)
// and a registry of providers built from [config.LLM].
//
// The layer is off unless the configuration names a provider:
// [FromConfig] then returns (nil, nil) and nothing is ever sent. Providers
// register themselves in their package's init (internal/llm/openai
// registers "openai" and "ollama", internal/llm/anthropic registers
// "anthropic"); a program that wants them all imports
// internal/llm/providers for its side effect.
//
// # What leaves the machine
//
// A [Client] sends exactly what its caller puts in a [Request] (the
// system prompt and the messages, with the output cap and, for JSON mode,
// the response format) to the configured URL, plus the model name and the
// API key in a header. It reads no files and adds no code, paths or
// environment of its own: whatever context a prompt should carry, the
// caller has chosen and written into it. Nothing is logged but retry
// notices (status, attempt, wait), and the API key never appears in an
// error or a log record.
//
// # Errors
//
// Providers retry 429 and 5xx answers (Anthropic's 529 "overloaded"
// included) with the policy of internal/httpjson; a 429 that outlasts the
// retries wraps [ErrRateLimited]. Other answers fail at once with the
// status and the service's message. A malformed body or stream, an error
// event in a stream and an empty completion are errors too.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/httpjson"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string // "user" or "assistant"
	Content string
}

// Request is one chat request.
type Request struct {
	// System is the system prompt; "" for none.
	System string
	// Messages is the conversation, at least one message, usually ending
	// with a "user" one.
	Messages []Message
	// MaxTokens caps the output tokens; 0 means the client's default
	// ([Options].MaxTokens, else [DefaultMaxTokens]).
	MaxTokens int
	// JSON asks for a JSON object answer where the API supports it
	// (OpenAI's response_format {"type":"json_object"}; Anthropic has no
	// such switch and ignores it). The prompt must still ask for JSON:
	// OpenAI rejects JSON mode when the messages do not mention it.
	JSON bool
	// Stream, when non-nil, makes the request streaming (server-sent
	// events) and is called with each text delta in order, on the
	// goroutine that called Chat, before Chat returns; [Response].Text
	// still holds the whole text.
	Stream func(delta string)
}

// Validate reports whether r can be sent: it has at least one message,
// every role is "user" or "assistant", and MaxTokens is not negative.
func (r Request) Validate() error {
	if len(r.Messages) == 0 {
		return errors.New("request has no messages")
	}
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("message %d: role %q, want user or assistant", i, m.Role)
		}
	}
	if r.MaxTokens < 0 {
		return fmt.Errorf("negative MaxTokens %d", r.MaxTokens)
	}
	return nil
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Response is a finished answer.
type Response struct {
	// Text is the whole answer.
	Text string
	// Usage is the token count the provider reported; zero when it
	// reported none (some OpenAI-compatible servers do not stream usage).
	Usage Usage
	// Model is the model name the server reports, or the requested one
	// when it reports none.
	Model string
	// StopReason is the provider's finish or stop reason as it sent it,
	// e.g. "stop" or "length" (OpenAI), "end_turn" or "max_tokens"
	// (Anthropic).
	StopReason string
}

// Client is an LLM provider.
type Client interface {
	// Chat sends req and returns the answer. When the server answered but
	// the answer is unusable (empty, or a stream that failed part way),
	// the error comes with a Response whose Usage is what the server
	// reported so far, so that spend can still be recorded.
	Chat(ctx context.Context, req Request) (Response, error)
	// Model returns the configured model name (for price lookup and cache
	// keys).
	Model() string
}

// ErrRateLimited is wrapped (%w) by the error of a request the provider
// still answered with 429 after the retries, or whose stream ended with a
// rate-limit error.
var ErrRateLimited = errors.New("LLM provider rate limit")

// Defaults of [Options], shared with internal/config.
const (
	// DefaultTimeout is [Options].Timeout when 0.
	DefaultTimeout = config.DefaultLLMTimeout
	// DefaultMaxTokens is [Options].MaxTokens when 0.
	DefaultMaxTokens = config.DefaultLLMMaxTokens
)

// Options configures a client built by [New].
type Options struct {
	// URL is the API root, e.g. "https://api.openai.com/v1"; empty means
	// the provider's default. Model is the model name; empty means the
	// provider's default. APIKey is the key; empty sends none (local
	// servers need none).
	URL, Model, APIKey string
	// Timeout bounds each attempt (retries excluded): the whole answer of
	// a plain request, and for a streaming one the wait for the response
	// headers and then each silence in the stream. 0 means
	// [DefaultTimeout] (60s).
	Timeout time.Duration
	// MaxTokens is the default output cap in tokens; 0 means
	// [DefaultMaxTokens] (1024).
	MaxTokens int
	// MaxRetries is how many times a 429 or 5xx answer is retried: 0
	// means 4, negative means none.
	MaxRetries int
	// Backoff is the first wait between retries when the server sends no
	// Retry-After (it doubles per retry, with jitter; 0 means 500ms), and
	// MaxBackoff caps every wait, Retry-After included (0 means 30s).
	Backoff, MaxBackoff time.Duration
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives a record per retry; nil discards them.
	Logger *slog.Logger
}

// validate checks the fields every provider shares.
func (o Options) validate() error {
	if o.URL != "" {
		if _, err := httpjson.Endpoint(o.URL, ""); err != nil {
			return err
		}
	}
	switch {
	case o.Timeout < 0:
		return fmt.Errorf("negative timeout %s", o.Timeout)
	case o.MaxTokens < 0:
		return fmt.Errorf("negative MaxTokens %d", o.MaxTokens)
	case o.Backoff < 0 || o.MaxBackoff < 0:
		return errors.New("negative backoff")
	}
	return nil
}

// OutputCap returns the output cap for req: req.MaxTokens, else
// o.MaxTokens, else [DefaultMaxTokens].
func (o Options) OutputCap(req Request) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case o.MaxTokens > 0:
		return o.MaxTokens
	}
	return DefaultMaxTokens
}

// HTTPJSON returns the retrying JSON client a provider sends its requests
// with: o's timeout (default [DefaultTimeout]), retries and logger,
// header on every request, [ErrRateLimited] for an exhausted 429, and
// errorMessage to pull the service's message out of an error body.
func (o Options) HTTPJSON(header http.Header, errorMessage func(body []byte) string) *httpjson.Client {
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return &httpjson.Client{
		HTTP:         o.HTTPClient,
		Header:       header,
		MaxRetries:   o.MaxRetries,
		Backoff:      o.Backoff,
		MaxBackoff:   o.MaxBackoff,
		Timeout:      timeout,
		Logger:       o.Logger,
		ErrorMessage: errorMessage,
		RateLimited:  ErrRateLimited,
	}
}
