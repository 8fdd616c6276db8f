package mcpserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/mcpserver"
)

// TestContextAnswer: context_answer asks the server's LLM (a local server
// speaking the OpenAI chat wire format) and removes the citation of a
// file the model was not shown.
func TestContextAnswer(t *testing.T) {
	t.Parallel()
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "It is configured in nowhere/invented.go:L1-L2."}}], "usage": {"prompt_tokens": 90, "completion_tokens": 9}}`)
	}))
	defer chat.Close()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll, llmURL: chat.URL + "/v1"})
	var out engine.AnswerResponse
	text := mustCall(t, e.cs, "context_answer", map[string]any{"question": "how is the configuration parsed"}, &out)
	if out.DroppedCitations != 1 || len(out.Citations) != 0 || strings.Contains(out.Answer, "invented.go") || out.Usage.InputTokens != 90 {
		t.Errorf("context_answer = %+v", out)
	}
	for _, want := range []string{"1 citation(s) named code the model was not shown", "ms LLM · 99 tokens · $0.0000"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestContextAnswerWithoutLLM: without an LLM the tool fails and names
// the settings.
func TestContextAnswerWithoutLLM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tools: mcpserver.ToolsAll})
	if msg, isErr := call(t, e.cs, "context_answer", map[string]any{"question": "anything"}, nil); !isErr || !strings.Contains(msg, "CTX_LLM_PROVIDER") {
		t.Errorf("isError %v, text %q: want an error naming CTX_LLM_PROVIDER", isErr, msg)
	}
}
