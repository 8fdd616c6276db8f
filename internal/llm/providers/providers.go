// Package providers registers every built-in LLM provider with
// internal/llm: importing it for its side effect makes "openai",
// "ollama" and "anthropic" available to [llm.New] and [llm.FromConfig].
// It has no API of its own; it exists so that the engine imports the
// provider set in one place and internal/llm imports none of them.
package providers

import (
	_ "github.com/ctx-dev/ctx/internal/llm/anthropic" // registers "anthropic"
	_ "github.com/ctx-dev/ctx/internal/llm/openai"    // registers "openai" and "ollama"
)
