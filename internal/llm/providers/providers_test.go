package providers_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/llm"
	_ "github.com/ctx-dev/ctx/internal/llm/providers"
)

// TestNamesMatchConfig: the registered providers are exactly the ones
// internal/config accepts, so a valid configuration always builds.
func TestNamesMatchConfig(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"anthropic", "ollama", "openai"}, llm.Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
	for _, name := range append(llm.Names(), "gemini") {
		c := config.Default()
		c.LLM.Provider = name
		cfgErr := c.Validate()
		client, err := llm.FromConfig(c.LLM)
		if (cfgErr == nil) != (err == nil) {
			t.Errorf("provider %q: config.Validate = %v but llm.FromConfig = %v", name, cfgErr, err)
		}
		if err == nil && client == nil {
			t.Errorf("provider %q: FromConfig returned no client", name)
		}
	}
}
