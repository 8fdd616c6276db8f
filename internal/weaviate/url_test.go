package weaviate_test

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/weaviatetest"
)

// testURL returns the shared Weaviate server of the integration tests, or
// skips the test when CTX_WEAVIATE_URL is unset.
func testURL(t *testing.T) string {
	t.Helper()
	return weaviatetest.URL(t)
}
