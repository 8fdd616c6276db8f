package embed_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestPrefixesApply(t *testing.T) {
	t.Parallel()
	both := embed.Prefixes{Query: "q: ", Document: "d: "}
	tests := []struct {
		name string
		p    embed.Prefixes
		kind embed.InputKind
		want []string
	}{
		{"query", both, embed.Query, []string{"q: a", "q: b"}},
		{"document", both, embed.Document, []string{"d: a", "d: b"}},
		{"no query prefix", embed.Prefixes{Document: "d: "}, embed.Query, []string{"a", "b"}},
		{"none", embed.Prefixes{}, embed.Document, []string{"a", "b"}},
		{"unknown kind", both, embed.InputKind(7), []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			texts := []string{"a", "b"}
			got := tc.p.Apply(texts, tc.kind)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Apply mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"a", "b"}, texts); diff != "" {
				t.Errorf("Apply modified its input (-want +got):\n%s", diff)
			}
		})
	}
	if got := both.Apply(nil, embed.Query); len(got) != 0 {
		t.Errorf("Apply(nil) = %q, want empty", got)
	}
}
