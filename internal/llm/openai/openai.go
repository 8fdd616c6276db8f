// Package openai is an [llm.Client] for servers that speak OpenAI's chat
// completions API, POST {URL}/chat/completions: OpenAI itself, vLLM, LM
// Studio, llama.cpp's server, OpenRouter, and Ollama's OpenAI-compatible
// /v1.
//
// Its init registers two providers with [llm.Register]: "openai"
// ([DefaultURL], [DefaultModel]) and "ollama" ([OllamaURL],
// [OllamaModel], normally without a key). Build clients with [llm.New] or
// [llm.FromConfig].
//
// A request carries the system prompt as a first "system" message, the
// output cap as max_tokens, and for [llm.Request].JSON the response_format
// {"type": "json_object"}. A streaming request sets "stream": true and
// asks for usage in the last chunk (stream_options.include_usage); the
// answer is server-sent events whose data are chunks with
// choices[0].delta.content, ending with "data: [DONE]". Servers that
// send no usage leave [llm.Response].Usage zero.
package openai

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

// Defaults of the two providers this package registers.
const (
	// DefaultURL and DefaultModel are the "openai" provider's defaults.
	DefaultURL   = "https://api.openai.com/v1"
	DefaultModel = "gpt-4o-mini"
	// OllamaURL and OllamaModel are the "ollama" provider's defaults: a
	// local Ollama's OpenAI-compatible API root and its small default
	// model.
	OllamaURL   = "http://127.0.0.1:11434/v1"
	OllamaModel = "llama3.2"
)

func init() {
	llm.Register("openai", func(o llm.Options) (llm.Client, error) {
		return newClient("openai", DefaultURL, DefaultModel, o)
	})
	llm.Register("ollama", func(o llm.Options) (llm.Client, error) {
		return newClient("ollama", OllamaURL, OllamaModel, o)
	})
}

// Client sends chat requests to an OpenAI-compatible server. It is safe
// for concurrent use.
type Client struct {
	name     string // the provider's registered name, for errors
	endpoint string
	model    string
	opts     llm.Options
	http     *httpjson.Client
}

func newClient(name, defURL, defModel string, o llm.Options) (*Client, error) {
	endpoint, err := httpjson.Endpoint(cmp.Or(o.URL, defURL), "/chat/completions")
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	if o.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.APIKey)
	}
	return &Client{
		name:     name,
		endpoint: endpoint,
		model:    cmp.Or(o.Model, defModel),
		opts:     o,
		http:     o.HTTPJSON(header, httpjson.OpenAIErrorMessage),
	}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.model }

// Chat sends req and returns the answer, streaming it through req.Stream
// when that is set. Errors (prefixed with the provider name) wrap
// [llm.ErrRateLimited] for a 429 that outlasted the retries or a
// rate-limit error in a stream, and ctx.Err() when ctx ends; others quote
// the HTTP status and the server's message, or say that the answer was
// malformed, cut short or empty.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := req.Validate(); err != nil {
		return llm.Response{}, fmt.Errorf("%s: %v", c.name, err)
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
		return resp, fmt.Errorf("%s: %w", c.name, err)
	}
	return resp, nil
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	MaxTokens      int             `json:"max_tokens"`
	Stream         bool            `json:"stream,omitempty"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type string `json:"type"`
}

func (c *Client) request(req llm.Request) chatRequest {
	out := chatRequest{
		Model:     c.model,
		Messages:  make([]chatMessage, 0, len(req.Messages)+1),
		MaxTokens: c.opts.OutputCap(req),
	}
	if req.System != "" {
		out.Messages = append(out.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, chatMessage{Role: m.Role, Content: m.Content})
	}
	if req.JSON {
		out.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	if req.Stream != nil {
		out.Stream = true
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return out
}

// usage is the token count of an answer or of a stream's last chunk.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// apiError describes an error object, wrapping [llm.ErrRateLimited] for a
// rate-limit error.
func apiError(e *httpjson.APIError) error {
	text := e.Describe()
	if strings.Contains(e.Type, "rate_limit") || strings.Contains(string(e.Code), "rate_limit") {
		return fmt.Errorf("%w: %s", llm.ErrRateLimited, text)
	}
	return errors.New(text)
}

// chatResponse is the part of a non-streaming answer ctx reads.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage             `json:"usage"`
	Error *httpjson.APIError `json:"error"`
}

func (c *Client) complete(ctx context.Context, body chatRequest) (llm.Response, error) {
	var r chatResponse
	if err := c.http.Post(ctx, c.endpoint, body, &r); err != nil {
		return llm.Response{}, err
	}
	resp := llm.Response{Model: cmp.Or(r.Model, c.model)}
	if r.Usage != nil {
		resp.Usage = llm.Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}
	}
	if r.Error != nil && len(r.Choices) == 0 {
		return resp, apiError(r.Error)
	}
	if len(r.Choices) == 0 {
		return resp, errors.New("empty completion: the answer has no choices")
	}
	ch := r.Choices[0]
	resp.StopReason = ch.FinishReason
	if ch.Message.Content != nil {
		resp.Text = *ch.Message.Content
	}
	if resp.Text == "" {
		if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
			return resp, fmt.Errorf("the model refused: %s", *ch.Message.Refusal)
		}
		return resp, fmt.Errorf("empty completion (finish reason %q)", resp.StopReason)
	}
	return resp, nil
}

// chunk is one event of a streaming answer.
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage             `json:"usage"`
	Error *httpjson.APIError `json:"error"`
}

func (c *Client) stream(ctx context.Context, body chatRequest, emit func(string)) (llm.Response, error) {
	rc, err := c.http.PostStream(ctx, c.endpoint, body)
	if err != nil {
		return llm.Response{}, err
	}
	defer rc.Close()
	resp := llm.Response{Model: c.model}
	var text, refusal strings.Builder
	done := false
	events := sse.NewReader(rc, 0)
	for !done {
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
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			done = true
			break
		}
		var ch chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			resp.Text = text.String()
			return resp, fmt.Errorf("decoding stream chunk: %v", err)
		}
		if ch.Error != nil {
			resp.Text = text.String()
			return resp, fmt.Errorf("error in stream: %w", apiError(ch.Error))
		}
		if ch.Model != "" {
			resp.Model = ch.Model
		}
		if ch.Usage != nil {
			resp.Usage = llm.Usage{InputTokens: ch.Usage.PromptTokens, OutputTokens: ch.Usage.CompletionTokens}
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				text.WriteString(d)
				emit(d)
			}
			refusal.WriteString(choice.Delta.Refusal)
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				resp.StopReason = *choice.FinishReason
			}
		}
	}
	resp.Text = text.String()
	if !done && resp.StopReason == "" {
		return resp, errors.New("stream ended before the answer was complete")
	}
	if resp.Text == "" {
		if refusal.Len() > 0 {
			return resp, fmt.Errorf("the model refused: %s", refusal.String())
		}
		return resp, fmt.Errorf("empty completion (finish reason %q)", resp.StopReason)
	}
	return resp, nil
}
