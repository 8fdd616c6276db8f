package providers_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/rerank"
	_ "github.com/ctx-dev/ctx/internal/rerank/providers"
)

func TestLinked(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"cohere", "jina", "tei", "voyage"}, rerank.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	tests := []struct {
		c         config.Rerank
		wantModel string
	}{
		{config.Rerank{Provider: "cohere"}, "rerank-v3.5"},
		{config.Rerank{Provider: "jina"}, "jina-reranker-v2-base-multilingual"},
		{config.Rerank{Provider: "voyage"}, "rerank-2"},
		{config.Rerank{Provider: "voyage", Model: "rerank-2.5-lite"}, "rerank-2.5-lite"},
		{config.Rerank{Provider: "tei", URL: "http://127.0.0.1:8080"}, "tei"},
	}
	for _, tt := range tests {
		t.Run(tt.c.Provider+"/"+tt.wantModel, func(t *testing.T) {
			t.Parallel()
			r, err := rerank.FromConfig(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if r.Model() != tt.wantModel {
				t.Errorf("Model() = %q, want %q", r.Model(), tt.wantModel)
			}
		})
	}
	if _, err := rerank.FromConfig(config.Rerank{Provider: "tei"}); err == nil {
		t.Error("tei without a URL: no error")
	}
	if r, err := rerank.FromConfig(config.Rerank{}); r != nil || err != nil {
		t.Errorf("FromConfig(off) = %v, %v; want nil, nil", r, err)
	}
}
