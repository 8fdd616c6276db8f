package openai

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/llm"
)

// TestDefaults: each registered provider's URL and model when the options
// leave them empty, and the URL's trailing slash ignored otherwise.
func TestDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider     string
		opts         llm.Options
		wantEndpoint string
		wantModel    string
	}{
		{"openai", llm.Options{}, "https://api.openai.com/v1/chat/completions", "gpt-4o-mini"},
		{"ollama", llm.Options{}, "http://127.0.0.1:11434/v1/chat/completions", "llama3.2"},
		{"ollama", llm.Options{URL: "http://gpu-box:11434/v1/", Model: "qwen2.5-coder"}, "http://gpu-box:11434/v1/chat/completions", "qwen2.5-coder"},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			c, err := llm.New(tc.provider, tc.opts)
			if err != nil {
				t.Fatalf("llm.New(%s): %v", tc.provider, err)
			}
			oc := c.(*Client)
			if oc.endpoint != tc.wantEndpoint || c.Model() != tc.wantModel {
				t.Errorf("endpoint, model = %q, %q; want %q, %q", oc.endpoint, c.Model(), tc.wantEndpoint, tc.wantModel)
			}
		})
	}
}
