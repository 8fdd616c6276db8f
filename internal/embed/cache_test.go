package embed_test

import (
	"crypto/sha256"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

func TestCacheKey(t *testing.T) {
	t.Parallel()
	m := embed.Model{Provider: "ollama", Name: "nomic-embed-text", Dims: 768}
	got := embed.CacheKey(m, "func main() {}")
	sum := sha256.Sum256([]byte("ollama/nomic-embed-text@768\x00func main() {}"))
	if want := [embed.KeyBytes]byte(sum[:embed.KeyBytes]); got != want {
		t.Errorf("CacheKey = %x, want the first %d bytes of %x", got, embed.KeyBytes, sum)
	}

	distinct := []struct {
		name string
		m    embed.Model
		text string
	}{
		{"other text", m, "func main() { }"},
		{"other provider", embed.Model{Provider: "openai", Name: m.Name, Dims: m.Dims}, "func main() {}"},
		{"other model", embed.Model{Provider: m.Provider, Name: "mxbai-embed-large", Dims: m.Dims}, "func main() {}"},
		{"other dims", embed.Model{Provider: m.Provider, Name: m.Name, Dims: 512}, "func main() {}"},
		// Without the separator, moving bytes between the identity and
		// the text could produce the same digest input.
		{"shifted boundary", embed.Model{Provider: m.Provider, Name: m.Name, Dims: 76}, "8\x00func main() {}"},
	}
	for _, tc := range distinct {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if k := embed.CacheKey(tc.m, tc.text); k == got {
				t.Errorf("CacheKey(%v, %q) collides with CacheKey(%v, %q)", tc.m, tc.text, m, "func main() {}")
			}
		})
	}
}
