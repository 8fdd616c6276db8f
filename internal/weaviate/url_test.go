package weaviate_test

import (
	"flag"
	"testing"
)

var weaviateURL = flag.String("weaviate.url", "", "URL of a Weaviate server for the integration tests")

// testURL returns the Weaviate server the integration tests use, or
// skips the test.
func testURL(t *testing.T) string {
	t.Helper()
	if *weaviateURL == "" {
		t.Skip("no Weaviate server: pass -weaviate.url")
	}
	return *weaviateURL
}
