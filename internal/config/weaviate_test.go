package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

// TestWeaviate: the server comes from CTX_WEAVIATE_URL and
// CTX_WEAVIATE_API_KEY verbatim, and unset variables leave empty fields.
func TestWeaviate(t *testing.T) {
	tests := []struct {
		name        string
		url, apiKey string
		want        config.WeaviateServer
	}{
		{name: "unset", want: config.WeaviateServer{}},
		{name: "url only", url: "http://127.0.0.1:8080", want: config.WeaviateServer{URL: "http://127.0.0.1:8080"}},
		{name: "url and key", url: "https://wv.example", apiKey: "k", want: config.WeaviateServer{URL: "https://wv.example", APIKey: "k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CTX_WEAVIATE_URL", tt.url)
			t.Setenv("CTX_WEAVIATE_API_KEY", tt.apiKey)
			if diff := cmp.Diff(tt.want, config.Weaviate()); diff != "" {
				t.Errorf("Weaviate() (-want +got):\n%s", diff)
			}
		})
	}
}
