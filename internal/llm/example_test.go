package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/llm"
	_ "github.com/ctx-dev/ctx/internal/llm/openai" // registers "openai" and "ollama"
)

// Example builds the configured client and asks one question. What leaves
// the machine is the request body the server prints below: the model
// name, the system prompt and messages the caller wrote, and the output
// cap; nothing else is added.
func Example() {
	// A local stand-in for an OpenAI-compatible server (Ollama, here).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Printf("server got %s\n", body)
		json.NewEncoder(w).Encode(map[string]any{
			"model":   "llama3.2",
			"choices": []any{map[string]any{"message": map[string]any{"content": "BM25 and vectors"}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 21, "completion_tokens": 4},
		})
	}))
	defer srv.Close()

	client, err := llm.FromConfig(config.LLM{Provider: "ollama", URL: srv.URL + "/v1"})
	if err != nil || client == nil { // nil, nil: no provider configured
		fmt.Println(client, err)
		return
	}
	resp, err := client.Chat(context.Background(), llm.Request{
		System:    "Answer in five words or fewer.",
		Messages:  []llm.Message{{Role: "user", Content: "How does ctx rank results?"}},
		MaxTokens: 20,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q from %s, %d+%d tokens\n", resp.Text, resp.Model, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// server got {"model":"llama3.2","messages":[{"role":"system","content":"Answer in five words or fewer."},{"role":"user","content":"How does ctx rank results?"}],"max_tokens":20}
	// "BM25 and vectors" from llama3.2, 21+4 tokens
}
