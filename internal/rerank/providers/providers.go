// Package providers links every reranker into the binary: importing it
// registers "cohere", "jina" and "voyage" (package rerank/api) and "tei"
// (package rerank/tei) with rerank.Register, so that rerank.New and
// rerank.FromConfig find them. It has no API of its own.
package providers

import (
	// Registered for their side effect.
	_ "github.com/ctx-dev/ctx/internal/rerank/api"
	_ "github.com/ctx-dev/ctx/internal/rerank/tei"
)
