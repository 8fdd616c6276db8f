package engine

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestRemoteProviderNeverFolds: vectors from an embedding service (an
// OpenAI-compatible one here) stay in SQLite, where the content-addressed
// cache keeps every text ever embedded: they cost money to embed again.
func TestRemoteProviderNeverFolds(t *testing.T) {
	srv := newEmbeddingsServer(t, 8)
	root := spendRepo(t)
	e := openEngine(t, openaiConfig(t, srv.URL), root)
	if e.foldsVectors() {
		t.Fatalf("an OpenAI-compatible provider folds its vectors")
	}
	for range 2 {
		if _, err := e.Index(t.Context(), IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.Open(t.Context(), e.DBPath(), &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base, err := db.Meta(t.Context(), store.MetaVectorBase)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := db.EmbeddingKeys(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if base != "" || len(keys) == 0 || len(keys) != c.Vectors {
		t.Errorf("remote provider: base %q, %d stored vectors of %d; want no base and every vector stored", base, len(keys), c.Vectors)
	}
	if _, err := e.Find(t.Context(), FindRequest{Query: "retry", Channels: []string{"dense"}}); err != nil {
		t.Errorf("dense find: %v", err)
	}
}
